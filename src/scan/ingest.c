/*
 * ingest.c — rows placed by key range on a worker thread: the backend
 * reads the input and keys each row, the other core stores it.
 *
 * Once the key ranges are cut (place.c) and bitonic_sort.cpu_threads
 * allows a second thread, the backend no longer stores a row itself: it
 * computes the row's pair key (BitonicMultiSortKeyOf, once per row) and
 * copies the row, behind that key, into a staging buffer of 256 kB, which
 * the caches hold.  A full buffer goes to the worker, which finds each row's
 * key range, copies the row into its stream's chunk and adds its pair, while
 * the backend fills the other buffer.  The backend's share of a row is then
 * the scan, one attribute and a copy to cache; the range look-up and the
 * copy to a stream, a cache miss each, run on the other core.
 *
 * A row that lies in a shared buffer's page (a heap scan's, the usual
 * input) is not copied by the backend at all: it stages the row's address
 * and length, and pins the page until the worker has copied the row out of
 * it.  Each staged row then costs the backend 24 bytes written instead of
 * the row's own, into lines the worker has just read on the other core
 * (10M rows of 72 bytes, runs alternating: 1.45-1.71 s against 1.53-2.39 s
 * for the whole ORDER BY).  A pinned page's tuples stay where they are
 * (moving them needs the page's only pin), as for any slot that points into
 * a buffer.
 *
 * The worker calls nothing of PostgreSQL's: the backend makes room for the
 * buffer's pairs before it hands the buffer over, and a row whose stream
 * needs a new block (an allocation) stops the worker; the backend places
 * that row and the rest of the buffer itself when it next waits for the
 * worker.  The backend waits for the worker before it touches the store or
 * the pairs in any other way: before each hand-over, before the ranges are
 * cut again, before a spill and after the last row.
 *
 * A whole heap page (all-visible, no quals: heap_read.c) is staged as one
 * entry: the page's address, the bitmaps of its rows' line pointers and of
 * their NULL keys, and each row's key, which the backend computes while the
 * page it has just read is in its cache (8 bytes a row, against a staged
 * row's 24).  Keying the rows on the worker instead left the backend
 * waiting for it (10M rows of 72 bytes, pool pages, alternating: 1334
 * against 1409 ms median for the whole ORDER BY, 1469 staging row by row).
 * The key's range (its stream) is looked up on the worker, as for a row
 * staged alone: the backend bounds the reading, and the look-up was about
 * a third of its time in BitonicIngestPage (10M int8 rows, perf: 323-370
 * against 211-223 samples there, the worker's placement 183-206 against
 * 190-256).
 *
 * Rows reach the store in input order, as without the worker: a buffer is
 * placed only once the one before it is, so a stream's locators still grow
 * with input order and ties stay in input order.
 *
 * The buffers and the stop callback live in a child of the node's context:
 * a reset or an error deletes the child, which stops the worker, before the
 * parent's memory (the store's blocks, the pairs) goes.  An abort drops
 * the pins earlier than that (the resource owner's release comes before
 * the executor's memory goes, in a PL/pgSQL exception block too), so the
 * workers of a (sub)transaction that aborts are stopped by its abort
 * callback, which runs before the release: no worker reads a page after
 * its pin is gone.
 *
 * Nothing here spills: where the rows outgrow work_mem or the store can
 * name no more, the function says so (false) and the executor spills,
 * taking the rows still staged through BitonicIngestHandOver.
 */
#include "scan/ingest.h"

#include "core/cpu_features.h"
#include "core/worker.h"
#include "scan/heap_read.h"

#include "access/xact.h"
#include "executor/tuptable.h"
#include "lib/ilist.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

/* How far ahead of the row it writes the backend prefetches a buffer's lines. */
#define STAGE_PREFETCH 1024

/*
 * Pages one staging buffer may hold pinned; a buffer is handed over when
 * full or when its rows lie in that many pages.  Both buffers' pins stay
 * below the ring of 32 buffers a large heap scan recycles (a pinned ring
 * buffer makes the scan take another, evicting pages of other tables).
 */
#define STAGE_PINS 12

/*
 * A staged row: its key, and where its bytes (BitonicRowCopy's) are: in a
 * pinned page, or right after this header (MAXALIGNed) when bytes is NULL.
 */
