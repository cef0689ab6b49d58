/*
 * replace.c — BitonicSort wherever the planner sorts, not only for the
 * query's ORDER BY: under WindowAgg, GroupAggregate, Unique, SetOp, and on
 * either input of a Merge Join.
 *
 * At each upper stage (create_upper_paths_hook, before the stage's cheapest
 * path is chosen) every path of the stage's relation is walked; where a
 * native Sort in it (a SortPath, or a merge join's explicit sort) would cost
 * more than BitonicSort of the same input, a copy of the path is made with
 * BitonicSort there instead, costed lower by what it saves, and offered with
 * add_path.  So a sort-based plan (GroupAggregate, sorted DISTINCT) can win
 * over the hash-based one where our sort makes it cheaper, and the native
 * Sort stays where it is cheaper (small inputs) or bounded (top-N under
 * LIMIT).  Paths are never changed in place: the walk copies the nodes
 * between the path and each replaced sort, and shares the rest.
 *
 * Below Gather and Gather Merge, the node sorts each worker's share (it is
 * not parallel-aware: the leader merges, or reads, what the workers sort).
 * Not walked: subqueries in FROM (their own stages were walked when they
 * were planned), except on PostgreSQL 18, which sorts each input of
 * INTERSECT and EXCEPT inside its subquery after those stages (walked then
 * in the subquery's own planner state); and Incremental Sort, whose
 * presorted prefix the native node uses.  A WindowAgg or Unique over the
 * replaced sort may go into the node (window.c, unique.c).
 */
#include "scan/plan.h"

#include <stddef.h>

#include "nodes/nodeFuncs.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"

/* What a replacement saved, to be taken off the costs of every path above it. */
typedef struct Savings
{
	Cost		startup;
	Cost		total;
	int			disabled;		/* native sorts replaced that enable_sort = off disabled */
} Savings;

/* Where a path type keeps its inputs: up to two Path pointers and one List of them. */
typedef struct PathShape
{
	NodeTag		tag;
	size_t		size;
	size_t		inputs[2];		/* offsets of Path * fields; 0: none */
	size_t		input_list;		/* offset of a List of Path *; 0: none */
} PathShape;

#define ONE_INPUT(type) {T_##type, sizeof(type), {offsetof(type, subpath), 0}, 0}
#define JOIN_INPUTS(type) \
	{T_##type, sizeof(type), \
	 {offsetof(JoinPath, outerjoinpath), offsetof(JoinPath, innerjoinpath)}, 0}

static const PathShape path_shapes[] = {
#if PG_VERSION_NUM >= 180000
	ONE_INPUT(SubqueryScanPath),
#endif
	ONE_INPUT(ProjectionPath),
	ONE_INPUT(ProjectSetPath),
	ONE_INPUT(SortPath),
	ONE_INPUT(GroupPath),
	ONE_INPUT(UpperUniquePath),
	ONE_INPUT(AggPath),
	ONE_INPUT(GroupingSetsPath),
	ONE_INPUT(WindowAggPath),
	ONE_INPUT(LockRowsPath),
	ONE_INPUT(LimitPath),
	ONE_INPUT(ModifyTablePath),
	ONE_INPUT(MaterialPath),
	ONE_INPUT(MemoizePath),
	ONE_INPUT(UniquePath),
	ONE_INPUT(GatherPath),
	ONE_INPUT(GatherMergePath),
	{T_SetOpPath, sizeof(SetOpPath), BITONIC_SETOP_INPUTS, 0},
	JOIN_INPUTS(NestPath),
	JOIN_INPUTS(MergePath),
	JOIN_INPUTS(HashPath),
	{T_AppendPath, sizeof(AppendPath), {0, 0}, offsetof(AppendPath, subpaths)},
	{T_MergeAppendPath, sizeof(MergeAppendPath), {0, 0}, offsetof(MergeAppendPath, subpaths)},
	{T_CustomPath, sizeof(CustomPath), {0, 0}, offsetof(CustomPath, custom_paths)},
};

static Path *sorts_replaced(PlannerInfo *root, Path *path, bool bounded, Savings *saved);

/* The shape of path's type, or NULL where the walk stops (scans, Gather, subqueries, ...). */
static const PathShape *
shape_of(Path *path)
{
	for (size_t i = 0; i < lengthof(path_shapes); i++)
		if (path_shapes[i].tag == nodeTag(path))
			return &path_shapes[i];
	return NULL;
}

/* The Path * field at offset in path. */
static inline Path **
input_at(Path *path, size_t offset)
{
	return (Path **) ((char *) path + offset);
}

/* A shallow copy of path: its own fields, the same inputs. */
static Path *
path_copy(Path *path, const PathShape *shape)
{
	Path	   *copy = palloc(shape->size);

	memcpy(copy, path, shape->size);
	return copy;
}

