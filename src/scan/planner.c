/*
 * planner.c — the BitonicSort custom path: built and costed for any
 * input and path keys, offered for ORDER BY (create_upper_paths_hook at
 * UPPERREL_ORDERED) and, through replace.c, for the other stages'
 * sorts; turned into a CustomScan plan over its input.
 */
#include "scan/plan.h"
#include "scan/exec.h"
#include "scan/merge_tie.h"
#include "scan/runs.h"

#include <math.h>

#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/plancat.h"
#include "optimizer/planner.h"
#include "optimizer/tlist.h"
#include "utils/lsyscache.h"

static create_upper_paths_hook_type prev_upper_paths_hook = NULL;

static Plan *plan_bitonic_path(PlannerInfo *root, RelOptInfo *rel,
							   CustomPath *best_path, List *tlist,
							   List *clauses, List *custom_plans);

static const CustomPathMethods bitonic_path_methods = {
	.CustomName = BITONIC_SCAN_NAME,
	.PlanCustomPath = plan_bitonic_path,
};

static const CustomScanMethods bitonic_scan_methods = {
	.CustomName = BITONIC_SCAN_NAME,
	.CreateCustomScanState = BitonicScanCreateState,
};

/*
 * Costs in units of cpu_operator_cost, fitted to whole-query times against
 * the native Sort at 20K, 1M and 10M rows on the CPU backend (docs in the
 * README): the per-row work beyond what the native Sort is charged for (key
 * build, copy into blocks, emit); one step of the bitonic network per row
 * for 64-bit and packed 32-bit pairs (log2n (log2n + 1) / 2 steps); the
 * adaptive sort's 2 log2n comparisons per row, each a pointer chase; one
 * level of Highway's vqsort per row (log2n levels); the tie pass's
 * comparison sort relative to the native Sort's.  The sorter constants come
 * from `make bench-sorters` on 2 threads (one unit per row is about 4 ns
 * here).  A GPU sort is charged the copy of the pairs there and back at
 * about 12 GB/s (PCIe 4 x16 in practice; 0.67 units per 32 bytes) and
 * nothing for the sort itself (milliseconds for 10M pairs): not measured, as
 * no GPU was available to this work.
 */
#define COST_ROW_OVERHEAD	15.0
#define COST_STEP_PAIR64	0.20
#define COST_STEP_PAIR32	0.12
#define COST_ADAPTIVE_CMP	1.40
#define COST_VQSORT_PAIR64	0.25
#define COST_VQSORT_PAIR32	0.10
#define COST_GPU_PER_BYTE	0.021
#define COST_TIE_SORT		1.25
/* one column sorted as keys alone (scan/values.c): per row, and per vqsort level */
#define COST_VALUE_OVERHEAD	2.0
#define COST_VQSORT_KEY64	0.12
/*
 * Text in a libc collation: the node's strcoll comparison sort relative to
 * the native Sort's on one thread, and the share of each further thread that
 * pays off (both measured at 1M and 10M rows of md5 text, C.UTF-8).
 */
#define COST_LIBC_TEXT_SORT	0.95
#define COST_THREAD_GAIN	0.9
/*
 * An external sort (scan/runs.c), beyond the pages it writes and reads
 * (charged as the native Sort charges its tapes): per row and merge pass,
 * the record written and read back; per row and level of the loser tree,
 * a comparison of keys, or of rows where keys cannot decide.  Fitted so
 * that the node is taken where it was measured faster than the native
 * Sort, serial: 500K to 10M rows (int8, text "C", int4 and float8) at
 * work_mem 4 MB, 64 MB and 256 MB, where it took 0.30-0.45 of the native
 * time (at 28 units a row the planner kept the native Sort for 10M rows at
 * 64 MB, 2.1 s against 4.1 s).  Where it was slower (numeric through an
 * expression; five merge passes at 64 kB) the native Sort keeps the plan.
 */
#define COST_RUN_ROW		4.0
#define COST_MERGE_KEY		0.5
#define COST_MERGE_ROWS		2.0
/*
 * A run of keys alone (8 bytes a value, scan/values.c) instead of rows: per
 * value and merge pass (fitted to 10M int8 at work_mem 4 MB and 64 MB, where
 * the external sort took 1.2-1.7 times the in-memory one).
 */