typedef struct StagedRow
{
	uint64		key;			/* its pair key, 0 when isnull */
	uint32		isnull;			/* its first sort column is NULL */
	uint32		len;			/* bytes of the row */
	const char *bytes;			/* the row in a pinned page, or NULL: it follows */
} StagedRow;

StaticAssertDecl(sizeof(StagedRow) == BITONIC_STAGED_ROW_HEADER,
				 "BitonicIngestStages counts a staged row's header");

/* StagedRow.isnull of a staged page: a row's is 0 or 1. */
#define STAGED_PAGE 2

/*
 * A staged heap page taken whole: its rows are those of the line pointers
 * whose bits are set in taken (offset number - 1), in offset order.
 */
typedef struct StagedPage
{
	uint64		nrows;			/* bits set in taken */
	uint32		marker;			/* STAGED_PAGE, where a StagedRow has isnull */
	uint32		unused;
	const char *page;			/* the page, pinned */
	uint64		taken[BITONIC_PAGE_WORDS];
	uint64		nulls[BITONIC_PAGE_WORDS];	/* rows (taken order) of a NULL first sort column */
	/* then the rows' keys (page_keys) */
} StagedPage;

/* The keys of a staged page's rows, in taken order. */
static inline uint64 *
page_keys(const StagedPage *sp)
{
	return (uint64 *) (sp + 1);
}

/* Whether the staged page's row k (in taken order) has a NULL first sort column. */
static inline bool
page_row_isnull(const StagedPage *sp, int k)
{
	return (sp->nulls[k / 64] >> (k % 64)) & 1;
}

/* Bytes a staged page of nrows rows takes. */
static inline size_t
staged_page_size(size_t nrows)
{
	return sizeof(StagedPage) + nrows * sizeof(uint64);
}

StaticAssertDecl(offsetof(StagedPage, marker) == offsetof(StagedRow, isnull),
				 "a staged page is told from a staged row by the same field");

/*
 * A staging buffer: rows [placed, used) are still to be stored.  One cache
 * line each: the worker writes one while the backend fills the other.
 * Only the backend touches the pins.
 */
typedef struct StageBuffer
{
	char	   *data;
	size_t		used;
	size_t		placed;
	size_t		nrows;			/* rows staged in all */
	int			page_row;		/* rows of the staged page at placed already placed */
	Buffer	   *pins;			/* pages the staged rows lie in, pinned */
	int			npins;
} pg_attribute_aligned(64) StageBuffer;

/* Placement on a worker thread, while the node reads its input. */
typedef struct BitonicIngest
{
	bool		prefetchw;		/* the CPU has PREFETCHW */
	BitonicScanState *state;
	MemoryContext cxt;			/* child of the node's context: this and the buffers */
	bs_worker	worker;
	StageBuffer buffers[2];
	int			filling;		/* the buffer the backend fills */
	bool		handed;			/* the other one was handed to the worker */
	uint64		handovers;		/* buffers handed to the worker so far */
	MemoryContextCallback stop_guard;
	dlist_node	live;			/* in live_ingests while the worker may run */
	bool		listed;
	SubTransactionId subid;		/* the (sub)transaction the worker started in */
	ResourceOwner owner;		/* that holds the pins of the staged rows' pages */
} BitonicIngest;

/* Ingests whose worker may still run, for the abort callbacks. */
static dlist_head live_ingests = DLIST_STATIC_INIT(live_ingests);

/* Stop the worker and take the ingest off the live list (once or more). */
static void
stop_worker(void *arg)
{
	BitonicIngest *ingest = (BitonicIngest *) arg;

	bs_worker_stop(&ingest->worker);
	if (ingest->listed)
		dlist_delete(&ingest->live);
	ingest->listed = false;
}

/*
 * Stop the workers started in subtransaction `from` or in one inside it
 * (all of them for InvalidSubTransactionId, the whole transaction).
 */
static void
stop_aborted_workers(SubTransactionId from)
{
	dlist_mutable_iter iter;

	dlist_foreach_modify(iter, &live_ingests)
	{
		BitonicIngest *ingest = dlist_container(BitonicIngest, live, iter.cur);

		if (from == InvalidSubTransactionId || ingest->subid >= from)
			stop_worker(ingest);
	}
}

