/*
 * bitonic_sort.h — shared declarations of the PostgreSQL glue.
 *
 * Grouped by the file that defines them, one file per job.
 */
#ifndef BITONIC_SORT_H
#define BITONIC_SORT_H

#include "postgres.h"

#include "pg_compat.h"

#include "core/bs_sort.h"
#include "portability/instr_time.h"
#include "utils/pg_locale.h"
#include "utils/sortsupport.h"

/* guc.c */
typedef enum BitonicDevice
{
	BITONIC_DEVICE_AUTO,
	BITONIC_DEVICE_CPU,
	BITONIC_DEVICE_GPU
} BitonicDevice;

extern int	bitonic_sort_device;
extern int	bitonic_sort_algorithm;	/* a bs_algorithm */
extern int	bitonic_sort_cpu_threads;
extern int	bitonic_sort_gpu_memory_limit;	/* MB */
extern int	bitonic_sort_gpu_min_pairs;	/* -1: measured (gpu_auto.c) */
extern int	bitonic_sort_gpu_pinned_memory;	/* MB */
extern char *bitonic_sort_emu_fail;	/* emulated builds only */
extern bool bitonic_sort_enable;
extern int	bitonic_sort_min_rows;
extern bool bitonic_sort_huge_pages;
extern int	bitonic_sort_transparent_huge_pages;	/* a BitonicHugePageAdvice */
extern int	bitonic_sort_keep_memory;
extern int	bitonic_sort_keep_memory_idle;
extern bool bitonic_sort_heap_read;
extern int	bitonic_sort_max_threads;
extern int	bitonic_sort_both_ends_run_size;	/* kB */
extern bool bitonic_sort_write_runs_behind;
extern int	bitonic_sort_map_runs;
extern bool bitonic_sort_merge_thread;

/* bitonic_sort.map_runs: when an external sort's merges read its runs mapped */
typedef enum BitonicMapRuns
{
	BITONIC_MAP_RUNS_AUTO,		/* where more runs are expected than read buffers take */
	BITONIC_MAP_RUNS_ON,		/* wherever work_mem allows */
	BITONIC_MAP_RUNS_OFF
} BitonicMapRuns;
extern void BitonicGucInit(void);

/* thread_budget.c */
extern void BitonicThreadBudgetInit(void);
extern bool BitonicThreadBudgetShared(void);
extern void BitonicThreadBudgetEnter(void);

/*
 * The emulated build (make emu) is the test build: besides the emulator's
 * CUDA failures (bitonic_sort.emu_fail) it has bitonic_sort.test_fault,
 * which makes a thread's job fail, and a store that can name only 16 MB of
 * rows (scan/store.c), so that its tests reach the paths that need faults
 * or 32 GB of rows.  Release builds have neither.
 */
#ifdef BS_CUDA_EMU
#define BITONIC_TEST_BUILD 1
typedef enum BitonicTestFault
{
	BITONIC_FAULT_NONE = 0,
	BITONIC_FAULT_PART_SORT,	/* the part sorter's worker fails every part */
	BITONIC_FAULT_INGEST,		/* an ERROR while the ingest worker places a buffer */
	BITONIC_FAULT_READ_AHEAD,	/* the external sort's reads ahead fail (EBADF) */
	BITONIC_FAULT_RUN_WRITE,	/* the writes of a run written from both ends fail (EBADF) */
	BITONIC_FAULT_RUN_MAP		/* the external sort's runs cannot be mapped */
} BitonicTestFault;
extern int	bitonic_sort_test_fault;
#endif

/* sort_run.c */
extern void BitonicSortPairs32(bs_pair32 *pairs, size_t n);
extern void BitonicSortPairs64(bs_pair64 *pairs, size_t n);
extern void BitonicSortPairsOnCpu(bool wide, void *pairs, size_t n);
extern bool BitonicSortsKeysAlone(size_t n);
extern void BitonicSortKeys64(uint64 *keys, size_t n);
extern bool BitonicGpuUsable(const char **reason);
extern void BitonicSortChoice(double n, bool wide, bs_backend *backend, bs_algorithm *algorithm);
extern void BitonicSortDescribe(double n, bool wide, const char **backend, const char **algorithm,
								const char **why);

/* pinned_pairs.c */
extern void *BitonicPinnedPairs(size_t bytes, bool wide, size_t n);

/* gpu_auto.c: what device = auto goes by */
extern size_t BitonicGpuAutoFrom(bool wide);
extern const char *BitonicGpuAutoWhy(size_t n, bool wide);
extern char *BitonicGpuAutoDescribe(void);
extern const bs_hooks *BitonicCoreHooks(void);
extern void BitonicCoreResetPeak(void);
extern size_t BitonicCorePeak(void);

