/*
 * scan/node.h — the BitonicSort custom scan's node: the plan's sort columns
 * and the executor state that every executor file (exec.c, ingest.c,
 * place.c, spill.c, explain.c) works on.
 */
#ifndef BITONIC_SCAN_NODE_H
#define BITONIC_SCAN_NODE_H

#include "bitonic_sort.h"
#include "core/key_ranges.h"
#include "scan/plan.h"
#include "scan/runs.h"
#include "scan/store.h"

#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "utils/tuplesort.h"

/*
 * The plan's sort columns, kept in CustomScan.custom_private as four lists
 * of equal length: attribute numbers in the child's output (IntList), sort
 * operators and collations (OidList), NULLS FIRST flags (IntList).
 */
typedef struct BitonicScanKeys
{
	int			nkeys;
	AttrNumber *attnos;
	Oid		   *sortops;
	Oid		   *collations;
	bool	   *nulls_first;
	bool		unique;			/* hand out only the first row of each first key (unique.c) */
} BitonicScanKeys;

/* Where the rows of the node are. */
typedef enum BitonicScanPhase
{
	BITONIC_PHASE_EMPTY,		/* nothing read yet */
	BITONIC_PHASE_SORTED,		/* sorted in memory by key/pointer pairs */
	BITONIC_PHASE_EXTERNAL		/* sorted in runs on disk, being merged (runs.c) */
} BitonicScanPhase;

struct BitonicHeapRead;
struct BitonicIngest;
struct BitonicRuns;
struct BitonicValues;
struct BitonicWindow;

/* Bytes of each of the ingest's two staging buffers (ingest.c). */
#define BITONIC_STAGE_BYTES ((size_t) 256 * 1024)

/* Rows whose first-column values are read and keyed together. */
#define BITONIC_INGEST_BATCH 256

/*
 * What malloc keeps of a run's freed memory for the next run: its buffers
 * under 2 MB (tuple blocks to 1 MB, pairs, order), each run's the same
 * (larger ones are mappings, kept by large_alloc.c), and keys alone up to
 * this (values.c); twice this at most.
 */
#define BITONIC_RUNS_MALLOC_KEEP ((size_t) 4 << 20)

/* Executor state of one BitonicSort node. */
typedef struct BitonicScanState
{
	CustomScanState css;
	BitonicScanKeys keys;
	bool		random_access;	/* backward scan, mark/restore or rewind asked for */
	TupleTableSlot *slot;		/* minimal-tuple slot holding the row to return */
	TupleTableSlot *output;		/* mapped slot returned instead, or NULL (slot.c) */
	struct BitonicWindow *window;	/* window functions computed in a WindowAgg's place, or NULL */
	MemoryContext cxt;			/* tuples, pairs and order of the current sort */
	BitonicScanPhase phase;

	/* in-memory sort */
	BitonicMultiSort ms;
	BitonicTupleStore store;	/* the rows */
	uint32		batch[BITONIC_INGEST_BATCH];	/* locators not yet keyed */
	int			nbatch;
	uint32	   *order;			/* locators in ORDER BY order, once sorted */
	size_t		order_bytes;	/* memory the order takes (it may be the pairs' own) */
	size_t		order_ready;	/* order[0, order_ready) is final (BitonicMultiSortReady) */
	size_t		ntuples;
	int64		pos;			/* index of the last row returned; -1 before the first */
	int64		mark;
	bool		has_last_key;	/* keys.unique: a row was handed out since the start */
	bool		last_isnull;	/* and its first key */
	uint64		last_key;

	/* placement of rows by key range (place.c) */
	uint32		place_ranges;	/* ranges planned for this sort, 0: none */
	uint32		nranges;		/* ranges cut, once the sample is read; 0 before */
	bs_key_ranges *ranges;		/* the ranges and their look-up table */
	size_t		next_cut;		/* rows read when the ranges are cut next */
	size_t		cut_from;		/* first pair whose key the next cut samples */
	struct BitonicIngest *ingest;	/* placement on a worker thread, or NULL (ingest.c) */
	struct BitonicValues *values;	/* one column sorted as keys alone, or NULL (values.c) */
	struct BitonicHeapRead *heap;	/* the input's table pages read by the node, or NULL (heap_read.c) */
	size_t		mem_limit;		/* bytes the rows may take before the node spills */

	/* external sort */
	struct BitonicRuns *runs;	/* runs on disk of the current sort, or NULL (runs.c) */
	size_t		runs_bytes;		/* their memory, and the write buffer of the next */
	size_t		behind_room;	/* work_mem kept for a run written behind; 0: runs are written in place */
	BitonicTupleStore behind_store;	/* the rows of the run being written behind (runs.c) */
	uint32	   *behind_order;	/* and their order */
	MemoryContext spare_cxt;	/* an empty context for the rows, or NULL */
	double		scratch_per_row;	/* the sorters' scratch per row in the last run */
	bool		scratch_measured;	/* a run has measured it */

	/* for EXPLAIN ANALYZE */
	size_t		peak_bytes;
	uint32		runs_written;	/* external sort: runs written from memory, by the last rescan */
	uint32		runs_both_ends; /* of those, runs written from both ends at once */
	uint32		runs_behind;	/* of those, runs written behind the input */
	uint32		runs_mapped;	/* runs the merges read mapped */
	bool		merge_thread;	/* a thread decided the final merge's order */
	uint32		merge_passes;	/* merges a row went through, at most */
	uint32		merge_order;	/* runs merged at once, at most */
	int64		disk_bytes;		/* temporary file space of the runs, at most */
	size_t		pool_peak_bytes;	/* huge page pool memory mapped, at most */
	size_t		reused_from;	/* BitonicKeptReused() when the current sort began */
	size_t		reused_bytes;	/* kept memory the backend took back while the node
								 * loaded and sorted (a sort below included; an
								 * external sort's until its first run), all rescans */
	uint32		placed_ranges;	/* key ranges rows were placed in, at most */
	uint32		range_cuts;		/* times the ranges were cut, in all runs */
	uint64		whole_pages;	/* heap pages staged whole (ingest.c), in all runs */
	uint32		sort_parts;		/* parts the pairs were sorted in, at most */
	double		key_ms;			/* reading input, less the input node's own time */
	double		sort_ms;
	double		tie_ms;
	double		merge_ms;		/* the runs merged down to the final merge, and its start (runs.c) */
	double		load_ms;		/* from the first call until sorted, input included */
	bool		spilled;		/* any run of this node spilled */
} BitonicScanState;