#define COST_RUN_KEY		3.0

/*
 * The column of target that pathkey pk sorts by (1-based), its member in *em;
 * 0 where target has none.  A volatile key (random(), say) is its own class,
 * and two equal volatile expressions are two keys: its column is found by
 * its sort reference, as the native Sort finds it.
 */
static AttrNumber
pathkey_column(PathKey *pk, PathTarget *target, EquivalenceMember **em)
{
	EquivalenceClass *ec = pk->pk_eclass;
	ListCell   *le;

	*em = NULL;
	foreach(le, target->exprs)
	{
		int			i = foreach_current_index(le);

		if (ec->ec_has_volatile &&
			(target->sortgrouprefs == NULL || ec->ec_sortref == 0 ||
			 target->sortgrouprefs[i] != ec->ec_sortref))
			continue;
		*em = find_ec_member_matching_expr(ec, lfirst(le), NULL);
		if (*em != NULL)
			return (AttrNumber) (i + 1);
	}
	return 0;
}

/*
 * Find each pathkey's column in target; false when one cannot be sorted
 * here, and where the executor could not compare a key: the node's set-up
 * prepares its comparators at plan time (the cost) and at executor start,
 * where the native Sort compares nothing until it runs.
 */
static bool
match_sort_columns(List *pathkeys, PathTarget *target, List **attnos, List **sortops,
				   List **collations, List **nulls_first)
{
	ListCell   *lc;

	foreach(lc, pathkeys)
	{
		PathKey    *pk = lfirst_node(PathKey, lc);
		EquivalenceMember *em;
		AttrNumber	attno = pathkey_column(pk, target, &em);
		Oid			sortop;

		if (attno == 0)
			return false;
		sortop = BitonicPathKeySortOp(pk, em->em_datatype);
		if (!OidIsValid(sortop) || !BitonicSortOpComparable(sortop))
			return false;
		/* a collatable key without a collation (conflicting implicit ones) cannot be compared */
		if (!OidIsValid(pk->pk_eclass->ec_collation) && type_is_collatable(em->em_datatype))
			return false;
		*attnos = lappend_int(*attnos, attno);
		*sortops = lappend_oid(*sortops, sortop);
		*collations = lappend_oid(*collations, pk->pk_eclass->ec_collation);
		*nulls_first = lappend_int(*nulls_first, pk->pk_nulls_first);
	}
	return true;
}

/*
 * What an external sort of n rows of `bytes` adds to the sort of its runs
 * in memory: its runs (all but a thirty-second of work_mem each) written
 * and read once per merge pass, `per_row` each, as many merged at once as
 * one-block buffers fit in work_mem, and the loser tree's comparisons.
 */
static Cost
external_sort_cost(double n, double bytes, double per_row, bool rows_compared)
{
	double		mem = (double) work_mem * 1024.0;
	double		nruns = Max(2.0, ceil(bytes / (mem * 31.0 / 32.0)));
	double		order = Max(2.0, floor(mem / (BLCKSZ + 512.0)));
	double		passes = Max(1.0, ceil(log(nruns) / log(order)));
	double		pages = ceil(bytes / BLCKSZ);
	double		levels = log2(Min(nruns, order));

	return 2.0 * pages * passes * (seq_page_cost * 0.75 + random_page_cost * 0.25) +
		n * passes * (per_row + levels *
					  (rows_compared ? COST_MERGE_ROWS : COST_MERGE_KEY)) * cpu_operator_cost;
}

