/*
 * scan.h — the BitonicSort custom scan that replaces the Sort node of an
 * ORDER BY: shared by its planner hook, executor and EXPLAIN output.
 */
#ifndef BITONIC_SCAN_H
#define BITONIC_SCAN_H

#include "bitonic_sort.h"
#include "core/key_ranges.h"
#include "core/prefault.h"

#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "utils/tuplesort.h"

/* Name of the node in EXPLAIN and of its registered methods. */
#define BITONIC_SCAN_NAME "BitonicSort"

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
} BitonicScanKeys;

/* Where the rows of the node are. */
typedef enum BitonicScanPhase
{
	BITONIC_PHASE_EMPTY,		/* nothing read yet */
	BITONIC_PHASE_SORTED,		/* sorted in memory by key/pointer pairs */
	BITONIC_PHASE_SPILLED		/* handed to tuplesort, which sorted them */
} BitonicScanPhase;

/*
 * Rows of a node in blocks (scan_store.c).  A row's 32-bit locator counts
 * 8-byte units: slot (1 MB) number above BITONIC_SLOT_UNIT_BITS, offset below.
 */
#define BITONIC_UNIT_SHIFT 3
#define BITONIC_SLOT_UNIT_BITS 17
#define BITONIC_SLOT_BYTES ((size_t) 1 << (BITONIC_SLOT_UNIT_BITS + BITONIC_UNIT_SHIFT))

/* One block of the store. */
typedef struct BitonicStoreBlock
{
	char	   *base;
	size_t		size;
	size_t		used;
	uint32		first_slot;		/* the block covers slots first_slot.. */
} BitonicStoreBlock;

/*
 * A stream of rows (of one key range) in the store: the chunk it fills, in
 * one block.  A stream's chunks lie at increasing locators, so its rows'
 * locators grow with input order.
 */
typedef struct BitonicStoreStream
{
	uint32		block;			/* index of the chunk's block */
	size_t		next;			/* offset in that block of the next row */
	size_t		end;			/* offset just past the chunk */
	size_t		chunk;			/* size of the stream's next chunk */
} BitonicStoreStream;

/* BitonicStoreAdd's stream for a store without streams: rows one after another. */
#define BITONIC_STORE_IN_ORDER (-1)

/*
 * The rows of one sort: in input order, or, once streams are opened, each in
 * the chunks of its stream.
 */
typedef struct BitonicTupleStore
{
	MemoryContext cxt;
	char	  **slots;			/* slot number -> address of its first byte */
	uint32		nslots;
	uint32		slots_cap;
	BitonicStoreBlock *blocks;
	uint32		nblocks;
	uint32		blocks_cap;
	size_t		bytes;			/* bytes of all blocks */
	BitonicPages pages;			/* pages of blocks of 2 MB and more */
	BitonicStoreStream *streams;	/* NULL until BitonicStoreOpenStreams */
	uint32		nstreams;
	char	   *spare;			/* the next large block, being faulted in */
	BitonicRegion *spare_region;	/* its allocation */
	size_t		spare_size;
	bs_prefaulter prefaulter;	/* faults in spare blocks (and the pairs) */
	MemoryContextCallback prefaulter_guard;	/* stops it on a reset */
	bool		prefaulter_guarded;	/* prefaulter_guard is registered */
} BitonicTupleStore;

/* Position of a walk over the store in input order. */
typedef struct BitonicStoreIter
{
	uint32		block;
	size_t		offset;
} BitonicStoreIter;

/* The row named by a locator. */
static inline MinimalTuple
BitonicStoreGet(const BitonicTupleStore *store, uint32 locator)
{
	return (MinimalTuple) (store->slots[locator >> BITONIC_SLOT_UNIT_BITS] +
						   ((size_t) (locator & (((uint32) 1 << BITONIC_SLOT_UNIT_BITS) - 1))
							<< BITONIC_UNIT_SHIFT));
}

/* How a slot's row is copied into the store as a minimal tuple (scan_store.c). */
typedef struct BitonicRowSource
{
	const char *bytes;			/* the row's bytes; NULL: a virtual slot's, formed on write */
	size_t		len;			/* bytes of the minimal tuple */
	bool		should_free;	/* bytes were allocated for the copy */
	bool		hasnull;		/* virtual slot: a NULL among its values */
	size_t		hoff;			/* virtual slot: offset of the values */
} BitonicRowSource;

struct BitonicIngest;

/* Rows whose first-column values are read and keyed together. */
#define BITONIC_INGEST_BATCH 256

