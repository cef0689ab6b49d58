/*
 * spill.c — when the rows of a BitonicSort node outgrow work_mem, the node
 * hands every row it holds, and the rest of its input, to PostgreSQL's
 * tuplesort, which sorts on disk where it must.
 *
 * The hand-over never holds more than work_mem either.  Handing the rows
 * to a tuplesort directly would hold two copies at once: the node's, up to
 * work_mem, and the tuplesort's, up to work_mem again (10M rows at
 * work_mem 700MB: 1.39 GB of anonymous memory against the native Sort's
 * 0.84 GB).  So the rows held go first to a stage, a tuplestore of 64 kB
 * whose rows go on to a temporary file (temp_tablespaces, temp_file_limit,
 * log_temp_files and the clean-up at an error apply, as to any sort's
 * files), and the node frees its memory behind them, block by block; only
 * then does a tuplesort of work_mem read them back, and the rest of the
 * input after them.  The rows held are written and read once more than
 * the native sort would (at most work_mem of them).
 *
 * The node's Peak Memory counts what it holds plus the stage's memory
 * while the rows go out; Spill Peak Memory, the tuplesort's, read from its
 * context once the rows are in and once they are sorted (PostgreSQL's own:
 * its blocks and merge buffers may pass work_mem, as the native Sort's do).
 */
#include "scan/spill.h"
#include "scan/ingest.h"
#include "scan/values.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/memutils.h"

/* Memory of the stage before its rows go to its temporary file. */
#define SPILL_STAGE_KB 64

/* Bytes the node's rows, or its values, hold now. */
static size_t
held_bytes(BitonicScanState *state)
{
	return BitonicScanHeldBytes(state) +
		(state->values != NULL ? BitonicValuesBytes(state) : 0);
}

/* Count what the node holds now, with what cxt holds, in its peak. */
static void
note_peak(BitonicScanState *state, MemoryContext cxt)
{
	state->peak_bytes = Max(state->peak_bytes,
							held_bytes(state) + MemoryContextMemAllocated(cxt, true));
}

/* Count the tuplesort's memory (the spill's context) in its peak. */
static void
note_spill_peak(BitonicScanState *state)
{
	state->spill_peak_bytes = Max(state->spill_peak_bytes,
								  MemoryContextMemAllocated(state->spill_cxt, true));
}

/*
 * The rows held into stage: those still staged for the worker first (in
 * the order staged), then the store's, whose blocks are freed behind the
 * walk, or the values kept as keys alone.
 */
static void
stage_rows(BitonicScanState *state, Tuplestorestate *stage)
{
	BitonicStoreIter iter = {0, 0};
	MinimalTuple mt;
	size_t		i = 0;

	/* the worker is stopped before the store is read */
	if (state->ingest != NULL)
		BitonicIngestHandOver(state, stage);
	/* the spare block, the pairs and the sort's scratch are not needed to read the rows */
	BitonicStoreFinish(&state->store);
	BitonicMultiSortReset(&state->ms, true);
	BitonicStoreCloseChunks(&state->store);
	note_peak(state, state->spill_cxt);
	while ((mt = BitonicStoreNext(&state->store, &iter)) != NULL)
	{
		ExecStoreMinimalTuple(mt, state->slot, false);
		tuplestore_puttupleslot(stage, state->slot);
		if (iter.block > state->store.released)
		{
			note_peak(state, state->spill_cxt);
			BitonicStoreRelease(&state->store, iter.block);
		}
		if ((i++ & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	ExecClearTuple(state->slot);
	note_peak(state, state->spill_cxt);
	if (state->values != NULL)
		BitonicValuesSpill(state, stage);
}

/*
 * The rows the node holds, moved to a stage on disk (in the spill's
 * context), their memory freed; the caller then forgets the rest of the
 * node's sort and gives the stage to BitonicSpillSort.
 */
Tuplestorestate *
BitonicSpillStage(BitonicScanState *state)
{
	MemoryContext old;
	Tuplestorestate *stage;

	if (state->spill_cxt == NULL)
		state->spill_cxt = AllocSetContextCreate(MemoryContextGetParent(state->cxt),
												 "bitonic_sort spill", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(state->spill_cxt);
	stage = tuplestore_begin_heap(false, false, SPILL_STAGE_KB);
	MemoryContextSwitchTo(old);
	stage_rows(state, stage);
	return stage;
}

/*
 * A tuplesort of work_mem (in the spill's context) holding the staged rows,
 * which the rest of the input will follow; the stage is ended.
 */
Tuplesortstate *
BitonicSpillSort(BitonicScanState *state, Tuplestorestate *stage)
{
	BitonicScanKeys *keys = &state->keys;
	MemoryContext old = MemoryContextSwitchTo(state->spill_cxt);
	Tuplesortstate *ts;
	size_t		i = 0;

	ts = tuplesort_begin_heap(state->slot->tts_tupleDescriptor, keys->nkeys,
							  keys->attnos, keys->sortops, keys->collations,
							  keys->nulls_first, work_mem, NULL,
							  state->random_access ? TUPLESORT_RANDOMACCESS : TUPLESORT_NONE);
	MemoryContextSwitchTo(old);
	while (tuplestore_gettupleslot(stage, true, false, state->slot))
	{
		tuplesort_puttupleslot(ts, state->slot);
		if ((i++ & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	ExecClearTuple(state->slot);
	tuplestore_end(stage);
	note_spill_peak(state);
	return ts;
}

/* Sort what the tuplesort holds, counting its memory in the spill's peak. */
void
BitonicSpillPerform(BitonicScanState *state)
{
	note_spill_peak(state);
	tuplesort_performsort(state->tuplesort);
	note_spill_peak(state);
}

/* Next row of the spilled sort in the given direction, or an empty slot. */
TupleTableSlot *
BitonicSpillNext(BitonicScanState *state, bool forward)
{
	if (!tuplesort_gettupleslot(state->tuplesort, forward, false, state->slot, NULL))
		return ExecClearTuple(state->slot);
	return state->slot;
}