/* Cost of sorting n pairs with the backend and algorithm the sort will use. */
static Cost
pair_sort_cost(double n, bool packed)
{
	double		log2n = log2(Max(n, 2.0));
	bs_backend	backend;
	bs_algorithm algorithm;

	BitonicSortChoice(n, !packed, &backend, &algorithm);
	if (backend == BS_BACKEND_CUDA)
		return 2.0 * n * (packed ? sizeof(bs_pair32) : sizeof(bs_pair64)) *
			COST_GPU_PER_BYTE * cpu_operator_cost;
	switch (algorithm)
	{
		case BS_ALGO_VQSORT:
			return n * log2n * cpu_operator_cost *
				(packed ? COST_VQSORT_PAIR32 : COST_VQSORT_PAIR64);
		case BS_ALGO_ADAPTIVE:
			return n * 2.0 * log2n * COST_ADAPTIVE_CMP * cpu_operator_cost;
		default:
			return n * log2n * (log2n + 1) / 2 * cpu_operator_cost *
				(packed ? COST_STEP_PAIR32 : COST_STEP_PAIR64);
	}
}

/*
 * Cost the path: key build, pair sort and tie pass before the first row,
 * then emit (as the native Sort charges it).  Where the first column has no integer key
 * the tie pass is a full comparison sort; where the input will not fit in
 * work_mem the runs of the external sort are written, read and merged too,
 * the merge's equal keys compared as rows unless keys decide alone or the
 * merge thread tells them apart (thread_ties, where the settings let it run).
 */
static void
cost_bitonic_path(PlannerInfo *root, CustomPath *cpath, Path *input, BitonicKeyKind kind,
				  bool libc_text, bool thread_ties, int nkeys, bool keys_alone)
{
	double		n = Max(input->rows, 2.0);
	double		log2n = log2(n);
	double		bytes = n * (input->pathtarget->width + MAXALIGN(SizeofMinimalTupleHeader) + 32);
	Cost		comparison = 2.0 * cpu_operator_cost;
	Cost		startup = input->total_cost + n * COST_ROW_OVERHEAD * cpu_operator_cost;
	Cost		run = n * cpu_operator_cost;

	if (keys_alone)
	{
		/* no rows stored: a key per row, vqsort on the keys, a value per row out */
		startup = input->total_cost + n * COST_VALUE_OVERHEAD * cpu_operator_cost +
			n * log2n * COST_VQSORT_KEY64 * cpu_operator_cost;
		run = n * cpu_operator_cost;
		/* past work_mem, runs of keys alone */
		if (n * sizeof(uint64) > (double) work_mem * 1024.0)
			startup += external_sort_cost(n, n * sizeof(uint64), COST_RUN_KEY, false);
	}
	else if (kind == BITONIC_KIND_CONSTANT && libc_text)
		startup += COST_LIBC_TEXT_SORT * comparison * n * log2n /
			(1.0 + COST_THREAD_GAIN * (Max(bitonic_sort_cpu_threads, 1) - 1));
	else if (kind == BITONIC_KIND_CONSTANT)
		startup += COST_TIE_SORT * comparison * n * log2n;
	else
	{
		startup += pair_sort_cost(n, kind == BITONIC_KIND_EXACT32);
		/* ties: about one confirming comparison per row past an exact key */
		if (kind == BITONIC_KIND_ABBREV || nkeys > 1)
			startup += n * comparison;
	}
	/* past work_mem, runs of rows (keys alone are charged above) */
	if (!keys_alone && bytes > (double) work_mem * 1024.0)
		startup += external_sort_cost(n, bytes, COST_RUN_ROW,
									  (!BitonicKeyKindExact(kind) || nkeys > 1) &&
									  !(thread_ties &&
										BitonicRunsMergeThreadExpected((size_t) work_mem * 1024)));
	cpath->path.startup_cost = startup;
	cpath->path.total_cost = startup + run;
}

/* The sort of the first column alone, as the executor sets it up: its key kind and key function. */
static void
first_key_sort(BitonicMultiSort *ms, Oid typid, Oid sortop, Oid collation, bool nulls_first)
{
	BitonicSortColumn col = {typid, sortop, collation, nulls_first};

	BitonicMultiSortInit(ms, 1, &col, CurrentMemoryContext);
}

/*
 * How the first of the sort columns of stored (attnos, with their operators,
 * collations and NULL order) becomes the pairs' key, as the executor sets it
 * up; *libc_text: sorted by strcoll on threads; *thread_ties: an external
 * merge's equal keys can be told apart by the merge thread (merge_tie.c).
 */
