/*
 * heap_read.c — the pages of a heap table, read by the BitonicSort node
 * above a plain sequential scan of it instead of through the scan node.
 *
 * A sequential scan hands its rows out one at a time: each call goes
 * through the executor's node dispatch, the scan's slot, the per-row
 * memory reset and the node's own fetch of the row back out of that slot.
 * The node needs every row anyway, so where its input is a SeqScan of a
 * heap table (not parallel-aware) it reads the table's pages itself, as
 * the heap's page-at-a-time scan does: each page is pinned, its tuples
 * tested against the query's snapshot under the page's share lock, and
 * the visible ones handed to the node as a batch (a HeapTupleData per row,
 * pointing into the pinned page).  The executor (exec.c) takes a row's key
 * straight from the tuple and stages a row it keeps whole by its address
 * in the page, with no slot at all; a row it needs in the scan's form
 * (projected, or for tuplesort) comes from BitonicHeapReadSlot, which does
 * what the scan node would.  The scan's quals are evaluated here, on its
 * own slot and expression context, and its instrumentation counts the
 * rows, so EXPLAIN ANALYZE shows the scan's rows, filtered rows and
 * buffers as before.
 *
 * The rows come in block order from block 0, which is one of the orders a
 * sequential scan may give (a synchronized scan starts elsewhere): ties
 * keep that order.  The scan node is used instead where this would differ
 * from it: under SERIALIZABLE (predicate locks and conflict checks per
 * tuple), in an EvalPlanQual recheck (the scan returns the row under
 * recheck), for a snapshot that is not an MVCC one, for a table of another
 * access method, where the scan's target list calls a volatile function
 * (the quals of a page run before its rows are projected), and when
 * bitonic_sort.heap_read is off.  The scan's projection then runs in the
 * node's time, not the scan's, in EXPLAIN ANALYZE.
 */
#include "scan/heap_read.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "optimizer/optimizer.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "utils/snapmgr.h"
#if PG_VERSION_NUM >= 170000
#include "storage/read_stream.h"
#endif

/* A table the node reads: the scan node it stands in for, and the reading's state. */
struct BitonicHeapRead
{
	SeqScanState *scan;
	Relation	rel;
	Snapshot	snapshot;
	BufferAccessStrategy strategy;
	BlockNumber nblocks;
	BlockNumber next_block;
#if PG_VERSION_NUM >= 170000
	ReadStream *stream;
#endif
	BitonicHeapPage page;
	uint64		pages;			/* pages read, in all readings (EXPLAIN ANALYZE) */
	/* where every output column of the scan is a table column: its projection, done here */
	int			ncolumns;		/* 0: the scan's own projection, or none */
	AttrNumber *columns;		/* output column k is the table's column columns[k] */
	AttrNumber	deform_natts;	/* the table's columns to deform: the largest of columns */
	TupleTableSlot *row_slot;	/* the table's row, deformed that far */
};

/*
 * The column of the scanned table that output column `column` of the scan
 * is, or 0 (an expression, a system column, or no such column).
 */
static AttrNumber
table_column(SeqScanState *scan, AttrNumber column)
{
	Plan	   *plan = scan->ss.ps.plan;
	TargetEntry *tle;
	Var		   *var;

	if (scan->ss.ps.ps_ProjInfo == NULL)
		return column;
	if (column < 1 || column > list_length(plan->targetlist))
		return 0;
	tle = list_nth_node(TargetEntry, plan->targetlist, column - 1);
	if (!IsA(tle->expr, Var))
		return 0;
	var = (Var *) tle->expr;
	if (var->varno != ((Scan *) plan)->scanrelid || var->varattno < 1 || var->varlevelsup != 0)
		return 0;
	return var->varattno;
}

/*
 * Where the scan projects nothing but table columns, set up its projection
 * to be done by copying the columns out of the deformed row (no expression
 * steps, and no pin of the row's page per row).
 */
static void
plan_column_projection(BitonicHeapRead *heap)
{
	SeqScanState *scan = heap->scan;
	int			n = list_length(scan->ss.ps.plan->targetlist);
	AttrNumber *columns;
	AttrNumber	deform_natts = 0;

	if (scan->ss.ps.ps_ProjInfo == NULL || n == 0)
		return;
	columns = palloc(sizeof(AttrNumber) * n);
	for (int k = 0; k < n; k++)
	{
		columns[k] = table_column(scan, k + 1);
		if (columns[k] < 1)
		{
			pfree(columns);
			return;
		}
		deform_natts = Max(deform_natts, columns[k]);
	}
	heap->ncolumns = n;
	heap->columns = columns;
	heap->deform_natts = deform_natts;
	heap->row_slot = ExecInitExtraTupleSlot(scan->ss.ps.state, RelationGetDescr(heap->rel),
											&TTSOpsHeapTuple);
}