/* Transaction callback: an abort stops every worker before the pins go. */
static void
abort_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		stop_aborted_workers(InvalidSubTransactionId);
}

/* Subtransaction callback: an abort stops its workers (and its children's) before the pins go. */
static void
abort_subxact_callback(SubXactEvent event, SubTransactionId subid,
					   SubTransactionId parent, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		stop_aborted_workers(subid);
}

#ifdef BITONIC_TEST_BUILD
/*
 * Resource release callback of the test build, which runs after an owner's
 * buffer pins are released: a worker still running over pages of that
 * owner could read a page that is no longer pinned.
 */
static void
check_no_worker_past_pins(ResourceReleasePhase phase, bool isCommit, bool isTopLevel, void *arg)
{
	dlist_iter	iter;

	if (phase != RESOURCE_RELEASE_BEFORE_LOCKS)
		return;
	dlist_foreach(iter, &live_ingests)
	{
		BitonicIngest *ingest = dlist_container(BitonicIngest, live, iter.cur);

		if (ingest->owner == CurrentResourceOwner && ingest->worker.running)
			elog(WARNING, "bitonic_sort: an ingest worker still runs after its pages were unpinned");
	}
}
#endif

/* Register the abort callbacks, once per backend. */
static void
register_abort_callbacks(void)
{
	static bool registered = false;

	if (registered)
		return;
	RegisterXactCallback(abort_xact_callback, NULL);
	RegisterSubXactCallback(abort_subxact_callback, NULL);
#ifdef BITONIC_TEST_BUILD
	RegisterResourceReleaseCallback(check_no_worker_past_pins, NULL);
#endif
	registered = true;
}

/* Where a staged row's bytes are. */
static inline const char *
staged_bytes(const StagedRow *staged)
{
	return staged->bytes != NULL ? staged->bytes : (const char *) (staged + 1);
}

/* Whether a staged entry is a page taken whole rather than a row. */
static inline bool
staged_is_page(const StagedRow *staged)
{
	return staged->isnull == STAGED_PAGE;
}

/* Bytes a staged row or page takes in its buffer. */
static inline size_t
staged_size(const StagedRow *staged)
{
	if (staged_is_page(staged))
	{
		const StagedPage *sp = (const StagedPage *) staged;

		return staged_page_size(sp->nrows);
	}
	return sizeof(StagedRow) + (staged->bytes != NULL ? 0 : MAXALIGN(staged->len));
}

/* The next taken line pointer of a staged page from `from` on, or 0 past the last. */
static inline int
next_taken(const StagedPage *sp, int from)
{
	return BitonicPageNextTaken(sp->taken, from);
}

/* The heap row of a staged page at line pointer off (a taken one). */
static inline HeapTupleHeader
page_row(const StagedPage *sp, int off, uint32 *len)
{
	ItemId		item = PageGetItemId((Page) sp->page, (OffsetNumber) off);

	*len = ItemIdGetLength(item);
	return (HeapTupleHeader) (sp->page + ItemIdGetOffset(item));
}

/* Staged rows ahead of the one placed whose bytes the worker prefetches. */
#define PLACE_AHEAD 8

/*
 * Prefetch the first two lines of the bytes of the row staged at offset
 * `at` when they lie in a page (a copied-in row is in the buffer, which
 * the worker reads in order); the next row's offset.
 */
static inline size_t
prefetch_staged(const StageBuffer *buf, size_t at)
{
	const StagedRow *staged = (const StagedRow *) (buf->data + at);

	if (!staged_is_page(staged) && staged->bytes != NULL)
	{
		__builtin_prefetch(staged->bytes);
		__builtin_prefetch(staged->bytes + 64);
	}
	return at + staged_size(staged);
}

/* Rows whose pairs the worker adds together (it writes the pairs' counts once for them). */
#define PLACE_BATCH 64

/*
 * Placed rows whose pairs are still to be added, and the key ranges they
 * are placed by: the node's, read once per buffer (the backend writes the
 * row count next to them while the worker runs).
 */
typedef struct PlaceBatch
{
	const bs_key_ranges *ranges;
	uint32		nranges;		/* the NULL stream's number */
	int			n;
	uint32		items[PLACE_BATCH];
	uint64		keys[PLACE_BATCH];
	bool		isnull[PLACE_BATCH];
} PlaceBatch;

