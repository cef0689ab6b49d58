/*
 * input_names.c — EXPLAIN's names for the node's columns that only its
 * input's plan can name.
 *
 * Two kinds of column: before PostgreSQL 18, the Append of a set
 * operation's inputs (INTERSECT, EXCEPT, sorted UNION) outputs Vars of no
 * relation (varno 0) until set_plan_references turns them into references
 * to its first input; and on 18 a window function is named after the
 * WindowAgg that computes it ("OVER w1"), which EXPLAIN finds among the
 * plans above the expression it prints.  The node's custom_scan_tlist, a
 * copy of its input's target list taken when the plan is made, keeps such
 * columns as expressions that EXPLAIN cannot print from the node (an error,
 * or a wrong name).  Once the plan is final (a planner_hook around the
 * planner), each such column becomes a reference to the input's column
 * (OUTER_VAR), and the input is also set as the node's outer plan, where
 * EXPLAIN's deparser looks for the plan an OUTER_VAR refers to: the columns
 * are then named through the input as the native Sort's are ("*SELECT*
 * 1".a, row_number() OVER w1).  The input then is the outer plan alone
 * (custom_plans empties): the node starts it from there (exec.c,
 * BitonicScanInput) and keeps its state in custom_ps, where EXPLAIN prints
 * it.  The columns' types, typmods and collations stay as they were.  (On
 * 18, EXPLAIN's "Disabled" sums a CustomScan's custom_plans only: such a
 * node over an input with disabled nodes shows Disabled: true.)
 */
#include "scan/plan.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"

static planner_hook_type prev_planner_hook = NULL;

/* Nodes made so far in this backend whose columns their input names (planner.c counts them). */
uint64		BitonicNamedByInputPlanned = 0;

/* Whether expression node holds a Var of no relation (varno 0: a set operation's output column). */
static bool
has_setop_var(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varno == 0;
	return expression_tree_walker(node, has_setop_var, context);
}

/*
 * Whether the node cannot name expression node itself: a set operation's
 * column, or (on 18) a window function.
 */
bool
BitonicNamedByInput(Node *node)
{
	return has_setop_var(node, NULL)
#if PG_VERSION_NUM >= 180000
		|| contain_window_function(node)
#endif
		;
}

/* Such columns of the node as references to its input's, the input its outer plan too. */
static void
name_columns(CustomScan *cscan)
{
	int			ninput;
	ListCell   *lc;

	if (cscan->custom_plans == NIL)
		return;					/* named already */
	ninput = list_length(((Plan *) linitial(cscan->custom_plans))->targetlist);

	foreach(lc, cscan->custom_scan_tlist)
	{
		TargetEntry *tle = lfirst(lc);
		Node	   *expr = (Node *) tle->expr;

		/*
		 * the input's columns only (window functions the node computes
		 * follow them); every plain column too, as set_plan_references has
		 * moved a set operation's Vars off varno 0 inside a subquery
		 */
		if (tle->resno <= ninput && (IsA(expr, Var) || BitonicNamedByInput(expr)))
			tle->expr = (Expr *) makeVar(OUTER_VAR, tle->resno, exprType(expr),
										 exprTypmod(expr), exprCollation(expr), 0);
	}
	/*
	 * The input moves to the outer plan, not shared by both: a plan cache's
	 * copy or a parallel worker's serialised plan would otherwise hold the
	 * input twice, and twice again for each such node below.
	 */
	cscan->scan.plan.lefttree = linitial(cscan->custom_plans);
	cscan->custom_plans = NIL;
}

static void name_in_plans(List *plans);

/* Every BitonicSort in the tree under plan whose input names some of its columns, named. */
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
					(linitial_int(list_nth(cscan->custom_private, 4)) & BITONIC_FLAG_NAMED_BY_INPUT))
					name_columns(cscan);
				break;
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

/* planner_hook: plan, then name the columns of nodes made meanwhile that their input names. */
static PlannedStmt *
bitonic_planner(Query *parse, const char *query_string, int cursorOptions,
				ParamListInfo boundParams)
{
	uint64		before = BitonicNamedByInputPlanned;
	PlannedStmt *stmt = prev_planner_hook != NULL ?
		prev_planner_hook(parse, query_string, cursorOptions, boundParams) :
		standard_planner(parse, query_string, cursorOptions, boundParams);

	if (BitonicNamedByInputPlanned != before)
	{
		name_in_plan(stmt->planTree);
		name_in_plans(stmt->subplans);
	}
	return stmt;
}

/* Install the planner hook. */
void
BitonicInputNamesInit(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = bitonic_planner;
}