/*
 * Whether a sort of input may be replaced at all: not a top-N sort, not too
 * few rows, not an input that takes parameters from an outer join.
 */
static bool
replaceable(Path *input, bool bounded)
{
	return !bounded && input->param_info == NULL &&
		input->rows >= (double) bitonic_sort_min_rows;
}

/*
 * BitonicSort (a path of rel) of input by pathkeys where it costs less than
 * the native sort of the same input, whose costs are native_startup and
 * native_total; NULL where it does not or cannot sort these keys.  *saved,
 * unless NULL, gets the difference.
 */
static Path *
cheaper_sort(PlannerInfo *root, RelOptInfo *rel, Path *input, List *pathkeys,
			 Cost native_startup, Cost native_total, Savings *saved)
{
	CustomPath *cpath = BitonicMakeSortPath(root, rel, input, pathkeys);

	if (cpath == NULL || cpath->path.total_cost >= native_total)
		return NULL;
	if (saved == NULL)
		return &cpath->path;
	saved->startup += native_startup - cpath->path.startup_cost;
	saved->total += native_total - cpath->path.total_cost;
	saved->disabled += enable_sort ? 0 : 1;
	return &cpath->path;
}

/* A SortPath with BitonicSort in its place where that is cheaper, or with its input's sorts replaced. */
static Path *
sort_replaced(PlannerInfo *root, SortPath *sort, const PathShape *shape, bool bounded,
			  Savings *saved)
{
	Savings		below = {0, 0, 0};
	Path	   *input = sorts_replaced(root, sort->subpath, false, &below);
	Path	   *replaced = NULL;
	SortPath   *copy;

	if (replaceable(input, bounded))
		replaced = cheaper_sort(root, sort->path.parent, input, sort->path.pathkeys,
								sort->path.startup_cost - below.startup,
								sort->path.total_cost - below.total, &below);
	saved->startup += below.startup;
	saved->total += below.total;
	saved->disabled += below.disabled;
	if (replaced != NULL)
		return replaced;
	if (input == sort->subpath)
		return &sort->path;
	copy = (SortPath *) path_copy(&sort->path, shape);
	copy->subpath = input;
	copy->path.startup_cost -= below.startup;
	copy->path.total_cost -= below.total;
	BitonicPathDropDisabled(&copy->path, below.disabled);
	return &copy->path;
}

/* Whether rel has a pseudoconstant restriction (a gating qual, planned above each scan of rel). */
static bool
has_gating_qual(RelOptInfo *rel)
{
	ListCell   *lc;

	foreach(lc, rel->baserestrictinfo)
		if (lfirst_node(RestrictInfo, lc)->pseudoconstant)
			return true;
	return false;
}

/*
 * BitonicSort of a join input by pathkeys, as a path of the input's own
 * relation (a merge join finds its clauses' sides by it), where the sort may
 * be replaced and BitonicSort costs less than the native sort of input;
 * NULL if not.  *saved, unless NULL, gets the difference.
 */
static Path *
join_input_sort(PlannerInfo *root, Path *input, List *pathkeys, Savings *saved)
{
	Path		native;

	if (pathkeys == NIL || pathkeys_contained_in(pathkeys, input->pathkeys) ||
		!replaceable(input, false))
		return NULL;
	BitonicCostEnabledSort(&native, root, pathkeys, input);
	return cheaper_sort(root, input->parent, input, pathkeys,
						native.startup_cost, native.total_cost, saved);
}

/* BitonicSort of a join input by pathkeys where cheaper than the native sort (join_paths.c); NULL if not. */
Path *
BitonicJoinInputSort(PlannerInfo *root, Path *input, List *pathkeys)
{
	return join_input_sort(root, input, pathkeys, NULL);
}

/*
 * A merge join's explicit sort of one input by sortkeys, replaced by
 * BitonicSort where cheaper; NULL if not.  The input's relation's
 * restrictions were applied below, and the node ignores them; one with a
 * gating qual keeps the native sort (the plan would test the qual again
 * above the node).
 */
static Path *
merge_input_replaced(PlannerInfo *root, Path *input, List *sortkeys, Savings *saved)
{
	if (has_gating_qual(input->parent))
		return NULL;
	return join_input_sort(root, input, sortkeys, saved);
}

/* The explicit sorts of a merge join (a copy) replaced where cheaper; whether any was. */
static bool
merge_sorts_replace(PlannerInfo *root, MergePath *merge, Savings *saved)
{
	Path	   *outer = merge_input_replaced(root, merge->jpath.outerjoinpath,
											 merge->outersortkeys, saved);
	Path	   *inner = merge_input_replaced(root, merge->jpath.innerjoinpath,
											 merge->innersortkeys, saved);

	if (outer != NULL)
	{
		merge->jpath.outerjoinpath = outer;
		BitonicMergeOuterSorted(merge);
	}
	if (inner != NULL)
	{
		merge->jpath.innerjoinpath = inner;
		merge->innersortkeys = NIL;
	}
	return outer != NULL || inner != NULL;
}

