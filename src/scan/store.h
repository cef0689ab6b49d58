/*
 * scan/store.h — the rows of a BitonicSort node (store.c): minimal tuples
 * in large blocks, each named by a 32-bit locator, in input order or in
 * one stream per key range.
 */
#ifndef BITONIC_SCAN_STORE_H
#define BITONIC_SCAN_STORE_H

#include "bitonic_sort.h"
#include "core/prefault.h"
#include "scan/row_form.h"

#include "access/htup_details.h"
#include "executor/tuptable.h"

/*
 * Rows of a node in blocks (store.c).  A row's 32-bit locator counts
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
	BitonicRegion *region;		/* its allocation, or NULL: memory of the store's context */
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
	size_t		rows;			/* rows stored in the stream */
	size_t		row_bytes;		/* their bytes, each MAXALIGNed */
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
	size_t		limit;			/* bytes no new block takes the store past; 0: none */
	BitonicPages pages;			/* pages of blocks of 2 MB and more */
	BitonicStoreStream *streams;	/* NULL until BitonicStoreOpenStreams */
	uint32		nstreams;
	char	   *spare;			/* the next large block, being faulted in */
	BitonicRegion *spare_region;	/* its allocation */
	size_t		spare_size;
	bs_prefaulter prefaulter;	/* faults in spare blocks (and the pairs) */
	MemoryContextCallback prefaulter_guard;	/* stops it on a reset */
	MemoryContext prefaulter_cxt;	/* child of cxt with prefaulter_guard, or NULL */
	BitonicRowLayout layout;	/* of the rows formed from virtual slots */
	size_t		rows;			/* rows stored in order (not in a stream) */
	size_t		row_bytes;		/* their bytes, each MAXALIGNed */
} BitonicTupleStore;

/* The row named by a locator. */
static inline MinimalTuple
BitonicStoreGet(const BitonicTupleStore *store, uint32 locator)
{
	return (MinimalTuple) (store->slots[locator >> BITONIC_SLOT_UNIT_BITS] +
						   ((size_t) (locator & (((uint32) 1 << BITONIC_SLOT_UNIT_BITS) - 1))
							<< BITONIC_UNIT_SHIFT));
}

/*
 * Rows a reader of the store in sorted order prefetches ahead of the one
 * it reads; measured with test/bench/prefetch_bench.c (docs/order-by.md).
 */
#define BITONIC_ROW_PREFETCH 24

/*
 * Ask for a stored row's first two cache lines: a row of the usual widths
 * (16-byte header, 40-100 bytes of values) most often spans two.
 */
static inline void
BitonicStorePrefetch(const void *row)
{
	__builtin_prefetch(row);
	__builtin_prefetch((const char *) row + 64);
}

/*
 * Attribute attno of a stored row, deformed with tupdesc (that one alone);
 * calls nothing of PostgreSQL's that is not pure, but deforming caches
 * offsets in tupdesc: a thread deforms with a descriptor of its own.
 */
static inline Datum
BitonicStoredAttr(MinimalTuple row, AttrNumber attno, TupleDesc tupdesc, bool *isnull)
{
	HeapTupleData htup;

	htup.t_len = row->t_len + MINIMAL_TUPLE_OFFSET;
	htup.t_data = (HeapTupleHeader) ((char *) row - MINIMAL_TUPLE_OFFSET);
	return heap_getattr(&htup, attno, tupdesc, isnull);
}

extern void BitonicStoreInit(BitonicTupleStore *store, MemoryContext cxt);
extern void BitonicStoreForget(BitonicTupleStore *store);
extern size_t BitonicStoreRows(const BitonicTupleStore *store, size_t *row_bytes);
extern void BitonicStoreFinish(BitonicTupleStore *store);
extern void BitonicStoreHandOver(BitonicTupleStore *store, MemoryContext cxt);
extern void BitonicStorePrefault(BitonicTupleStore *store, void *start, size_t len);
extern void BitonicStoreReserve(BitonicTupleStore *store, size_t bytes);
extern void BitonicStoreOpenStreams(BitonicTupleStore *store, uint32 nstreams);
extern void BitonicStoreCloseChunks(BitonicTupleStore *store);
extern bool BitonicStoreAdd(BitonicTupleStore *store, TupleTableSlot *slot, int stream,
							uint32 *locator);
extern bool BitonicStoreAddBytes(BitonicTupleStore *store, int stream, const char *bytes,
								 size_t len, uint32 *locator);
extern bool BitonicStorePlace(BitonicTupleStore *store, int stream, const char *bytes,
							  size_t len, bool may_grow, uint32 *locator);

#endif							/* BITONIC_SCAN_STORE_H */