/* Add the batch's pairs. */
static inline void
flush_batch(BitonicScanState *state, PlaceBatch *batch)
{
	BitonicMultiSortPutKeyed(&state->ms, batch->items, batch->keys, batch->isnull, batch->n);
	batch->n = 0;
}

/*
 * Store one keyed row (BitonicRowCopy's bytes) in its key range's stream
 * and batch its pair; false as BitonicStorePlace.
 */
static inline bool
place_in_stream(BitonicScanState *state, PlaceBatch *batch, int stream, const char *bytes,
				uint32 len, uint64 key, bool isnull, bool may_grow)
{
	if (!BitonicStorePlace(&state->store, stream, bytes, len, may_grow,
						   &batch->items[batch->n]))
		return false;
	batch->keys[batch->n] = key;
	batch->isnull[batch->n] = isnull;
	if (++batch->n == PLACE_BATCH)
		flush_batch(state, batch);
	return true;
}

/* place_in_stream, in the stream of the row's key range. */
static inline bool
place_one(BitonicScanState *state, PlaceBatch *batch, const char *bytes, uint32 len,
		  uint64 key, bool isnull, bool may_grow)
{
	return place_in_stream(state, batch, BitonicKeyStream(batch->ranges, batch->nranges, key, isnull),
						   bytes, len, key, isnull, may_grow);
}

/* Rows of a staged page ahead of the one placed whose bytes the worker prefetches. */
#define PAGE_AHEAD 6

/*
 * Prefetch the first two lines of the staged page's next taken row from
 * line pointer `from` on; the line pointer after it, or 0 past the last.
 */
static inline int
prefetch_page_row(const StagedPage *sp, int from)
{
	int			off = next_taken(sp, from);
	uint32		len;
	const char *tuple;

	if (off == 0)
		return 0;
	tuple = (const char *) page_row(sp, off, &len);
	__builtin_prefetch(tuple);
	__builtin_prefetch(tuple + 64);
	return off + 1;
}

/*
 * Place the rows of a staged page from its row `*row` on (counted in taken
 * order); false, *row the first not placed, as place_in_stream.
 */
static bool
place_page(BitonicScanState *state, const StagedPage *sp, int *row, PlaceBatch *batch,
		   bool may_grow)
{
	int			off = 1;
	int			ahead;

	for (int skip = 0; skip < *row; skip++)
		off = next_taken(sp, off) + 1;
	/* the page was last written on the backend's core: ask for rows early */
	ahead = off;
	for (int i = 0; i < PAGE_AHEAD && ahead != 0; i++)
		ahead = prefetch_page_row(sp, ahead);
	while ((off = next_taken(sp, off)) != 0)
	{
		uint32		len;
		const char *tuple = (const char *) page_row(sp, off, &len);

		if (ahead != 0)
			ahead = prefetch_page_row(sp, ahead);
		if (!place_one(state, batch, tuple + MINIMAL_TUPLE_OFFSET, len - MINIMAL_TUPLE_OFFSET,
					   page_keys(sp)[*row], page_row_isnull(sp, *row), may_grow))
			return false;
		(*row)++;
		off++;
	}
	return true;
}

/*
 * Store the buffer's rows from buf->placed on, each in its key range's
 * stream, and add their pairs; false when a row's stream needs a new block
 * and !may_grow, or when the store can name no more rows.  Runs on the
 * worker (!may_grow: nothing of PostgreSQL's) or on the backend.  What the backend reads while the worker runs (the node's
 * state, the sort's settings) is only read here, and the buffer's progress
 * is written back once: a line both cores write would go back and forth
 * for every row.
 */
