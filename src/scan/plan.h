/*
 * scan/plan.h — the BitonicSort custom path in the planner: built and
 * costed (planner.c), put in place of native sorts at every stage
 * (replace.c), with a Unique on one exact key done by the node itself
 * (unique.c), row numbers and ranks done by the node in a WindowAgg's place
 * (window.c), as a merge join's inputs (join_paths.c), with hash tables
 * charged what they really cost (hash_cost.c).
 */
#ifndef BITONIC_SCAN_PLAN_H
#define BITONIC_SCAN_PLAN_H

#include "bitonic_sort.h"

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

/* Name of the node in EXPLAIN and of its registered methods. */
#define BITONIC_SCAN_NAME "BitonicSort"

/* Flags of the node, the one int of custom_private's fifth list. */
#define BITONIC_FLAG_UNIQUE			1	/* it does a Unique on its first key (unique.c) */
#define BITONIC_FLAG_NAMED_BY_INPUT	2	/* its input names some of its columns (input_names.c) */

/* planner.c */
extern void BitonicScanPlannerInit(void);
extern CustomPath *BitonicMakeSortPath(PlannerInfo *root, RelOptInfo *rel, Path *input,
									   List *pathkeys);
extern bool BitonicIsSortPath(Path *path);
extern bool BitonicPathKeyExact(const CustomPath *cpath);

/* unique.c */
extern Path *BitonicUniqueAbsorbed(UpperUniquePath *unique);

/* window.c */
extern Path *BitonicWindowAbsorbed(WindowAggPath *window);
extern List *BitonicWindowColumns(List *custom_private, AttrNumber first_resno);

/* replace.c */
extern void BitonicReplaceSorts(PlannerInfo *root, RelOptInfo *rel);
extern Path *BitonicJoinInputSort(PlannerInfo *root, Path *input, List *pathkeys);

/* The node's input plan: in custom_plans, or its outer plan once input_names.c named its columns. */
static inline Plan *
BitonicScanInput(CustomScan *cscan)
{
	return cscan->custom_plans != NIL ? (Plan *) linitial(cscan->custom_plans) : outerPlan(cscan);
}

/* input_names.c */
extern uint64 BitonicNamedByInputPlanned;
extern bool BitonicNamedByInput(Node *node);
extern void BitonicInputNamesInit(void);

/* extension.c */
extern bool BitonicPlanningEnabled(void);

/* hash_cost.c */
extern void BitonicChargeHashTables(PlannerInfo *root, RelOptInfo *rel, List *sorted);
extern void BitonicChargeHashJoins(RelOptInfo *joinrel, RelOptInfo *outerrel,
								   RelOptInfo *innerrel);

/* join_paths.c */
extern void BitonicJoinPathsInit(void);

#endif							/* BITONIC_SCAN_PLAN_H */
