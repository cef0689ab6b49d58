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
 * Rows reach the store in input order, as without the worker: a buffer is
 * placed only once the one before it is, so a stream's locators still grow
 * with input order and ties stay in input order.
 *
 * The buffers and the stop callback live in a child of the node's context:
 * a reset or an error deletes the child, which stops the worker, before the
 * parent's memory (the store's blocks, the pairs) goes.
 *
 * Nothing here spills: where the rows outgrow work_mem or the store can
 * name no more, the function says so (false) and the executor spills,
 * taking the rows still staged through BitonicIngestHandOver.
 */
#include "scan/ingest.h"

#include "core/cpu_features.h"
#include "core/worker.h"

#include "executor/tuptable.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"

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
} BitonicIngest;

/* Reset callback of the ingest's context: the worker must not outlive the memory. */
static void
stop_worker(void *arg)
{
	BitonicIngest *ingest = (BitonicIngest *) arg;

	bs_worker_stop(&ingest->worker);
}

/* Where a staged row's bytes are. */
static inline const char *
staged_bytes(const StagedRow *staged)
{
	return staged->bytes != NULL ? staged->bytes : (const char *) (staged + 1);
}

/* Bytes a staged row takes in its buffer. */
static inline size_t
staged_size(const StagedRow *staged)
{
	return sizeof(StagedRow) + (staged->bytes != NULL ? 0 : MAXALIGN(staged->len));
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

	if (staged->bytes != NULL)
	{
		__builtin_prefetch(staged->bytes);
		__builtin_prefetch(staged->bytes + 64);
	}
	return at + staged_size(staged);
}

/* Rows whose pairs the worker adds together (it writes the pairs' counts once for them). */
#define PLACE_BATCH 64

/*
 * Store the buffer's rows from buf->placed on, each in its key range's
 * stream, and add their pairs; false when a row's stream needs a new block
 * and !may_grow, or when the store can name no more rows.  Runs on the
 * worker (!may_grow: nothing of PostgreSQL's) or on the backend.  What the
 * backend reads while the worker runs (the node's state, the sort's
 * settings) is only read here, and the buffer's progress is written back
 * once: a line both cores write would go back and forth for every row.
 */
static bool
place_rows(BitonicScanState *state, StageBuffer *buf, bool may_grow)
{
	const bs_key_ranges *ranges = state->ranges;
	uint32		nranges = state->nranges;
	size_t		placed = buf->placed;
	size_t		used = buf->used;
	size_t		ahead = placed;
	uint32		items[PLACE_BATCH];
	uint64		keys[PLACE_BATCH];
	bool		isnull[PLACE_BATCH];
	int			n = 0;
	bool		ok = true;

	/* the rows in pages were last written on the backend's core: ask for them early */
	for (int i = 0; i < PLACE_AHEAD && ahead < used; i++)
		ahead = prefetch_staged(buf, ahead);
	while (placed < used)
	{
		StagedRow  *staged = (StagedRow *) (buf->data + placed);
		int			stream = BitonicKeyStream(ranges, nranges, staged->key, staged->isnull);

		if (ahead < used)
			ahead = prefetch_staged(buf, ahead);

		if (!BitonicStorePlace(&state->store, stream, staged_bytes(staged), staged->len,
							   may_grow, &items[n]))
		{
			ok = false;
			break;
		}
		keys[n] = staged->key;
		isnull[n] = staged->isnull;
		placed += staged_size(staged);
		if (++n == PLACE_BATCH)
		{
			BitonicMultiSortPutKeyed(&state->ms, items, keys, isnull, n);
			n = 0;
		}
	}
	BitonicMultiSortPutKeyed(&state->ms, items, keys, isnull, n);
	buf->placed = placed;
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
	if (!bs_worker_start(&ingest->worker))
	{
		MemoryContextDelete(cxt);
		return;
	}
	ingest->state = state;
	ingest->cxt = cxt;
	ingest->prefetchw = bs_cpu_has_prefetchw();
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
 * Fetch the staging line at p for writing.  A plain prefetch of a line the
 * worker read last leaves it shared between the cores, and the backend's
 * store into it then waits for the worker's core to let it go, with every
 * store behind it (at 10M rows, the scan's next store to its slot stalled
 * on those: 10-25% of the backend's time under perf, 1.4% with PREFETCHW).
 */
static inline void
prefetch_for_write(const BitonicIngest *ingest, const char *p)
{
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
 * and gives the row to tuplesort).
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
 * Stage one keyed row whose bytes src names (in the pinned page `page`, or
 * formed from slot when page is invalid), handing the buffer to the worker
 * when full; false, the row not taken, when the rows have outgrown
 * work_mem or the store can name no more (the caller spills).
 */
static bool
stage_row(BitonicScanState *state, TupleTableSlot *slot, const BitonicRowSource *src,
		  Buffer page, uint64 key, bool isnull)
{
	size_t		need = sizeof(StagedRow) + MAXALIGN(src->len);
	StageBuffer *buf = &state->ingest->buffers[state->ingest->filling];
	StagedRow  *staged;

	/* room for the row copied in, whether or not it is */
	if (buf->used + need > BITONIC_STAGE_BYTES || (buf->npins == STAGE_PINS && needs_pin(buf, page)))
	{
		if (!hand_over(state))
			return false;
	}
	buf = &state->ingest->buffers[state->ingest->filling];
	staged = (StagedRow *) (buf->data + buf->used);
	staged->key = key;
	staged->isnull = isnull;
	staged->len = (uint32) src->len;
	if (BufferIsValid(page))
	{
		if (needs_pin(buf, page))
		{
			IncrBufferRefCount(page);
			buf->pins[buf->npins++] = page;
		}
		staged->bytes = src->bytes;
	}
	else
	{
		staged->bytes = NULL;
		BitonicRowWrite(slot, src, (MinimalTuple) (staged + 1));
	}
	buf->used += staged_size(staged);
	/* the worker read these lines last: ask for them well before they are written */
	prefetch_for_write(state->ingest, buf->data + buf->used + STAGE_PREFETCH);
	prefetch_for_write(state->ingest, buf->data + buf->used + STAGE_PREFETCH + 64);
	buf->nrows++;
	state->ntuples++;
	return true;
}

/*
 * Take one input row: key it and stage it, handing the buffer to the worker
 * when full; false, the row not taken, when the rows have outgrown
 * work_mem or the store can name no more (the caller spills and gives the
 * row to tuplesort).
 */
bool
BitonicIngestRow(BitonicScanState *state, TupleTableSlot *slot)
{
	bool		isnull;
	Datum		value = slot_getattr(slot, state->keys.attnos[0], &isnull);
	uint64		key = isnull ? 0 : BitonicMultiSortKeyOf(&state->ms, value);
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
 * A spill has begun: give the rows still staged, in input order, to ts and
 * stop the worker.
 */
void
BitonicIngestHandOver(BitonicScanState *state, Tuplesortstate *ts)
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
			MinimalTuple row = palloc(staged->len);

			BitonicRowCopy(row, staged_bytes(staged), staged->len);
			ExecStoreMinimalTuple(row, state->slot, true);
			tuplesort_puttupleslot(ts, state->slot);
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
