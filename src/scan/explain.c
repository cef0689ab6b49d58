/*
 * explain.c — what EXPLAIN shows for a BitonicSort node: the sort keys
 * written as the native Sort writes them, a Unique or window functions done
 * in the node, backend, algorithm and key kind;
 * with ANALYZE the memory, the time per phase and whether it spilled.
 */
#include "scan/explain.h"
#include "scan/heap_read.h"
#include "scan/window.h"

#include "commands/explain.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/typcache.h"

/* Append COLLATE, DESC or USING, and NULLS FIRST/LAST where not the default. */
static void
append_sort_options(StringInfo buf, Oid type, Oid sortop, Oid collation,
					bool nulls_first)
{
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	bool		reverse = false;

	if (OidIsValid(collation) && collation != get_typcollation(type))
	{
		char	   *name = get_collation_name(collation);

		if (name == NULL)
			elog(ERROR, "cache lookup failed for collation %u", collation);
		appendStringInfo(buf, " COLLATE %s", quote_identifier(name));
	}
	if (sortop == tc->gt_opr)
	{
		appendStringInfoString(buf, " DESC");
		reverse = true;
	}
	else if (sortop != tc->lt_opr)
	{
		char	   *name = get_opname(sortop);

		if (name == NULL)
			elog(ERROR, "cache lookup failed for operator %u", sortop);
		appendStringInfo(buf, " USING %s", name);
		(void) get_equality_op_for_ordering_op(sortop, &reverse);
	}
	if (nulls_first && !reverse)
		appendStringInfoString(buf, " NULLS FIRST");
	else if (!nulls_first && reverse)
		appendStringInfoString(buf, " NULLS LAST");
}

/* The "Sort Key" list, deparsed from the child's output columns. */
static void
show_sort_keys(BitonicScanState *state, List *ancestors, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) state->css.ss.ps.plan;
	List	   *context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan,
												   ancestors);
	bool		useprefix = BitonicExplainUsePrefix(es);
	List	   *result = NIL;
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < state->keys.nkeys; i++)
	{
		TargetEntry *tle = get_tle_by_resno(cscan->custom_scan_tlist, state->keys.attnos[i]);

		if (tle == NULL)
			elog(ERROR, "no column %d in BitonicSort's input", state->keys.attnos[i]);
		resetStringInfo(&buf);
		/* parenthesised unless a plain column, as the Sort's reference to its input prints */
		if (!IsA(tle->expr, Var))
			appendStringInfoChar(&buf, '(');
		appendStringInfoString(&buf, deparse_expression((Node *) tle->expr, context,
														useprefix, true));
		if (!IsA(tle->expr, Var))
			appendStringInfoChar(&buf, ')');
		append_sort_options(&buf, exprType((Node *) tle->expr), state->keys.sortops[i],
							state->keys.collations[i], state->keys.nulls_first[i]);
		result = lappend(result, pstrdup(buf.data));
	}
	ExplainPropertyList("Sort Key", result, es);
}

/*
 * Whether the rows outgrew work_mem, and then how the external sort went:
 * runs written (and of those, the runs written from both ends at once by
 * two threads, and those a thread wrote while the node read on), the most
 * merges a row went through, runs merged at once, the runs the merges read
 * where they lie in the page cache, whether a thread decided the final
 * merge's order, and the temporary file space of the runs (as the native
 * Sort's Disk).
 */
static void
show_external(BitonicScanState *state, ExplainState *es)
{
	ExplainPropertyBool("Spilled", state->spilled, es);
	if (!state->spilled)
		return;
	ExplainPropertyText("Sort Method", "external merge", es);
	ExplainPropertyInteger("Runs", NULL, state->runs_written, es);
	ExplainPropertyInteger("Runs From Both Ends", NULL, state->runs_both_ends, es);
	ExplainPropertyInteger("Runs Written Behind", NULL, state->runs_behind, es);
	ExplainPropertyInteger("Merge Passes", NULL, state->merge_passes, es);
	ExplainPropertyInteger("Merge Order", NULL, state->merge_order, es);
	ExplainPropertyInteger("Runs Read Mapped", NULL, state->runs_mapped, es);
	ExplainPropertyBool("Merge Thread", state->merge_thread, es);
	ExplainPropertyInteger("Disk", "kB", (state->disk_bytes + 1023) / 1024, es);
}

