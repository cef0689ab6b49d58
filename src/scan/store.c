/*
 * store.c — the rows of a BitonicSort node: minimal tuples packed into
 * large blocks, each named by a 32-bit locator.
 *
 * A locator is the row's position in an address space of 1 MB slots counted
 * in 8-byte units: slot number in the high 15 bits, offset within the slot
 * in the low 17.  Rows are appended, so locators grow with input order and a
 * sort that breaks ties by locator keeps ties in input order.  A block of
 * 1 MB or more covers consecutive slots; a smaller block has a slot of its
 * own.  The slot table is small (one pointer per MB), so turning a locator
 * into a tuple costs one cached load and no per-row pointer array exists.
 *
 * Rows may also be placed by key range (place.c): once the store's
 * streams are opened, each row goes to the chunk of its stream, and chunks
 * (4 kB growing to 32 kB, 4 kB aligned in their block) are cut from the
 * newest block in turn.  A stream's rows then lie in a few MB, which emit
 * reads one range at a time.  The unused end of a chunk starts with a zero
 * t_len and its length (written when the stream leaves the chunk, or by
 * BitonicStoreCloseChunks), so a walk over a block skips it.
 *
 * Blocks of 2 MB and more are 2 MB aligned and of the store's kind of pages
 * (transparent huge pages unless the caller says otherwise, as
 * bitonic_sort.transparent_huge_pages decides), or of the
 * pool's under bitonic_sort.huge_pages (large_alloc.c).  While
 * the backend fills one, the next is allocated and a background thread
 * faults its pages in (MADV_POPULATE_WRITE): the kernel's page zeroing runs
 * on another core instead of in the ingest loop.
 */
#include "scan/store.h"

#include "core/prefault.h"

#include "executor/tuptable.h"
#include "utils/memutils.h"

/*
 * First and largest size of a tuple block.  The newest block and the spare
 * are allocated beyond what is used: 8 MB keeps that to a few percent of a
 * sort of 1M rows (peak memory within 1.06x of the native Sort's there).
 */
#define BLOCK_MIN ((size_t) 64 * 1024)
#define BLOCK_MAX ((size_t) 8 * 1024 * 1024)

/* Chunks of a stream: the first, the largest, and their alignment in a block. */
#define CHUNK_MIN ((size_t) 4096)
#define CHUNK_MAX ((size_t) 32 * 1024)
#define CHUNK_ALIGN CHUNK_MIN

/*
 * Where a row would start, unused bytes start with this (rows are MAXALIGNed,
 * so every unused run has room for it).
 */
typedef struct UnusedBytes
{
	uint32		zero;			/* where a row has its t_len, never 0 */
	uint32		bytes;			/* the length of the run */
} UnusedBytes;

/*
 * Number of slots that locators can name (32 GB of rows); the test build
 * names 16 MB, so that its tests run out of locators.
 */
#ifdef BITONIC_TEST_BUILD
#define STORE_MAX_SLOTS ((uint32) 16)
#else
#define STORE_MAX_SLOTS ((uint32) 1 << (32 - BITONIC_SLOT_UNIT_BITS))
#endif

/*
 * Reset callback of the prefaulter's context, a child of the store's: a
 * reset or deletion of the store's context deletes its children first,
 * before the parent's callbacks unmap pool pages and its memory goes, so
 * the thread never reads a page that is gone.
 */
static void
stop_prefaulter(void *arg)
{
	BitonicTupleStore *store = (BitonicTupleStore *) arg;

	bs_prefaulter_stop(&store->prefaulter);
	store->prefaulter_cxt = NULL;
}

/*
 * Have the background thread fault in memory the backend is about to fill
 * (started on first use; stopped by BitonicStoreFinish or the context's
 * reset, whichever comes first): buffers of 2 MB or more, less is not worth
 * the thread.  Memory queued here is freed only once the thread has
 * forgotten it (BitonicRegionFreeAfter) or stopped.
 */
void
BitonicStorePrefault(BitonicTupleStore *store, void *start, size_t len)
{
	if (len < HUGE_PAGE_BYTES)
		return;
	if (!store->prefaulter.running)
	{
		if (!bs_prefaulter_start(&store->prefaulter))
			return;
		if (store->prefaulter_cxt == NULL)
		{
			store->prefaulter_cxt = AllocSetContextCreate(store->cxt, "bitonic_sort prefaulter",
														  ALLOCSET_SMALL_SIZES);
			store->prefaulter_guard.func = stop_prefaulter;
			store->prefaulter_guard.arg = store;
			MemoryContextRegisterResetCallback(store->prefaulter_cxt, &store->prefaulter_guard);
		}
	}
	bs_prefaulter_add(&store->prefaulter, start, len);
}

