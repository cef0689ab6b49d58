/*
 * unique.c — a Unique on one exact key done by the BitonicSort below it.
 *
 * SELECT DISTINCT a (and DISTINCT ON (a), and a sorted UNION of one column
 * where the planner puts a Unique over the sort) keeps the first row of
 * each run of equal values in the sort's order.  PostgreSQL's Unique node
 * does it by deforming each row and calling the equality function through
 * fmgr (about 110 ns a row here: 1.1 s of the 3.5 s of a DISTINCT over 10M
 * rows).  Where the sort's first key is exact (int2/4/8, float4/8, date,
 * timestamps: equal keys are equal values, -0 and +0, NaNs alike), the node
 * compares the key of each row it hands out with the last one's and skips
 * the repeats itself, and the Unique goes from the plan.
 *
 * The rows are the ones Unique keeps: ties are in input order, and the
 * first of each run is the first in input order.  The node then reads
 * forward only (no backward scan, no mark/restore): where a caller needs
 * those, the planner puts a Material above, as for Unique.
 */
#include "scan/plan.h"

#include "optimizer/optimizer.h"

/*
 * The BitonicSort below a Unique on its first key, made to skip repeated
 * keys itself, in the Unique's place; NULL where the Unique must stay (more
 * than one key, another input, a key that is not exact).
 */
Path *
BitonicUniqueAbsorbed(UpperUniquePath *unique)
{
	CustomPath *sort = (CustomPath *) unique->subpath;
	CustomPath *absorbed;

	if (unique->numkeys != 1 || !BitonicIsSortPath(unique->subpath) ||
		list_length(sort->custom_private) != 5 || !BitonicPathKeyExact(sort))
		return NULL;
	absorbed = makeNode(CustomPath);
	memcpy(absorbed, sort, sizeof(CustomPath));
	absorbed->path.parent = unique->path.parent;
	absorbed->path.pathtarget = unique->path.pathtarget;
	absorbed->path.rows = unique->path.rows;
	/* the key compare per row that Unique charges for its own */
	absorbed->path.total_cost += cpu_operator_cost * sort->path.rows;
	absorbed->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	absorbed->custom_private = list_copy(sort->custom_private);
	list_nth_cell(absorbed->custom_private, 4)->ptr_value = list_make1_int(BITONIC_FLAG_UNIQUE);
	return &absorbed->path;
}