/* large_alloc.c */

struct bs_prefaulter;			/* core/prefault.h */

/*
 * A large buffer: memory of a context (under 2 MB), or a mapping of its own,
 * of ordinary pages or of the huge page pool's, that the context's reset or
 * deletion unmaps.
 */
typedef struct BitonicRegion
{
	MemoryContextCallback unmap;	/* unmaps the mapping when the context goes */
	char	   *raw;			/* the palloc'd memory, or NULL */
	char	   *map;			/* the mapping, or NULL */
	size_t		map_bytes;
	bool		pool;			/* the mapping's pages are the pool's */
	bool		huge;			/* an ordinary mapping that asked for transparent huge pages */
} BitonicRegion;

/* The pages a large buffer outside the huge page pool asks for under "mixed". */
typedef enum BitonicPages
{
	BITONIC_PAGES_SMALL,		/* no advice (4 kB under THP "madvise"): read in order */
	BITONIC_PAGES_HUGE			/* transparent huge pages (large_alloc.c says when) */
} BitonicPages;

/* bitonic_sort.transparent_huge_pages: which large buffers ask for them. */
typedef enum BitonicHugePageAdvice
{
	BITONIC_THP_AUTO,			/* "always" where fresh 4 kB pages are slow, else "mixed" */
	BITONIC_THP_ALWAYS,			/* every buffer */
	BITONIC_THP_MIXED,			/* those of BITONIC_PAGES_HUGE */
	BITONIC_THP_NEVER			/* none */
} BitonicHugePageAdvice;

extern double BitonicSmallPageFaultUs(void);
extern BitonicHugePageAdvice BitonicHugePageAdviceInEffect(void);
extern const char *BitonicHugePageAdviceName(BitonicHugePageAdvice advice);

extern void *BitonicAllocLarge(MemoryContext cxt, size_t size);
extern void *BitonicRegionAlloc(MemoryContext cxt, size_t size, size_t align,
								BitonicPages pages, BitonicRegion **region);
extern void BitonicRegionFree(BitonicRegion *region);
extern void BitonicRegionFreeAfter(BitonicRegion *region, struct bs_prefaulter *prefaulter);
extern void *BitonicRegionGrow(BitonicRegion *region, size_t size,
							   struct bs_prefaulter *prefaulter);
extern size_t BitonicRegionBytes(const BitonicRegion *region);
extern void *BitonicAllocPairs(MemoryContext cxt, size_t size, BitonicPages pages,
							   BitonicRegion **region);
extern void BitonicPoolResetPeak(void);
extern size_t BitonicPoolPeak(void);
extern size_t BitonicKeptReused(void);
extern size_t BitonicKeepMemoryBytes(int setting_kb);
extern size_t BitonicKeepMemoryCap(void);
extern void BitonicKeptMemoryTrim(size_t cap);

/* Size of a transparent huge page. */
#define HUGE_PAGE_BYTES ((size_t) 2 * 1024 * 1024)

/* keys.c */
typedef enum BitonicKeyWidth
{
	BITONIC_KEY_NONE = 0,		/* the type has no exact fixed-width key */
	BITONIC_KEY_32 = 32,
	BITONIC_KEY_64 = 64
} BitonicKeyWidth;

extern BitonicKeyWidth BitonicKeyWidthForType(Oid typid);
extern void BitonicKeysFromArray32(Oid typid, const char *values, size_t first,
								   size_t n, bool descending, bs_pair32 *pairs);
extern void BitonicKeysFromArray64(Oid typid, const char *values, size_t first,
								   size_t n, bool descending, bs_pair64 *pairs);
extern void BitonicKeysFromDatums(Oid typid, const Datum *values, size_t n,
								  uint64 *keys);
extern bool BitonicKeyIsBijective(Oid typid);
extern uint64 BitonicKeyXor64(Oid typid, bool descending);
extern void BitonicValuesFromPairs32(Oid typid, const bs_pair32 *pairs, size_t n,
									 bool descending, char *dst);
extern void BitonicValuesFromPairs64(Oid typid, const bs_pair64 *pairs, size_t n,
									 bool descending, char *dst);
extern bool BitonicIsTextOrder(Oid typid, Oid sortop);
extern uint64 BitonicTextPrefixKey(Datum value);
extern uint64 BitonicTextPrefixKeyPlain(const struct varlena *text);

/* Whether a text value is compressed or stored apart: reading it takes a detoast. */
static inline bool
BitonicTextNeedsDetoast(const void *text)
{
	return VARATT_IS_COMPRESSED(text) || VARATT_IS_EXTERNAL(text);
}