static BitonicKeyKind
sort_key_kind(Path *stored, List *attnos, List *sortops, List *collations, List *nulls_first,
			  bool *libc_text, bool *thread_ties)
{
	int			ncolumns = list_length(attnos);
	BitonicSortColumn *columns = palloc(sizeof(BitonicSortColumn) * ncolumns);
	BitonicMultiSort ms;

	for (int i = 0; i < ncolumns; i++)
	{
		Expr	   *expr = list_nth(stored->pathtarget->exprs, list_nth_int(attnos, i) - 1);

		columns[i].typid = exprType((Node *) expr);
		columns[i].sortop = list_nth_oid(sortops, i);
		columns[i].collation = list_nth_oid(collations, i);
		columns[i].nulls_first = list_nth_int(nulls_first, i) != 0;
	}
	BitonicMultiSortInit(&ms, ncolumns, columns, CurrentMemoryContext);
	*libc_text = ms.libc_text.usable;
	*thread_ties = BitonicMergeTieColumnsAllow(&ms);
	return ms.kind;
}

/* Whether a path is a BitonicSort (another extension's custom paths are its own business). */
bool
BitonicIsSortPath(Path *path)
{
	return IsA(path, CustomPath) &&
		strcmp(((CustomPath *) path)->methods->CustomName, BITONIC_SCAN_NAME) == 0;
}

/*
 * Whether the path's first sort column has an exact key that the executor
 * can compute from a value: then equal keys are equal values (as the sort
 * operator's btree family compares them), and unequal keys are not.
 */
bool
BitonicPathKeyExact(const CustomPath *cpath)
{
	Path	   *stored = linitial(cpath->custom_paths);
	List	   *attnos = linitial(cpath->custom_private);
	List	   *sortops = lsecond(cpath->custom_private);
	List	   *collations = lthird(cpath->custom_private);
	List	   *nulls_first = lfourth(cpath->custom_private);
	Expr	   *first_expr = list_nth(stored->pathtarget->exprs, linitial_int(attnos) - 1);
	BitonicMultiSort ms;

	first_key_sort(&ms, exprType((Node *) first_expr), linitial_oid(sortops),
				   linitial_oid(collations), linitial_int(nulls_first) != 0);
	return BitonicKeyKindExact(ms.kind) && ms.key_of != NULL;
}

/*
 * Whether the executor will sort the stored input as keys alone
 * (scan/values.c): one stored column, the one sort key, of a type whose
 * exact 64-bit key is its value, sorted by vqsort.
 */
static bool
sorted_as_keys(Path *stored, BitonicKeyKind kind, int nkeys)
{
	Oid			typid;

	if (nkeys != 1 || list_length(stored->pathtarget->exprs) != 1 ||
		kind != BITONIC_KIND_EXACT64)
		return false;
	typid = exprType(linitial(stored->pathtarget->exprs));
	return BitonicKeyIsBijective(typid) && BitonicKeyWidthForType(typid) == BITONIC_KEY_64 &&
		get_typbyval(typid) && BitonicSortsKeysAlone((size_t) Max(stored->rows, 1.0));
}

/* Whether every expression is a column, relabelled or not. */
static bool
only_columns(List *exprs)
{
	ListCell   *lc;

	foreach(lc, exprs)
	{
		Expr	   *expr = lfirst(lc);

		while (IsA(expr, RelabelType))
			expr = ((RelabelType *) expr)->arg;
		if (!IsA(expr, Var))
			return false;
	}
	return true;
}

/*
 * Whether path returns its table's rows whole, every column in the table's
 * order: a scan that does not project, whose rows the node stores as they
 * lie in the table's pages.
 */
static bool
returns_table_rows(Path *path)
{
	RelOptInfo *rel = path->parent;
	AttrNumber	attno = 0;
	ListCell   *lc;

	if (rel->reloptkind != RELOPT_BASEREL || rel->rtekind != RTE_RELATION ||
		list_length(path->pathtarget->exprs) != rel->max_attr)
		return false;
	foreach(lc, path->pathtarget->exprs)
	{
		Var		   *var = lfirst(lc);

		if (!IsA(var, Var) || var->varno != rel->relid || var->varattno != ++attno)
			return false;
	}
	return true;
}

