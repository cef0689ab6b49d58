/*
 * sort_parts.c — the order of a large sort on one exact 64-bit key (int8,
 * float8, timestamp, …) handed out while it is still being sorted.
 *
 * Where the caller reads the order front to back (an ORDER BY without
 * backward scans, mark/restore or rewinds), the pairs are split by key
 * range into parts of about 32k pairs (which a core's L2 cache holds), on
 * all threads, and a worker thread sorts the parts in key order
 * (core/part_sort.h): the rows of the first parts are emitted while the
 * later ones sort, and the sort's time leaves the node's critical path but
 * for the split and the first part.  The order is written over the pairs'
 * old memory (the split copied them out), NULLs first or last as always.
 *
 * The worker lives in a child of the sort's context: a reset or an error
 * deletes the child first, which joins the worker before the parent's
 * memory (the pairs it sorts, the order it writes) goes.
 */
#include "bitonic_sort.h"

#include "core/part_sort.h"

#include "miscadmin.h"
#include "utils/wait_event.h"
#include "utils/memutils.h"

/* Fewest pairs sorted in parts, pairs a part should hold, most parts. */
#define PARTS_MIN_PAIRS ((size_t) 256 * 1024)
#define PART_PAIRS ((size_t) 32 * 1024)
#define PARTS_MAX 256

/* A sort in parts, while its order is handed out. */
typedef struct BitonicParts
{
	bs_part_sort sort;
	MemoryContext cxt;			/* child of the sort's context: this, ranges, sample */
	BitonicMultiSort *ms;		/* whose parts field points here */
	size_t		npairs;
	size_t		offset;			/* the pairs' order starts here (after NULLs first) */
	size_t		nitems;			/* pairs and NULLs */
	BitonicRegion *region;		/* the split pairs */
	MemoryContextCallback stop_guard;
} BitonicParts;

/* Reset callback of the parts' context: join the worker, forget the parts. */
static void
stop_parts(void *arg)
{
	BitonicParts *parts = (BitonicParts *) arg;

	bs_part_sort_stop(&parts->sort);
	parts->ms->parts = NULL;
}

/*
 * Whether a sort of npairs pairs is done in parts: one exact 64-bit key, a
 * caller that reads the order front to back, at least two threads, and a
 * sort that would run on the CPU.
 */
bool
BitonicPartsWanted(const BitonicMultiSort *ms, size_t npairs)
{
	bs_backend	backend;
	bs_algorithm algorithm;

	if (!ms->order_read_forward || ms->kind != BITONIC_KIND_EXACT64 || ms->ncolumns != 1 ||
		npairs < PARTS_MIN_PAIRS || bitonic_sort_cpu_threads < 2)
		return false;
	BitonicSortChoice((double) npairs, true, &backend, &algorithm);
	return backend == BS_BACKEND_CPU;
}

/*
 * Where about npairs pairs are expected and would be sorted in parts, the
 * room they are split into, allocated now, so that the caller can have it
 * faulted in while the rows arrive (BitonicMultiSortSplitRoom) instead of
 * in the split.
 */
void
BitonicPartsReserve(BitonicMultiSort *ms, size_t npairs)
{
	if (ms->split != NULL || !BitonicPartsWanted(ms, npairs))
		return;
	ms->split = BitonicAllocPairs(ms->cxt, npairs * sizeof(bs_pair64), BITONIC_PAGES_SMALL,
								  &ms->split_region);
	ms->split_cap = npairs;
}

/*
 * Split the pairs into parts and start sorting them; the pointers go to
 * order from its first slot after the NULLs that come first (the caller
 * writes the NULLs).  Returns the bytes the split pairs take beyond the room
 * reserved (which BitonicMultiSortBytes already counts).
 */