/* One datum's ascending key. */
typedef uint64 (*BitonicKeyFn) (Datum value);
extern BitonicKeyFn BitonicKeyFunction(Oid typid);

/* libc_text.c */

/* Sort by text in a libc collation other than "C" (strcoll on threads). */
typedef struct BitonicLibcText
{
	bool		usable;			/* the column is such text */
	bool		descending;
	locale_t	locale;			/* 0: the database's LC_COLLATE */
} BitonicLibcText;

struct BitonicSortColumn;
extern bool BitonicLibcTextInit(const struct BitonicSortColumn *col, BitonicLibcText *lt);
extern bool BitonicCollationSortsBytes(Oid collation);
extern size_t BitonicLibcTextCopyBytes(Datum value);

/* multikey.c */

/* One sort column: what ORDER BY says about it. */
typedef struct BitonicSortColumn
{
	Oid			typid;
	Oid			sortop;			/* btree "<" or ">" of some opfamily */
	Oid			collation;
	bool		nulls_first;
} BitonicSortColumn;

/* How the first column becomes the normalised key of the pairs. */
typedef enum BitonicKeyKind
{
	BITONIC_KIND_EXACT32,		/* exact 32-bit key of a fixed-width type */
	BITONIC_KIND_EXACT64,		/* exact 64-bit key of a fixed-width type */
	BITONIC_KIND_ABBREV,		/* SortSupport abbreviated key; ties need the comparator */
	BITONIC_KIND_CONSTANT		/* no usable key: the comparator sorts everything */
} BitonicKeyKind;

/* Whether a key of this kind is the first column's order itself: equal keys, equal values. */
static inline bool
BitonicKeyKindExact(BitonicKeyKind kind)
{
	return kind == BITONIC_KIND_EXACT32 || kind == BITONIC_KIND_EXACT64;
}

/* Reads column `column` of item `item` for the tie pass. */
typedef void (*BitonicFetchFn) (void *arg, uint32 item, int column,
								Datum *value, bool *isnull);

/* Asks for the memory of item `item` ahead of its fetch (the tie pass; optional). */
typedef void (*BitonicPrefetchFn) (void *arg, uint32 item);

/*
 * A sort of numbered items by several columns.  The caller adds each item's
 * first-column value in input order; the tie pass fetches the other columns
 * (and the full first-column value) through a callback.
 */
typedef struct BitonicMultiSort
{
	MemoryContext cxt;			/* where the arrays live */
	int			ncolumns;
	SortSupport ssup;			/* full comparators, one per column */
	SortSupportData abbrev;		/* first column's abbreviation, for ABBREV */
	BitonicLibcText libc_text;	/* first column, for CONSTANT */
	bool		text_prefix;	/* ABBREV: text in byte order, keyed by BitonicTextPrefixKey */
	BitonicKeyKind kind;
	BitonicKeyFn key_of;		/* a value's ascending key, where that is cheap; else NULL */
	BitonicKeyFn *tie_keys;		/* per column after the first: its exact key, or its
								 * prefix where tie_text, or NULL */
	bool	   *tie_keys_wide;	/* and whether that key is 64 bits wide */
	bool	   *tie_text;		/* per column after the first: text in byte order */
	bool		later_keyed;	/* every column after the first has an exact key */
	BitonicPrefetchFn prefetch; /* the caller's, for its fetch's argument; NULL: none */
	uint64		key_flip;		/* XORed into it: DESC, and the key's width */
	Oid			first_type;
	bool		descending;		/* first column */
	bool		nulls_first;	/* first column */
	bs_pair32  *pairs32;		/* BitonicMultiSortNarrow */
	bs_pair64  *pairs64;		/* the others */
	BitonicRegion *pairs_region;	/* the pairs' allocation (16-byte aligned) */
	size_t		npairs;
	size_t		text_bytes;		/* CONSTANT, libc text: what the strings' copies will take */
	size_t		text_extended;	/* text_prefix: values keyed since the reset that need a detoast */
	size_t		pairs_cap;
	uint32	   *nulls;			/* items whose first column is NULL, in order */
	size_t		nnulls;
	size_t		nulls_cap;
	size_t		scratch_bytes;	/* most scratch memory of the sorters in the last run */
	size_t		order_bytes;	/* memory behind the order the last run returned */
	double		sort_ms;		/* time in the pair sort of the last run */
	double		tie_ms;			/* time in the tie pass of the last run */
	bool		order_read_forward;	/* the caller reads the order front to back only */
	struct BitonicParts *parts; /* the last run's sort in parts (sort_parts.c), or NULL */
	uint32		sort_parts;		/* parts the last run sorted in, 0 for none */
	bs_pair64  *split;			/* room reserved for the pairs split into parts, or NULL */
	BitonicRegion *split_region;
	size_t		split_cap;		/* pairs the room holds */
	struct bs_prefaulter *prefaulter;	/* may be faulting in the pairs or the room, or NULL */
	bool		grow_by_quarter;	/* the pairs grow by a quarter, not by doubling */
} BitonicMultiSort;

