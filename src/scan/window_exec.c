/*
 * window_exec.c — the window functions the node computes in a WindowAgg's
 * place (window.c): each row it hands out gets its row_number(), rank()
 * and dense_rank() in its partition, the partitions and peers told apart by
 * the WindowClause's equality operators, as WindowAgg tells them.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "scan/window.h"
#include "utils/fmgroids.h"

/* The state of the numbering as rows go out. */
typedef struct BitonicWindow
{
	int			nfuncs;
	Oid		   *funcs;			/* F_ROW_NUMBER, F_RANK_ or F_DENSE_RANK_ per added column */
	int			ncolumns;		/* columns of the stored rows, before the added ones */
	ExprState  *partition_equal;	/* NULL: the rows are one partition */
	ExprState  *peer_equal;		/* NULL: the rows of a partition are all peers */
	ExprContext *econtext;		/* where the equalities are evaluated */
	TupleTableSlot *prev;		/* the last row handed out */
	TupleTableSlot *out;		/* the row's columns, then the functions' values */
	bool		has_prev;
	int64		row_number;
	int64		rank;
	int64		dense_rank;
} BitonicWindow;

/* The equality of the columns listed in spec at attnos_at (and the two lists after it); NULL for none. */
static ExprState *
columns_equal(List *spec, int attnos_at, TupleDesc rows, PlanState *parent)
{
	List	   *attnos = list_nth(spec, attnos_at);
	List	   *eqops = list_nth(spec, attnos_at + 1);
	List	   *collations = list_nth(spec, attnos_at + 2);
	int			n = list_length(attnos);
	AttrNumber *cols;
	Oid		   *ops;
	Oid		   *colls;

	if (n == 0)
		return NULL;
	cols = palloc(sizeof(AttrNumber) * n);
	ops = palloc(sizeof(Oid) * n);
	colls = palloc(sizeof(Oid) * n);
	for (int i = 0; i < n; i++)
	{
		cols[i] = (AttrNumber) list_nth_int(attnos, i);
		ops[i] = list_nth_oid(eqops, i);
		colls[i] = list_nth_oid(collations, i);
	}
	return execTuplesMatchPrepare(rows, n, cols, ops, colls, parent);
}

/*
 * The numbering for spec (window.c's list: functions, then the partition's
 * and the order's columns, operators and collations) over rows of type rows,
 * written into out, whose first columns are the rows' own.
 */
BitonicWindow *
BitonicWindowBegin(List *spec, TupleDesc rows, TupleTableSlot *out, PlanState *parent)
{
	BitonicWindow *window = palloc0(sizeof(BitonicWindow));
	List	   *funcs = linitial(spec);
	int			i = 0;
	ListCell   *lc;

	window->nfuncs = list_length(funcs);
	window->funcs = palloc(sizeof(Oid) * window->nfuncs);
	foreach(lc, funcs)
		window->funcs[i++] = ((WindowFunc *) lfirst(lc))->winfnoid;
	window->ncolumns = rows->natts;
	window->partition_equal = columns_equal(spec, 1, rows, parent);
	window->peer_equal = columns_equal(spec, 4, rows, parent);
	window->econtext = CreateExprContext(parent->state);
	window->prev = MakeSingleTupleTableSlot(rows, &TTSOpsMinimalTuple);
	window->out = out;
	return window;
}

/* Whether row and the last one differ in the columns equal compares. */
static bool
differs(BitonicWindow *window, ExprState *equal, TupleTableSlot *row)
{
	window->econtext->ecxt_outertuple = row;
	window->econtext->ecxt_innertuple = window->prev;
	return !ExecQualAndReset(equal, window->econtext);
}

/* Advance the numbering to row, the next in the sort's order. */
static void
count_row(BitonicWindow *window, TupleTableSlot *row)
{
	if (!window->has_prev ||
		(window->partition_equal != NULL && differs(window, window->partition_equal, row)))
	{
		window->row_number = window->rank = window->dense_rank = 1;
		return;
	}
	window->row_number++;
	if (window->peer_equal != NULL && differs(window, window->peer_equal, row))
	{
		window->rank = window->row_number;
		window->dense_rank++;
	}
}

/*
 * row with its window functions' values after its columns; row_stays:
 * row's tuple stays where it is until the node ends (the in-memory store),
 * so the last row is kept by reference rather than copied.
 */
TupleTableSlot *
BitonicWindowNext(BitonicWindow *window, TupleTableSlot *row, bool row_stays)
{
	TupleTableSlot *out = window->out;

	count_row(window, row);
	if (window->partition_equal != NULL || window->peer_equal != NULL)
	{
		if (row_stays)
			ExecStoreMinimalTuple(((MinimalTupleTableSlot *) row)->mintuple,
								  window->prev, false);
		else
			ExecCopySlot(window->prev, row);
	}
	window->has_prev = true;

	ExecClearTuple(out);
	slot_getallattrs(row);
	memcpy(out->tts_values, row->tts_values, sizeof(Datum) * window->ncolumns);
	memcpy(out->tts_isnull, row->tts_isnull, sizeof(bool) * window->ncolumns);
	for (int i = 0; i < window->nfuncs; i++)
	{
		int64		value = window->funcs[i] == F_ROW_NUMBER ? window->row_number :
			window->funcs[i] == F_RANK_ ? window->rank : window->dense_rank;

		out->tts_values[window->ncolumns + i] = Int64GetDatum(value);
		out->tts_isnull[window->ncolumns + i] = false;
	}
	return ExecStoreVirtualTuple(out);
}

/* Number from the first row again (a rescan). */
void
BitonicWindowRestart(BitonicWindow *window)
{
	window->has_prev = false;
	ExecClearTuple(window->prev);
}

/* The functions' names, in their columns' order, for EXPLAIN. */
List *
BitonicWindowFuncNames(BitonicWindow *window)
{
	List	   *names = NIL;

	for (int i = 0; i < window->nfuncs; i++)
		names = lappend(names, window->funcs[i] == F_ROW_NUMBER ? "row_number()" :
						window->funcs[i] == F_RANK_ ? "rank()" : "dense_rank()");
	return names;
}
