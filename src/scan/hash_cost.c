/*
 * hash_cost.c — what a hash aggregate's table really costs once it outgrows
 * the caches, so that the planner can weigh GroupAggregate over BitonicSort
 * against HashAggregate fairly.
 *
 * PostgreSQL charges a hash aggregate one operator per grouping column and
 * row, whatever the size of its table; measured here (PostgreSQL 15, 1M
 * rows of int4 keys, count and sum(float8), work_mem 4GB), the time per input
 * row beyond the scan grows with the table: 58 ns at 1,000 groups, 304 ns at
 * 100,000, 1,116 ns at 1,000,000 (one cost unit is about 2.4 us of this
 * machine's time, fitted on the same runs' scans and sorts).  In operators
 * per input row beyond what PostgreSQL charges, that is about 6, 45 and 175
 * for tables of about 100 kB, 10 MB and 100 MB (groups times the row's
 * width plus 80 bytes); the charge below is linear in log2 of the table's
 * size between those points and flat beyond the last (larger tables are
 * slower still: the charge errs towards hashing).
 */
#include "scan/plan.h"

#include <math.h>

#include "access/htup_details.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "utils/selfuncs.h"

/* (log2 of the table's bytes, extra operators per input row), measured */
static const double hash_points[][2] = {
	{16.6, 6.0},
	{23.3, 45.0},
	{26.6, 175.0},
};

/*
 * A hash join's build or probe of a row, relative to an aggregate's update
 * of one: 1M rows joined to 1M (int8 key, about 100 MB of table) took
 * 0.93-1.73 s beyond the scans, which is 0.4-0.75 of the aggregate's charge.
 */
#define HASH_JOIN_SHARE 0.5

/*
 * Smaller tables are not charged: the join hook runs once per join order,
 * and a hash join charged in the first can be discarded for the other
 * order's uncharged one, which is charged only afterwards; left uncharged,
 * a small table (the fast case: 10,000 rows joined to 1M took 110 ms hashed,
 * 210 ms merged over BitonicSort) keeps the hash join that hashes it.
 */
#define HASH_JOIN_MIN_BYTES (8.0 * 1024 * 1024)

/* Bytes of one hash table entry: the grouped row, its header, the entry and transition states. */
#define HASH_ENTRY_OVERHEAD 64

/* Bytes of a hash table of rows entries of width bytes each. */
static double
hash_table_bytes(double rows, int width)
{
	return rows * (MAXALIGN(SizeofMinimalTupleHeader) + width + HASH_ENTRY_OVERHEAD);
}

/* The extra operators per input row for a hash table of bytes. */
static double
hash_row_operators(double bytes)
{
	double		lg = log2(Max(bytes, 1.0));
	int			last = lengthof(hash_points) - 1;

	if (lg <= hash_points[0][0])
		return hash_points[0][1];
	for (int i = 1; i <= last; i++)
		if (lg <= hash_points[i][0])
			return hash_points[i - 1][1] + (lg - hash_points[i - 1][0]) /
				(hash_points[i][0] - hash_points[i - 1][0]) *
				(hash_points[i][1] - hash_points[i - 1][1]);
	return hash_points[last][1];
}

/*
 * The groups a hash aggregate's table is charged for: the planner's
 * estimate, but over several grouping columns no more than the largest
 * estimate of one column alone.  The planner multiplies the columns'
 * distinct counts (correlated columns: TPC-DS q31's ca_county, d_qoy,
 * d_year, 1,484,184 groups estimated where there are 35,136), and a charge
 * that grows with a misestimate turns it into a slowdown; the largest
 * single column is a floor of the true count, so the charge errs towards
 * the plan PostgreSQL would choose.  A column not found in the input's
 * target leaves the estimate as it is.
 */