size_t
BitonicPartsBegin(BitonicMultiSort *ms, uint32 *order)
{
	MemoryContext cxt = AllocSetContextCreate(ms->cxt, "bitonic_sort parts",
											  ALLOCSET_SMALL_SIZES);
	BitonicParts *parts = MemoryContextAllocZero(cxt, sizeof(BitonicParts));
	bs_key_ranges *ranges = MemoryContextAlloc(cxt, sizeof(bs_key_ranges));
	uint32		nparts = 2;
	uint64	   *sample;
	bs_pair64  *split;
	bs_backend	backend;
	bs_options	opt = {0};
	size_t		allocated = 0;

	while (nparts < PARTS_MAX && (size_t) nparts * 2 * PART_PAIRS <= ms->npairs)
		nparts *= 2;
	sample = MemoryContextAlloc(cxt, (size_t) nparts * BS_PART_SAMPLE * sizeof(uint64));
	if (ms->split_cap >= ms->npairs)
	{
		/* the room reserved: the parts own it now */
		split = ms->split;
		parts->region = ms->split_region;
	}
	else
	{
		/* more pairs than the planner expected: a larger room replaces the one counted */
		size_t		reserved = ms->split_cap * sizeof(bs_pair64);

		if (ms->split_region != NULL)
			BitonicRegionFreeAfter(ms->split_region, ms->prefaulter);
		split = BitonicAllocPairs(ms->cxt, ms->npairs * sizeof(bs_pair64), BITONIC_PAGES_SMALL,
								  &parts->region);
		allocated = BitonicRegionBytes(parts->region);
		allocated = allocated > reserved ? allocated - reserved : 0;
	}
	ms->split = NULL;
	ms->split_region = NULL;
	ms->split_cap = 0;
	parts->cxt = cxt;
	parts->ms = ms;
	parts->npairs = ms->npairs;
	parts->offset = ms->nulls_first ? ms->nnulls : 0;
	parts->nitems = ms->npairs + ms->nnulls;
	bs_part_sort_split(&parts->sort, ms->pairs64, ms->npairs, split, nparts, ranges, sample,
					   bitonic_sort_cpu_threads);

	BitonicSortChoice((double) ms->npairs, true, &backend, &opt.algorithm);
	opt.backend = BS_BACKEND_CPU;
#ifdef BITONIC_TEST_BUILD
	if (bitonic_sort_test_fault == BITONIC_FAULT_PART_SORT)
		opt.algorithm = (bs_algorithm) (BS_ALGO_VQSORT + 1);	/* no sorter has it */
#endif
	/* from here on the worker may run: the stop callback must be in place */
	parts->stop_guard.func = stop_parts;
	parts->stop_guard.arg = parts;
	MemoryContextRegisterResetCallback(cxt, &parts->stop_guard);
	ms->parts = parts;
	ms->sort_parts = nparts;
	bs_part_sort_start(&parts->sort, order + parts->offset, &opt);
	return allocated;
}

/*
 * How much of the order the last run returned is final, waiting until at
 * least `want` entries are (at most the items): all of it unless the run
 * sorts in parts.  A part the worker failed to sort is an ERROR.
 */
size_t
BitonicMultiSortReady(BitonicMultiSort *ms, size_t want)
{
	BitonicParts *parts = ms->parts;

	if (parts == NULL)
		return SIZE_MAX;
	for (;;)
	{
		bs_status	status;
		size_t		done = bs_part_sort_ready(&parts->sort, &status);
		size_t		ready = done == parts->npairs ? parts->nitems : parts->offset + done;

		if (status != BS_OK)
			ereport(ERROR,
					(errcode(status == BS_ERR_NOMEM ? ERRCODE_OUT_OF_MEMORY :
							 ERRCODE_INTERNAL_ERROR),
					 errmsg("bitonic sort failed: %s", bs_status_message(status))));
		if (done == parts->npairs && parts->region != NULL)
		{
			/* every part is sorted: the split pairs are no longer needed */
			bs_part_sort_stop(&parts->sort);
			BitonicRegionFreeAfter(parts->region, ms->prefaulter);
			parts->region = NULL;
		}
		if (ready >= Min(want, parts->nitems))
			return ready;
		CHECK_FOR_INTERRUPTS();
		/* pg_stat_activity shows wait_event_type Extension while emit waits for a part */
		pgstat_report_wait_start(PG_WAIT_EXTENSION);
		pg_usleep(20);
		pgstat_report_wait_end();
	}
}