static bool
place_rows(BitonicScanState *state, StageBuffer *buf, bool may_grow)
{
	size_t		placed = buf->placed;
	int			page_row = buf->page_row;
	size_t		used = buf->used;
	size_t		ahead = placed;
	PlaceBatch	batch;
	bool		ok = true;

	batch.ranges = state->ranges;
	batch.nranges = state->nranges;
	batch.n = 0;
	/* the rows in pages were last written on the backend's core: ask for them early */
	for (int i = 0; i < PLACE_AHEAD && ahead < used; i++)
		ahead = prefetch_staged(buf, ahead);
	while (placed < used)
	{
		StagedRow  *staged = (StagedRow *) (buf->data + placed);

		if (ahead < used)
			ahead = prefetch_staged(buf, ahead);
		if (staged_is_page(staged))
		{
			if (!place_page(state, (const StagedPage *) staged, &page_row, &batch, may_grow))
			{
				ok = false;
				break;
			}
			page_row = 0;
		}
		else if (!place_one(state, &batch, staged_bytes(staged), staged->len, staged->key,
							staged->isnull, may_grow))
		{
			ok = false;
			break;
		}
		placed += staged_size(staged);
	}
	flush_batch(state, &batch);
	buf->placed = placed;
	buf->page_row = page_row;
	return ok;
}

/* Worker job: place the handed buffer as far as no allocation is needed. */
static void
place_job(void *arg)
{
	BitonicIngest *ingest = (BitonicIngest *) arg;

	(void) place_rows(ingest->state, &ingest->buffers[1 - ingest->filling], false);
}

/*
 * Start placing rows on a worker thread (the key ranges are cut); nothing
 * happens when the thread cannot start.
 */
void
BitonicIngestStart(BitonicScanState *state)
{
	MemoryContext cxt = AllocSetContextCreate(state->cxt, "bitonic_sort ingest",
											  ALLOCSET_SMALL_SIZES);
	BitonicIngest *ingest = MemoryContextAllocZero(cxt, sizeof(BitonicIngest));

	Assert(state->nranges > 0 && state->nbatch == 0);
	register_abort_callbacks();
	if (!bs_worker_start(&ingest->worker))
	{
		MemoryContextDelete(cxt);
		return;
	}
	ingest->state = state;
	ingest->cxt = cxt;
	ingest->prefetchw = bs_cpu_has_prefetchw();
	ingest->subid = GetCurrentSubTransactionId();
	ingest->owner = CurrentResourceOwner;
	dlist_push_head(&live_ingests, &ingest->live);
	ingest->listed = true;
	ingest->stop_guard.func = stop_worker;
	ingest->stop_guard.arg = ingest;
	MemoryContextRegisterResetCallback(cxt, &ingest->stop_guard);
	for (int i = 0; i < 2; i++)
	{
		ingest->buffers[i].data = MemoryContextAlloc(cxt, BITONIC_STAGE_BYTES);
		ingest->buffers[i].pins = MemoryContextAlloc(cxt, STAGE_PINS * sizeof(Buffer));
	}
	state->ingest = ingest;
}

/* Empty a buffer whose rows are stored: its pages are unpinned. */
static void
clear_buffer(StageBuffer *buf)
{
	for (int i = 0; i < buf->npins; i++)
		ReleaseBuffer(buf->pins[i]);
	buf->npins = 0;
	buf->used = 0;
	buf->placed = 0;
	buf->page_row = 0;
	buf->nrows = 0;
}

/*
 * The shared buffer whose page holds the slot's row as BitonicRowOpen found
 * it, or InvalidBuffer (the row is copied in).
 */
static Buffer
row_page(TupleTableSlot *slot, const BitonicRowSource *src)
{
	if (!TTS_IS_BUFFERTUPLE(slot) || src->bytes == NULL || src->should_free)
		return InvalidBuffer;
	return ((BufferHeapTupleTableSlot *) slot)->buffer;
}

/* Whether staging a row of this page (or none) pins a page the buffer has not. */
static inline bool
needs_pin(const StageBuffer *buf, Buffer page)
{
	return BufferIsValid(page) && (buf->npins == 0 || buf->pins[buf->npins - 1] != page);
}

/*
 * Place the buffer's rows that are left on the backend, which may open
 * blocks; false when the store can name no more rows (the caller spills:
 * the rows not placed stay staged for the hand-over).
 */
static bool
place_rest(BitonicScanState *state, StageBuffer *buf)
{
	BitonicMultiSortMakeRoom(&state->ms, buf->nrows);
	if (!place_rows(state, buf, true))
		return false;
	clear_buffer(buf);
	return true;
}

/*
 * Wait for the worker and place what it left of its buffer; false when
 * the store can name no more rows (the caller spills).
 */