/*
 * Whether input, a projection of below, only puts below's columns in
 * another order where below projects anyway: then below's plan can output
 * them in that order itself, and the node stores and returns its rows as
 * they are.  (Over a table's whole rows, the node keeps them as they are
 * and maps the columns at its output instead.)
 */
static bool
reorders_columns(Path *input, Path *below)
{
	List	   *seen = NIL;
	ListCell   *lc;

	if (list_length(input->pathtarget->exprs) != list_length(below->pathtarget->exprs) ||
		returns_table_rows(below))
		return false;
	foreach(lc, input->pathtarget->exprs)
	{
		if (!IsA(lfirst(lc), Var) || !list_member(below->pathtarget->exprs, lfirst(lc)) ||
			list_member(seen, lfirst(lc)))
			return false;
		seen = lappend(seen, lfirst(lc));
	}
	return true;
}

/*
 * The path whose rows the node stores, with its sort columns found; NULL
 * when the node cannot sort these keys.  Where input is a projection that
 * only repeats or rearranges its own input's columns (a scan adding the sort
 * key `c COLLATE "C"` as a second copy of c, say), is no narrower, and every
 * sort key is among those columns, the node stores the columns once and its
 * output slot maps them (slot.c); otherwise, and where the projection only
 * reorders the columns (the consumer then gets stored rows as they are, and
 * copies them whole), it stores input's rows.
 */
static Path *
stored_input(List *pathkeys, Path *input, List **attnos, List **sortops,
			 List **collations, List **nulls_first)
{
	if (IsA(input, ProjectionPath))
	{
		Path	   *below = ((ProjectionPath *) input)->subpath;

		if (!reorders_columns(input, below) &&
			below->pathtarget->width <= input->pathtarget->width &&
			only_columns(input->pathtarget->exprs) &&
			match_sort_columns(pathkeys, below->pathtarget,
							   attnos, sortops, collations, nulls_first))
			return below;
		/* a partial match is forgotten: input's own columns are matched afresh */
		*attnos = *sortops = *collations = *nulls_first = NIL;
	}
	if (!match_sort_columns(pathkeys, input->pathtarget,
							attnos, sortops, collations, nulls_first))
		return NULL;
	return input;
}

/* Bytes the node holds for a row of width bytes: the row with its header, a pair, a locator. */
static double
held_row_bytes(int width)
{
	return MAXALIGN(SizeofMinimalTupleHeader) + width + sizeof(bs_pair64) + sizeof(uint32);
}

/*
 * The table's whole rows, as a scan that does not project returns them
 * (PostgreSQL's physical target list): every column in the table's order;
 * NIL where a column was dropped (a NULL constant stands there).
 */
static List *
table_columns(PlannerInfo *root, RelOptInfo *rel)
{
	List	   *columns = NIL;
	ListCell   *lc;

	foreach(lc, build_physical_tlist(root, rel))
	{
		Expr	   *expr = ((TargetEntry *) lfirst(lc))->expr;

		if (!IsA(expr, Var))
			return NIL;
		columns = lappend(columns, expr);
	}
	return columns;
}

/*
 * Where input is a plain sequential scan of a table that projects some of
 * its columns (or a projection of such a scan to columns of it), the same
 * scan returning the table's whole rows: the node
 * then reads them a page at a time and keeps them as they lie in the pages
 * (heap_read.c), mapping the columns at its output, instead of projecting
 * and forming each row: 10M rows of (int8, float8, md5 text, int4), i and a
 * of them sorted by a, 1.06-1.27 s projected against 0.66-0.69 s whole.
 * Only where the whole rows fit work_mem and take at most twice the memory
 * of the projected ones (past work_mem the runs would write the wider rows),
 * and not for one column (keys alone store less still).  NULL otherwise.
 */