extern void BitonicMultiSortInit(BitonicMultiSort *ms, int ncolumns,
								 const BitonicSortColumn *columns,
								 MemoryContext cxt);
extern void BitonicMultiSortReserve(BitonicMultiSort *ms, size_t n);
extern void BitonicMultiSortAddBatch(BitonicMultiSort *ms, const uint32 *items,
									 const Datum *values, const bool *isnull,
									 size_t n);
extern void BitonicMultiSortAdd(BitonicMultiSort *ms, uint32 item,
								Datum value, bool isnull);
extern size_t BitonicMultiSortGrowthBytes(const BitonicMultiSort *ms, size_t n);
extern void BitonicMultiSortMakeRoom(BitonicMultiSort *ms, size_t n);
extern void BitonicMultiSortPutKeyed(BitonicMultiSort *ms, const uint32 *items,
									 const uint64 *keys, const bool *isnull, size_t n);
extern size_t BitonicMultiSortBytes(const BitonicMultiSort *ms);
extern bool BitonicMultiSortHasCheapKey(const BitonicMultiSort *ms);

/*
 * The pair key a non-NULL first-column value gets (the order of the sort's
 * first column, DESC included); only where BitonicMultiSortHasCheapKey.
 */
static inline uint64
BitonicMultiSortKeyOf(const BitonicMultiSort *ms, Datum value)
{
	Assert(ms->key_of != NULL);
	return ms->key_of(value) ^ ms->key_flip;
}

/*
 * BitonicMultiSortKeyOf of an input row's value, as the node keys the rows
 * it takes: text that needs a detoast is counted (BitonicMultiSortTextPlain).
 */
static inline uint64
BitonicMultiSortKeyIn(BitonicMultiSort *ms, Datum value)
{
	if (unlikely(ms->text_prefix) && BitonicTextNeedsDetoast(DatumGetPointer(value)))
		ms->text_extended++;
	return BitonicMultiSortKeyOf(ms, value);
}

/*
 * Whether the sort's pairs are 8 bytes (pairs32): a 32-bit exact key where
 * the columns after it (if any) have exact keys too, or the constant key,
 * which no sort reads.  The tie pass sorts runs of equal keys where their
 * pairs lie, 32 bits of a later column's key at a time in 8-byte pairs; a
 * 32-bit key with a later column that only comparators order has 64-bit
 * pairs, over which those comparators' items are laid.
 */
static inline bool
BitonicMultiSortNarrow(const BitonicMultiSort *ms)
{
	return (ms->kind == BITONIC_KIND_EXACT32 && ms->later_keyed) ||
		ms->kind == BITONIC_KIND_CONSTANT;
}

extern size_t BitonicMultiSortSampleKeys(const BitonicMultiSort *ms, size_t from,
										 uint64 *keys, size_t max);
extern size_t BitonicMultiSortPairCount(const BitonicMultiSort *ms);
extern void *BitonicMultiSortPairs(const BitonicMultiSort *ms, size_t *bytes);
extern void *BitonicMultiSortSplitRoom(const BitonicMultiSort *ms, size_t *bytes);
extern uint32 *BitonicMultiSortRun(BitonicMultiSort *ms, BitonicFetchFn fetch,
								   void *arg);
extern void BitonicMultiSortReset(BitonicMultiSort *ms, bool release);
extern void BitonicMultiSortMoveTo(BitonicMultiSort *ms, MemoryContext cxt);
extern bool BitonicMultiSortTextPlain(const BitonicMultiSort *ms);
extern const char *BitonicKeyKindName(BitonicKeyKind kind);
extern bool BitonicLibcTextSort(const BitonicLibcText *lt, uint32 *order, size_t n,
								size_t text_bytes, BitonicFetchFn fetch, void *arg,
								int column, bool *starts_run);
extern double BitonicMsSince(instr_time t0);

/* sort_parts.c */
extern bool BitonicPartsWanted(const BitonicMultiSort *ms, size_t npairs);
extern void BitonicPartsReserve(BitonicMultiSort *ms, size_t npairs);
extern size_t BitonicPartsBegin(BitonicMultiSort *ms, uint32 *order);
extern size_t BitonicMultiSortReady(BitonicMultiSort *ms, size_t want);

#endif							/* BITONIC_SORT_H */
