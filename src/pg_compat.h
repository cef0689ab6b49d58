/*
 * pg_compat.h — the differences between the PostgreSQL versions the
 * extension builds against (15 to 18), in one place: each shim says what
 * changed and in which version.  Code elsewhere calls these and never tests
 * PG_VERSION_NUM itself.
 */
#ifndef BITONIC_PG_COMPAT_H
#define BITONIC_PG_COMPAT_H

#include "postgres.h"

#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/stratnum.h"
#include "miscadmin.h"
#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "optimizer/pathnode.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"

#if PG_VERSION_NUM < 150000
#error "bitonic_sort supports PostgreSQL 15, 16, 17 and 18"
#endif

/* 16 moved the varlena macros (VARDATA_ANY, ...) out of postgres.h into varatt.h. */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/* 18 moved the EXPLAIN property functions into explain_format.h. */
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#endif
#include "commands/explain.h"

/* 17 requires locale_t and dropped the macro that said it was there. */
#if PG_VERSION_NUM >= 170000 && !defined(HAVE_LOCALE_T)
#define HAVE_LOCALE_T 1
#endif

/*
 * Clear a datum tuple's mark from a minimal tuple copied out of a heap
 * tuple.  Minor releases from 15.20 on mark tuples made by heap_form_tuple
 * (a foreign scan's rows, say) as datums, with a version in t_ctid; a
 * minimal tuple is no datum, and heap_getattr on a header rebuilt in front
 * of it must not check a version there.
 */
#ifdef HEAP_IS_DATUM
#define BitonicClearDatumMark(mt) ((mt)->t_infomask &= ~HEAP_IS_DATUM)
#else
#define BitonicClearDatumMark(mt) ((void) (mt))
#endif

/* The executor's slot helpers (ExecInitExtraTupleSlot), which 18's headers no longer pull in. */
#include "executor/executor.h"

/*
 * The ordering operator a path key asks for over `type`: 18 names the
 * comparison a path key makes as a CompareType, 15 to 17 as a btree strategy.
 */
static inline Oid
BitonicPathKeySortOp(const PathKey *pk, Oid type)
{
#if PG_VERSION_NUM >= 180000
	return get_opfamily_member_for_cmptype(pk->pk_opfamily, type, type, pk->pk_cmptype);
#else
	return get_opfamily_member(pk->pk_opfamily, type, type, pk->pk_strategy);
#endif
}

/*
 * Whether the executor can compare values by sortop: the operator's btree
 * family has a comparison function (support function 1, which every btree
 * operator class has, and which sort support falls back to) for its type.
 * A family may have the operators without it (a type that only borrows
 * them for equivalence), and PrepareSortSupportFromOrderingOp raises an
 * error there, so the planner asks first and leaves such a sort to the
 * native node, which compares nothing until it runs.
 * 18 gives the operator's comparison as a CompareType, 15 to 17 as a btree
 * strategy.
 */
static inline bool
BitonicSortOpComparable(Oid sortop)
{
	Oid			opfamily;
	Oid			opcintype;
#if PG_VERSION_NUM >= 180000
	CompareType cmptype;
#else
	int16		cmptype;
#endif

	if (!get_ordering_op_properties(sortop, &opfamily, &opcintype, &cmptype))
		return false;
	return OidIsValid(get_opfamily_proc(opfamily, opcintype, opcintype, BTORDER_PROC));
}

/*
 * Cost the native Sort of `input` by `pathkeys` into *sort, as if
 * enable_sort were on: up to 17 a disabled sort adds disable_cost, which is
 * taken off again; 18 counts disabled nodes apart from the cost (and
 * cost_sort takes the input's count).
 */
static inline void
BitonicCostEnabledSort(Path *sort, PlannerInfo *root, List *pathkeys, const Path *input)
{
#if PG_VERSION_NUM >= 180000
	cost_sort(sort, root, pathkeys, input->disabled_nodes, input->total_cost, input->rows,
			  input->pathtarget->width, 0.0, work_mem, -1.0);
#else
	cost_sort(sort, root, pathkeys, input->total_cost, input->rows,
			  input->pathtarget->width, 0.0, work_mem, -1.0);
	if (!enable_sort)
	{
		sort->startup_cost -= disable_cost;
		sort->total_cost -= disable_cost;
	}
#endif
}

