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
 * Add to each hash aggregate path of rel (GROUP BY, DISTINCT) the measured
 * cost of its table that PostgreSQL leaves out.  Called only where a sorted
 * alternative through BitonicSort was offered beside it.
 */
void
BitonicChargeHashTables(RelOptInfo *rel)
{
	ListCell   *lc;

	foreach(lc, rel->pathlist)
	{
		AggPath    *agg = lfirst(lc);
		double		bytes;
		Cost		extra;

		if (!IsA(agg, AggPath) || agg->aggstrategy != AGG_HASHED)
			continue;
		bytes = hash_table_bytes(agg->numGroups, agg->path.pathtarget->width);
		extra = agg->subpath->rows * hash_row_operators(bytes) * cpu_operator_cost;
		agg->path.startup_cost += extra;
		agg->path.total_cost += extra;
	}
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
