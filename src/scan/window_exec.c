/*
 * window_exec.c — the window functions the node computes in a WindowAgg's
 * place (window.c): each row it hands out gets its row_number(), rank()
 * and dense_rank() in its partition, the partitions and peers told apart by
 * the WindowClause's equality operators, as WindowAgg tells them.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "scan/window.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

/* How a column of a by-value type is compared, as its equality operator compares. */
typedef enum ValueEquality
{
	EQUAL_DATUM,				/* integers, bool, oid, date, timestamp: the same value */
	EQUAL_FLOAT4,				/* float4eq: NaN equals NaN, -0 equals 0 */
	EQUAL_FLOAT8				/* float8eq: likewise */
} ValueEquality;

/*
 * Columns whose equality operators compare by-value types: compared with
 * the last row's values kept here, without an expression or a function call.
 */
typedef struct ValueColumns
{
	int			n;
	int		   *cols;			/* 0-based column numbers */
	ValueEquality *equality;
	Datum	   *last;			/* the last row's values of these columns */
	bool	   *last_null;
} ValueColumns;

/* The state of the numbering as rows go out. */
typedef struct BitonicWindow
{
	int			nfuncs;
	Oid		   *funcs;			/* F_ROW_NUMBER, F_RANK_ or F_DENSE_RANK_ per added column */
	int			ncolumns;		/* columns of the stored rows, before the added ones */
	bool		by_value;		/* every column compared in a ValueColumns */
	ValueColumns partition_values;	/* by_value: the partition's columns */
	ValueColumns peer_values;	/* by_value: the order's columns */
	ExprState  *partition_equal;	/* else: NULL where the rows are one partition */
	ExprState  *peer_equal;		/* else: NULL where a partition's rows are all peers */
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

/* How equality operator eqop compares, where it compares a by-value type by value; false otherwise. */
static bool
value_equality(Oid eqop, ValueEquality *equality)
{
	switch (get_opcode(eqop))
	{
		case F_INT2EQ:
		case F_INT4EQ:
		case F_BOOLEQ:
		case F_OIDEQ:
		case F_DATE_EQ:
			*equality = EQUAL_DATUM;
			return true;
		case F_INT8EQ:
		case F_TIMESTAMP_EQ:
			/* 8-byte types are by value only where Datum holds them (64-bit builds) */
			*equality = EQUAL_DATUM;
			return FLOAT8PASSBYVAL;
		case F_FLOAT4EQ:
			*equality = EQUAL_FLOAT4;
			return true;
		case F_FLOAT8EQ:
			*equality = EQUAL_FLOAT8;
			return FLOAT8PASSBYVAL;
		default:
			return false;
	}
}

/*
 * The columns listed in spec at attnos_at (and the operators after them) as
 * ValueColumns; false where an operator does not compare by value.
 */
static bool
value_columns(List *spec, int attnos_at, ValueColumns *columns)
{
	List	   *attnos = list_nth(spec, attnos_at);
	List	   *eqops = list_nth(spec, attnos_at + 1);
	int			n = list_length(attnos);

	columns->n = n;
	columns->cols = palloc(sizeof(int) * (n + 1));
	columns->equality = palloc(sizeof(ValueEquality) * (n + 1));
	columns->last = palloc(sizeof(Datum) * (n + 1));
	columns->last_null = palloc(sizeof(bool) * (n + 1));
	for (int i = 0; i < n; i++)
	{
		columns->cols[i] = list_nth_int(attnos, i) - 1;
		if (!value_equality(list_nth_oid(eqops, i), &columns->equality[i]))
			return false;
	}
	return true;
}

/* Whether row differs from the last row in columns (NULL equals NULL, as for grouping). */
static bool
values_differ(const ValueColumns *columns, TupleTableSlot *row)
{
	for (int i = 0; i < columns->n; i++)
	{
		Datum		value = row->tts_values[columns->cols[i]];
		bool		null = row->tts_isnull[columns->cols[i]];
		Datum		last = columns->last[i];

		if (null || columns->last_null[i])
		{
			if (null != columns->last_null[i])
				return true;
			continue;
		}
		switch (columns->equality[i])
		{
			case EQUAL_DATUM:
				if (value != last)
					return true;
				break;
			case EQUAL_FLOAT4:
				if (!float4_eq(DatumGetFloat4(value), DatumGetFloat4(last)))
					return true;
				break;
			case EQUAL_FLOAT8:
				if (!float8_eq(DatumGetFloat8(value), DatumGetFloat8(last)))
					return true;
				break;
		}
	}
	return false;
}

/* Keep row's values of columns as the last row's. */
static void
remember_values(ValueColumns *columns, TupleTableSlot *row)
{
	for (int i = 0; i < columns->n; i++)
	{
		columns->last[i] = row->tts_values[columns->cols[i]];
		columns->last_null[i] = row->tts_isnull[columns->cols[i]];
	}
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
	window->by_value = value_columns(spec, 1, &window->partition_values) &&
		value_columns(spec, 4, &window->peer_values);
	if (!window->by_value)
	{
		window->partition_equal = columns_equal(spec, 1, rows, parent);
		window->peer_equal = columns_equal(spec, 4, rows, parent);
	}
	window->econtext = CreateExprContext(parent->state);
	window->prev = MakeSingleTupleTableSlot(rows, &TTSOpsMinimalTuple);
	window->out = out;
	return window;
}

/*
 * Whether row and the last one differ in the columns of values (by_value)
 * or of equal (else; NULL: no columns).
 */
static bool
differs(BitonicWindow *window, const ValueColumns *values, ExprState *equal, TupleTableSlot *row)
{
	if (window->by_value)
		return values_differ(values, row);
	if (equal == NULL)
		return false;
	window->econtext->ecxt_outertuple = row;
	window->econtext->ecxt_innertuple = window->prev;
	return !ExecQualAndReset(equal, window->econtext);
}

/* Advance the numbering to row, the next in the sort's order (its columns deformed). */
static void
count_row(BitonicWindow *window, TupleTableSlot *row)
{
	if (!window->has_prev ||
		differs(window, &window->partition_values, window->partition_equal, row))
	{
		window->row_number = window->rank = window->dense_rank = 1;
		return;
	}
	window->row_number++;
	if (differs(window, &window->peer_values, window->peer_equal, row))
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

	slot_getallattrs(row);
	count_row(window, row);
	if (window->by_value)
	{
		remember_values(&window->partition_values, row);
		remember_values(&window->peer_values, row);
	}
	else if (window->partition_equal != NULL || window->peer_equal != NULL)
	{
		if (row_stays)
			ExecStoreMinimalTuple(((MinimalTupleTableSlot *) row)->mintuple,
								  window->prev, false);
		else
			ExecCopySlot(window->prev, row);
	}
	window->has_prev = true;

	ExecClearTuple(out);
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