/* Executor state of one BitonicSort node. */
typedef struct BitonicScanState
{
	CustomScanState css;
	BitonicScanKeys keys;
	bool		random_access;	/* backward scan, mark/restore or rewind asked for */
	TupleTableSlot *slot;		/* minimal-tuple slot holding the row to return */
	TupleTableSlot *output;		/* mapped slot returned instead, or NULL (scan_slot.c) */
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

	/* placement of rows by key range (scan_place.c) */
	uint32		place_ranges;	/* ranges planned for this sort, 0: none */
	uint32		nranges;		/* ranges cut, once the sample is read; 0 before */
	bs_key_ranges *ranges;		/* the ranges and their look-up table */
	size_t		next_cut;		/* rows read when the ranges are cut next */
	size_t		cut_from;		/* first pair whose key the next cut samples */
	struct BitonicIngest *ingest;	/* placement on a worker thread, or NULL (scan_ingest.c) */
	size_t		mem_limit;		/* bytes the rows may take before the node spills */

	/* spill */
	Tuplesortstate *tuplesort;

	/* for EXPLAIN ANALYZE */
	size_t		peak_bytes;
	size_t		pool_peak_bytes;	/* huge page pool memory mapped, at most */
	uint32		placed_ranges;	/* key ranges rows were placed in, at most */
	uint32		range_cuts;		/* times the ranges were cut, in all runs */
	uint32		sort_parts;		/* parts the pairs were sorted in, at most */
	double		key_ms;			/* reading input, less the input node's own time */
	double		sort_ms;
	double		tie_ms;
	double		load_ms;		/* from the first call until sorted, input included */
	bool		spilled;		/* any run of this node spilled */
} BitonicScanState;

/* scan_planner.c */
extern void BitonicScanPlannerInit(void);
extern void BitonicScanKeysFromPrivate(List *custom_private, BitonicScanKeys *keys);
extern CustomPath *BitonicMakeSortPath(PlannerInfo *root, RelOptInfo *rel, Path *input,
									   List *pathkeys);

/* scan_replace.c */
extern void BitonicReplaceSorts(PlannerInfo *root, RelOptInfo *rel);
extern Path *BitonicJoinInputSort(PlannerInfo *root, Path *input, List *pathkeys);

/* hash_cost.c */
extern void BitonicChargeHashTables(RelOptInfo *rel);
extern void BitonicChargeHashJoins(RelOptInfo *joinrel, RelOptInfo *outerrel,
								   RelOptInfo *innerrel);

/* join_paths.c */
extern void BitonicJoinPathsInit(void);

/* scan_exec.c */
extern Node *BitonicScanCreateState(CustomScan *cscan);
extern size_t BitonicScanHeldBytes(BitonicScanState *state);

/* scan_ingest.c */
extern void BitonicIngestStart(BitonicScanState *state);
extern size_t BitonicIngestBytes(const BitonicScanState *state);
extern bool BitonicIngestRow(BitonicScanState *state, TupleTableSlot *slot);
extern void BitonicIngestDrain(BitonicScanState *state);
extern void BitonicIngestHandOver(BitonicScanState *state, Tuplesortstate *ts);
extern void BitonicIngestStop(BitonicScanState *state);

/*
 * The stream of a row whose first sort column has this pair key, or is
 * NULL (the stream after the ranges'): plain C, for the worker too.
 */
static inline int
BitonicKeyStream(const bs_key_ranges *ranges, uint32 nranges, uint64 key, bool isnull)
{
	return isnull ? (int) nranges : (int) bs_key_range(ranges, key);
}

/* scan_place.c */
extern void BitonicPlacePlan(BitonicScanState *state, double expected_bytes);
extern void BitonicPlaceCut(BitonicScanState *state);
extern int	BitonicPlaceStream(BitonicScanState *state, TupleTableSlot *slot);

/* scan_slot.c */
extern PGDLLIMPORT const TupleTableSlotOps BitonicMappedSlotOps;
extern AttrNumber *BitonicOutputColumnMap(List *targetlist);
extern TupleTableSlot *BitonicMappedSlotCreate(EState *estate, TupleDesc desc,
											   TupleTableSlot *row,
											   const AttrNumber *map);
extern TupleTableSlot *BitonicMappedSlotShow(TupleTableSlot *slot, TupleTableSlot *row);

/* scan_store.c */
extern void BitonicStoreInit(BitonicTupleStore *store, MemoryContext cxt);
extern void BitonicStoreForget(BitonicTupleStore *store);
extern void BitonicStoreFinish(BitonicTupleStore *store);
extern void BitonicStorePrefault(BitonicTupleStore *store, void *start, size_t len);
extern void BitonicStoreReserve(BitonicTupleStore *store, size_t bytes);
extern void BitonicStoreOpenStreams(BitonicTupleStore *store, uint32 nstreams);
extern void BitonicStoreCloseChunks(BitonicTupleStore *store);
extern bool BitonicStoreAdd(BitonicTupleStore *store, TupleTableSlot *slot, int stream,
							uint32 *locator);
extern bool BitonicStorePlace(BitonicTupleStore *store, int stream, const char *bytes,
							  size_t len, bool may_grow, uint32 *locator);
extern void BitonicRowOpen(TupleTableSlot *slot, BitonicRowSource *src);
extern void BitonicRowCopy(MinimalTuple row, const char *bytes, size_t len);
extern void BitonicRowWrite(TupleTableSlot *slot, const BitonicRowSource *src,
							MinimalTuple row);
extern void BitonicRowClose(BitonicRowSource *src);
extern MinimalTuple BitonicStoreNext(const BitonicTupleStore *store,
									 BitonicStoreIter *iter);

/* scan_spill.c */
extern void BitonicScanSpill(BitonicScanState *state);
extern void BitonicScanForgetRows(BitonicScanState *state);
extern TupleTableSlot *BitonicScanSpillNext(BitonicScanState *state, bool forward);

/* scan_explain.c */
extern void BitonicScanExplain(CustomScanState *node, List *ancestors,
							   ExplainState *es);

#endif							/* BITONIC_SCAN_H */
