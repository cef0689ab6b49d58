/*
 * spill.c — when the rows of a BitonicSort node outgrow work_mem, the node
 * hands every row it holds, in input order, and the rest of its input to
 * PostgreSQL's tuplesort, which may sort on disk.
 */
#include "scan/spill.h"
#include "scan/ingest.h"
#include "scan/values.h"

#include "executor/executor.h"
#include "miscadmin.h"

/*
 * A new tuplesort holding the rows held in memory (stored, or staged for
 * the worker, ingest.c), in input order; the worker is stopped, and the
 * caller frees the rows.
 */
Tuplesortstate *
BitonicSpillRows(BitonicScanState *state)
{
	BitonicScanKeys *keys = &state->keys;
	Tuplesortstate *ts;
	BitonicStoreIter iter = {0, 0};
	MinimalTuple mt;
	size_t		i = 0;

	ts = tuplesort_begin_heap(state->slot->tts_tupleDescriptor, keys->nkeys,
							  keys->attnos, keys->sortops, keys->collations,
							  keys->nulls_first, work_mem, NULL,
							  state->random_access ? TUPLESORT_RANDOMACCESS : TUPLESORT_NONE);
	/* the worker is stopped before the store is read */
	if (state->ingest != NULL)
		BitonicIngestHandOver(state, ts);
	BitonicStoreCloseChunks(&state->store);
	while ((mt = BitonicStoreNext(&state->store, &iter)) != NULL)
	{
		ExecStoreMinimalTuple(mt, state->slot, false);
		tuplesort_puttupleslot(ts, state->slot);
		if ((i++ & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	/* or the values kept as keys alone */
	if (state->values != NULL)
		BitonicValuesSpill(state, ts);
	return ts;
}

/* Next row of the spilled sort in the given direction, or an empty slot. */
TupleTableSlot *
BitonicSpillNext(BitonicScanState *state, bool forward)
{
	if (!tuplesort_gettupleslot(state->tuplesort, forward, false, state->slot, NULL))
		return ExecClearTuple(state->slot);
	return state->slot;
}