static bool
settle(BitonicScanState *state)
{
	BitonicIngest *ingest = state->ingest;

	if (!ingest->handed)
		return true;
	bs_worker_wait(&ingest->worker);
	/* still handed while it is placed: a spill takes its rows that are left */
	if (!place_rest(state, &ingest->buffers[1 - ingest->filling]))
		return false;
	ingest->handed = false;
	return true;
}

/*
 * The filling buffer is full: once the worker is done with the other one,
 * hand this one over and fill the other; false, handing nothing over, when
 * the rows have outgrown work_mem or the store can name no more (the
 * caller spills).
 */
static bool
hand_over(BitonicScanState *state)
{
	BitonicIngest *ingest = state->ingest;
	StageBuffer *buf = &ingest->buffers[ingest->filling];
	size_t		held;

	if (!settle(state))
		return false;
	held = BitonicScanHeldBytes(state);
	state->peak_bytes = Max(state->peak_bytes, held);
	if (held > state->mem_limit)
		return false;
	BitonicMultiSortMakeRoom(&state->ms, buf->nrows);
	BitonicScanBoundStore(state);
	ingest->filling = 1 - ingest->filling;
	ingest->handed = true;
	bs_worker_run(&ingest->worker, place_job, ingest);
	ingest->handovers++;
#ifdef BITONIC_TEST_BUILD
	if (bitonic_sort_test_fault == BITONIC_FAULT_INGEST && ingest->handovers == 3)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("bitonic_sort test fault: an error while the ingest worker places rows")));
#endif
	return true;
}

/*
 * Place every staged row (the worker's and the filling buffer's) on the
 * backend; the worker is then idle.  False when the store can name no more
 * rows: the caller spills, which takes the rows still staged.
 */
bool
BitonicIngestDrain(BitonicScanState *state)
{
	return settle(state) &&
		place_rest(state, &state->ingest->buffers[state->ingest->filling]);
}

/*
 * Fetch the line at offset `at` of the staging buffer for writing (nothing
 * past its end).  A plain prefetch of a line the worker read last leaves it
 * shared between the cores, and the backend's store into it then waits for
 * the worker's core to let it go, with every store behind it (at 10M rows,
 * the scan's next store to its slot stalled on those: 10-25% of the
 * backend's time under perf, 1.4% with PREFETCHW).
 */
static inline void
prefetch_for_write(const BitonicIngest *ingest, const StageBuffer *buf, size_t at)
{
	const char *p = buf->data + at;

	if (at >= BITONIC_STAGE_BYTES)
		return;
#if defined(__x86_64__) || defined(__i386__)
	if (ingest->prefetchw)
	{
		__asm__ volatile("prefetchw %0" : : "m"(*p));
		return;
	}
#endif
	__builtin_prefetch(p, 1);
}

/*
 * A row too large to stage: place every staged row, then this one; false,
 * placing nothing more, when the store cannot name them (the caller spills
 * and the row starts the next run).
 */
static bool
place_large_row(BitonicScanState *state, TupleTableSlot *slot, uint64 key, bool isnull)
{
	uint32		locator;
	int			stream;

	if (!BitonicIngestDrain(state))
		return false;
	stream = BitonicKeyStream(state->ranges, state->nranges, key, isnull);
	if (!BitonicStoreAdd(&state->store, slot, stream, &locator))
		return false;
	BitonicMultiSortMakeRoom(&state->ms, 1);
	BitonicMultiSortPutKeyed(&state->ms, &locator, &key, &isnull, 1);
	state->ntuples++;
	return true;
}

/*
 * The filling buffer with `need` bytes free and room for one more pin of
 * page (or none), handing the full one to the worker first; NULL when the
 * rows have outgrown work_mem or the store can name no more (the caller
 * spills).
 */
static StageBuffer *
staging_room(BitonicScanState *state, size_t need, Buffer page)
{
	BitonicIngest *ingest = state->ingest;
	StageBuffer *buf = &ingest->buffers[ingest->filling];

	if (buf->used + need > BITONIC_STAGE_BYTES || (buf->npins == STAGE_PINS && needs_pin(buf, page)))
	{
		if (!hand_over(state))
			return NULL;
		buf = &ingest->buffers[ingest->filling];
	}
	return buf;
}

/* Keep page pinned until the buffer's rows are stored (once per buffer). */
static void
keep_pinned(StageBuffer *buf, Buffer page)
{
	if (needs_pin(buf, page))
	{
		IncrBufferRefCount(page);
		buf->pins[buf->npins++] = page;
	}
}