/* ExplainCustomScan. */
void
BitonicScanExplain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	BitonicScanState *state = (BitonicScanState *) node;
	const char *backend;
	const char *algorithm;
	const char *why = NULL;

	show_sort_keys(state, ancestors, es);
	/* the node hands out the first row of each first key: a Unique done here (unique.c) */
	if (state->keys.unique)
		ExplainPropertyBool("Unique", true, es);
	/* and where a WindowAgg was, the window functions it computes (window.c) */
	if (state->window != NULL)
		ExplainPropertyList("Window Functions", BitonicWindowFuncNames(state->window), es);
	/* keys alone are 8-byte elements: the GPU's packed shape, or vqsort on the CPU */
	BitonicSortDescribe(es->analyze ? (double) state->ntuples : BitonicScanInputRows(state),
						state->values == NULL && !BitonicMultiSortNarrow(&state->ms),
						&backend, &algorithm, &why);
	ExplainPropertyText("Backend", backend, es);
	/* under device = auto with a usable GPU: why this device (gpu_auto.c) */
	if (why != NULL)
		ExplainPropertyText("Device Choice", why, es);
	ExplainPropertyText("Algorithm", algorithm, es);
	ExplainPropertyText("Normalized Key", BitonicKeyKindName(state->ms.kind), es);
	/* one column whose key is its value: the keys sorted alone, no rows stored (values.c) */
	if (state->values != NULL)
		ExplainPropertyBool("Keys Alone", true, es);
	if (state->ms.libc_text.usable)
		ExplainPropertyText("Comparison Sort", "strcoll, parallel merge sort", es);
	if (!es->analyze)
		return;
	ExplainPropertyInteger("Peak Memory", "kB", (int64) ((state->peak_bytes + 1023) / 1024), es);
	/* of which from the huge page pool (the backend's most while the node sorted) */
	if (state->pool_peak_bytes > 0)
		ExplainPropertyInteger("Huge Page Memory", "kB", (int64) (state->pool_peak_bytes / 1024), es);
	/* kept by an earlier sort (bitonic_sort.keep_memory) and taken back while the node sorted */
	if (state->reused_bytes > 0)
		ExplainPropertyInteger("Reused Memory", "kB", (int64) (state->reused_bytes / 1024), es);
	/* rows stored by key range of the first column (place.c) */
	if (state->placed_ranges > 0)
	{
		ExplainPropertyInteger("Key Ranges", NULL, state->placed_ranges, es);
		ExplainPropertyInteger("Key Range Cuts", NULL, state->range_cuts, es);
	}
	/* the input's table pages read by the node itself, not through its scan (heap_read.c) */
	if (state->heap != NULL && BitonicHeapReadPages(state->heap) > 0)
		ExplainPropertyInteger("Heap Pages Read", NULL, (int64) BitonicHeapReadPages(state->heap), es);
	/* of those, all-visible pages handed to the placing worker whole, keyed by the backend */
	if (state->whole_pages > 0)
		ExplainPropertyInteger("Heap Pages Whole", NULL, (int64) state->whole_pages, es);
	/* the order handed out while its later parts were sorted (sort_parts.c) */
	if (state->sort_parts > 0)
		ExplainPropertyInteger("Sort Parts", NULL, state->sort_parts, es);
	show_external(state, es);
	if (!es->timing)
		return;
	ExplainPropertyFloat("Key Build Time", "ms", state->key_ms, 3, es);
	ExplainPropertyFloat("Sort Time", "ms", state->sort_ms, 3, es);
	ExplainPropertyFloat("Tie Pass Time", "ms", state->tie_ms, 3, es);
	if (state->spilled)
		ExplainPropertyFloat("Merge Time", "ms", state->merge_ms, 3, es);
	/* the node's time outside reading and sorting went to handing out rows */
	if (node->ss.ps.instrument != NULL)
		ExplainPropertyFloat("Emit Time", "ms",
							 Max(node->ss.ps.instrument->total * 1000.0 - state->load_ms, 0), 3, es);
}