static Path *
table_rows_scan(PlannerInfo *root, Path *input)
{
	Path	   *below = IsA(input, ProjectionPath) ? ((ProjectionPath *) input)->subpath : input;
	RelOptInfo *rel = below->parent;
	PathTarget *whole;
	Path	   *scan;
	List	   *columns;
	ListCell   *lc;

	if (!IsA(below, Path) || below->pathtype != T_SeqScan || below->parallel_aware ||
		below->param_info != NULL || rel->reloptkind != RELOPT_BASEREL ||
		rel->rtekind != RTE_RELATION || list_length(input->pathtarget->exprs) < 2 ||
		!only_columns(input->pathtarget->exprs) || returns_table_rows(input))
		return NULL;
	foreach(lc, input->pathtarget->exprs)
	{
		Var		   *var = (Var *) strip_implicit_coercions(lfirst(lc));

		/* a system column or the whole row is not among the table's columns */
		if (!IsA(var, Var) || var->varno != rel->relid || var->varattno <= 0 || var->varlevelsup != 0)
			return NULL;
	}
	columns = table_columns(root, rel);
	if (columns == NIL)
		return NULL;
	whole = create_empty_pathtarget();
	whole->exprs = columns;
	set_pathtarget_cost_width(root, whole);
	if (held_row_bytes(whole->width) > 2.0 * held_row_bytes(input->pathtarget->width) ||
		input->rows * held_row_bytes(whole->width) > (double) work_mem * 1024.0)
		return NULL;
	scan = makeNode(Path);
	memcpy(scan, below, sizeof(Path));
	scan->pathtarget = whole;
	return scan;
}

/*
 * input with the pathkeys' expressions it does not output added after its
 * columns (a projection), as the native Sort adds them to its input's target
 * list (a merge join on x.a + 1); input itself where it outputs them all,
 * NULL where one cannot be computed from its columns.
 */
static Path *
input_with_keys(PlannerInfo *root, Path *input, List *pathkeys)
{
	PathTarget *target = NULL;
	ListCell   *lc;

	foreach(lc, pathkeys)
	{
		PathKey    *pk = lfirst_node(PathKey, lc);
		EquivalenceMember *em;

		if (pathkey_column(pk, input->pathtarget, &em) != 0)
			continue;
		/* a volatile key is computed once, where the query computes it */
		if (pk->pk_eclass->ec_has_volatile)
			return NULL;
		em = find_computable_ec_member(root, pk->pk_eclass, input->pathtarget->exprs,
									   input->parent->relids, false);
		if (em == NULL)
			return NULL;
		if (target == NULL)
			target = copy_pathtarget(input->pathtarget);
		add_column_to_pathtarget(target, em->em_expr, 0);
	}
	if (target == NULL)
		return input;
	set_pathtarget_cost_width(root, target);
	return (Path *) create_projection_path(root, input->parent, input, target);
}

/*
 * The BitonicSort path of rel that sorts input by pathkeys, or NULL when it
 * cannot sort these keys.
 */
CustomPath *
BitonicMakeSortPath(PlannerInfo *root, RelOptInfo *rel, Path *input, List *pathkeys)
{
	List	   *attnos = NIL,
			   *sortops = NIL,
			   *collations = NIL,
			   *nulls_first = NIL;
	CustomPath *cpath;
	Path	   *stored;
	BitonicKeyKind kind;
	bool		libc_text;
	bool		thread_ties;

	input = input_with_keys(root, input, pathkeys);
	if (input == NULL)
		return NULL;
	/* the table's whole rows kept, the input's columns mapped at the output */
	stored = table_rows_scan(root, input);
	if (stored == NULL ||
		!match_sort_columns(pathkeys, stored->pathtarget, &attnos, &sortops, &collations, &nulls_first))
	{
		attnos = sortops = collations = nulls_first = NIL;
		stored = stored_input(pathkeys, input, &attnos, &sortops, &collations, &nulls_first);
	}
	if (stored == NULL)
		return NULL;

	cpath = makeNode(CustomPath);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = rel;
	cpath->path.pathtarget = input->pathtarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = input->parallel_safe;
	cpath->path.parallel_workers = input->parallel_workers;	/* inside Gather: each worker's share */
	cpath->path.rows = input->rows;
	cpath->path.pathkeys = pathkeys;
	BitonicPathCopyDisabled(&cpath->path, input);
	cpath->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN |
		CUSTOMPATH_SUPPORT_MARK_RESTORE |
		CUSTOMPATH_SUPPORT_PROJECTION;
	cpath->custom_paths = list_make1(stored);
	cpath->custom_private = list_make5(attnos, sortops, collations, nulls_first,
									   list_make1_int(0));
	cpath->methods = &bitonic_path_methods;

	kind = sort_key_kind(stored, attnos, sortops, collations, nulls_first, &libc_text, &thread_ties);
	cost_bitonic_path(root, cpath, stored, kind, libc_text, thread_ties, list_length(attnos),
					  sorted_as_keys(stored, kind, list_length(attnos)));
	/* what the projection stored_input moved above the sort was charged per row */
	cpath->path.total_cost += input->total_cost - stored->total_cost;
	return cpath;
}