/*
 * Stage one keyed row whose bytes src names (in the pinned page `page`, or
 * formed from slot when page is invalid), handing the buffer to the worker
 * when full; false, the row not taken, when the rows have outgrown
 * work_mem or the store can name no more (the caller spills).
 */
static bool
stage_row(BitonicScanState *state, TupleTableSlot *slot, const BitonicRowSource *src,
		  Buffer page, uint64 key, bool isnull)
{
	/* room for the row copied in, whether or not it is */
	StageBuffer *buf = staging_room(state, sizeof(StagedRow) + MAXALIGN(src->len), page);
	StagedRow  *staged;

	if (buf == NULL)
		return false;
	staged = (StagedRow *) (buf->data + buf->used);
	staged->key = key;
	staged->isnull = isnull;
	staged->len = (uint32) src->len;
	if (BufferIsValid(page))
	{
		keep_pinned(buf, page);
		staged->bytes = src->bytes;
	}
	else
	{
		staged->bytes = NULL;
		BitonicRowWrite(slot, src, (MinimalTuple) (staged + 1));
	}
	buf->used += staged_size(staged);
	/* the worker read these lines last: ask for them well before they are written */
	prefetch_for_write(state->ingest, buf, buf->used + STAGE_PREFETCH);
	prefetch_for_write(state->ingest, buf, buf->used + STAGE_PREFETCH + 64);
	buf->nrows++;
	state->ntuples++;
	return true;
}

/*
 * Take one input row: key it and stage it, handing the buffer to the worker
 * when full; false, the row not taken, when the rows have outgrown
 * work_mem or the store can name no more (the caller spills, and the
 * row starts the next run).
 */
bool
BitonicIngestRow(BitonicScanState *state, TupleTableSlot *slot)
{
	bool		isnull;
	Datum		value = slot_getattr(slot, state->keys.attnos[0], &isnull);
	uint64		key = isnull ? 0 : BitonicMultiSortKeyIn(&state->ms, value);
	BitonicRowSource src;
	bool		taken;

	BitonicRowOpen(slot, &state->store.layout, &src);
	if (!BitonicIngestStages(src.len))
	{
		BitonicRowClose(&src);
		return place_large_row(state, slot, key, isnull);
	}
	taken = stage_row(state, slot, &src, row_page(slot, &src), key, isnull);
	BitonicRowClose(&src);
	return taken;
}

/*
 * Take one keyed heap row that lies in the pinned page `page` (read by the
 * node itself: heap_read.c), staged by its address; as BitonicIngestRow.
 */
bool
BitonicIngestPageRow(BitonicScanState *state, HeapTuple row, Buffer page, uint64 key,
					 bool isnull)
{
	BitonicRowSource src = {0};

	Assert(BufferIsValid(page) && BitonicIngestStages(row->t_len - MINIMAL_TUPLE_OFFSET));
	src.bytes = (const char *) row->t_data + MINIMAL_TUPLE_OFFSET;
	src.len = row->t_len - MINIMAL_TUPLE_OFFSET;
	return stage_row(state, NULL, &src, page, key, isnull);
}

/*
 * Key the rows of a page staged whole (on the backend, while the page is in
 * its cache); the worker finds their streams.
 */
static void
key_page(BitonicScanState *state, const BitonicHeapPage *page, StagedPage *sp)
{
	uint64	   *keys = page_keys(sp);
	int			off = 1;
	int			k = 0;

	memset(sp->nulls, 0, sizeof(sp->nulls));

	while ((off = next_taken(sp, off)) != 0)
	{
		HeapTupleData tuple;
		bool		isnull;
		Datum		value;
		uint64		key;

		tuple.t_data = page_row(sp, off, &tuple.t_len);
		value = heap_getattr(&tuple, page->key_attno, page->tupdesc, &isnull);
		key = isnull ? 0 : BitonicMultiSortKeyIn(&state->ms, value);
		keys[k] = key;
		sp->nulls[k / 64] |= (uint64) isnull << (k % 64);
		k++;
		off++;
	}
}

/*
 * Take the rows of a heap page read whole by the node (heap_read.c),
 * staged as the page's address, its rows' line pointers, NULLs and keys;
 * as BitonicIngestRow.
 */
