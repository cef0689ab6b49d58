/*
 * exec.c — executor of the BitonicSort custom scan: reads every row of its
 * child into the tuple store (store.c), by key range (place.c) and on a
 * worker thread (ingest.c), keys the first sort column of each batch of
 * rows, sorts key/locator pairs (multikey.c) and returns the rows in that
 * order, forward or backward.  Where the rows outgrow work_mem it sorts
 * them in runs, which it writes to disk and merges (runs.c).  Over a plain
 * sequential scan of a heap table it reads the table's pages itself
 * (heap_read.c).  The other
 * executor files call nothing here.
 */
#include "scan/exec.h"
#include "scan/explain.h"
#include "scan/heap_read.h"
#include "scan/ingest.h"
#include "scan/node.h"
#include "scan/place.h"
#include "scan/runs.h"
#include "scan/slot.h"
#include "scan/values.h"
#include "scan/window.h"

#include "core/malloc_keep.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/memutils.h"

/*
 * Bytes a stored row of the planner's average width takes: header and width,
 * MAXALIGNed, and 5% more (as for the pairs); rows beyond go to new blocks.
 */
#define ROW_BYTES_ESTIMATE(width) \
	(1.05 * MAXALIGN(SizeofMinimalTupleHeader + (size_t) (width)))

static void begin_bitonic_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_bitonic_scan(CustomScanState *node);
static void end_bitonic_scan(CustomScanState *node);
static void rescan_bitonic_scan(CustomScanState *node);
static void mark_bitonic_scan(CustomScanState *node);
static void restore_bitonic_scan(CustomScanState *node);

/* How the node takes one input row; false, the row not taken, where memory is used up. */
typedef bool (*BitonicAddRow) (BitonicScanState *state, TupleTableSlot *slot);

static void sort_in_memory(BitonicScanState *state);
static void sort_held(BitonicScanState *state);
static TupleTableSlot *next_sorted_row(BitonicScanState *state, bool forward);
static bool add_row_within_limit(BitonicScanState *state, TupleTableSlot *slot);
static void take_row(BitonicScanState *state, TupleTableSlot *slot, BitonicAddRow add);

/* Memory of the stage that keeps the worker's unplaced rows while a run is written. */
#define SPILL_STAGE_KB 64

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

/* The plan's sort columns back from custom_private (planner.c's four lists). */
static void
keys_from_private(List *custom_private, BitonicScanKeys *keys)
{
	List	   *attnos = linitial(custom_private);
	List	   *sortops = lsecond(custom_private);
	List	   *collations = lthird(custom_private);
	List	   *nulls_first = lfourth(custom_private);
	List	   *unique = list_nth(custom_private, 4);	/* the flags */
	int			n = list_length(attnos);

	keys->nkeys = n;
	keys->attnos = palloc(sizeof(AttrNumber) * n);
	keys->sortops = palloc(sizeof(Oid) * n);
	keys->collations = palloc(sizeof(Oid) * n);
	keys->nulls_first = palloc(sizeof(bool) * n);
	for (int i = 0; i < n; i++)
	{
		keys->attnos[i] = (AttrNumber) list_nth_int(attnos, i);
		keys->sortops[i] = list_nth_oid(sortops, i);
		keys->collations[i] = list_nth_oid(collations, i);
		keys->nulls_first[i] = list_nth_int(nulls_first, i) != 0;
	}
	keys->unique = (linitial_int(unique) & BITONIC_FLAG_UNIQUE) != 0;
}