/*
 * The node's reading of its input's pages (at ExecInit), or NULL where the
 * input is not a sequential scan the node may stand in for; key_column is
 * the input's column of the first sort key.
 */
BitonicHeapRead *
BitonicHeapReadInit(PlanState *child, AttrNumber key_column)
{
	SeqScanState *scan;
	Relation	rel;
	BitonicHeapRead *heap;

	if (!bitonic_sort_heap_read || !IsA(child, SeqScanState) || child->plan->parallel_aware)
		return NULL;
	scan = (SeqScanState *) child;
	rel = scan->ss.ss_currentRelation;
	if (rel == NULL || rel->rd_tableam != GetHeapamTableAmRoutine())
		return NULL;
	/* the page's quals run before its rows' projection: only where no call there can tell */
	if (contain_volatile_functions((Node *) scan->ss.ps.plan->targetlist))
		return NULL;
	heap = palloc0(sizeof(BitonicHeapRead));
	heap->scan = scan;
	heap->rel = rel;
	heap->page.tupdesc = RelationGetDescr(rel);
	heap->page.rows_as_is = scan->ss.ps.ps_ProjInfo == NULL;
	heap->page.key_attno = table_column(scan, key_column);
	heap->page.buffer = InvalidBuffer;
	plan_column_projection(heap);
	return heap;
}

#if PG_VERSION_NUM >= 170000
/* Read stream callback: the blocks of the table in order. */
static BlockNumber
next_block_cb(ReadStream *stream, void *arg, void *per_buffer_data)
{
	BitonicHeapRead *heap = (BitonicHeapRead *) arg;

	(void) stream;
	(void) per_buffer_data;
	if (heap->next_block >= heap->nblocks)
		return InvalidBlockNumber;
	return heap->next_block++;
}
#endif

/*
 * Start reading the table from its first page; false where the scan node
 * must read it instead (see the file's comment), nothing then started.
 */
bool
BitonicHeapReadBegin(BitonicHeapRead *heap)
{
	EState	   *estate = heap->scan->ss.ps.state;

	heap->snapshot = estate->es_snapshot;
	if (estate->es_epq_active != NULL || IsolationIsSerializable() ||
		heap->snapshot == NULL || !IsMVCCSnapshot(heap->snapshot))
		return false;
	heap->nblocks = RelationGetNumberOfBlocks(heap->rel);
	heap->next_block = 0;
	/* as a heap scan: a table larger than a quarter of shared_buffers reads through a ring */
	heap->strategy = !RelationUsesLocalBuffers(heap->rel) &&
		heap->nblocks > (BlockNumber) (NBuffers / 4) ?
		GetAccessStrategy(BAS_BULKREAD) : NULL;
#if PG_VERSION_NUM >= 170000
	heap->stream = read_stream_begin_relation(READ_STREAM_SEQUENTIAL, heap->strategy,
											  heap->rel, MAIN_FORKNUM, next_block_cb,
											  heap, 0);
#endif
	pgstat_count_heap_scan(heap->rel);
	return true;
}

/*
 * Release the page whose rows were taken (the node pinned what it keeps),
 * and the scan's slot's hold on it.
 */
static void
release_page(BitonicHeapRead *heap)
{
	ExecClearTuple(heap->scan->ss.ss_ScanTupleSlot);
	if (heap->ncolumns > 0)
	{
		/* their values point into the page */
		ExecClearTuple(heap->row_slot);
		ExecClearTuple(heap->scan->ss.ps.ps_ProjInfo->pi_state.resultslot);
	}
	if (BufferIsValid(heap->page.buffer))
		ReleaseBuffer(heap->page.buffer);
	heap->page.buffer = InvalidBuffer;
	heap->page.nrows = 0;
	heap->page.whole = false;
}