/* Start an empty store whose blocks live in cxt. */
void
BitonicStoreInit(BitonicTupleStore *store, MemoryContext cxt)
{
	memset(store, 0, sizeof(BitonicTupleStore));
	store->cxt = cxt;
	store->pages = BITONIC_PAGES_HUGE;
}

/*
 * Leave the rows where they are, in their context, to a copy of the store
 * the caller keeps to read them (a run written behind), and start empty
 * in cxt; the prefaulter stops first, its context and callback, which
 * point at this store, go.
 */
void
BitonicStoreHandOver(BitonicTupleStore *store, MemoryContext cxt)
{
	BitonicStoreFinish(store);
	if (store->prefaulter_cxt != NULL)
		MemoryContextDelete(store->prefaulter_cxt);
	BitonicStoreInit(store, cxt);
}

/* Forget every row; call after cxt has been reset (the memory is gone). */
void
BitonicStoreForget(BitonicTupleStore *store)
{
	Assert(!store->prefaulter.running);
	BitonicStoreInit(store, store->cxt);
}

/*
 * Rows stored, in order and in every stream, and (*row_bytes) their bytes,
 * each MAXALIGNed: what the rows take in a run's records, besides their keys.
 */
size_t
BitonicStoreRows(const BitonicTupleStore *store, size_t *row_bytes)
{
	size_t		rows = store->rows;

	*row_bytes = store->row_bytes;
	for (uint32 i = 0; i < store->nstreams; i++)
	{
		rows += store->streams[i].rows;
		*row_bytes += store->streams[i].row_bytes;
	}
	return rows;
}

/* The last row is in: stop the background thread, free the spare block. */
void
BitonicStoreFinish(BitonicTupleStore *store)
{
	bs_prefaulter_stop(&store->prefaulter);
	if (store->spare != NULL)
	{
		BitonicRegionFree(store->spare_region);
		store->bytes -= store->spare_size;
		store->spare = NULL;
	}
}

/*
 * Memory of size bytes for the store (*region: what to free, NULL for a
 * small block); 2 MB aligned and of the store's pages when large.
 */
static char *
alloc_block(BitonicTupleStore *store, size_t size, BitonicRegion **region)
{
	*region = NULL;
	if (size < HUGE_PAGE_BYTES)
		return MemoryContextAllocHuge(store->cxt, size);
	return BitonicRegionAlloc(store->cxt, size, HUGE_PAGE_BYTES, store->pages, region);
}

/* Grow an array of elsize-byte elements to at least need (doubling). */
static void *
grow(MemoryContext cxt, void *array, uint32 *cap, uint32 need, size_t elsize)
{
	uint32		newcap = Max(Max(*cap * 2, need), 16);

	*cap = newcap;
	if (array == NULL)
		return MemoryContextAlloc(cxt, newcap * elsize);
	return repalloc(array, newcap * elsize);
}

/*
 * The most bytes a new block may take within the store's limit: whole
 * slots where that is a slot or more (a block of a slot or more covers
 * whole slots).
 */
static size_t
block_room(const BitonicTupleStore *store)
{
	size_t		left = store->limit > store->bytes ? store->limit - store->bytes : 0;

	return left >= BITONIC_SLOT_BYTES ? TYPEALIGN_DOWN(BITONIC_SLOT_BYTES, left) : left;
}

/*
 * Open a new block with room for at least `need` bytes, and with a spare
 * block made ready behind it when `spare` and the block is large; false
 * when the locators' address space is used up.
 */
static bool
open_block(BitonicTupleStore *store, size_t need, bool spare)
{
	size_t		size = store->nblocks == 0 ? BLOCK_MIN :
		Min(store->blocks[store->nblocks - 1].size * 2, BLOCK_MAX);
	uint32		nslots;
	BitonicStoreBlock *block;
	char	   *base;
	BitonicRegion *region;

	size = Max(size, need);
	/* the spare block, already counted, serves where it is large enough */
	if (store->spare != NULL && store->spare_size >= need)
		size = store->spare_size;
	else if (store->limit > 0)
		size = Min(size, block_room(store));
	if (size < need)
		return false;
	if (size >= BITONIC_SLOT_BYTES)
		size = TYPEALIGN(BITONIC_SLOT_BYTES, size);
	nslots = (uint32) ((size + BITONIC_SLOT_BYTES - 1) / BITONIC_SLOT_BYTES);
	if ((uint64) store->nslots + nslots > STORE_MAX_SLOTS)
		return false;

	if (store->spare != NULL && store->spare_size == size)
	{
		base = store->spare;
		region = store->spare_region;
		store->spare = NULL;
	}
	else
	{
		base = alloc_block(store, size, &region);
		store->bytes += size;
	}
	/* the next large block is made ready in the background while this one fills */
	if (spare && size >= HUGE_PAGE_BYTES && store->spare == NULL &&
		(store->limit == 0 || store->bytes + Min(size * 2, BLOCK_MAX) <= store->limit))
	{
		store->spare_size = Min(size * 2, BLOCK_MAX);
		store->spare = alloc_block(store, store->spare_size, &store->spare_region);
		store->bytes += store->spare_size;
		BitonicStorePrefault(store, store->spare, store->spare_size);
	}
	if (store->nblocks == store->blocks_cap)
		store->blocks = grow(store->cxt, store->blocks, &store->blocks_cap,
							 store->nblocks + 1, sizeof(BitonicStoreBlock));
	if (store->nslots + nslots > store->slots_cap)
		store->slots = grow(store->cxt, store->slots, &store->slots_cap,
							store->nslots + nslots, sizeof(char *));
	for (uint32 i = 0; i < nslots; i++)
		store->slots[store->nslots + i] = base + (size_t) i * BITONIC_SLOT_BYTES;

	block = &store->blocks[store->nblocks++];
	block->base = base;
	block->size = size;
	block->used = 0;
	block->first_slot = store->nslots;
	block->region = region;
	store->nslots += nslots;
	return true;
}