static double
charged_groups(PlannerInfo *root, AggPath *agg)
{
	PathTarget *input = agg->subpath->pathtarget;
	double		most = 0;
	ListCell   *lc;

	if (list_length(agg->groupClause) < 2 || input->sortgrouprefs == NULL)
		return agg->numGroups;
	foreach(lc, agg->groupClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		Expr	   *expr = NULL;
		ListCell   *le;

		foreach(le, input->exprs)
		{
			if (input->sortgrouprefs[foreach_current_index(le)] == sgc->tleSortGroupRef)
			{
				expr = lfirst(le);
				break;
			}
		}
		if (expr == NULL)
			return agg->numGroups;
		most = Max(most, estimate_num_groups(root, list_make1(expr), agg->subpath->rows,
											 NULL, NULL));
	}
	return Min(agg->numGroups, most);
}

/* The measured cost of a hash aggregate's table that PostgreSQL leaves out (0 for other paths). */
static Cost
hash_table_charge(PlannerInfo *root, Path *path)
{
	AggPath    *agg = (AggPath *) path;

	if (!IsA(path, AggPath) || agg->aggstrategy != AGG_HASHED)
		return 0;
	return agg->subpath->rows *
		hash_row_operators(hash_table_bytes(charged_groups(root, agg), path->pathtarget->width)) *
		cpu_operator_cost;
}

/*
 * Add to each hash aggregate path of rel (GROUP BY, DISTINCT) the measured
 * cost of its table that PostgreSQL leaves out, where that makes one of
 * `sorted`, the sorted alternatives through BitonicSort about to be
 * offered, the cheapest path of rel.  Elsewhere nothing is charged: the
 * charge only ever trades a hash plan for one of the node's, and never
 * makes the planner choose among its own plans otherwise (TPC-DS q08 changed
 * to another parallel plan without the node while every hash table was
 * charged).
 */
void
BitonicChargeHashTables(PlannerInfo *root, RelOptInfo *rel, List *sorted)
{
	Cost	   *charges = palloc(sizeof(Cost) * Max(list_length(rel->pathlist), 1));
	Cost		cheapest_charged = -1;
	Cost		cheapest_sorted = -1;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
	{
		Path	   *path = lfirst(lc);
		Cost		total;

		charges[foreach_current_index(lc)] = hash_table_charge(root, path);
		total = path->total_cost + charges[foreach_current_index(lc)];
		if (cheapest_charged < 0 || total < cheapest_charged)
			cheapest_charged = total;
	}
	foreach(lc, sorted)
	{
		Path	   *path = lfirst(lc);

		if (cheapest_sorted < 0 || path->total_cost < cheapest_sorted)
			cheapest_sorted = path->total_cost;
	}
	if (cheapest_sorted >= 0 && cheapest_charged >= 0 && cheapest_sorted < cheapest_charged)
	{
		foreach(lc, rel->pathlist)
		{
			Path	   *path = lfirst(lc);

			path->startup_cost += charges[foreach_current_index(lc)];
			path->total_cost += charges[foreach_current_index(lc)];
		}
	}
	pfree(charges);
}

/*
 * Add to each hash join of joinrel over these two relations (the paths just
 * made for them) the measured cost of its table beyond the caches: per row
 * built and probed, HASH_JOIN_SHARE of what an aggregate's update costs at a
 * table of that size.  Called only where a merge join over BitonicSort was
 * offered beside them.
 */
void
BitonicChargeHashJoins(RelOptInfo *joinrel, RelOptInfo *outerrel, RelOptInfo *innerrel)
{
	ListCell   *lc;

	foreach(lc, joinrel->pathlist)
	{
		HashPath   *hash = lfirst(lc);
		Path	   *outer,
				   *inner;
		double		bytes;
		Cost		extra;

		if (!IsA(hash, HashPath))
			continue;
		outer = hash->jpath.outerjoinpath;
		inner = hash->jpath.innerjoinpath;
		if (outer->parent != outerrel || inner->parent != innerrel)
			continue;
		bytes = hash_table_bytes(inner->rows, inner->pathtarget->width);
		if (bytes < HASH_JOIN_MIN_BYTES)
			continue;
		extra = (outer->rows + inner->rows) * HASH_JOIN_SHARE * hash_row_operators(bytes) *
			cpu_operator_cost;
		hash->jpath.path.startup_cost += extra;
		hash->jpath.path.total_cost += extra;
	}
}