bool
BitonicIngestPage(BitonicScanState *state, const BitonicHeapPage *page)
{
	StageBuffer *buf = staging_room(state, staged_page_size(page->nrows), page->buffer);
	StagedPage *sp;

	Assert(page->whole && page->key_attno > 0);
	if (buf == NULL)
		return false;
	sp = (StagedPage *) (buf->data + buf->used);
	sp->nrows = page->nrows;
	sp->marker = STAGED_PAGE;
	sp->page = (const char *) BufferGetPage(page->buffer);
	memcpy(sp->taken, page->taken, sizeof(sp->taken));
	key_page(state, page, sp);
	keep_pinned(buf, page->buffer);
	buf->used += staged_page_size(page->nrows);
	/* the lines of the next pages, as stage_row asks for a row's */
	for (size_t line = 0; line < staged_page_size(page->nrows); line += 64)
		prefetch_for_write(state->ingest, buf, buf->used + STAGE_PREFETCH + line);
	buf->nrows += page->nrows;
	state->ntuples += page->nrows;
	return true;
}

/*
 * Give stage a copy of one staged row (BitonicRowCopy's bytes); the node
 * no longer counts it among its rows.
 */
static void
hand_over_row(BitonicScanState *state, const char *bytes, uint32 len, Tuplestorestate *stage)
{
	MinimalTuple copy = palloc(len);

	BitonicRowCopy(copy, bytes, len);
	ExecStoreMinimalTuple(copy, state->slot, true);
	tuplestore_puttupleslot(stage, state->slot);
	ExecClearTuple(state->slot);
	Assert(state->ntuples > 0);
	state->ntuples--;
}

/* Give the rows of a staged page from its row `row` on to stage, in order. */
static void
hand_over_page(BitonicScanState *state, const StagedPage *sp, int row, Tuplestorestate *stage)
{
	int			off = 1;
	int			k = 0;

	while ((off = next_taken(sp, off)) != 0)
	{
		if (k++ >= row)
		{
			uint32		len;
			HeapTupleHeader tuple = page_row(sp, off, &len);

			hand_over_row(state, (const char *) tuple + MINIMAL_TUPLE_OFFSET,
						  len - MINIMAL_TUPLE_OFFSET, stage);
		}
		off++;
	}
}

/*
 * The rows outgrow work_mem: give the rows still staged, in the order
 * staged, to stage (they were read after every placed row, and start the
 * next run of the external sort) and stop the worker; the placed rows are
 * then sorted as at the end of the input.
 */
void
BitonicIngestHandOver(BitonicScanState *state, Tuplestorestate *stage)
{
	BitonicIngest *ingest = state->ingest;
	StageBuffer *order[2];
	int			nbuffers = 0;

	bs_worker_wait(&ingest->worker);
	/* the handed buffer's rows came first */
	if (ingest->handed)
		order[nbuffers++] = &ingest->buffers[1 - ingest->filling];
	order[nbuffers++] = &ingest->buffers[ingest->filling];
	for (int i = 0; i < nbuffers; i++)
	{
		StageBuffer *buf = order[i];

		while (buf->placed < buf->used)
		{
			StagedRow  *staged = (StagedRow *) (buf->data + buf->placed);

			if (staged_is_page(staged))
			{
				hand_over_page(state, (const StagedPage *) staged, buf->page_row, stage);
				buf->page_row = 0;
			}
			else
				hand_over_row(state, staged_bytes(staged), staged->len, stage);
			buf->placed += staged_size(staged);
		}
		clear_buffer(buf);
	}
	BitonicIngestStop(state);
}

/*
 * Stop the worker, unpin the pages of rows still staged and free the
 * buffers, placing nothing more (after a drain or a hand-over, or when the
 * rows are forgotten).  Not on an error: the transaction's abort has
 * dropped the pins, and the context's reset stops the worker.
 */
void
BitonicIngestStop(BitonicScanState *state)
{
	BitonicIngest *ingest = state->ingest;

	if (ingest == NULL)
		return;
	bs_worker_stop(&ingest->worker);
	for (int i = 0; i < 2; i++)
		clear_buffer(&ingest->buffers[i]);
	MemoryContextDelete(ingest->cxt);
	state->ingest = NULL;
}