/*
 * Whether path's rows come sorted from foreign servers: a foreign scan whose
 * remote query carries the ORDER BY (each shard sorts its part, with this
 * node where the shard has the module), or a Merge Append of only such.
 */
static bool
sorted_remotely(Path *path)
{
	ListCell   *lc;

	if (path->pathkeys == NIL)
		return false;
	switch (nodeTag(path))
	{
		case T_ForeignPath:
			return true;
		case T_ProjectionPath:
			return sorted_remotely(((ProjectionPath *) path)->subpath);
		case T_MergeAppendPath:
			foreach(lc, ((MergeAppendPath *) path)->subpaths)
			{
				if (!sorted_remotely(lfirst(lc)))
					return false;
			}
			return true;
		default:
			return false;
	}
}

/*
 * Whether rel (the ORDER BY's, whose paths are live: see
 * explicitly_sorted_input) offers its rows in the order of pathkeys sorted by the
 * foreign servers they come from.  Then the node is not offered: both plans
 * pull every row over the network, but with the ORDER BY pushed down the
 * shards sort their parts side by side (through this node where they have
 * the module) and the coordinator only merges, N log2(shards) comparisons,
 * where the node would sort all N rows again on the one coordinator — the
 * work sharding is meant to spread.  The planner's figures cannot say so: a
 * remote sort is charged as if it ran on the coordinator, at a cost close
 * to the node's own.
 */
static bool
shards_sort(RelOptInfo *rel, List *pathkeys)
{
	ListCell   *lc;

	foreach(lc, rel->pathlist)
	{
		Path	   *path = lfirst(lc);

		if (pathkeys_contained_in(pathkeys, path->pathkeys) && sorted_remotely(path))
			return true;
	}
	return false;
}

/*
 * The cheapest path of input_rel where the planner sorts it for the ORDER BY
 * (a Sort or Incremental Sort of it, under a projection or not, among
 * output_rel's paths), else NULL: it comes sorted already, or a cheaper
 * ordered path displaced that sort.  Only output_rel's paths are read:
 * create_ordered_paths adds input paths that come sorted to output_rel, and
 * add_path frees those a cheaper path displaces while input_rel's list
 * still names them (reading them crashed a backend).  A path that is sorted
 * explicitly was not added itself, so it is live.
 */
static Path *
explicitly_sorted_input(RelOptInfo *input_rel, RelOptInfo *output_rel)
{
	Path	   *cheapest = input_rel->cheapest_total_path;
	ListCell   *lc;

	foreach(lc, output_rel->pathlist)
	{
		Path	   *path = lfirst(lc);

		if (IsA(path, ProjectionPath))
			path = ((ProjectionPath *) path)->subpath;
		if ((IsA(path, SortPath) || IsA(path, IncrementalSortPath)) &&
			((SortPath *) path)->subpath == cheapest)
			return cheapest;
	}
	return NULL;
}

/*
 * Where the planner's sort of the cheapest input was displaced (or it came
 * sorted, unknown: it may be freed), a Gather of input_rel's cheapest
 * partial path, made here, is an input the node can sort (partial paths are
 * never added to the ordered relation, so they are live); NULL where there
 * is none.
 */
