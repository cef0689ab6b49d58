/*
 * scan_exec.c — executor of the BitonicSort custom scan: reads every row of
 * its child into large blocks of minimal tuples, sorts key/pointer pairs
 * (multikey.c) and returns the rows in that order, forward or backward.
 * Where the rows outgrow work_mem it hands them to tuplesort (scan_spill.c).
 */
#include "scan.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/memutils.h"

/* Rows the emit loop prefetches ahead of the one it returns. */
#define EMIT_PREFETCH 8

/* First and largest size of a tuple block. */
#define BLOCK_MIN ((size_t) 64 * 1024)
#define BLOCK_MAX ((size_t) 8 * 1024 * 1024)

static void begin_bitonic_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_bitonic_scan(CustomScanState *node);
static void end_bitonic_scan(CustomScanState *node);
static void rescan_bitonic_scan(CustomScanState *node);
static void mark_bitonic_scan(CustomScanState *node);
static void restore_bitonic_scan(CustomScanState *node);

static const CustomExecMethods bitonic_exec_methods = {
	.CustomName = BITONIC_SCAN_NAME,
	.BeginCustomScan = begin_bitonic_scan,
	.ExecCustomScan = exec_bitonic_scan,
	.EndCustomScan = end_bitonic_scan,
	.ReScanCustomScan = rescan_bitonic_scan,
	.MarkPosCustomScan = mark_bitonic_scan,
	.RestrPosCustomScan = restore_bitonic_scan,
	.ExplainCustomScan = BitonicScanExplain,
};