/* The next page of the table, pinned, or InvalidBuffer past the last. */
static Buffer
read_next_buffer(BitonicHeapRead *heap)
{
#if PG_VERSION_NUM >= 170000
	return read_stream_next_buffer(heap->stream, NULL);
#else
	if (heap->next_block >= heap->nblocks)
		return InvalidBuffer;
	return ReadBufferExtended(heap->rel, MAIN_FORKNUM, heap->next_block++, RBM_NORMAL,
							  heap->strategy);
#endif
}

/* Rows[] of a page: its tuple at line pointer off, which is a normal one. */
static inline void
set_row(BitonicHeapRead *heap, HeapTuple row, Page page, BlockNumber block, OffsetNumber off)
{
	ItemId		item = PageGetItemId(page, off);

	row->t_data = (HeapTupleHeader) PageGetItem(page, item);
	row->t_len = ItemIdGetLength(item);
	row->t_tableOid = RelationGetRelid(heap->rel);
	ItemPointerSet(&row->t_self, block, off);
}

/*
 * Count the normal line pointers of an all-visible page (every one is a
 * visible row), leaving rows[] unfilled: the page is taken whole.
 */
static void
count_whole(BitonicHeapRead *heap, Page page, OffsetNumber maxoff)
{
	uint64	   *taken = heap->page.taken;
	int			n = 0;

	memset(taken, 0, sizeof(heap->page.taken));
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off = OffsetNumberNext(off))
	{
		uint64		normal = ItemIdIsNormal(PageGetItemId(page, off)) ? 1 : 0;

		taken[(off - 1) / 64] |= normal << ((off - 1) % 64);
		n += (int) normal;
	}
	heap->page.nrows = n;
	heap->page.whole = true;
}

/*
 * Fill rows[] of a page taken whole (the caller cannot take it so after
 * all) from its taken line pointers: the page stays pinned, so their rows
 * stay where they are, as in the heap's page-at-a-time scan.
 */
void
BitonicHeapPageRows(BitonicHeapRead *heap)
{
	Page		page = BufferGetPage(heap->page.buffer);
	BlockNumber block = BufferGetBlockNumber(heap->page.buffer);
	int			n = 0;

	Assert(heap->page.whole);
	for (int off = 1; (off = BitonicPageNextTaken(heap->page.taken, off)) != 0; off++)
		set_row(heap, &heap->page.rows[n++], page, block, (OffsetNumber) off);
	Assert(n == heap->page.nrows);
	heap->page.whole = false;
}

/*
 * Keep the page's tuples that the snapshot sees, as the heap's
 * page-at-a-time scan does, under the page's share lock; an all-visible
 * page is only counted where the caller takes it whole.
 */
static void
collect_visible(BitonicHeapRead *heap, Buffer buffer, bool whole_ok)
{
	Page		page;
	BlockNumber block = BufferGetBlockNumber(buffer);
	OffsetNumber maxoff;
	bool		all_visible;

	heap_page_prune_opt(heap->rel, buffer);
	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buffer);
#if PG_VERSION_NUM < 170000
	TestForOldSnapshot(heap->snapshot, heap->rel, page);
#endif
	maxoff = PageGetMaxOffsetNumber(page);
	if (maxoff > MaxHeapTuplesPerPage)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("page %u of relation \"%s\" has %u line pointers, more than a heap page can hold",
						block, RelationGetRelationName(heap->rel), (unsigned) maxoff)));
	all_visible = PageIsAllVisible(page) && !heap->snapshot->takenDuringRecovery;
	if (all_visible && whole_ok)
		count_whole(heap, page, maxoff);
	else
	{
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off = OffsetNumberNext(off))
		{
			HeapTuple	row = &heap->page.rows[heap->page.nrows];

			if (!ItemIdIsNormal(PageGetItemId(page, off)))
				continue;
			set_row(heap, row, page, block, off);
			if (all_visible || HeapTupleSatisfiesVisibility(row, heap->snapshot, buffer))
				heap->page.nrows++;
		}
	}
	LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
}

/* Drop the page's rows that fail the scan's quals (counted as the scan's filtered rows). */
static void
apply_quals(BitonicHeapRead *heap)
{
	SeqScanState *scan = heap->scan;
	ExprState  *qual = scan->ss.ps.qual;
	ExprContext *econtext = scan->ss.ps.ps_ExprContext;
	int			kept = 0;

	for (int i = 0; i < heap->page.nrows; i++)
	{
		ResetExprContext(econtext);
		econtext->ecxt_scantuple =
			ExecStoreBufferHeapTuple(&heap->page.rows[i], scan->ss.ss_ScanTupleSlot,
									 heap->page.buffer);
		if (ExecQual(qual, econtext))
			heap->page.rows[kept++] = heap->page.rows[i];
		else
			InstrCountFiltered1(scan, 1);
	}
	heap->page.nrows = kept;
}