/* CreateCustomScanState: the node's state, sort columns from the plan. */
Node *
BitonicScanCreateState(CustomScan *cscan)
{
	BitonicScanState *state = palloc0(sizeof(BitonicScanState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &bitonic_exec_methods;
	state->css.flags = cscan->flags;
	keys_from_private(cscan->custom_private, &state->keys);
	return (Node *) state;
}

/*
 * Rows carry the child's columns; the scan slot adds the window functions'
 * values after them, filled row by row (window_exec.c), and the projection
 * reads that slot.
 */
static void
use_window_slot(BitonicScanState *state, EState *estate, List *spec)
{
	ScanState  *ss = &state->css.ss;
	PlanState  *child = linitial(state->css.custom_ps);
	TupleDesc	rows = ExecTypeFromTL(child->plan->targetlist);

	state->slot = ExecInitExtraTupleSlot(estate, rows, &TTSOpsMinimalTuple);
	state->window = BitonicWindowBegin(spec, rows, ss->ss_ScanTupleSlot, &ss->ps);
}

/*
 * Make the scan slot a minimal-tuple slot and rebuild the projection for it;
 * a projection that only rearranges or repeats stored columns becomes the
 * mapped output slot, which reads the row only when a consumer does.
 */
static void
use_minimal_slot(BitonicScanState *state, EState *estate)
{
	ScanState  *ss = &state->css.ss;
	TupleDesc	tupdesc = ss->ss_ScanTupleSlot->tts_tupleDescriptor;
	AttrNumber *map;

	state->slot = ExecInitExtraTupleSlot(estate, tupdesc, &TTSOpsMinimalTuple);
	ss->ss_ScanTupleSlot = state->slot;
	ss->ps.scanops = &TTSOpsMinimalTuple;
	ss->ps.scanopsfixed = true;
	ss->ps.scanopsset = true;
	ExecAssignScanProjectionInfoWithVarno(ss, INDEX_VAR);
	if (ss->ps.ps_ProjInfo == NULL ||
		(map = BitonicOutputColumnMap(ss->ps.plan->targetlist)) == NULL)
		return;
	state->output = BitonicMappedSlotCreate(estate, ss->ps.ps_ResultTupleDesc,
											state->slot, map);
	ss->ps.ps_ProjInfo = NULL;
	ss->ps.resultops = &BitonicMappedSlotOps;
	ss->ps.resultopsfixed = true;
	ss->ps.resultopsset = true;
}

/* Tie-pass callback: the row with locator `item` is about to be read. */
static void
prefetch_row(void *arg, uint32 item)
{
	BitonicScanState *state = (BitonicScanState *) arg;

	__builtin_prefetch(BitonicStoreGet(&state->store, item));
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
	/* forward-only reads may take the order while it is still being sorted */
	state->ms.order_read_forward = !state->random_access;
	/* the pairs and their split room are queued to the store's prefaulter */
	state->ms.prefaulter = &state->store.prefaulter;
	/* the tie pass asks for a run's rows ahead of reading them */
	state->ms.prefetch = prefetch_row;
}

/* BeginCustomScan: start the child, the slot and the memory context. */
static void
begin_bitonic_scan(CustomScanState *node, EState *estate, int eflags)
{
	BitonicScanState *state = (BitonicScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	PlanState  *child;

	BitonicThreadBudgetEnter();
	state->random_access = (eflags & (EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD |
									  EXEC_FLAG_MARK)) != 0;
	/* The node holds every row itself: the child never rewinds or goes back. */
	child = ExecInitNode(BitonicScanInput(cscan), estate,
						 eflags & ~(EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK));
	node->custom_ps = list_make1(child);
	if (list_length(cscan->custom_private) > 5)
		use_window_slot(state, estate, list_nth(cscan->custom_private, 5));
	else
		use_minimal_slot(state, estate);
	state->cxt = AllocSetContextCreate(CurrentMemoryContext, "bitonic_sort rows",
									   ALLOCSET_DEFAULT_SIZES);
	init_multisort(state);
	BitonicStoreInit(&state->store, state->cxt);
	/* one column whose key is its value: keys alone, no rows stored */
	(void) BitonicValuesStart(state, estate);
	/* a sequential scan below: the node may read its pages itself */
	state->heap = BitonicHeapReadInit(child, state->keys.attnos[0]);
	state->phase = BITONIC_PHASE_EMPTY;
	state->pos = -1;
}

/* Attribute attno of the stored row with this locator (only that one is deformed). */
static inline Datum
stored_attr(BitonicScanState *state, uint32 locator, AttrNumber attno, bool *isnull)
{
	return BitonicStoredAttr(BitonicStoreGet(&state->store, locator), attno,
							 state->slot->tts_tupleDescriptor, isnull);
}

/* Key the rows of the batch: their first sort column, read from the store. */
static void
key_batch(BitonicScanState *state)
{
	Datum		values[BITONIC_INGEST_BATCH];
	bool		isnull[BITONIC_INGEST_BATCH];

	for (int i = 0; i < state->nbatch; i++)
		values[i] = stored_attr(state, state->batch[i], state->keys.attnos[0], &isnull[i]);
	BitonicMultiSortAddBatch(&state->ms, state->batch, values, isnull, state->nbatch);
	state->nbatch = 0;
}

/* Back to the empty phase, the rows' memory gone or handed over (forget_rows). */
static void
forget_row_state(BitonicScanState *state)
{
	state->order = NULL;
	state->order_bytes = 0;
	state->order_ready = 0;
	state->place_ranges = 0;
	state->nranges = 0;
	state->ranges = NULL;
	state->ntuples = 0;
	state->nbatch = 0;
	state->phase = BITONIC_PHASE_EMPTY;
	state->pos = -1;
	state->has_last_key = false;
}

/*
 * Drop every row held in memory and every in-memory sort state, back to the
 * empty phase (the runs of an external sort stay: forget_sort).
 */
static void
forget_rows(BitonicScanState *state)
{
	BitonicIngestStop(state);
	ExecClearTuple(state->slot);
	if (state->output != NULL)
		ExecClearTuple(state->output);
	BitonicStoreFinish(&state->store);
	BitonicMultiSortReset(&state->ms, true);
	MemoryContextReset(state->cxt);
	BitonicStoreForget(&state->store);
	if (state->values != NULL)
		BitonicValuesForget(state);
	forget_row_state(state);
}

/* Drop the rows held and the runs of an external sort. */
static void
forget_sort(BitonicScanState *state)
{
	forget_rows(state);
	if (state->runs != NULL)
	{
		BitonicRunsEnd(state->runs);
		/* what malloc kept of the runs' memory goes back (bs_malloc_keep_freed) */
		bs_malloc_release_freed();
	}
	state->runs = NULL;
	state->runs_bytes = 0;
	state->behind_room = 0;
	state->behind_order = NULL;
	/* runs written behind or from both ends were sorted whole */
	state->ms.order_read_forward = !state->random_access;
}

/*
 * Count the runs' memory (their write buffer, and what a merge keeps) in
 * what the node holds, so that the next run takes what work_mem leaves.
 */
static void
count_runs_bytes(BitonicScanState *state)
{
	state->runs_bytes = BitonicRunsBytes(state->runs);
}

/* Start the external sort: the rows held will be its first run. */
static void
begin_runs(BitonicScanState *state)
{
	PlanState  *child = linitial(state->css.custom_ps);
	double		row_bytes = ROW_BYTES_ESTIMATE(child->plan->plan_width);

	state->runs = BitonicRunsBegin(&state->ms, state->keys.nkeys, state->keys.attnos,
								   state->slot->tts_tupleDescriptor, (size_t) work_mem * 1024,
								   BitonicScanInputRows(state) * row_bytes, row_bytes,
								   state->random_access, state->values != NULL,
								   state->values != NULL ? BitonicValuesXor(state) : 0,
								   MemoryContextGetParent(state->cxt));
	state->spilled = true;
	/* malloc keeps a run's buffers under 2 MB for the next (larger ones are kept memory) */
	bs_malloc_keep_freed(Min((size_t) work_mem * 1024, BITONIC_RUNS_MALLOC_KEEP));
	/*
	 * A run's rows, pairs and order take all but a thirty-second of
	 * work_mem: the rest is the room its sort takes past what is counted
	 * while rows come in (the last batch's pairs, the pairs' growth, the
	 * order).  Measured, a run's peak with its sort's scratch, 10M rows:
	 * 3.70-3.82 MB at 4 MB (int8, text, int4 and float8), 995 kB at 1 MB,
	 * 62.9 MB at 64 MB, 224 MB at 256 MB.  An eighth, as before, left a
	 * run at 3.4 MB of 4 MB, and 10% more runs to merge (295, not 268).
	 */
	state->mem_limit -= state->mem_limit / 32;
	state->ms.grow_by_quarter = true;
	/* kept memory taken back counts until here: the runs take back their own */
	state->reused_bytes += BitonicKeptReused() - state->reused_from;
	count_runs_bytes(state);
}

/*
 * Sort the rows held in memory: as keys alone (timed here), or by pairs
 * and tie pass (sort_in_memory times its parts).
 */
static void
sort_held(BitonicScanState *state)
{
	instr_time	t0;

	if (state->values == NULL)
	{
		sort_in_memory(state);
		return;
	}
	INSTR_TIME_SET_CURRENT(t0);
	BitonicValuesSort(state);
	state->sort_ms += BitonicMsSince(t0);
	state->phase = BITONIC_PHASE_SORTED;
}

/*
 * The locator of the in-memory order's row at pos (the order made ready
 * up to it first, where the sorter still writes it), asking for the row
 * BITONIC_ROW_PREFETCH places further on in the given direction.
 */
static inline uint32
ordered_locator(BitonicScanState *state, int64 pos, bool forward)
{
	int64		n = (int64) state->ntuples;

	if ((size_t) pos >= state->order_ready)
		state->order_ready = BitonicMultiSortReady(&state->ms, (size_t) pos + 1);
	if (forward && pos + BITONIC_ROW_PREFETCH < n && (size_t) (pos + BITONIC_ROW_PREFETCH) < state->order_ready)
		BitonicStorePrefetch(BitonicStoreGet(&state->store, state->order[pos + BITONIC_ROW_PREFETCH]));
	else if (!forward && pos >= BITONIC_ROW_PREFETCH)
		BitonicStorePrefetch(BitonicStoreGet(&state->store, state->order[pos - BITONIC_ROW_PREFETCH]));
	return state->order[pos];
}

/*
 * Write the in-memory order's row at pos to the run: a stored row as it is
 * stored, its first sort column read from it (no slot shows it); a value
 * (keys alone) as its key.
 */
static void
put_run_row(BitonicScanState *state, int64 pos)
{
	bool		isnull;
	Datum		value;

	if (state->values == NULL)
	{
		uint32		locator = ordered_locator(state, pos, true);

		value = stored_attr(state, locator, state->keys.attnos[0], &isnull);
		BitonicRunsPut(state->runs, BitonicStoreGet(&state->store, locator), value, isnull);
		return;
	}
	value = slot_getattr(BitonicValuesGet(state, (size_t) pos), 1, &isnull);
	BitonicRunsPutValue(state->runs, value, isnull);
}

/* The stored row at a place of the in-memory order (on any thread: run_ends.c). */
static MinimalTuple
ordered_row(void *arg, size_t pos)
{
	BitonicScanState *state = (BitonicScanState *) arg;

	return BitonicStoreGet(&state->store, state->order[pos]);
}

/*
 * Write the stored rows, sorted, as the run just started, from both its
 * ends at once (runs.c says where it can), where the threads can key them
 * (text_plain: BitonicMultiSortTextPlain before the sort); false where it
 * cannot.  Every stored row is in the order (a store that held others
 * would give the run a wrong length: those go row by row).
 */
static bool
put_run_rows(BitonicScanState *state, bool text_plain)
{
	BitonicRunRows rows;

	if (state->values != NULL || !text_plain ||
		BitonicStoreRows(&state->store, &rows.row_bytes) != state->ntuples ||
		!BitonicRunsBothEnds(state->runs, rows.row_bytes))
		return false;
	/*
	 * the whole order final: such runs are sorted whole but the first,
	 * whose sort was planned before it spilled (a run written by one
	 * thread is written while its later parts sort)
	 */
	state->order_ready = BitonicMultiSortReady(&state->ms, state->ntuples);
	rows.nrows = state->ntuples;
	rows.row = ordered_row;
	rows.arg = state;
	return BitonicRunsPutRows(state->runs, &rows);
}

/* Write the stored rows, sorted, as the run just started, one by one. */
static void
put_run_rows_in_order(BitonicScanState *state)
{
	for (int64 pos = 0; pos < (int64) state->ntuples; pos++)
	{
		put_run_row(state, pos);
		if ((pos + 1) % 4096 == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/* The run just written in place ends: its rows' memory goes to the next. */
static void
end_run_in_place(BitonicScanState *state)
{
	forget_rows(state);
	BitonicRunsEndRun(state->runs);
	count_runs_bytes(state);
}

/*
 * Sort the rows held with the in-memory sorter, write them out in order as
 * the next run, and free their memory for the run after it.
 */
static void
write_run(BitonicScanState *state)
{
	/* asked before the sort, which forgets what the keys counted */
	bool		text_plain = BitonicMultiSortTextPlain(&state->ms);

	sort_held(state);
	BitonicRunsStartRun(state->runs, text_plain);
	if (!put_run_rows(state, text_plain))
		put_run_rows_in_order(state);
	end_run_in_place(state);
}

/* The row at a place of the run being written behind (on its thread: runs.c). */
static MinimalTuple
behind_row(void *arg, size_t pos)
{
	BitonicScanState *state = (BitonicScanState *) arg;

	return BitonicStoreGet(&state->behind_store, state->behind_order[pos]);
}

/*
 * An empty context for the rows, under parent: the one a run written
 * behind gave back, or a new one.
 */
static MemoryContext
take_spare_cxt(BitonicScanState *state, MemoryContext parent)
{
	MemoryContext cxt = state->spare_cxt;

	state->spare_cxt = NULL;
	if (cxt != NULL)
		return cxt;
	return AllocSetContextCreate(parent, "bitonic_sort rows", ALLOCSET_DEFAULT_SIZES);
}

/*
 * Wait for the run being written behind, if any (runs.c), and keep its
 * rows' context, emptied, for the next run.
 */
static void
finish_run_behind(BitonicScanState *state)
{
	MemoryContext cxt;

	if (state->runs == NULL)
		return;
	cxt = BitonicRunsFinishBehind(state->runs, MemoryContextGetParent(state->cxt));
	if (cxt == NULL)
		return;
	Assert(state->spare_cxt == NULL);
	state->spare_cxt = cxt;
}

/*
 * Sort the rows held and hand them to the runs' thread, which writes them
 * as the next run while the node reads on: the rows, the pairs and the
 * order stay in their context, which goes to the runs until the run is
 * written, and the node goes on in an empty one.  Written here, as
 * write_run does, where the runs cannot take them, and the runs after
 * are written in place.
 */
static void
write_run_behind(BitonicScanState *state)
{
	BitonicRunRows rows;
	MemoryContext cxt = state->cxt;
	MemoryContext parent = MemoryContextGetParent(cxt);

	/* text that needs a detoast: this run and the next are written in place */
	if (!BitonicMultiSortTextPlain(&state->ms))
	{
		state->behind_room = 0;
		write_run(state);
		return;
	}
	sort_held(state);
	state->order_ready = BitonicMultiSortReady(&state->ms, state->ntuples);
	/* plain text: checked above */
	BitonicRunsStartRun(state->runs, true);
	rows.nrows = BitonicStoreRows(&state->store, &rows.row_bytes);
	Assert(rows.nrows == state->ntuples);
	rows.row = behind_row;
	rows.arg = state;
	state->behind_store = state->store;
	state->behind_order = state->order;
	Assert(state->ingest == NULL);
	if (!BitonicRunsPutRowsBehind(state->runs, &rows, cxt))
	{
		/* no thread or descriptor: the next runs take all the memory again */
		state->behind_room = 0;
		put_run_rows_in_order(state);
		end_run_in_place(state);
		return;
	}
	state->cxt = take_spare_cxt(state, parent);
	BitonicStoreHandOver(&state->store, state->cxt);
	BitonicMultiSortMoveTo(&state->ms, state->cxt);
	forget_row_state(state);
	count_runs_bytes(state);
}

/*
 * After the first run, written in place: where the runs may be written
 * behind the input (runs.c), half of what work_mem leaves the runs is kept
 * for the run being written, and the next runs take the other half.
 */
static void
start_writing_behind(BitonicScanState *state)
{
	PlanState  *child = linitial(state->css.custom_ps);
	double		row_bytes = ROW_BYTES_ESTIMATE(child->plan->plan_width);

	if (state->values != NULL ||
		!BitonicRunsWriteBehind(state->runs, (size_t) work_mem * 1024,
								BitonicScanInputRows(state) * row_bytes, row_bytes))
		return;
	count_runs_bytes(state);
	state->behind_room = (state->mem_limit - Min(state->mem_limit, state->runs_bytes)) / 2;
	/* such runs are sorted whole: their order is final when handed over */
	state->ms.order_read_forward = false;
}

/*
 * After a run of `rows` rows in `row_bytes` of blocks is written
 * mid-input: where rows were placed by key range, plan the next run's
 * placement for a run as large (one of 128 MB or more is placed: its rows
 * are then written out a range at a time, not gathered from all of memory;
 * 10M rows at 256 MB, medians of six: 1.83 s to 1.71 s); reserve seven
 * eighths of its pairs for the next run, which is about as large, so that
 * the pairs do not grow by copies into fresh pages (as load_rows reserves
 * the first run's); and bound the store by what they leave of work_mem.
 * Seven eighths: pairs reserved whole would hold the next run's share
 * before its first row.  The rows' first block is not reserved: a block
 * bounded so would end each run at seven eighths of the one before.
 */
static void
reserve_next_run(BitonicScanState *state, size_t rows, size_t row_bytes)
{
	void	   *pairs;
	size_t		pair_bytes;
	void	   *split;
	size_t		split_bytes;

	if (state->values != NULL)
		return;
	if (state->placed_ranges > 0)
		BitonicPlacePlan(state, (double) row_bytes);
	/*
	 * a run written from both ends is sorted whole, on all threads: sorted
	 * in parts, the back would wait for the last part (the first run keeps
	 * the sort its memory was planned for)
	 */
	if (BitonicRunsBothEnds(state->runs, row_bytes))
		state->ms.order_read_forward = false;
	BitonicMultiSortReserve(&state->ms, rows - rows / 8);
	pairs = BitonicMultiSortPairs(&state->ms, &pair_bytes);
	BitonicStorePrefault(&state->store, pairs, pair_bytes);
	/* the room the pairs are split into, faulted in after them as in load_rows */
	split = BitonicMultiSortSplitRoom(&state->ms, &split_bytes);
	BitonicStorePrefault(&state->store, split, split_bytes);
	BitonicScanBoundStore(state);
}

/*
 * The rows held outgrow work_mem: they become a run of the external sort
 * (runs.c), and the node goes on with an empty memory.  Where the worker
 * places rows, the rows it has not placed yet (the last read) wait in a
 * small stage on disk while the placed ones are sorted and written, and
 * then start the next run.
 */
static void
spill(BitonicScanState *state)
{
	Tuplestorestate *stage = NULL;
	TupleTableSlot *slot;
	size_t		rows;
	size_t		row_bytes;

	if (state->runs == NULL)
		begin_runs(state);
	/* the run before, written behind, ends first: the runs take one at a time */
	finish_run_behind(state);
	if (state->ingest != NULL)
	{
		stage = tuplestore_begin_heap(false, false, SPILL_STAGE_KB);
		BitonicIngestHandOver(state, stage);
	}
	rows = state->ntuples;
	row_bytes = state->store.bytes;
	/* a run whose end merges runs is written here, its memory freed before the merge's */
	if (state->behind_room > 0 && state->ingest == NULL && !BitonicRunsNextEndMerges(state->runs))
		write_run_behind(state);
	else
		write_run(state);
	if (state->behind_room == 0 && state->runs->initial_runs == 1)
	{
		start_writing_behind(state);
		/* the next run takes half the memory of this one */
		if (state->behind_room > 0)
		{
			rows /= 2;
			row_bytes /= 2;
		}
	}
	reserve_next_run(state, rows, row_bytes);
	if (stage == NULL)
		return;
	slot = MakeSingleTupleTableSlot(state->slot->tts_tupleDescriptor, &TTSOpsMinimalTuple);
	while (tuplestore_gettupleslot(stage, true, false, slot))
		take_row(state, slot, add_row_within_limit);
	ExecDropSingleTupleTableSlot(slot);
	tuplestore_end(stage);
}

/*
 * Cut the key ranges once the rows read have reached the next cut; the
 * first cut starts the worker that places rows from then on, where a
 * second thread is allowed.
 */
static void
cut_when_due(BitonicScanState *state)
{
	if (state->place_ranges == 0 || state->ntuples < state->next_cut)
		return;
	if (state->ingest != NULL && !BitonicIngestDrain(state))
	{
		spill(state);
		return;
	}
	BitonicPlaceCut(state);
	state->placed_ranges = Max(state->placed_ranges, state->nranges);
	if (state->nranges > 0 && state->ingest == NULL && bitonic_sort_cpu_threads > 1)
		BitonicIngestStart(state);
}

/*
 * Count the row just stored, whose locator is the batch's last, and key the
 * batch when full.
 */
static void
batch_row(BitonicScanState *state)
{
	state->ntuples++;
	if (++state->nbatch == BITONIC_INGEST_BATCH)
	{
		key_batch(state);
		state->peak_bytes = Max(state->peak_bytes, BitonicScanHeldBytes(state));
		BitonicScanBoundStore(state);
		/* rows are placed by key range once the first rows' keys are in */
		cut_when_due(state);
	}
}

/*
 * Spill where the rows the backend stores itself have outgrown work_mem,
 * or would with the next batch's keys, where those would grow the pairs
 * (checked once per batch: the pairs grow by a doubling, and a row that
 * fits the store's block would have taken them past work_mem).
 */
static void
spill_past_limit(BitonicScanState *state)
{
	if (state->ingest == NULL && state->nbatch == 0 &&
		BitonicScanHeldBytes(state) +
		BitonicMultiSortGrowthBytes(&state->ms, BITONIC_INGEST_BATCH) > state->mem_limit)
		spill(state);
}

/*
 * Add one child row to the store and its batch, keying the batch when it is
 * full, or hand it to the worker's placement; false, the row not taken,
 * when memory or the store's locators run out (the caller spills).  A cut
 * of the ranges that follows the row may spill too.
 */
static bool
add_row(BitonicScanState *state, TupleTableSlot *slot)
{
	int			stream;

	if (state->ingest != NULL)
	{
		if (!BitonicIngestRow(state, slot))
			return false;
		cut_when_due(state);
		return true;
	}
	stream = state->nranges > 0 ? BitonicPlaceStream(state, slot) : BITONIC_STORE_IN_ORDER;
	if (!BitonicStoreAdd(&state->store, slot, stream, &state->batch[state->nbatch]))
		return false;
	batch_row(state);
	return true;
}

/* Tie-pass callback: column `column` of the row with locator `item`. */
static void
fetch_column(void *arg, uint32 item, int column, Datum *value, bool *isnull)
{
	BitonicScanState *state = (BitonicScanState *) arg;

	*value = stored_attr(state, item, state->keys.attnos[column], isnull);
}

/* Sort the rows in memory: pairs and tie pass give the locators in order. */
static void
sort_in_memory(BitonicScanState *state)
{
	size_t		sorting;
	size_t		items;

	BitonicStoreFinish(&state->store);
	key_batch(state);
	/* while sorting: the store, the pairs and the order (BitonicMultiSortBytes), not the room for scratch */
	sorting = BitonicScanHeldBytes(state) - BitonicScanScratchRoom(state);
	items = state->ms.npairs + state->ms.nnulls;
	state->peak_bytes = Max(state->peak_bytes, sorting);
	state->order = BitonicMultiSortRun(&state->ms, fetch_column, state);
	/* and the sorters' scratch memory */
	state->peak_bytes = Max(state->peak_bytes, sorting + state->ms.scratch_bytes);
	if (state->runs != NULL && items > 0)
	{
		state->scratch_per_row = (double) state->ms.scratch_bytes / (double) items;
		state->scratch_measured = true;
	}
	state->sort_ms += state->ms.sort_ms;
	state->sort_parts = Max(state->sort_parts, state->ms.sort_parts);
	state->tie_ms += state->ms.tie_ms;
	BitonicMultiSortReset(&state->ms, true);
	state->order_bytes = state->ms.order_bytes;
	state->phase = BITONIC_PHASE_SORTED;
}

/* Milliseconds the node's input has spent in its own work so far (timed runs). */
static double
input_ms(PlanState *child)
{
	if (child->instrument == NULL || !child->instrument->need_timer)
		return 0;
	return INSTR_TIME_GET_MILLISEC(child->instrument->counter);
}

/*
 * Take a row with add; where add refuses it (memory or the store's
 * locators are used up), the rows held become a run and the row starts the
 * next, whatever its size.
 */
static void
take_row(BitonicScanState *state, TupleTableSlot *slot, BitonicAddRow add)
{
	if (add(state, slot))
		return;
	spill(state);
	if (add(state, slot))
		return;
	/* a row larger than what work_mem leaves: it alone starts the run */
	state->store.limit = 0;
	if (!add(state, slot))
		elog(ERROR, "bitonic_sort could not take a row into an empty sort");
	BitonicScanBoundStore(state);
}

/* The pair key of a heap row's first sort column (the table's column). */
static inline uint64
heap_row_key(BitonicScanState *state, const BitonicHeapPage *page, HeapTuple row, bool *isnull)
{
	Datum		value = heap_getattr(row, page->key_attno, page->tupdesc, isnull);

	return *isnull ? 0 : BitonicMultiSortKeyIn(&state->ms, value);
}

/*
 * A heap row kept whole, copied into the store by the backend (no worker
 * places rows); as add_row_within_limit.
 */
static bool
store_heap_row(BitonicScanState *state, const BitonicHeapPage *page, HeapTuple row)
{
	int			stream = BITONIC_STORE_IN_ORDER;

	if (state->nranges > 0)
	{
		bool		isnull;
		uint64		key = heap_row_key(state, page, row, &isnull);

		stream = BitonicKeyStream(state->ranges, state->nranges, key, isnull);
	}
	if (!BitonicStoreAddBytes(&state->store, stream,
							  (const char *) row->t_data + MINIMAL_TUPLE_OFFSET,
							  row->t_len - MINIMAL_TUPLE_OFFSET, &state->batch[state->nbatch]))
		return false;
	batch_row(state);
	spill_past_limit(state);
	return true;
}

/*
 * Take one row of a page the node read itself: as keys alone, its key read
 * straight from the tuple; kept whole where the scan returns the table's
 * rows, its bytes copied from the page or staged by their address; else
 * the row as the scan would return it, to add, and *slot is that row (else
 * NULL).  False as add.
 */
static bool
add_heap_row(BitonicScanState *state, const BitonicHeapPage *page, HeapTuple row,
			 BitonicAddRow add, TupleTableSlot **slot)
{
	bool		isnull;
	uint64		key;

	*slot = NULL;
	if (page->key_attno > 0 && state->values != NULL)
	{
		Datum		value = heap_getattr(row, page->key_attno, page->tupdesc, &isnull);

		return BitonicValuesAddValue(state, value, isnull);
	}
	if (state->values != NULL || !page->rows_as_is ||
		(state->ingest != NULL && !BitonicIngestStages(row->t_len - MINIMAL_TUPLE_OFFSET)))
	{
		*slot = BitonicHeapReadSlot(state->heap, row, page->buffer);
		return add(state, *slot);
	}
	Assert(page->key_attno > 0);	/* the scan's rows are the table's */
	if (state->ingest == NULL)
		return store_heap_row(state, page, row);
	key = heap_row_key(state, page, row, &isnull);
	if (!BitonicIngestPageRow(state, row, page->buffer, key, isnull))
		return false;
	cut_when_due(state);
	return true;
}

/*
 * Whether the worker that places rows (ingest.c) may take the next page
 * whole: rows kept as the table has them, the first key a column of it.
 */
static bool
takes_whole_pages(BitonicScanState *state, const BitonicHeapPage *page)
{
	return state->ingest != NULL && state->values == NULL &&
		page->rows_as_is && page->key_attno > 0;
}

/* read_input from the pages of the table, read by the node itself. */
static void
read_heap_input(BitonicScanState *state, BitonicAddRow add)
{
	BitonicHeapRead *heap = state->heap;
	BitonicHeapPage *page;

	while ((page = BitonicHeapReadPage(heap, takes_whole_pages(state, BitonicHeapReadLayout(heap)))) != NULL)
	{
		if (page->whole)
		{
			if (BitonicIngestPage(state, page))
			{
				state->whole_pages++;
				cut_when_due(state);
				continue;
			}
			/* memory is used up: the rows held become a run, the page's start the next */
			BitonicHeapPageRows(heap);
			spill(state);
		}
		for (int i = 0; i < page->nrows; i++)
		{
			HeapTuple	row = &page->rows[i];
			TupleTableSlot *slot;

			if (!add_heap_row(state, page, row, add, &slot))
				/* the row as the scan gives it, projected once */
				take_row(state, slot != NULL ? slot :
						 BitonicHeapReadSlot(heap, row, page->buffer), add);
		}
	}
	BitonicHeapReadEnd(heap);
}

/*
 * Read the whole input: each row to add; where add refuses one (memory or
 * locators are used up), the rows held become a run and it starts the next.
 */
static void
read_input(BitonicScanState *state, PlanState *child, BitonicAddRow add)
{
	if (state->heap != NULL && BitonicHeapReadBegin(state->heap))
	{
		/*
		 * The scan's changed parameters reach its quals' and projection's
		 * subplans through its rescan, which it would do on its next call
		 */
		if (child->chgParam != NULL)
			ExecReScan(child);
		read_heap_input(state, add);
		return;
	}
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(child);

		if (TupIsNull(slot))
			break;
		take_row(state, slot, add);
	}
}

/* add_row, then a spill where the rows held have outgrown work_mem. */
static bool
add_row_within_limit(BitonicScanState *state, TupleTableSlot *slot)
{
	if (!add_row(state, slot))
		return false;
	spill_past_limit(state);
	return true;
}

/*
 * Read the whole input into the store and the pairs, writing runs past
 * work_mem (the rows and pairs the planner expects are reserved first).
 */
static void
load_rows(BitonicScanState *state, PlanState *child)
{
	size_t		limit = state->mem_limit;
	double		expected_bytes = BitonicScanInputRows(state) *
		ROW_BYTES_ESTIMATE(child->plan->plan_width);
	void	   *pairs;
	size_t		pair_bytes;
	void	   *split;
	size_t		split_bytes;
	size_t		room;

	/*
	 * The pairs and rows the planner expects, faulted in from the start; the
	 * rows' first block leaves room in work_mem for the pairs (and the room
	 * they are split into) and its own rounding up to whole slots, so a
	 * reservation alone never makes the node spill.
	 */
	BitonicMultiSortReserve(&state->ms,
							(size_t) Min(BitonicScanInputRows(state) * 1.05, (double) limit / 64));
	pairs = BitonicMultiSortPairs(&state->ms, &pair_bytes);
	/* and the room they are split into, where they will be sorted in parts */
	split = BitonicMultiSortSplitRoom(&state->ms, &split_bytes);
	room = limit > pair_bytes + split_bytes + BITONIC_SLOT_BYTES ?
		limit - pair_bytes - split_bytes - BITONIC_SLOT_BYTES : 0;
	BitonicPlacePlan(state, expected_bytes);
	BitonicScanBoundStore(state);
	/* in the order of first writes: every row adds a pair, the split comes last */
	BitonicStorePrefault(&state->store, pairs, pair_bytes);
	BitonicStoreReserve(&state->store, (size_t) Min(expected_bytes, (double) room));
	BitonicStorePrefault(&state->store, split, split_bytes);
	read_input(state, child, add_row_within_limit);
	/* the worker places what is staged and stops (a run may be written first) */
	if (state->ingest != NULL && !BitonicIngestDrain(state))
		spill(state);
	BitonicIngestStop(state);
}

/* The external sort's figures, for EXPLAIN ANALYZE, once its final merge has begun. */
static void
note_runs(BitonicScanState *state)
{
	BitonicRuns *runs = state->runs;

	state->runs_written = runs->initial_runs;
	state->runs_both_ends = runs->both_ends_runs;
	state->runs_behind = runs->behind_runs;
	state->runs_mapped = runs->mapped_runs;
	state->merge_thread = runs->merge_order != NULL;
	state->merge_passes = Max(state->merge_passes, (uint32) runs->passes);
	state->merge_order = Max(state->merge_order, (uint32) Min(runs->plan.order, runs->initial_runs));
	state->disk_bytes = Max(state->disk_bytes, runs->disk.peak);
	state->peak_bytes = Max(state->peak_bytes, runs->peak_bytes);
}

/*
 * Read the whole input, then sort it in memory, or write the last run and
 * begin the merge of the external sort.
 * Nothing is timed per row: the key build is the time of the loop less the
 * input's own.
 */
static void
load_and_sort(BitonicScanState *state)
{
	PlanState  *child = linitial(state->css.custom_ps);
	double		child_ms = input_ms(child);
	instr_time	t0,
				t1;

	state->mem_limit = (size_t) work_mem * 1024;
	state->scratch_per_row = 0;
	state->scratch_measured = false;
	INSTR_TIME_SET_CURRENT(t0);
	BitonicPoolResetPeak();
	state->reused_from = BitonicKeptReused();
	if (state->values != NULL)
		read_input(state, child, BitonicValuesAdd);	/* one column as keys alone */
	else
		load_rows(state, child);
	state->key_ms += BitonicMsSince(t0) - (input_ms(child) - child_ms);

	INSTR_TIME_SET_CURRENT(t1);
	if (state->runs != NULL)
	{
		finish_run_behind(state);
		write_run(state);
		INSTR_TIME_SET_CURRENT(t1);
		BitonicRunsFinish(state->runs);
		note_runs(state);
		state->merge_ms += BitonicMsSince(t1);
		state->phase = BITONIC_PHASE_EXTERNAL;
	}
	else
		sort_held(state);
	state->pool_peak_bytes = Max(state->pool_peak_bytes, BitonicPoolPeak());
	if (state->runs == NULL)
		state->reused_bytes += BitonicKeptReused() - state->reused_from;
	state->load_ms += BitonicMsSince(t0);
	state->pos = -1;
	state->has_last_key = false;
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
	if (state->values != NULL)
		return BitonicValuesGet(state, (size_t) next);
	return ExecStoreMinimalTuple(BitonicStoreGet(&state->store, ordered_locator(state, next, forward)),
								 state->slot, false);
}

/* The next row in the sort's order, from memory or from the runs' merge. */
static TupleTableSlot *
next_row(BitonicScanState *state, bool forward)
{
	if (state->phase == BITONIC_PHASE_EXTERNAL)
		return BitonicRunsNext(state->runs, forward, state->slot);
	return next_sorted_row(state, forward);
}

/*
 * The next row whose first key differs from the last one handed out (the
 * node does a Unique on an exact key: unique.c); forward only.
 */
static TupleTableSlot *
next_new_key(BitonicScanState *state)
{
	for (;;)
	{
		TupleTableSlot *row = next_row(state, true);
		bool		isnull;
		Datum		value;
		uint64		key;

		if (TupIsNull(row))
			return row;
		value = slot_getattr(row, state->keys.attnos[0], &isnull);
		key = isnull ? 0 : BitonicMultiSortKeyOf(&state->ms, value);
		if (!state->has_last_key || isnull != state->last_isnull || key != state->last_key)
		{
			state->has_last_key = true;
			state->last_isnull = isnull;
			state->last_key = key;
			return row;
		}
		CHECK_FOR_INTERRUPTS();
	}
}

/* The node's next row: sort on the first call, then hand out rows. */
static TupleTableSlot *
bitonic_access(ScanState *ss)
{
	BitonicScanState *state = (BitonicScanState *) ss;
	bool		forward = ScanDirectionIsForward(ss->ps.state->es_direction);
	TupleTableSlot *row;

	if (state->phase == BITONIC_PHASE_EMPTY)
		load_and_sort(state);
	Assert(forward || !state->keys.unique);
	if (state->keys.unique && state->values != NULL && state->phase == BITONIC_PHASE_SORTED)
		row = BitonicValuesNextDistinct(state);
	else if (state->keys.unique)
		row = next_new_key(state);
	else
		row = next_row(state, forward);
	return state->output != NULL ? BitonicMappedSlotShow(state->output, row) : row;
}

/*
 * ExecCustomScan: one row, projected when the plan asks for it.  Not
 * through ExecScan: under EvalPlanQual (a FOR UPDATE row changed by another
 * transaction) ExecScan would have a node without a scan relation recheck a
 * pushed-down join instead of sorting, and lose the row; a sort sorts what
 * its input gives in the recheck, as the native Sort does.  The node has no
 * quals.
 */
static TupleTableSlot *
exec_bitonic_scan(CustomScanState *node)
{
	ProjectionInfo *projection = node->ss.ps.ps_ProjInfo;
	BitonicScanState *state = (BitonicScanState *) node;
	TupleTableSlot *row = bitonic_access(&node->ss);
	ExprContext *econtext = node->ss.ps.ps_ExprContext;

	/* rows of the in-memory store stay put: the window keeps the last by reference */
	if (state->window != NULL && !TupIsNull(row))
		row = BitonicWindowNext(state->window, row,
								state->phase == BITONIC_PHASE_SORTED && state->values == NULL);

	if (projection == NULL)
		return row;
	if (TupIsNull(row))
		return ExecClearTuple(projection->pi_state.resultslot);
	ResetExprContext(econtext);
	econtext->ecxt_scantuple = row;
	return ExecProject(projection);
}

/* EndCustomScan: free everything and end the child. */
static void
end_bitonic_scan(CustomScanState *node)
{
	BitonicScanState *state = (BitonicScanState *) node;

	forget_sort(state);
	MemoryContextDelete(state->cxt);
	if (state->spare_cxt != NULL)
		MemoryContextDelete(state->spare_cxt);
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
	/* a replay starts the node's Unique and window numbering afresh */
	state->has_last_key = false;
	if (state->window != NULL)
		BitonicWindowRestart(state->window);
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
		BitonicRunsRescan(state->runs);
		ExecClearTuple(state->slot);
		return;
	}
	forget_sort(state);
	/* A child with changed parameters rescans itself on its next call. */
	if (child->chgParam == NULL)
		ExecReScan(child);
}

/* MarkPosCustomScan: remember the current row (merge join inner side). */
static void
mark_bitonic_scan(CustomScanState *node)
{
	BitonicScanState *state = (BitonicScanState *) node;

	if (state->phase == BITONIC_PHASE_EXTERNAL)
		BitonicRunsMark(state->runs);
	else
		state->mark = state->pos;
}

/* RestrPosCustomScan: go back to the remembered row. */
static void
restore_bitonic_scan(CustomScanState *node)
{
	BitonicScanState *state = (BitonicScanState *) node;

	if (state->phase == BITONIC_PHASE_EXTERNAL)
	{
		BitonicRunsRestore(state->runs);
		return;
	}
	state->pos = state->mark;
	if (state->values != NULL && state->pos >= 0 && state->pos < (int64) state->ntuples)
		(void) BitonicValuesGet(state, (size_t) state->pos);
	else if (state->pos >= 0 && state->pos < (int64) state->ntuples)
		ExecStoreMinimalTuple(BitonicStoreGet(&state->store, state->order[state->pos]),
							  state->slot, false);
	else
		ExecClearTuple(state->slot);
}