/*
 * Open the empty store's first block at `bytes` (the rows expected) and have
 * it faulted in at once in the background: memory a query freed moments ago
 * is still cheap to take back, which it is not once the rows trickle in
 * (on a VM, freed pages go back to the host within seconds).  Nothing
 * happens when the store holds rows or the reservation is small.
 */
void
BitonicStoreReserve(BitonicTupleStore *store, size_t bytes)
{
	BitonicStoreBlock *block;

	if (store->nblocks > 0 || bytes < HUGE_PAGE_BYTES || !open_block(store, bytes, false))
		return;
	block = &store->blocks[0];
	BitonicStorePrefault(store, block->base, block->size);
}

/*
 * Room for a row of len bytes (MAXALIGNed) at the end of the newest block,
 * opening a block when it is full; NULL when the locators are used up.
 * Sets *locator to the row's locator.
 */
static MinimalTuple
reserve_row(BitonicTupleStore *store, size_t len, uint32 *locator)
{
	BitonicStoreBlock *block = store->nblocks > 0 ? &store->blocks[store->nblocks - 1] : NULL;
	MinimalTuple row;

	if (block == NULL || block->used + MAXALIGN(len) > block->size)
	{
		if (!open_block(store, MAXALIGN(len), true))
			return NULL;
		block = &store->blocks[store->nblocks - 1];
	}
	row = (MinimalTuple) (block->base + block->used);
	*locator = (block->first_slot << BITONIC_SLOT_UNIT_BITS) +
		(uint32) (block->used >> BITONIC_UNIT_SHIFT);
	block->used += MAXALIGN(len);
	store->rows++;
	store->row_bytes += MAXALIGN(len);
	return row;
}

/*
 * From now on every row goes to one of nstreams streams (BitonicStoreAdd's
 * stream), each filling chunks of its own; the rows so far stay where they are.
 */
void
BitonicStoreOpenStreams(BitonicTupleStore *store, uint32 nstreams)
{
	Assert(store->streams == NULL && nstreams > 0);
	store->streams = MemoryContextAllocZero(store->cxt, nstreams * sizeof(BitonicStoreStream));
	store->nstreams = nstreams;
	for (uint32 i = 0; i < nstreams; i++)
		store->streams[i].chunk = CHUNK_MIN;
}

/*
 * Mark bytes [offset, end) of block unused (the end of a chunk, or the gap
 * before one): a zero where a row's t_len would be, then the bytes to skip.
 */
static inline void
mark_unused(BitonicStoreBlock *block, size_t offset, size_t end)
{
	UnusedBytes *unused = (UnusedBytes *) (block->base + offset);

	unused->zero = 0;
	unused->bytes = (uint32) (end - offset);
}

/*
 * Give the stream a new chunk of room for at least need bytes, cut from the
 * newest block or, when may_grow, a new one; false when that block is full
 * and !may_grow (nothing changes then), or when the locators are used up.
 */
static bool
open_chunk(BitonicTupleStore *store, BitonicStoreStream *stream, size_t need, bool may_grow)
{
	size_t		size = TYPEALIGN(CHUNK_ALIGN, Max(stream->chunk, need));
	BitonicStoreBlock *block = store->nblocks > 0 ? &store->blocks[store->nblocks - 1] : NULL;
	size_t		start = block != NULL ? TYPEALIGN(CHUNK_ALIGN, block->used) : 0;
	bool		new_block = block == NULL || start + size > block->size;

	if (new_block && !may_grow)
		return false;
	if (stream->next < stream->end)
		mark_unused(&store->blocks[stream->block], stream->next, stream->end);
	if (new_block)
	{
		if (!open_block(store, size, true))
			return false;
		block = &store->blocks[store->nblocks - 1];
		start = 0;
	}
	else if (start > block->used)
		mark_unused(block, block->used, start);	/* the rows in order end before the chunk */
	block->used = start + size;
	stream->block = store->nblocks - 1;
	stream->next = start;
	stream->end = start + size;
	stream->chunk = Min(stream->chunk * 2, CHUNK_MAX);
	return true;
}