/*
 * Room an external sort keeps for the sorters' scratch while a run's rows
 * come in: what the last run's sort took per row, or before one, a pair a
 * row (a run's pairs are sorted whole on all threads, with scratch as
 * large), for the strcoll sort two and the strings' copies; none for a
 * sort in memory.
 */
static inline size_t
BitonicScanScratchRoom(BitonicScanState *state)
{
	const BitonicMultiSort *ms = &state->ms;

	if (state->runs == NULL)
		return 0;
	if (state->scratch_measured)
		return (size_t) (state->scratch_per_row * (double) (ms->npairs + ms->nnulls));
	return (ms->npairs + ms->nnulls) * sizeof(bs_pair64) *
		(ms->kind == BITONIC_KIND_CONSTANT ? 2 : 1) + ms->text_bytes;
}

/*
 * Bytes the node holds now (tuple store, pairs, staging buffers) and will
 * need to sort them (the order), with an external sort's runs, the room of
 * a run written behind and room for scratch; not while the worker places
 * rows.
 */
static inline size_t
BitonicScanHeldBytes(BitonicScanState *state)
{
	return state->store.bytes + state->store.slots_cap * sizeof(char *) +
		BitonicMultiSortBytes(&state->ms) + state->order_bytes +
		(state->ingest != NULL ? 2 * BITONIC_STAGE_BYTES : 0) + state->runs_bytes +
		state->behind_room + BitonicScanScratchRoom(state);
}

/*
 * Bound the store's growth by what work_mem leaves beside the rest of what
 * the node holds, and beside the pairs' next doubling once they are three
 * quarters full (a block that would pass it is not opened: the node spills
 * instead).
 */
static inline void
BitonicScanBoundStore(BitonicScanState *state)
{
	const BitonicMultiSort *ms = &state->ms;
	size_t		other = BitonicScanHeldBytes(state) - state->store.bytes;

	if (ms->npairs >= ms->pairs_cap - ms->pairs_cap / 4)
		other += ms->pairs_cap * sizeof(bs_pair64);

	state->store.limit = state->mem_limit > other ? state->mem_limit - other : 1;
}

/*
 * Rows the planner expects the node to read: its input's estimate (the
 * node's own is less where it does a Unique).
 */
static inline double
BitonicScanInputRows(const BitonicScanState *state)
{
	return ((PlanState *) linitial(state->css.custom_ps))->plan->plan_rows;
}

/*
 * The stream of a row whose first sort column has this pair key, or is
 * NULL (the stream after the ranges'): plain C, for the worker too.
 */
static inline int
BitonicKeyStream(const bs_key_ranges *ranges, uint32 nranges, uint64 key, bool isnull)
{
	return isnull ? (int) nranges : (int) bs_key_range(ranges, key);
}

#endif							/* BITONIC_SCAN_NODE_H */