/*
 * The next page's visible rows that pass the scan's quals, its buffer
 * pinned until the next call; NULL past the last page.  Pages without such
 * rows are skipped.  Where whole_ok and the scan has no quals, an
 * all-visible page comes whole (rows[] unfilled: the caller reads the
 * page's line pointers).
 */
BitonicHeapPage *
BitonicHeapReadPage(BitonicHeapRead *heap, bool whole_ok)
{
	PlanState  *scan = &heap->scan->ss.ps;

	release_page(heap);
	for (;;)
	{
		Buffer		buffer;

		CHECK_FOR_INTERRUPTS();
		if (scan->instrument != NULL)
			InstrStartNode(scan->instrument);
		buffer = read_next_buffer(heap);
		if (!BufferIsValid(buffer))
		{
			if (scan->instrument != NULL)
				InstrStopNode(scan->instrument, 0);
			return NULL;
		}
		heap->pages++;
		heap->page.buffer = buffer;
		collect_visible(heap, buffer, whole_ok && scan->qual == NULL);
		/* as the heap scan counts them: every visible row, before the quals */
		for (int i = 0; i < heap->page.nrows; i++)
			pgstat_count_heap_getnext(heap->rel);
		if (scan->qual != NULL)
			apply_quals(heap);
		if (scan->instrument != NULL)
			InstrStopNode(scan->instrument, heap->page.nrows);
		if (heap->page.nrows > 0)
			return &heap->page;
		release_page(heap);
	}
}

/* Stop reading: the last page, the scan's slot and the ring are released. */
void
BitonicHeapReadEnd(BitonicHeapRead *heap)
{
	release_page(heap);
#if PG_VERSION_NUM >= 170000
	if (heap->stream != NULL)
		read_stream_end(heap->stream);
	heap->stream = NULL;
#endif
	if (heap->strategy != NULL)
		FreeAccessStrategy(heap->strategy);
	heap->strategy = NULL;
}

/*
 * The scan's projection of a row of the pinned page into the projection's
 * own slot, where it only picks table columns: the columns copied out of
 * the row deformed as far as they need.  Their by-reference values point
 * into the page, as the projection's do.
 */
static TupleTableSlot *
project_columns(BitonicHeapRead *heap, HeapTuple row)
{
	TupleTableSlot *in = heap->row_slot;
	TupleTableSlot *out = heap->scan->ss.ps.ps_ProjInfo->pi_state.resultslot;

	ExecStoreHeapTuple(row, in, false);
	slot_getsomeattrs(in, heap->deform_natts);
	ExecClearTuple(out);
	for (int k = 0; k < heap->ncolumns; k++)
	{
		out->tts_values[k] = in->tts_values[heap->columns[k] - 1];
		out->tts_isnull[k] = in->tts_isnull[heap->columns[k] - 1];
	}
	return ExecStoreVirtualTuple(out);
}

/*
 * A row of the page as the scan node would return it: in the scan's slot,
 * projected by the scan's projection where it has one.
 */
TupleTableSlot *
BitonicHeapReadSlot(BitonicHeapRead *heap, HeapTuple row, Buffer buffer)
{
	SeqScanState *scan = heap->scan;
	TupleTableSlot *slot;
	ExprContext *econtext = scan->ss.ps.ps_ExprContext;

	if (heap->ncolumns > 0)
		return project_columns(heap, row);
	slot = ExecStoreBufferHeapTuple(row, scan->ss.ss_ScanTupleSlot, buffer);
	if (scan->ss.ps.ps_ProjInfo == NULL)
		return slot;
	ResetExprContext(econtext);
	econtext->ecxt_scantuple = slot;
	return ExecProject(scan->ss.ps.ps_ProjInfo);
}

/*
 * The page the reading fills, whose row type, key column and shape of rows
 * are set from the start.
 */
const BitonicHeapPage *
BitonicHeapReadLayout(const BitonicHeapRead *heap)
{
	return &heap->page;
}

/* Pages the node has read itself, in all its readings. */
uint64
BitonicHeapReadPages(const BitonicHeapRead *heap)
{
	return heap->pages;
}