/* CreateCustomScanState: the node's state, sort columns from the plan. */
Node *
BitonicScanCreateState(CustomScan *cscan)
{
	BitonicScanState *state = palloc0(sizeof(BitonicScanState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &bitonic_exec_methods;
	state->css.flags = cscan->flags;
	BitonicScanKeysFromPrivate(cscan->custom_private, &state->keys);
	return (Node *) state;
}

/* Make the scan slot a minimal-tuple slot and rebuild the projection for it. */
static void
use_minimal_slot(BitonicScanState *state, EState *estate)
{
	ScanState  *ss = &state->css.ss;
	TupleDesc	tupdesc = ss->ss_ScanTupleSlot->tts_tupleDescriptor;

	state->slot = ExecInitExtraTupleSlot(estate, tupdesc, &TTSOpsMinimalTuple);
	ss->ss_ScanTupleSlot = state->slot;
	ss->ps.scanops = &TTSOpsMinimalTuple;
	ss->ps.scanopsfixed = true;
	ss->ps.scanopsset = true;
	ExecAssignScanProjectionInfoWithVarno(ss, INDEX_VAR);
}

/* Set up the key machinery for the plan's sort columns. */
static void
init_multisort(BitonicScanState *state)
{
	TupleDesc	tupdesc = state->slot->tts_tupleDescriptor;
	BitonicSortColumn *columns = palloc(sizeof(BitonicSortColumn) * state->keys.nkeys);

	for (int i = 0; i < state->keys.nkeys; i++)
	{
		columns[i].typid = TupleDescAttr(tupdesc, state->keys.attnos[i] - 1)->atttypid;
		columns[i].sortop = state->keys.sortops[i];
		columns[i].collation = state->keys.collations[i];
		columns[i].nulls_first = state->keys.nulls_first[i];
	}
	BitonicMultiSortInit(&state->ms, state->keys.nkeys, columns, state->cxt);
}

/* BeginCustomScan: start the child, the slot and the memory context. */
static void
begin_bitonic_scan(CustomScanState *node, EState *estate, int eflags)
{
	BitonicScanState *state = (BitonicScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	PlanState  *child;

	state->random_access = (eflags & (EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD |
									  EXEC_FLAG_MARK)) != 0;
	/* The node holds every row itself: the child never rewinds or goes back. */
	child = ExecInitNode(linitial(cscan->custom_plans), estate,
						 eflags & ~(EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK));
	node->custom_ps = list_make1(child);
	use_minimal_slot(state, estate);
	state->cxt = AllocSetContextCreate(CurrentMemoryContext, "bitonic_sort rows",
									   ALLOCSET_DEFAULT_SIZES);
	init_multisort(state);
	state->phase = BITONIC_PHASE_EMPTY;
	state->pos = -1;
}

/*
 * Bytes the node holds now (tuple blocks, the pointer array, the pairs) and
 * will need to sort them (the order and the sorted pointers).
 */
static size_t
held_bytes(BitonicScanState *state)
{
	return state->block_bytes + state->tuples_cap * sizeof(MinimalTuple) +
		BitonicMultiSortBytes(&state->ms) +
		state->ntuples * (sizeof(uint32) + sizeof(MinimalTuple));
}

/* Copy the slot's row into the tuple blocks. */
static MinimalTuple
store_tuple(BitonicScanState *state, TupleTableSlot *slot)
{
	bool		should_free;
	MinimalTuple mt = NULL;
	HeapTuple	ht = NULL;
	size_t		tlen;
	MinimalTuple copy;

	/* a heap tuple is copied straight from its buffer: one copy, no palloc */
	if (TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot))
	{
		ht = ExecFetchSlotHeapTuple(slot, false, &should_free);
		tlen = ht->t_len - MINIMAL_TUPLE_OFFSET;
	}
	else
	{
		mt = ExecFetchSlotMinimalTuple(slot, &should_free);
		tlen = mt->t_len;
	}

	if (state->block == NULL || state->block_used + MAXALIGN(tlen) > state->block_size)
	{
		size_t		size = state->block_size ? Min(state->block_size * 2, BLOCK_MAX) : BLOCK_MIN;

		size = Max(size, MAXALIGN(tlen));
		state->block = MemoryContextAllocHuge(state->cxt, size);
		state->block_size = size;
		state->block_used = 0;
		state->block_bytes += size;
	}
	copy = (MinimalTuple) (state->block + state->block_used);
	if (ht != NULL)
	{
		/* the minimal tuple is the heap tuple less its first bytes */
		memcpy(copy, (char *) ht->t_data + MINIMAL_TUPLE_OFFSET, tlen);
		copy->t_len = (uint32) tlen;
	}
	else
		memcpy(copy, mt, tlen);
	state->block_used += MAXALIGN(tlen);
	if (should_free)
		pfree(ht != NULL ? (void *) ht : (void *) mt);
	return copy;
}

/* Add one child row: its first sort column to the pairs, the row to the blocks. */
static void
add_row(BitonicScanState *state, TupleTableSlot *slot)
{
	bool		isnull;
	Datum		first = slot_getattr(slot, state->keys.attnos[0], &isnull);

	if (state->ntuples == state->tuples_cap)
	{
		size_t		cap = Max(state->tuples_cap * 2, 1024);

		state->tuples = state->tuples ?
			repalloc_huge(state->tuples, cap * sizeof(MinimalTuple)) :
			MemoryContextAllocHuge(state->cxt, cap * sizeof(MinimalTuple));
		state->tuples_cap = cap;
	}
	BitonicMultiSortAdd(&state->ms, (uint32) state->ntuples, first, isnull);
	state->tuples[state->ntuples++] = store_tuple(state, slot);
}

/* Tie-pass callback: column `column` of row `item`. */
static void
fetch_column(void *arg, uint32 item, int column, Datum *value, bool *isnull)
{
	BitonicScanState *state = (BitonicScanState *) arg;
	MinimalTuple mt = state->tuples[item];
	HeapTupleData htup;

	htup.t_len = mt->t_len + MINIMAL_TUPLE_OFFSET;
	htup.t_data = (HeapTupleHeader) ((char *) mt - MINIMAL_TUPLE_OFFSET);
	*value = heap_getattr(&htup, state->keys.attnos[column],
						  state->slot->tts_tupleDescriptor, isnull);
}

/* Sort the rows in memory: pairs, tie pass, then the row pointers in order. */
static void
sort_in_memory(BitonicScanState *state)
{
	size_t		n = state->ntuples;
	uint32	   *order = MemoryContextAllocHuge(state->cxt, Max(n, 1) * sizeof(uint32));
	MinimalTuple *sorted;
	instr_time	t0;

	/* while sorting: blocks, pointers, pairs and the order */
	state->peak_bytes = Max(state->peak_bytes, state->block_bytes +
							state->tuples_cap * sizeof(MinimalTuple) +
							BitonicMultiSortBytes(&state->ms) + n * sizeof(uint32));
	BitonicMultiSortRun(&state->ms, order, fetch_column, state);
	state->sort_ms += state->ms.sort_ms;
	state->tie_ms += state->ms.tie_ms;
	BitonicMultiSortReset(&state->ms, true);
	/* while permuting: blocks, pointers, the order and the sorted pointers */
	state->peak_bytes = Max(state->peak_bytes, state->block_bytes +
							state->tuples_cap * sizeof(MinimalTuple) +
							n * (sizeof(MinimalTuple) + sizeof(uint32)));

	INSTR_TIME_SET_CURRENT(t0);
	sorted = MemoryContextAllocHuge(state->cxt, Max(n, 1) * sizeof(MinimalTuple));
	for (size_t i = 0; i < n; i++)
	{
		if (i + EMIT_PREFETCH < n)
			__builtin_prefetch(&state->tuples[order[i + EMIT_PREFETCH]]);
		sorted[i] = state->tuples[order[i]];
	}
	pfree(order);
	pfree(state->tuples);
	state->tuples = sorted;
	state->tuples_cap = n;
	state->sort_ms += BitonicMsSince(t0);
	state->phase = BITONIC_PHASE_SORTED;
}

/* Read the whole input, then sort it in memory or finish the spilled sort. */
static void
load_and_sort(BitonicScanState *state)
{
	PlanState  *child = linitial(state->css.custom_ps);
	size_t		limit = (size_t) work_mem * 1024;
	bool		timed = state->css.ss.ps.instrument != NULL &&
		state->css.ss.ps.instrument->need_timer;
	instr_time	t0;

	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(child);

		if (TupIsNull(slot))
			break;
		/* key build is timed per row, so the child's own time stays out */
		if (timed)
			INSTR_TIME_SET_CURRENT(t0);
		if (state->tuplesort != NULL)
			tuplesort_puttupleslot(state->tuplesort, slot);
		else
		{
			add_row(state, slot);
			if (held_bytes(state) > limit)
			{
				state->peak_bytes = Max(state->peak_bytes, held_bytes(state));
				BitonicScanSpill(state);
			}
		}
		if (timed)
			state->key_ms += BitonicMsSince(t0);
	}

	if (state->tuplesort != NULL)
	{
		INSTR_TIME_SET_CURRENT(t0);
		tuplesort_performsort(state->tuplesort);
		state->sort_ms += BitonicMsSince(t0);
		state->phase = BITONIC_PHASE_SPILLED;
	}
	else
		sort_in_memory(state);
	state->pos = -1;
}

/* Next row of the in-memory order in the given direction, or an empty slot. */
static TupleTableSlot *
next_sorted_row(BitonicScanState *state, bool forward)
{
	int64		n = (int64) state->ntuples;
	int64		next = state->pos + (forward ? 1 : -1);

	if (next >= n)
	{
		state->pos = n;
		return ExecClearTuple(state->slot);
	}
	if (next < 0)
	{
		state->pos = -1;
		return ExecClearTuple(state->slot);
	}
	state->pos = next;
	if (forward && next + EMIT_PREFETCH < n)
		__builtin_prefetch(state->tuples[next + EMIT_PREFETCH]);
	else if (!forward && next >= EMIT_PREFETCH)
		__builtin_prefetch(state->tuples[next - EMIT_PREFETCH]);
	return ExecStoreMinimalTuple(state->tuples[next], state->slot, false);
}

/* ExecScan access method: sort on the first call, then hand out rows. */
static TupleTableSlot *
bitonic_access(ScanState *ss)
{
	BitonicScanState *state = (BitonicScanState *) ss;
	bool		forward = ScanDirectionIsForward(ss->ps.state->es_direction);
	bool		timed = ss->ps.instrument != NULL && ss->ps.instrument->need_timer;
	TupleTableSlot *slot;
	instr_time	t0;

	if (state->phase == BITONIC_PHASE_EMPTY)
		load_and_sort(state);
	if (timed)
		INSTR_TIME_SET_CURRENT(t0);
	if (state->phase == BITONIC_PHASE_SPILLED)
		slot = BitonicScanSpillNext(state, forward);
	else
		slot = next_sorted_row(state, forward);
	if (timed)
		state->emit_ms += BitonicMsSince(t0);
	return slot;
}

/* ExecScan recheck method: the node has no quals of its own. */
static bool
bitonic_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

/* ExecCustomScan: one row, projected when the plan asks for it. */
static TupleTableSlot *
exec_bitonic_scan(CustomScanState *node)
{
	return ExecScan(&node->ss, bitonic_access, bitonic_recheck);
}

/* Drop every row held and every sort state, back to the empty phase. */
void
BitonicScanForgetRows(BitonicScanState *state)
{
	if (state->tuplesort != NULL)
		tuplesort_end(state->tuplesort);
	state->tuplesort = NULL;
	ExecClearTuple(state->slot);
	BitonicMultiSortReset(&state->ms, true);
	MemoryContextReset(state->cxt);
	state->tuples = NULL;
	state->ntuples = 0;
	state->tuples_cap = 0;
	state->block = NULL;
	state->block_used = 0;
	state->block_size = 0;
	state->block_bytes = 0;
	state->phase = BITONIC_PHASE_EMPTY;
	state->pos = -1;
}

/* EndCustomScan: free everything and end the child. */
static void
end_bitonic_scan(CustomScanState *node)
{
	BitonicScanState *state = (BitonicScanState *) node;

	BitonicScanForgetRows(state);
	MemoryContextDelete(state->cxt);
	ExecEndNode(linitial(node->custom_ps));
}

/*
 * ReScanCustomScan: replay the sorted rows when the input cannot have
 * changed and they are still at hand; otherwise sort again from the start.
 */
static void
rescan_bitonic_scan(CustomScanState *node)
{
	BitonicScanState *state = (BitonicScanState *) node;
	PlanState  *child = linitial(node->custom_ps);

	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(child, node->ss.ps.chgParam);
	if (state->phase == BITONIC_PHASE_EMPTY)
	{
		if (child->chgParam == NULL)
			ExecReScan(child);
		return;
	}
	if (child->chgParam == NULL && state->phase == BITONIC_PHASE_SORTED)
	{
		state->pos = -1;
		ExecClearTuple(state->slot);
		return;
	}
	if (child->chgParam == NULL && state->random_access)
	{
		tuplesort_rescan(state->tuplesort);
		ExecClearTuple(state->slot);
		return;
	}
	BitonicScanForgetRows(state);
	/* A child with changed parameters rescans itself on its next call. */
	if (child->chgParam == NULL)
		ExecReScan(child);
}

/* MarkPosCustomScan: remember the current row (merge join inner side). */
static void
mark_bitonic_scan(CustomScanState *node)
{
	BitonicScanState *state = (BitonicScanState *) node;

	if (state->phase == BITONIC_PHASE_SPILLED)
		tuplesort_markpos(state->tuplesort);
	else
		state->mark = state->pos;
}

/* RestrPosCustomScan: go back to the remembered row. */
static void
restore_bitonic_scan(CustomScanState *node)
{
	BitonicScanState *state = (BitonicScanState *) node;

	if (state->phase == BITONIC_PHASE_SPILLED)
	{
		tuplesort_restorepos(state->tuplesort);
		return;
	}
	state->pos = state->mark;
	if (state->pos >= 0 && state->pos < (int64) state->ntuples)
		ExecStoreMinimalTuple(state->tuples[state->pos], state->slot, false);
	else
		ExecClearTuple(state->slot);
}