/* A path over `input` carries the input's disabled nodes (18 counts them apart from the cost). */
static inline void
BitonicPathCopyDisabled(Path *path, const Path *input)
{
#if PG_VERSION_NUM >= 180000
	path->disabled_nodes = input->disabled_nodes;
#else
	(void) path;
	(void) input;
#endif
}

/* Take n disabled nodes (a native sort replaced below it) off a path's count. */
static inline void
BitonicPathDropDisabled(Path *path, int n)
{
#if PG_VERSION_NUM >= 180000
	path->disabled_nodes -= n;
#else
	(void) path;
	(void) n;
#endif
}

/* Whether a collation sorts as "C" (18 dropped lc_collate_is_c for the locale's own flag). */
static inline bool
BitonicCollateIsC(Oid collation)
{
#if PG_VERSION_NUM >= 180000
	return pg_newlocale_from_collation(collation)->collate_is_c;
#else
	return lc_collate_is_c(collation);
#endif
}

/*
 * A slot's copy_minimal_tuple callback: 18 added the bytes to leave free
 * before the tuple.  Declare one with BITONIC_COPY_MINIMAL_ARGS and call
 * another slot type's with BITONIC_COPY_MINIMAL_CALL.
 */
#if PG_VERSION_NUM >= 180000
#define BITONIC_COPY_MINIMAL_ARGS TupleTableSlot *slot, Size extra
#define BITONIC_COPY_MINIMAL_CALL(ops, slot) ((ops).copy_minimal_tuple((slot), extra))
#else
#define BITONIC_COPY_MINIMAL_ARGS TupleTableSlot *slot
#define BITONIC_COPY_MINIMAL_CALL(ops, slot) ((ops).copy_minimal_tuple(slot))
#endif

/* 18's SetOp reads both inputs itself (leftpath, rightpath); before, one appended input (subpath). */
#if PG_VERSION_NUM >= 180000
#define BITONIC_SETOP_INPUTS {offsetof(SetOpPath, leftpath), offsetof(SetOpPath, rightpath)}
#else
#define BITONIC_SETOP_INPUTS {offsetof(SetOpPath, subpath), 0}
#endif

/* 18 lets a merge join sort its outer input incrementally after presorted keys: none once it is sorted for it. */
static inline void
BitonicMergeOuterSorted(MergePath *merge)
{
	merge->outersortkeys = NIL;
#if PG_VERSION_NUM >= 180000
	merge->outer_presorted_keys = 0;
#endif
}

/* Whether EXPLAIN qualifies column names: 18 counts the range table without its RTE_GROUP entry. */
static inline bool
BitonicExplainUsePrefix(ExplainState *es)
{
#if PG_VERSION_NUM >= 180000
	return es->rtable_size > 1 || es->verbose;
#else
	return list_length(es->rtable) > 1 || es->verbose;
#endif
}

/*
 * A merge join path over inputs already sorted for it (no sort of its own):
 * 18 takes the outer input's presorted key count too.
 */
static inline MergePath *
BitonicSortedMergeJoinPath(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
						   JoinPathExtraData *extra, Path *outer, Path *inner,
						   List *mergeclauses, List *pathkeys)
{
	JoinCostWorkspace workspace;

#if PG_VERSION_NUM >= 180000
	initial_cost_mergejoin(root, &workspace, jointype, mergeclauses, outer, inner,
						   NIL, NIL, 0, extra);
	return create_mergejoin_path(root, joinrel, jointype, &workspace, extra, outer, inner,
								 extra->restrictlist, pathkeys, NULL, mergeclauses,
								 NIL, NIL, 0);
#else
	initial_cost_mergejoin(root, &workspace, jointype, mergeclauses, outer, inner,
						   NIL, NIL, extra);
	return create_mergejoin_path(root, joinrel, jointype, &workspace, extra, outer, inner,
								 extra->restrictlist, pathkeys, NULL, mergeclauses,
								 NIL, NIL);
#endif
}

#endif							/* BITONIC_PG_COMPAT_H */
