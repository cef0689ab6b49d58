/*
 * join_paths.c — a merge join over BitonicSort of both inputs, offered to
 * the planner beside its own join paths (set_join_pathlist_hook).
 *
 * PostgreSQL's own merge join that sorts both inputs is often discarded
 * before any later stage sees it (a cheaper hash join dominates it), so the
 * upper stages cannot put our sort into it; here it is built afresh from
 * the cheapest input paths, as PostgreSQL builds its sort-both-inputs merge
 * join, with BitonicSort of each input where that is cheaper than the native
 * sort.  The hash joins of the same inputs are charged what their tables
 * cost (hash_cost.c), so the planner picks whichever is really faster.
 */
#include "scan/plan.h"

#include "optimizer/pathnode.h"
#include "optimizer/paths.h"

static set_join_pathlist_hook_type prev_join_pathlist_hook = NULL;

/* Whether every join clause can be a merge clause (a right or full merge join needs that). */
static bool
all_clauses_mergeable(JoinPathExtraData *extra)
{
	return list_length(extra->mergeclause_list) == list_length(extra->restrictlist);
}

/* Whether a merge join of this join type is one this file builds. */
static bool
merge_join_wanted(JoinType jointype, JoinPathExtraData *extra)
{
	switch (jointype)
	{
		case JOIN_INNER:
		case JOIN_LEFT:
		case JOIN_ANTI:
		case JOIN_SEMI:
			return extra->mergeclause_list != NIL;
		case JOIN_RIGHT:
		case JOIN_FULL:
			return extra->mergeclause_list != NIL && all_clauses_mergeable(extra);
		default:
			return false;		/* unique-ified inputs and the rest: PostgreSQL's own */
	}
}

/* BitonicSort of rel's cheapest path by pathkeys where cheaper than the native sort; else NULL. */
static Path *
sorted_input(PlannerInfo *root, RelOptInfo *rel, List *pathkeys)
{
	Path	   *input = rel->cheapest_total_path;

	return input != NULL ? BitonicJoinInputSort(root, input, pathkeys) : NULL;
}

/* set_join_pathlist_hook: offer the merge join over BitonicSort of both inputs. */
static void
bitonic_join_paths(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
				   RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra)
{
	List	   *outer_keys,
			   *inner_keys,
			   *mergeclauses;
	Path	   *outer,
			   *inner;
	MergePath  *merge;

	if (prev_join_pathlist_hook)
		prev_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);
	if (!BitonicPlanningEnabled() || !enable_mergejoin || !merge_join_wanted(jointype, extra))
		return;
	outer_keys = select_outer_pathkeys_for_merge(root, extra->mergeclause_list, joinrel);
	if (outer_keys == NIL)
		return;
	mergeclauses = find_mergeclauses_for_outer_pathkeys(root, outer_keys,
														extra->mergeclause_list);
	if (jointype == JOIN_RIGHT || jointype == JOIN_FULL)
	{
		/* every clause must be a merge clause of these keys */
		if (list_length(mergeclauses) != list_length(extra->mergeclause_list))
			return;
	}
	inner_keys = make_inner_pathkeys_for_merge(root, mergeclauses, outer_keys);
	outer = sorted_input(root, outerrel, outer_keys);
	inner = sorted_input(root, innerrel, inner_keys);
	if (outer == NULL || inner == NULL)
		return;
	merge = BitonicSortedMergeJoinPath(root, joinrel, jointype, extra, outer, inner,
									   mergeclauses,
									   build_join_pathkeys(root, joinrel, jointype, outer_keys));
	BitonicChargeHashJoins(joinrel, outerrel, innerrel);
	add_path(joinrel, &merge->jpath.path);
}

/* Install the join path hook. */
void
BitonicJoinPathsInit(void)
{
	prev_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = bitonic_join_paths;
}