/* path with the sorts in its inputs replaced: a copy where any was, else path itself. */
static Path *
inputs_replaced(PlannerInfo *root, Path *path, const PathShape *shape, bool bounded,
				Savings *saved)
{
	Savings		below = {0, 0, 0};
	Path	   *copy = NULL;

	for (int i = 0; i < 2 && shape->inputs[i] != 0; i++)
	{
		Path	   *input = *input_at(path, shape->inputs[i]);
		Path	   *replaced = sorts_replaced(root, input, bounded, &below);

		if (replaced == input)
			continue;
		if (copy == NULL)
			copy = path_copy(path, shape);
		*input_at(copy, shape->inputs[i]) = replaced;
	}
	if (shape->input_list != 0)
	{
		List	   *inputs = *(List **) ((char *) path + shape->input_list);
		List	   *copied = NIL;
		ListCell   *lc;

		foreach(lc, inputs)
		{
			Path	   *replaced = sorts_replaced(root, lfirst(lc), false, &below);

			if (replaced == lfirst(lc))
				continue;
			if (copy == NULL)
				copy = path_copy(path, shape);
			if (copied == NIL)
				copied = list_copy(inputs);
			lfirst(list_nth_cell(copied, foreach_current_index(lc))) = replaced;
		}
		if (copied != NIL)
			*(List **) ((char *) copy + shape->input_list) = copied;
	}
	if (IsA(path, MergePath))
	{
		Path	   *merge = copy != NULL ? copy : path_copy(path, shape);

		if (merge_sorts_replace(root, (MergePath *) merge, &below) || copy != NULL)
			copy = merge;
		else
			pfree(merge);
	}
	if (copy == NULL)
		return path;
	copy->startup_cost -= below.startup;
	copy->total_cost -= below.total;
	BitonicPathDropDisabled(copy, below.disabled);
	saved->startup += below.startup;
	saved->total += below.total;
	saved->disabled += below.disabled;
	return copy;
}

/*
 * path with every native sort in it that BitonicSort sorts for less
 * replaced; bounded: path's rows are read by a LIMIT (a top-N sort there
 * stays native).
 */
static Path *
sorts_replaced(PlannerInfo *root, Path *path, bool bounded, Savings *saved)
{
	const PathShape *shape = shape_of(path);
	Path	   *replaced;
	Path	   *absorbed;

	if (shape == NULL || (IsA(path, CustomPath) && !BitonicIsSortPath(path)))
		return path;
	if (IsA(path, SortPath))
		return sort_replaced(root, (SortPath *) path, shape, bounded, saved);
	/*
	 * PostgreSQL 18 sorts each input of INTERSECT and EXCEPT inside its
	 * subquery, after the subquery's own stages: those sorts are replaced in
	 * the subquery's own planner state (only there on 18).
	 */
	if (IsA(path, SubqueryScanPath))
		return inputs_replaced(path->parent->subroot, path, shape, false, saved);
	/* a LIMIT bounds the sort right below it, through projections only */
	bounded = IsA(path, LimitPath) || (bounded && IsA(path, ProjectionPath));
	replaced = inputs_replaced(root, path, shape, bounded, saved);
	absorbed = replaced == path ? NULL :
		IsA(replaced, UpperUniquePath) ? BitonicUniqueAbsorbed((UpperUniquePath *) replaced) :
		IsA(replaced, WindowAggPath) ? BitonicWindowAbsorbed((WindowAggPath *) replaced) : NULL;
	if (absorbed != NULL)
	{
		/* the Unique's or WindowAgg's own work is the node's now */
		saved->startup += replaced->startup_cost - absorbed->startup_cost;
		saved->total += replaced->total_cost - absorbed->total_cost;
		return absorbed;
	}
	return replaced;
}

/* Offer, beside each path of rel, its copy with BitonicSort where that sorts for less. */
void
BitonicReplaceSorts(PlannerInfo *root, RelOptInfo *rel)
{
	List	   *copies = NIL;
	ListCell   *lc;

	if (!BitonicPlanningEnabled())
		return;
	/* all copies first: add_path may free the paths it finds dominated */
	foreach(lc, rel->pathlist)
	{
		Savings		saved = {0, 0, 0};
		Path	   *path = lfirst(lc);
		Path	   *copy = sorts_replaced(root, path, false, &saved);

		if (copy != path)
			copies = lappend(copies, copy);
	}
	/* where a sorted plan is offered, a hash table is charged what it costs */
	if (copies != NIL)
		BitonicChargeHashTables(root, rel, copies);
	foreach(lc, copies)
		add_path(rel, lfirst(lc));
}
