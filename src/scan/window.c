/*
 * window.c — row_number(), rank() and dense_rank() computed by the
 * BitonicSort below their WindowAgg, in the WindowAgg's place.
 *
 * A WindowAgg copies every input row into its tuple store, reads it back
 * and projects it (about 250 ns a row here: 2.5 s of the 4.7 s of
 * `row_number() OVER (ORDER BY a)` over 10M rows).  These three functions
 * need nothing but the rows in order: the position in the partition, and
 * where the peers (rows equal on the ORDER BY columns) start.  Where every
 * window function of the WindowAgg is one of them, without FILTER or a run
 * condition, the node numbers the rows as it hands them out (window_exec.c)
 * with the WindowClause's own equality operators, as WindowAgg does, and
 * the WindowAgg goes from the plan.
 *
 * The window functions' values are columns the node adds after its input's
 * (custom_scan_tlist), so the plan's target list and every node above refer
 * to them as to any column.  PostgreSQL 18's EXPLAIN names a window
 * function's window from the WindowAgg node above it, which would be gone:
 * there the WindowAgg stays.
 */
#include "scan/plan.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/fmgroids.h"

#if PG_VERSION_NUM < 180000

/* The window functions of an expression tree, each once. */
static bool
collect_window_funcs(Node *node, List **funcs)
{
	if (node == NULL)
		return false;
	if (IsA(node, WindowFunc))
	{
		*funcs = list_append_unique(*funcs, node);
		return false;
	}
	return expression_tree_walker(node, collect_window_funcs, funcs);
}

/* Whether wfunc is row_number(), rank() or dense_rank() of window winref, plain. */
static bool
numbering_func(WindowFunc *wfunc, Index winref)
{
	return wfunc->winref == winref && wfunc->args == NIL && wfunc->aggfilter == NULL &&
		(wfunc->winfnoid == F_ROW_NUMBER || wfunc->winfnoid == F_RANK_ ||
		 wfunc->winfnoid == F_DENSE_RANK_);
}

/*
 * Append to *attnos, *eqops and *collations the column of stored (the rows
 * the node keeps) holding each clause's expression, found in target (the
 * node's input, which carries the clauses' sort references), and the
 * clause's equality operator; false where a clause's column is not found.
 */
static bool
clause_columns(List *clauses, PathTarget *target, PathTarget *stored, List **attnos, List **eqops,
			   List **collations)
{
	ListCell   *lc;

	foreach(lc, clauses)
	{
		SortGroupClause *sgc = lfirst(lc);
		ListCell   *le;
		Expr	   *expr = NULL;
		int			column;

		if (target->sortgrouprefs == NULL)
			return false;
		foreach(le, target->exprs)
		{
			if (target->sortgrouprefs[foreach_current_index(le)] == sgc->tleSortGroupRef)
			{
				expr = lfirst(le);
				break;
			}
		}
		column = -1;
		foreach(le, stored->exprs)
		{
			if (expr != NULL && equal(lfirst(le), expr))
			{
				column = foreach_current_index(le);
				break;
			}
		}
		if (column < 0)
			return false;
		*attnos = lappend_int(*attnos, column + 1);
		*eqops = lappend_oid(*eqops, sgc->eqop);
		*collations = lappend_oid(*collations, exprCollation((Node *) expr));
	}
	return true;
}

/*
 * The BitonicSort below window, made to compute its window functions, in the
 * WindowAgg's place; NULL where the WindowAgg must stay (another function, a
 * run condition, another input, a mapped output).
 */
static Path *
absorbed_window(WindowAggPath *window)
{
	CustomPath *sort = (CustomPath *) window->subpath;
	PathTarget *stored;
	WindowClause *wc = window->winclause;
	List	   *funcs = NIL;
	List	   *part_attnos = NIL,
			   *part_eqops = NIL,
			   *part_collations = NIL,
			   *order_attnos = NIL,
			   *order_eqops = NIL,
			   *order_collations = NIL;
	List	   *spec;
	CustomPath *absorbed;
	bool		needs_peers = false;
	ListCell   *lc;

	if (!BitonicIsSortPath(window->subpath) || list_length(sort->custom_private) != 5)
		return NULL;
	/* the clauses' columns among the rows the node stores (a table's whole rows, say) */
	stored = ((Path *) linitial(sort->custom_paths))->pathtarget;
	if (window->qual != NIL)
		return NULL;
#if PG_VERSION_NUM >= 170000
	if (window->runCondition != NIL)
		return NULL;
#else
	if (wc->runCondition != NIL)
		return NULL;
#endif
	collect_window_funcs((Node *) window->path.pathtarget->exprs, &funcs);
	if (funcs == NIL)
		return NULL;
	foreach(lc, funcs)
	{
		if (!numbering_func(lfirst(lc), wc->winref))
			return NULL;
		if (((WindowFunc *) lfirst(lc))->winfnoid != F_ROW_NUMBER)
			needs_peers = true;
	}
	/* row_number() alone counts rows: no peers to tell apart, no comparison per row */
	if (!clause_columns(wc->partitionClause, sort->path.pathtarget, stored,
						&part_attnos, &part_eqops, &part_collations) ||
		(needs_peers && !clause_columns(wc->orderClause, sort->path.pathtarget, stored,
										&order_attnos, &order_eqops, &order_collations)))
		return NULL;
	spec = list_make4(funcs, part_attnos, part_eqops, part_collations);
	spec = lappend(spec, order_attnos);
	spec = lappend(spec, order_eqops);
	spec = lappend(spec, order_collations);

	absorbed = makeNode(CustomPath);
	memcpy(absorbed, sort, sizeof(CustomPath));
	absorbed->path.parent = window->path.parent;
	absorbed->path.pathtarget = window->path.pathtarget;
	absorbed->path.rows = window->path.rows;
	/* the window's target may hold what a parallel worker cannot run */
	absorbed->path.parallel_safe = sort->path.parallel_safe && window->path.parallel_safe;
	/* the equality tests per row that WindowAgg charges among its own work */
	absorbed->path.total_cost += cpu_operator_cost * sort->path.rows *
		(list_length(part_attnos) + list_length(order_attnos) + 1);
	/* and its target's expressions, evaluated per row as WindowAgg would */
	absorbed->path.startup_cost += window->path.pathtarget->cost.startup;
	absorbed->path.total_cost += window->path.pathtarget->cost.startup +
		window->path.pathtarget->cost.per_tuple * window->path.rows;
	absorbed->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	absorbed->custom_private = lappend(list_copy(sort->custom_private), spec);
	return &absorbed->path;
}
#endif							/* PG_VERSION_NUM < 180000 */

/*
 * window's BitonicSort computing its window functions, in its place, or NULL
 * where the WindowAgg stays; always on PostgreSQL 18, whose EXPLAIN names a
 * window function's window from the WindowAgg node.
 */
Path *
BitonicWindowAbsorbed(WindowAggPath *window)
{
#if PG_VERSION_NUM < 180000
	return absorbed_window(window);
#else
	return NULL;
#endif
}

/*
 * The columns the node adds after its input's for window functions computed
 * by it (the plan's custom_private, BitonicWindowAbsorbed), numbered from
 * first_resno; NIL for a plain sort.
 */
List *
BitonicWindowColumns(List *custom_private, AttrNumber first_resno)
{
	List	   *columns = NIL;
	ListCell   *lc;

	if (list_length(custom_private) <= 5)
		return NIL;
	foreach(lc, (List *) linitial(list_nth(custom_private, 5)))
		columns = lappend(columns, makeTargetEntry(copyObject(lfirst(lc)),
												   first_resno++, NULL, false));
	return columns;
}
