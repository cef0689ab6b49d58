/*
 * setop_names.c — EXPLAIN's names for the columns of a set operation's
 * inputs where the node sorts them (INTERSECT, EXCEPT, sorted UNION before
 * PostgreSQL 18).
 *
 * There the sort's input is an Append whose output columns are Vars of no
 * relation (varno 0) until set_plan_references turns them into references
 * to its first input.  The node's custom_scan_tlist, a copy of that target
 * list taken when the plan is made, keeps Vars that EXPLAIN cannot name.
 * Once the plan is final (a planner_hook around the planner), each such
 * column of the node becomes a reference to its input's column (OUTER_VAR),
 * and the input is also set as the node's outer plan, where EXPLAIN's
 * deparser looks for the plan an OUTER_VAR refers to: the keys are then
 * named through the Append as the native Sort's are ("*SELECT* 1".a).  The
 * executor and EXPLAIN start and print only custom_plans; the outer plan is
 * read by the deparser alone.
 */
#include "scan/plan.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "optimizer/planner.h"

static planner_hook_type prev_planner_hook = NULL;

/* Nodes over a set operation's Append made so far in this backend (planner.c counts them). */
uint64		BitonicSetopInputsPlanned = 0;

/* Whether expression node holds a Var of no relation (varno 0: a set operation's output column). */
bool
BitonicHasSetopVar(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varno == 0;
	return expression_tree_walker(node, BitonicHasSetopVar, context);
}

/* The node's columns as references to its input's, the input its outer plan too. */
static void
name_columns(CustomScan *cscan)
{
	ListCell   *lc;

	foreach(lc, cscan->custom_scan_tlist)
	{
		TargetEntry *tle = lfirst(lc);

		if (IsA(tle->expr, Var))
			tle->expr = (Expr *) makeVar(OUTER_VAR, tle->resno, exprType((Node *) tle->expr),
										 exprTypmod((Node *) tle->expr),
										 exprCollation((Node *) tle->expr), 0);
	}
	cscan->scan.plan.lefttree = linitial(cscan->custom_plans);
}

static void name_in_plans(List *plans);

/* Every BitonicSort over a set operation's Append in the tree under plan, named. */
static void
name_in_plan(Plan *plan)
{
	if (plan == NULL)
		return;
	switch (nodeTag(plan))
	{
		case T_CustomScan:
			{
				CustomScan *cscan = (CustomScan *) plan;

				name_in_plans(cscan->custom_plans);
				if (strcmp(cscan->methods->CustomName, BITONIC_SCAN_NAME) == 0 &&
					(linitial_int(list_nth(cscan->custom_private, 4)) & BITONIC_FLAG_SETOP_INPUT))
					name_columns(cscan);
				return;
			}
		case T_Append:
			name_in_plans(((Append *) plan)->appendplans);
			break;
		case T_MergeAppend:
			name_in_plans(((MergeAppend *) plan)->mergeplans);
			break;
		case T_SubqueryScan:
			name_in_plan(((SubqueryScan *) plan)->subplan);
			break;
		case T_BitmapAnd:
			name_in_plans(((BitmapAnd *) plan)->bitmapplans);
			break;
		case T_BitmapOr:
			name_in_plans(((BitmapOr *) plan)->bitmapplans);
			break;
		default:
			break;
	}
	name_in_plan(plan->lefttree);
	name_in_plan(plan->righttree);
}

/* name_in_plan for each plan of a list. */
static void
name_in_plans(List *plans)
{
	ListCell   *lc;

	foreach(lc, plans)
		name_in_plan(lfirst(lc));
}

/* planner_hook: plan, then name the set operation columns of nodes made meanwhile. */
static PlannedStmt *
bitonic_planner(Query *parse, const char *query_string, int cursorOptions,
				ParamListInfo boundParams)
{
	uint64		before = BitonicSetopInputsPlanned;
	PlannedStmt *stmt = prev_planner_hook != NULL ?
		prev_planner_hook(parse, query_string, cursorOptions, boundParams) :
		standard_planner(parse, query_string, cursorOptions, boundParams);

	if (BitonicSetopInputsPlanned != before)
	{
		name_in_plan(stmt->planTree);
		name_in_plans(stmt->subplans);
	}
	return stmt;
}

/* Install the planner hook. */
void
BitonicSetopNamesInit(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = bitonic_planner;
}