static Path *
gathered_input(PlannerInfo *root, RelOptInfo *input_rel)
{
	Path	   *partial;

	if (input_rel->partial_pathlist == NIL)
		return NULL;
	partial = linitial(input_rel->partial_pathlist);
	return (Path *) create_gather_path(root, input_rel, partial, partial->pathtarget, NULL, NULL);
}

/*
 * Whether the node may be offered for this query's ORDER BY over input
 * (unsorted), into rel; the caller has seen that the planning is enabled
 * and the query has an ORDER BY.
 */
static bool
bitonic_path_wanted(PlannerInfo *root, RelOptInfo *rel, Path *input)
{
	if (input->rows < (double) bitonic_sort_min_rows)
		return false;

	/*
	 * A LIMIT below the row count: the native bounded (top-N) heap sort keeps
	 * only the first rows and is cheaper than any full sort.
	 */
	if (root->limit_tuples >= 0 && root->limit_tuples < input->rows)
		return false;
	return !shards_sort(rel, root->sort_pathkeys);
}

/*
 * create_upper_paths_hook: add BitonicSort beside the native Sort of ORDER
 * BY, and in place of the other stages' sorts where it sorts for less.
 */
static void
bitonic_upper_paths(PlannerInfo *root, UpperRelationKind stage,
					RelOptInfo *input_rel, RelOptInfo *output_rel, void *extra)
{
	Path	   *input;
	CustomPath *cpath;
	PathTarget *target;

	if (prev_upper_paths_hook)
		prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (stage == UPPERREL_GROUP_AGG || stage == UPPERREL_WINDOW ||
		stage == UPPERREL_DISTINCT || stage == UPPERREL_SETOP || stage == UPPERREL_FINAL)
	{
		BitonicReplaceSorts(root, output_rel);
		return;
	}
	if (stage != UPPERREL_ORDERED || input_rel->cheapest_total_path == NULL ||
		root->sort_pathkeys == NIL || !BitonicPlanningEnabled())
		return;
	input = explicitly_sorted_input(input_rel, output_rel);
	if (input == NULL)
		input = gathered_input(root, input_rel);
	if (input == NULL || !bitonic_path_wanted(root, output_rel, input))
		return;
	cpath = BitonicMakeSortPath(root, output_rel, input, root->sort_pathkeys);
	if (cpath == NULL)
		return;
	target = root->upper_targets[UPPERREL_ORDERED];
	if (target != NULL && target != cpath->path.pathtarget)
		add_path(output_rel, apply_projection_to_path(root, output_rel,
													  &cpath->path, target));
	else
		add_path(output_rel, &cpath->path);
}

/* PlanCustomPath: a CustomScan whose scan tuple is the child's output row. */
static Plan *
plan_bitonic_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *child = linitial(custom_plans);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = NIL;
	cscan->custom_private = best_path->custom_private;
	/* columns only the input can name are named once the plan is final (input_names.c) */
	if (BitonicNamedByInput((Node *) child->targetlist))
	{
		List	   *flags = list_nth(best_path->custom_private, 4);

		cscan->custom_private = list_copy(best_path->custom_private);
		list_nth_cell(cscan->custom_private, 4)->ptr_value =
			list_make1_int(linitial_int(flags) | BITONIC_FLAG_NAMED_BY_INPUT);
		BitonicNamedByInputPlanned++;
	}
	/* the child's columns, then those of window functions the node computes */
	cscan->custom_scan_tlist = list_concat(copyObject(child->targetlist),
										   BitonicWindowColumns(best_path->custom_private,
																list_length(child->targetlist) + 1));
	cscan->custom_relids = NULL;
	cscan->methods = &bitonic_scan_methods;
	return &cscan->scan.plan;
}

/* Install the planner hook and register the plan node's methods. */
void
BitonicScanPlannerInit(void)
{
	prev_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = bitonic_upper_paths;
	BitonicJoinPathsInit();
	BitonicInputNamesInit();
	RegisterCustomScanMethods(&bitonic_scan_methods);
}