/*
 * Room for a row of len bytes (MAXALIGNed) in the stream's chunk, opening a
 * chunk when it is full (and a block only when may_grow); NULL when that
 * cannot be done.  Sets *locator.
 * The stream's next two cache lines are fetched for writing: rows go to many
 * streams in turn, which the hardware's prefetcher does not follow, and a
 * row written to a line not in cache stalls the ingest loop (at 10M rows,
 * 1 s of the scan's time without this).
 */
static MinimalTuple
reserve_in_stream(BitonicTupleStore *store, BitonicStoreStream *stream, size_t len,
				  bool may_grow, uint32 *locator)
{
	size_t		size = MAXALIGN(len);
	BitonicStoreBlock *block;
	MinimalTuple row;

	if (stream->end - stream->next < size && !open_chunk(store, stream, size, may_grow))
		return NULL;
	block = &store->blocks[stream->block];
	row = (MinimalTuple) (block->base + stream->next);
	*locator = (block->first_slot << BITONIC_SLOT_UNIT_BITS) +
		(uint32) (stream->next >> BITONIC_UNIT_SHIFT);
	stream->next += size;
	stream->rows++;
	stream->row_bytes += size;
	__builtin_prefetch(block->base + stream->next, 1);
	__builtin_prefetch(block->base + stream->next + 64, 1);
	return row;
}

/*
 * Every stream leaves its chunk (its unused end is marked): the stream's
 * next row opens a new chunk, which lies above every row stored so far.
 * For a cut of the ranges (a key may change streams, and its next rows
 * must still come after its earlier ones in locator order), and before
 * BitonicStoreNext walks the store (it skips the marked ends).
 */
void
BitonicStoreCloseChunks(BitonicTupleStore *store)
{
	for (uint32 i = 0; i < store->nstreams; i++)
	{
		BitonicStoreStream *stream = &store->streams[i];

		if (stream->next < stream->end)
			mark_unused(&store->blocks[stream->block], stream->next, stream->end);
		stream->next = stream->end;
	}
}

/* Room for a row of len bytes in the given stream, or in order (reserve_row). */
static MinimalTuple
reserve(BitonicTupleStore *store, int stream, size_t len, uint32 *locator)
{
	Assert((stream == BITONIC_STORE_IN_ORDER) == (store->streams == NULL));
	Assert(stream < (int) store->nstreams);
	if (stream == BITONIC_STORE_IN_ORDER)
		return reserve_row(store, len, locator);
	return reserve_in_stream(store, &store->streams[stream], len, true, locator);
}

/*
 * Copy the slot's row into the store, in the given stream (or
 * BITONIC_STORE_IN_ORDER before streams are opened), and set *locator;
 * false when the store cannot name another row (the caller spills).
 */
bool
BitonicStoreAdd(BitonicTupleStore *store, TupleTableSlot *slot, int stream, uint32 *locator)
{
	BitonicRowSource src;
	MinimalTuple copy;

	BitonicRowOpen(slot, &store->layout, &src);
	copy = reserve(store, stream, src.len, locator);
	if (copy != NULL)
		BitonicRowWrite(slot, &src, copy);
	BitonicRowClose(&src);
	return copy != NULL;
}

/*
 * Copy a row's bytes (BitonicRowCopy's: a heap tuple's in a page the node
 * read, heap_read.c) into the store; as BitonicStoreAdd.
 */
bool
BitonicStoreAddBytes(BitonicTupleStore *store, int stream, const char *bytes, size_t len,
					 uint32 *locator)
{
	MinimalTuple copy = reserve(store, stream, len, locator);

	if (copy != NULL)
		BitonicRowCopy(copy, bytes, len);
	return copy != NULL;
}

/*
 * Copy a row's bytes (BitonicRowCopy's: a staged row, ingest.c) into
 * the stream and set *locator; false when the stream's chunk is full and a
 * new one would need a new block while !may_grow (a worker thread may place
 * rows, but only the backend allocates), or when the locators are used up.
 * Calls nothing of PostgreSQL's unless may_grow.
 */
bool
BitonicStorePlace(BitonicTupleStore *store, int stream, const char *bytes, size_t len,
				  bool may_grow, uint32 *locator)
{
	MinimalTuple copy;

	Assert(stream >= 0 && stream < (int) store->nstreams);
	copy = reserve_in_stream(store, &store->streams[stream], len, may_grow, locator);
	if (copy == NULL)
		return false;
	BitonicRowCopy(copy, bytes, len);
	return true;
}
