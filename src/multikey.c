/*
 * multikey.c — sorting numbered items by several ORDER BY columns with
 * key/pointer pairs.
 *
 * The first column becomes the pairs' normalised key: an exact key for the
 * fixed-width types of keys.c, the first 8 bytes of text in byte order
 * ("C", C.UTF-8), else the SortSupport abbreviated key where its comparator
 * is a plain integer comparison, else a constant.  NULLs of the
 * first column are split off in input order.  After the pair sort, a tie
 * pass re-sorts every run of equal keys (and the NULL group) with the full
 * comparators of all columns, the item number breaking the last tie, so the
 * result is the order of ORDER BY with ties in input order.  Where the next
 * column of a run has an exact key too (`PARTITION BY i % 1000 ORDER BY
 * f`: runs of 10,000 equal first keys), the run is sorted by that key
 * instead (NULLs apart), and only its groups of equal keys
 * go on to the columns after it: a comparison there costs a key compare,
 * not a comparator call.
 */
#include "bitonic_sort.h"

#include "access/stratnum.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/typcache.h"

/* How many items ahead the tie pass asks for an item's memory (ms->prefetch). */
#define TIE_PREFETCH 16

/*
 * Runs of keys at least this long go to the pair sorter (vqsort on all
 * cores); shorter ones to an inline quicksort, whose call costs nothing
 * (the pair sorter's setup, about 1.2 us a call, made runs of two rows
 * three times slower than comparators).
 */
#define TIE_SORTER_MIN 4096

/* Order of two keyed items of the tie pass: key, then item number. */
static inline int
tie_pair_cmp(const bs_pair64 *a, const bs_pair64 *b)
{
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->ptr < b->ptr ? -1 : (a->ptr > b->ptr ? 1 : 0);
}

#define ST_SORT sort_tie_pairs
#define ST_ELEMENT_TYPE bs_pair64
#define ST_COMPARE(a, b) tie_pair_cmp(a, b)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* Order of two 32-bit pairs of the tie pass: (key << 32 | item) as a number. */
#define ST_SORT sort_tie_pairs32
#define ST_ELEMENT_TYPE bs_pair32
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : (*(a) > *(b) ? 1 : 0))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* Runs at least this long of libc-collated text are sorted on threads. */
#define LIBC_TEXT_THREADED_MIN 4096

/*
 * Text in byte order: runs of equal keys at least this long are sorted by
 * the next 8 bytes of their strings, and so on, as many levels deep
 * (shorter runs, and strings equal that far, go to the comparators).
 */
#define TEXT_DEEPER_MIN 64
#define TEXT_DEEPER_LEVELS 8

/* State of the tie pass, handed to qsort. */
typedef struct TieContext
{
	BitonicMultiSort *ms;
	BitonicFetchFn fetch;
	void	   *arg;
	int			first_column;	/* columns before this one are known equal */
	bs_pair64  *buffer;			/* a run's items where they have no pairs64 of their own */
	void	   *buffer_chunk;	/* its allocation (the buffer is aligned as pairs are) */
	size_t		buffer_cap;
} TieContext;

/*
 * One item of a run, with its first compared column fetched once: laid
 * over the item's pair, so that the comparators' sort takes no memory.
 */
typedef struct TieItem
{
	Datum		value;
	uint32		item;
	bool		isnull;
} TieItem;

StaticAssertDecl(sizeof(TieItem) <= sizeof(bs_pair64), "a tie item fits in its pair");

/* Whether sortop is the default btree "<" or ">" of a type with an exact key. */
static bool
has_exact_key(const BitonicSortColumn *col)
{
	Oid			typid = getBaseType(col->typid);
	TypeCacheEntry *tc;

	if (BitonicKeyWidthForType(typid) == BITONIC_KEY_NONE)
		return false;
	tc = lookup_type_cache(typid, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	return col->sortop == tc->lt_opr || col->sortop == tc->gt_opr;
}

/* Fill a SortSupport for one column; abbreviate asks for abbreviated keys. */
static void
prepare_ssup(SortSupport ssup, const BitonicSortColumn *col, bool abbreviate,
			 MemoryContext cxt)
{
	memset(ssup, 0, sizeof(SortSupportData));
	ssup->ssup_cxt = cxt;
	ssup->ssup_collation = col->collation;
	ssup->ssup_nulls_first = col->nulls_first;
	ssup->abbreviate = abbreviate;
	PrepareSortSupportFromOrderingOp(col->sortop, ssup);
}

/* Whether an abbreviated comparator is one whose order a plain key can carry. */
static bool
abbrev_is_integer(SortSupport ssup)
{
	return ssup->abbrev_converter != NULL &&
		(ssup->comparator == ssup_datum_unsigned_cmp ||
		 ssup->comparator == ssup_datum_signed_cmp ||
		 ssup->comparator == ssup_datum_int32_cmp);
}

/*
 * Set up a sort of items by `ncolumns` columns.  The comparators live in the
 * current memory context, the item arrays in cxt.
 */
void
BitonicMultiSortInit(BitonicMultiSort *ms, int ncolumns,
					 const BitonicSortColumn *columns, MemoryContext cxt)
{
	MemoryContext here = CurrentMemoryContext;

	memset(ms, 0, sizeof(BitonicMultiSort));
	ms->cxt = cxt;
	ms->ncolumns = ncolumns;
	ms->ssup = palloc0(sizeof(SortSupportData) * ncolumns);
	for (int i = 0; i < ncolumns; i++)
		prepare_ssup(&ms->ssup[i], &columns[i], false, here);
	ms->tie_keys = palloc0(sizeof(BitonicKeyFn) * ncolumns);
	ms->tie_keys_wide = palloc0(sizeof(bool) * ncolumns);
	ms->tie_text = palloc0(sizeof(bool) * ncolumns);
	ms->later_keyed = true;
	for (int i = 1; i < ncolumns; i++)
	{
		Oid			typid = getBaseType(columns[i].typid);

		if (has_exact_key(&columns[i]))
		{
			ms->tie_keys[i] = BitonicKeyFunction(typid);
			ms->tie_keys_wide[i] = BitonicKeyWidthForType(typid) == BITONIC_KEY_64;
			continue;
		}
		/* text in byte order: keyed by its prefix, then its next bytes */
		ms->tie_text[i] = BitonicIsTextOrder(columns[i].typid, columns[i].sortop) &&
			BitonicCollationSortsBytes(columns[i].collation);
		if (ms->tie_text[i])
			ms->tie_keys[i] = BitonicTextPrefixKey;
		ms->later_keyed = false;
	}
	ms->first_type = getBaseType(columns[0].typid);
	ms->descending = ms->ssup[0].ssup_reverse;
	ms->nulls_first = columns[0].nulls_first;

	if (has_exact_key(&columns[0]))
		ms->kind = BitonicKeyWidthForType(ms->first_type) == BITONIC_KEY_32 ?
			BITONIC_KIND_EXACT32 : BITONIC_KIND_EXACT64;
	else
	{
		prepare_ssup(&ms->abbrev, &columns[0], true, here);
		/* text in byte order is keyed by its prefix, whatever the abbreviation */
		ms->text_prefix = BitonicIsTextOrder(columns[0].typid, columns[0].sortop) &&
			BitonicCollationSortsBytes(columns[0].collation);
		ms->kind = ms->text_prefix || abbrev_is_integer(&ms->abbrev) ?
			BITONIC_KIND_ABBREV : BITONIC_KIND_CONSTANT;
		if (ms->kind == BITONIC_KIND_CONSTANT)
			(void) BitonicLibcTextInit(&columns[0], &ms->libc_text);
	}
	if (ms->text_prefix)
		ms->key_of = BitonicTextPrefixKey;
	else if (BitonicKeyKindExact(ms->kind))
		ms->key_of = BitonicKeyFunction(ms->first_type);
	/* 32-bit keys are zero-extended: DESC flips their low half only */
	ms->key_flip = !ms->descending ? 0 :
		ms->kind == BITONIC_KIND_EXACT32 ? UINT32_MAX : UINT64_MAX;
}

/* Name of a key kind, for EXPLAIN. */
const char *
BitonicKeyKindName(BitonicKeyKind kind)
{
	switch (kind)
	{
		case BITONIC_KIND_EXACT32:
			return "exact 32-bit";
		case BITONIC_KIND_EXACT64:
			return "exact 64-bit";
		case BITONIC_KIND_ABBREV:
			return "abbreviated 64-bit";
		case BITONIC_KIND_CONSTANT:
			return "none";
	}
	return "unknown";
}

/* Unsigned 64-bit key of an abbreviated datum, ascending. */
static inline uint64
abbrev_key(BitonicMultiSort *ms, Datum value)
{
	Datum		abbr = ms->abbrev.abbrev_converter(value, &ms->abbrev);

	if (ms->abbrev.comparator == ssup_datum_unsigned_cmp)
		return (uint64) abbr;
	if (ms->abbrev.comparator == ssup_datum_signed_cmp)
		return (uint64) DatumGetInt64(abbr) ^ UINT64_C(0x8000000000000000);
	return (uint64) (uint32) DatumGetInt32(abbr) ^ UINT64_C(0x80000000);
}

/* ERROR for more items than 32-bit pointers can number. */
static void
report_too_many(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("too many rows to sort with bitonic_sort"),
			 errdetail("At most %zu rows fit into 32-bit pointers.", (size_t) BS_MAX_PAIRS),
			 errhint("Set bitonic_sort.enable to off for this query.")));
}

/* Capacity of an array that holds cap items and must hold need: doubling, at most BS_MAX_PAIRS. */
static size_t
grown_capacity(size_t cap, size_t need)
{
	size_t		newcap = Max(cap * 2, Max(need, 1024));

	if (need > BS_MAX_PAIRS)
		report_too_many();
	return Min(newcap, BS_MAX_PAIRS);
}

/* Grow an array of elements of size elsize to hold at least need of them. */
static void *
grow_array(MemoryContext cxt, void *array, size_t *cap, size_t need, size_t elsize)
{
	*cap = grown_capacity(*cap, need);
	return array == NULL ? MemoryContextAllocHuge(cxt, *cap * elsize) :
		repalloc_huge(array, *cap * elsize);
}


/* Bytes of one pair of this sort. */
static size_t
pair_size(const BitonicMultiSort *ms)
{
	return BitonicMultiSortNarrow(ms) ? sizeof(bs_pair32) : sizeof(bs_pair64);
}

/* The pair array of this sort, whichever shape its pairs have. */
static inline void *
pairs_memory(const BitonicMultiSort *ms)
{
	return BitonicMultiSortNarrow(ms) ? (void *) ms->pairs32 : (void *) ms->pairs64;
}

/* Point the sort at its pair array, of its width. */
static void
set_pairs_memory(BitonicMultiSort *ms, void *pairs)
{
	if (BitonicMultiSortNarrow(ms))
		ms->pairs32 = pairs;
	else
		ms->pairs64 = pairs;
}

/* Capacity of the pair array grown to hold `total` pairs. */
static size_t
pairs_capacity(const BitonicMultiSort *ms, size_t total)
{
	/* a bounded sort grows its pairs by a quarter: a doubling would pass its bound */
	if (ms->grow_by_quarter && ms->pairs_cap > 0)
		return grown_capacity(0, Max(total, ms->pairs_cap + ms->pairs_cap / 4));
	return grown_capacity(ms->pairs_cap, total);
}

/*
 * Bytes the arrays would grow by to take n more items (none where they
 * have room), as BitonicMultiSortMakeRoom would grow them.
 */
size_t
BitonicMultiSortGrowthBytes(const BitonicMultiSort *ms, size_t n)
{
	size_t		bytes = 0;

	if (ms->npairs + n > ms->pairs_cap)
		bytes += (pairs_capacity(ms, ms->npairs + n) - ms->pairs_cap) * pair_size(ms);
	if (ms->nnulls + n > ms->nulls_cap)
		bytes += (grown_capacity(ms->nulls_cap, ms->nnulls + n) - ms->nulls_cap) * sizeof(uint32);
	return bytes;
}

/*
 * Make room for `total` pairs in all: the array's own mapping grown where
 * the kernel can (its pages move, not copied), else a new aligned array
 * that keeps the pairs so far.
 */
static void
reserve_pairs(BitonicMultiSort *ms, size_t total)
{
	BitonicRegion *region;
	void	   *pairs;

	if (total <= ms->pairs_cap)
		return;
	ms->pairs_cap = pairs_capacity(ms, total);
	if (ms->pairs_region != NULL &&
		(pairs = BitonicRegionGrow(ms->pairs_region, ms->pairs_cap * pair_size(ms),
								   ms->prefaulter)) != NULL)
	{
		set_pairs_memory(ms, pairs);
		return;
	}
	pairs = BitonicAllocPairs(ms->cxt, ms->pairs_cap * pair_size(ms), BITONIC_PAGES_SMALL, &region);
	if (ms->npairs > 0)
		memcpy(pairs, pairs_memory(ms), ms->npairs * pair_size(ms));
	if (ms->pairs_region)
		BitonicRegionFreeAfter(ms->pairs_region, ms->prefaulter);
	ms->pairs_region = region;
	set_pairs_memory(ms, pairs);
}

/*
 * Expect about `n` items in all: the pair array is allocated once at that
 * size instead of growing by copies.
 */
void
BitonicMultiSortReserve(BitonicMultiSort *ms, size_t n)
{
	reserve_pairs(ms, Min(n, BS_MAX_PAIRS));
	BitonicPartsReserve(ms, Min(n, BS_MAX_PAIRS));
}

/*
 * Room for n more items, so that the next n BitonicMultiSortPutKeyed calls
 * allocate nothing.
 */
void
BitonicMultiSortMakeRoom(BitonicMultiSort *ms, size_t n)
{
	reserve_pairs(ms, ms->npairs + n);
	if (ms->nnulls + n > ms->nulls_cap)
		ms->nulls = grow_array(ms->cxt, ms->nulls, &ms->nulls_cap,
							   ms->nnulls + n, sizeof(uint32));
}

/*
 * Add n items (numbers increasing across calls) whose pair keys
 * BitonicMultiSortKeyOf computed, or NULLs; after BitonicMultiSortMakeRoom,
 * so it calls nothing of PostgreSQL's and may run on a worker thread.  The
 * counts are written once, at the end.
 */
void
BitonicMultiSortPutKeyed(BitonicMultiSort *ms, const uint32 *items, const uint64 *keys,
						 const bool *isnull, size_t n)
{
	size_t		npairs = ms->npairs;
	size_t		nnulls = ms->nnulls;
	bool		narrow = BitonicMultiSortNarrow(ms);

	Assert(npairs + n <= ms->pairs_cap && nnulls + n <= ms->nulls_cap);
	for (size_t i = 0; i < n; i++)
	{
		if (isnull[i])
			ms->nulls[nnulls++] = items[i];
		else if (narrow)
			ms->pairs32[npairs++] = bs_pack32((uint32) keys[i], items[i]);
		else
		{
			bs_pair64  *p = &ms->pairs64[npairs++];

			p->key = keys[i];
			p->ptr = items[i];
			p->pad = 0;
		}
	}
	ms->npairs = npairs;
	ms->nnulls = nnulls;
}

/*
 * Whether any thread may compute the first sort column's key of every item
 * added since the last reset, and read its value where it lies: pure
 * arithmetic, or none to compute, or text in byte order of which no value
 * needs a detoast (PostgreSQL's), as BitonicMultiSortAddBatch and
 * BitonicMultiSortKeyIn, which key every item, count them.
 */
bool
BitonicMultiSortTextPlain(const BitonicMultiSort *ms)
{
	if (ms->text_prefix)
		return ms->text_extended == 0;
	return ms->key_of == NULL || BitonicKeyKindExact(ms->kind);
}

/* A text_prefix key, counting the values a thread could not key (text_extended). */
static inline uint64
text_prefix_key(BitonicMultiSort *ms, Datum value)
{
	ms->text_extended += BitonicTextNeedsDetoast(DatumGetPointer(value)) ? 1 : 0;
	return BitonicTextPrefixKey(value);
}

/*
 * Add n items (numbers increasing across calls) with their first-column
 * values: the keys of a batch are computed column-wise, one type dispatch
 * per batch.
 */
void
BitonicMultiSortAddBatch(BitonicMultiSort *ms, const uint32 *items,
						 const Datum *values, const bool *isnull, size_t n)
{
	uint64		keys[256];
	uint64		flip = ms->key_flip;

	for (size_t done = 0; done < n;)
	{
		size_t		len = Min(n - done, lengthof(keys));

		if (items[done + len - 1] >= BS_MAX_PAIRS)
			report_too_many();
		switch (ms->kind)
		{
			case BITONIC_KIND_EXACT32:
			case BITONIC_KIND_EXACT64:
				BitonicKeysFromDatums(ms->first_type, values + done, len, keys);
				break;
			case BITONIC_KIND_ABBREV:
				for (size_t i = 0; i < len; i++)
					keys[i] = isnull[done + i] ? 0 :
						ms->text_prefix ? text_prefix_key(ms, values[done + i]) :
						abbrev_key(ms, values[done + i]);
				break;
			case BITONIC_KIND_CONSTANT:
				memset(keys, 0, len * sizeof(uint64));
				for (size_t i = 0; i < len && ms->libc_text.usable; i++)
					if (!isnull[done + i])
						ms->text_bytes += BitonicLibcTextCopyBytes(values[done + i]);
				break;
		}
		for (size_t i = 0; i < len; i++)
			keys[i] ^= flip;
		BitonicMultiSortMakeRoom(ms, len);
		BitonicMultiSortPutKeyed(ms, items + done, keys, isnull + done, len);
		done += len;
	}
}

/* Add item number `item` (increasing, from 0) with its first-column value. */
void
BitonicMultiSortAdd(BitonicMultiSort *ms, uint32 item, Datum value, bool isnull)
{
	BitonicMultiSortAddBatch(ms, &item, &value, &isnull, 1);
}

/* The pair array (of either shape; NULL before any is allocated) and its size. */
void *
BitonicMultiSortPairs(const BitonicMultiSort *ms, size_t *bytes)
{
	*bytes = ms->pairs_cap * pair_size(ms);
	return pairs_memory(ms);
}

/* The room reserved for the pairs split into parts (NULL for none) and its size. */
void *
BitonicMultiSortSplitRoom(const BitonicMultiSort *ms, size_t *bytes)
{
	*bytes = ms->split_cap * sizeof(bs_pair64);
	return ms->split;
}

/*
 * Whether the run writes the order over the sorted pairs: when the pairs'
 * memory has room for every item number (pairs are 8 or 16 bytes, item
 * numbers 4, so unless most first columns are NULL).
 */
static bool
order_in_pairs(const BitonicMultiSort *ms)
{
	return ms->pairs_cap > 0 &&
		(ms->npairs + ms->nnulls) * sizeof(uint32) <= ms->pairs_cap * pair_size(ms);
}

/*
 * Bytes of the pairs' memory the order leaves free once written: all of it
 * where the order has an array of its own.
 */
static size_t
pairs_room_after_order(const BitonicMultiSort *ms)
{
	size_t		pairs_bytes = ms->pairs_cap * pair_size(ms);

	return order_in_pairs(ms) ? pairs_bytes - (ms->npairs + ms->nnulls) * sizeof(uint32) :
		pairs_bytes;
}

/* Bytes of the tie pass's buffer for the NULL group where later columns order it (aligned). */
static size_t
null_group_buffer_bytes(const BitonicMultiSort *ms)
{
	return ms->ncolumns > 1 && ms->nnulls > 1 ? (ms->nnulls + 1) * sizeof(bs_pair64) : 0;
}

/*
 * What the tie pass will take beyond the pairs, whose runs of equal keys it
 * sorts where they lie (64-bit pairs; pairs_to_order): for the NULL group
 * where later columns order it, a buffer of a pair an item, unless the
 * pairs' memory has room for it beside the order; where the whole input is
 * one run (no usable key), as much for every item, or the libc text
 * sort's records, their merge scratch and its marks of equal strings, and
 * its copies of the strings.
 */
static size_t
foreseen_tie_bytes(const BitonicMultiSort *ms)
{
	size_t		bytes = null_group_buffer_bytes(ms);

	if (bytes <= pairs_room_after_order(ms))
		bytes = 0;
	if (ms->kind == BITONIC_KIND_CONSTANT)
		bytes += ms->npairs * (sizeof(bs_pair64) + sizeof(uint32)) + ms->text_bytes;
	return bytes;
}

/*
 * Bytes held by the arrays, plus what the run will add: the order where it
 * needs an array of its own, and foreseen_tie_bytes.
 */
size_t
BitonicMultiSortBytes(const BitonicMultiSort *ms)
{
	size_t		order = order_in_pairs(ms) ? 0 : (ms->npairs + ms->nnulls) * sizeof(uint32);

	return ms->pairs_cap * pair_size(ms) + ms->nulls_cap * sizeof(uint32) + order +
		ms->split_cap * sizeof(bs_pair64) + foreseen_tie_bytes(ms);
}

/* Forget the arrays, freed or left to their context. */
static void
forget_arrays(BitonicMultiSort *ms)
{
	ms->split = NULL;
	ms->split_region = NULL;
	ms->split_cap = 0;
	ms->pairs32 = NULL;
	ms->pairs64 = NULL;
	ms->pairs_region = NULL;
	ms->nulls = NULL;
	ms->pairs_cap = 0;
	ms->nulls_cap = 0;
}

/* Forget the items so the sort can be filled again; release frees the arrays. */
void
BitonicMultiSortReset(BitonicMultiSort *ms, bool release)
{
	ms->npairs = 0;
	ms->nnulls = 0;
	ms->text_bytes = 0;
	ms->text_extended = 0;
	if (!release)
		return;
	if (ms->pairs_region)
		BitonicRegionFreeAfter(ms->pairs_region, ms->prefaulter);
	if (ms->nulls)
		pfree(ms->nulls);
	if (ms->split_region)
		BitonicRegionFreeAfter(ms->split_region, ms->prefaulter);
	forget_arrays(ms);
}

/*
 * Start empty with arrays in cxt, leaving the last run's (its order
 * included) to their context, which frees them: a run written behind the
 * input reads its order there meanwhile.  Not while a sort in parts runs.
 */
void
BitonicMultiSortMoveTo(BitonicMultiSort *ms, MemoryContext cxt)
{
	Assert(ms->parts == NULL);
	BitonicMultiSortReset(ms, false);
	forget_arrays(ms);
	ms->cxt = cxt;
}

/* qsort comparator of the tie pass: all columns from first_column, then item. */
static int
tie_compare(const void *a, const void *b, void *arg)
{
	TieContext *tc = (TieContext *) arg;
	const TieItem *x = (const TieItem *) a;
	const TieItem *y = (const TieItem *) b;
	int			r = ApplySortComparator(x->value, x->isnull, y->value, y->isnull,
										&tc->ms->ssup[tc->first_column]);

	if (r != 0)
		return r;
	for (int c = tc->first_column + 1; c < tc->ms->ncolumns; c++)
	{
		Datum		vx,
					vy;
		bool		nx,
					ny;

		tc->fetch(tc->arg, x->item, c, &vx, &nx);
		tc->fetch(tc->arg, y->item, c, &vy, &ny);
		r = ApplySortComparator(vx, nx, vy, ny, &tc->ms->ssup[c]);
		if (r != 0)
			return r;
	}
	return x->item < y->item ? -1 : (x->item > y->item ? 1 : 0);
}

static void sort_run(bs_pair64 *items, size_t len, TieContext *tc);
static void sort_run_text_deeper(bs_pair64 *items, size_t len, TieContext *tc, int level);
static void sort_run32(bs_pair32 *items, size_t len, TieContext *tc);

/* Sort pairs in place by key, then item number (their pads 0). */
static void
sort_items(bs_pair64 *items, size_t len)
{
	/* vqsort sorts an aligned array in place; a misaligned one it would copy */
	Assert((uintptr_t) items % sizeof(bs_pair64) == 0);
	if (len >= TIE_SORTER_MIN)
		BitonicSortPairsOnCpu(true, items, len);
	else
		sort_tie_pairs(items, len);
}

/* Sort 32-bit pairs in place by key, then item number. */
static void
sort_items32(bs_pair32 *items, size_t len)
{
	if (len >= TIE_SORTER_MIN)
		BitonicSortPairsOnCpu(false, items, len);
	else
		sort_tie_pairs32(items, len);
}

/*
 * Where items[0..len) (of `size` bytes each) hold nkeys keyed items and
 * then the NULL ones: where NULLs sort first, swap the NULL items to the
 * front (each part is sorted after, so the order within it may change);
 * *keys_at and *nulls_at: where each part starts.
 */
static void
place_nulls(void *items, size_t size, size_t len, size_t nkeys, bool nulls_first,
			size_t *keys_at, size_t *nulls_at)
{
	char	   *base = items;
	size_t		swapped = nulls_first ? Min(nkeys, len - nkeys) : 0;
	char		held[sizeof(bs_pair64)];

	Assert(size <= sizeof(held));
	*keys_at = nulls_first ? len - nkeys : 0;
	*nulls_at = nulls_first ? 0 : nkeys;
	for (size_t i = 0; i < swapped; i++)
	{
		char	   *front = base + i * size;
		char	   *back = base + (len - swapped + i) * size;

		memcpy(held, front, size);
		memcpy(front, back, size);
		memcpy(back, held, size);
	}
}

/*
 * Sort the items of items[0..len) (their item numbers in ptr) with qsort
 * and the full comparators, each item's tie item laid over its pair.
 */
static void
sort_run_compared(bs_pair64 *items, size_t len, TieContext *tc)
{
	TieItem    *tied = (TieItem *) items;

	for (size_t i = 0; i < len; i++)
	{
		uint32		item = items[i].ptr;

		if (tc->ms->prefetch != NULL && i + TIE_PREFETCH < len)
			tc->ms->prefetch(tc->arg, items[i + TIE_PREFETCH].ptr);
		tied[i].item = item;
		tc->fetch(tc->arg, item, tc->first_column, &tied[i].value, &tied[i].isnull);
		if ((i & 0xffff) == 0xffff)
			CHECK_FOR_INTERRUPTS();
	}
	qsort_interruptible(tied, len, sizeof(TieItem), tie_compare, tc);
	for (size_t i = 0; i < len; i++)
	{
		uint32		item = tied[i].item;

		items[i].ptr = item;
		items[i].pad = 0;
	}
}

/* Item number of item i of a run in pairs of either shape. */
static inline uint32
item_at(const void *items, bool wide, size_t i)
{
	return wide ? ((const bs_pair64 *) items)[i].ptr : bs_ptr32(((const bs_pair32 *) items)[i]);
}

/* Write item i of a run in pairs of either shape: its key and item number. */
static inline void
set_item(void *items, bool wide, size_t i, uint64 key, uint32 item)
{
	if (wide)
	{
		bs_pair64  *p = &((bs_pair64 *) items)[i];

		p->ptr = item;
		p->pad = 0;
		p->key = key;
	}
	else
		((bs_pair32 *) items)[i] = bs_pack32((uint32) key, item);
}

/*
 * Write column first_column's key (flipped for DESC; from bit `shift`, in
 * 8-byte pairs) into the pair of each item of items[0..len), the NULL
 * items swapped to the end where they sort (key 0); returns how many are
 * keyed, and where the keyed and the NULL part start.
 */
static size_t
key_items(void *items, bool wide, size_t len, TieContext *tc, int shift,
		  size_t *keys_at, size_t *nulls_at)
{
	int			column = tc->first_column;
	SortSupport ssup = &tc->ms->ssup[column];
	BitonicKeyFn key_of = tc->ms->tie_keys[column];
	uint64		flip = ssup->ssup_reverse ? UINT64_MAX : 0;
	size_t		nkeys = 0;
	size_t		unread = len;	/* items[nkeys..unread) not read yet, NULL ones after */

	for (size_t step = 1; nkeys < unread; step++)
	{
		uint32		item = item_at(items, wide, nkeys);
		Datum		value;
		bool		isnull;

		if (tc->ms->prefetch != NULL && nkeys + TIE_PREFETCH < unread)
			tc->ms->prefetch(tc->arg, item_at(items, wide, nkeys + TIE_PREFETCH));
		tc->fetch(tc->arg, item, column, &value, &isnull);
		if (isnull)
		{
			unread--;
			set_item(items, wide, nkeys, 0, item_at(items, wide, unread));
			set_item(items, wide, unread, 0, item);
		}
		else
			set_item(items, wide, nkeys++, (key_of(value) ^ flip) >> shift, item);
		if ((step & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	place_nulls(items, wide ? sizeof(bs_pair64) : sizeof(bs_pair32), len, nkeys,
				ssup->ssup_nulls_first, keys_at, nulls_at);
	return nkeys;
}

/*
 * Sort the items of items[0..len) (pairs of either shape), equal in column
 * first_column, by the columns after it; nothing where there are none
 * (ties are in item order).
 */
static void
sort_later_columns(void *items, bool wide, size_t len, TieContext *tc)
{
	int			column = tc->first_column;

	if (column + 1 == tc->ms->ncolumns)
		return;
	tc->first_column = column + 1;
	if (wide)
		sort_run(items, len, tc);
	else
		sort_run32(items, len, tc);
	tc->first_column = column;
}

/*
 * Sort a group of items whose keys of column first_column are equal: by the
 * columns after it where the key is exact; where it is the prefix of text
 * in byte order, by the strings' next bytes (64 items or more) or the
 * comparators, from that column on.
 */
static void
sort_key_group(bs_pair64 *items, size_t len, TieContext *tc, bool text)
{
	if (text && len >= TEXT_DEEPER_MIN)
		sort_run_text_deeper(items, len, tc, 0);
	else if (text)
		sort_run_compared(items, len, tc);
	else
		sort_later_columns(items, true, len, tc);
}

/*
 * Sort the items of items[0..len) by column first_column, which has an
 * exact key: each item's key (flipped for DESC) written into its pair, the
 * NULL items swapped to the end where they sort, each part sorted in place
 * (the NULL items by item number); then each group of equal keys, and the
 * NULL group, by the columns after it.
 */
static void
sort_run_keyed(bs_pair64 *items, size_t len, TieContext *tc)
{
	int			column = tc->first_column;
	bool		text = tc->ms->tie_text[column];
	size_t		keys_at;
	size_t		nulls_at;
	size_t		nkeys = key_items(items, true, len, tc, 0, &keys_at, &nulls_at);
	size_t		nnulls = len - nkeys;

	sort_items(items + keys_at, nkeys);
	sort_items(items + nulls_at, nnulls);
	if (column + 1 == tc->ms->ncolumns && !text)
		return;					/* ties are in item order */
	if (nnulls > 1)
		sort_later_columns(items + nulls_at, true, nnulls, tc);
	for (size_t s = keys_at; s < keys_at + nkeys;)
	{
		uint64		key = items[s].key;
		size_t		e = s + 1;

		while (e < keys_at + nkeys && items[e].key == key)
			e++;
		if (e - s > 1)
			sort_key_group(items + s, e - s, tc, text);
		s = e;
	}
}

/*
 * Key of the 8 bytes of a text value from byte `depth` on, big-endian and
 * zero-padded (text holds no zero byte, so a string that ends there goes
 * before one that goes on); *longer: the string goes past depth.
 */
static inline uint64
text_chunk_key(Datum value, size_t depth, bool *longer)
{
	struct varlena *stored = (struct varlena *) DatumGetPointer(value);
	struct varlena *text = pg_detoast_datum_packed(stored);
	size_t		len = VARSIZE_ANY_EXHDR(text);
	uint64		chunk = 0;

	if (len > depth)
		memcpy(&chunk, VARDATA_ANY(text) + depth, Min(len - depth, sizeof(chunk)));
	*longer = len > depth;
	if (text != stored)
		pfree(text);
	return pg_bswap64(chunk);
}

/* text_chunk_key of item's column first_column, flipped for DESC (*longer as there). */
static uint64
item_chunk_key(TieContext *tc, uint32 item, size_t depth, uint64 flip, bool *longer)
{
	Datum		value;
	bool		isnull;

	*longer = false;
	tc->fetch(tc->arg, item, tc->first_column, &value, &isnull);
	Assert(!isnull);
	return (isnull ? 0 : text_chunk_key(value, depth, longer)) ^ flip;
}

/*
 * Sort the items of items[0..len), a run whose column first_column (text
 * in byte order, no NULL) is equal in its first 8 * (level + 1) bytes, by
 * its next 8 bytes (each written into the item's pair, which are sorted in
 * place), then each group of equal bytes one level deeper; strings equal
 * to their end go on to the columns after (ties in item order).  A prefix
 * shared by all the strings (URLs, paths) made every comparison of the tie
 * pass a comparator call: 3M rows of one 25-byte prefix and an md5 sorted
 * in 7.3-9.8 s in memory against the native Sort's 4.2 s.
 */
static void
sort_run_text_deeper(bs_pair64 *items, size_t len, TieContext *tc, int level)
{
	int			column = tc->first_column;
	size_t		depth = (size_t) (level + 1) * sizeof(uint64);
	uint64		flip = tc->ms->ssup[column].ssup_reverse ? UINT64_MAX : 0;
	bool		any_longer = false;

	for (size_t i = 0; i < len; i++)
	{
		bool		longer;

		if (tc->ms->prefetch != NULL && i + TIE_PREFETCH < len)
			tc->ms->prefetch(tc->arg, items[i + TIE_PREFETCH].ptr);
		items[i].pad = 0;
		items[i].key = item_chunk_key(tc, items[i].ptr, depth, flip, &longer);
		any_longer |= longer;
		if ((i & 0xffff) == 0xffff)
			CHECK_FOR_INTERRUPTS();
	}
	if (!any_longer)
	{
		/* equal strings: the columns after, or item order */
		sort_later_columns(items, true, len, tc);
		return;
	}
	sort_items(items, len);
	for (size_t s = 0; s < len;)
	{
		uint64		key = items[s].key;
		size_t		e = s + 1;

		while (e < len && items[e].key == key)
			e++;
		if (e - s >= TEXT_DEEPER_MIN && level + 1 < TEXT_DEEPER_LEVELS)
			sort_run_text_deeper(items + s, e - s, tc, level + 1);
		else if (e - s > 1)
			sort_run_compared(items + s, e - s, tc);
		s = e;
	}
}

/*
 * Sort the items of items[0..len) (their item numbers in ptr), a run of
 * ties, from column first_column on, in place: by that column's key where
 * it has an exact one, by the bytes after the key where it is text in byte
 * order, else by comparators.  The pairs' keys are left undefined.
 */
static void
sort_run(bs_pair64 *items, size_t len, TieContext *tc)
{
	if (tc->ms->tie_keys[tc->first_column] != NULL)
		sort_run_keyed(items, len, tc);
	else if (tc->first_column == 0 && tc->ms->text_prefix && len >= TEXT_DEEPER_MIN)
		sort_run_text_deeper(items, len, tc, 0);
	else
		sort_run_compared(items, len, tc);
}

/*
 * Sort the items of items[0..len) (32-bit pairs, item numbers in the low
 * halves), a run of ties in 8-byte pairs, by column first_column, which
 * has an exact key, 32 bits of it at a time where they lie: the bits from
 * `shift` (32: the high half of a 64-bit key; 0: the low half, or a 32-bit
 * key) written as each pair's key, the NULL items swapped to the end where
 * they sort (by item number), each part sorted in place; then each group
 * of equal high halves by the low ones, and each group of equal keys, and
 * the NULL group, by the columns after it.
 */
static void
sort_run_keyed32(bs_pair32 *items, size_t len, TieContext *tc, int shift)
{
	size_t		keys_at;
	size_t		nulls_at;
	size_t		nkeys = key_items(items, false, len, tc, shift, &keys_at, &nulls_at);
	size_t		nnulls = len - nkeys;

	sort_items32(items + keys_at, nkeys);
	sort_items32(items + nulls_at, nnulls);
	if (nnulls > 1)
		sort_later_columns(items + nulls_at, false, nnulls, tc);
	for (size_t s = keys_at; s < keys_at + nkeys;)
	{
		uint32		key = bs_key32(items[s]);
		size_t		e = s + 1;

		while (e < keys_at + nkeys && bs_key32(items[e]) == key)
			e++;
		if (e - s > 1 && shift > 0)
			sort_run_keyed32(items + s, e - s, tc, 0);
		else if (e - s > 1)
			sort_later_columns(items + s, false, e - s, tc);
		s = e;
	}
}

/*
 * Sort the items of items[0..len), a run of ties in 8-byte pairs, from
 * column first_column on (every such column has an exact key: the sort's
 * later_keyed), in place.
 */
static void
sort_run32(bs_pair32 *items, size_t len, TieContext *tc)
{
	int			column = tc->first_column;

	Assert(tc->ms->tie_keys[column] != NULL);
	sort_run_keyed32(items, len, tc, tc->ms->tie_keys_wide[column] ? 32 : 0);
}

/* The tie pass's buffer of at least len pairs, aligned as pairs are, kept for the next run. */
static bs_pair64 *
tie_buffer(TieContext *tc, size_t len)
{
	if (len > tc->buffer_cap)
	{
		tc->buffer_cap = Max(len, 64);
		if (tc->buffer_chunk)
			pfree(tc->buffer_chunk);
		tc->buffer_chunk = MemoryContextAllocHuge(tc->ms->cxt,
												  (tc->buffer_cap + 1) * sizeof(bs_pair64));
		tc->buffer = (bs_pair64 *) TYPEALIGN(sizeof(bs_pair64), tc->buffer_chunk);
	}
	return tc->buffer;
}

static void sort_order_run(uint32 *order, size_t len, TieContext *tc);

/*
 * Sort the items order[0..len), whose first column is libc-collated text,
 * by it on threads, then each group of equal strings by the other columns:
 * false, order untouched, where the strings are too many for the threaded
 * sort.
 */
static bool
sort_order_libc_text(uint32 *order, size_t len, TieContext *tc)
{
	bool	   *starts = tc->ms->ncolumns > 1 ?
		MemoryContextAllocHuge(tc->ms->cxt, len * sizeof(bool)) : NULL;

	if (!BitonicLibcTextSort(&tc->ms->libc_text, order, len, tc->ms->text_bytes,
							 tc->fetch, tc->arg, 0, starts))
	{
		if (starts)
			pfree(starts);
		return false;
	}
	if (starts == NULL)
		return true;
	tc->first_column = 1;
	for (size_t s = 0; s < len;)
	{
		size_t		e = s + 1;

		while (e < len && !starts[e])
			e++;
		if (e - s > 1)
			sort_order_run(order + s, e - s, tc);
		s = e;
	}
	tc->first_column = 0;
	pfree(starts);
	return true;
}

/*
 * Sort the items order[0..len), a run of ties whose items have no pairs64
 * of their own (the constant key's or 32-bit pairs, or the NULL group):
 * libc-collated text on threads, else through the tie pass's buffer.
 */
static void
sort_order_run(uint32 *order, size_t len, TieContext *tc)
{
	bs_pair64  *items;

	if (tc->first_column == 0 && tc->ms->libc_text.usable && len >= LIBC_TEXT_THREADED_MIN &&
		sort_order_libc_text(order, len, tc))
		return;
	items = tie_buffer(tc, len);
	for (size_t i = 0; i < len; i++)
	{
		items[i].ptr = order[i];
		items[i].pad = 0;
		items[i].key = 0;
	}
	sort_run(items, len, tc);
	for (size_t i = 0; i < len; i++)
		order[i] = items[i].ptr;
}

/* Key of pair i of the sorted pairs. */
static inline uint64
pair_key(const BitonicMultiSort *ms, size_t i)
{
	return BitonicMultiSortNarrow(ms) ? bs_key32(ms->pairs32[i]) : ms->pairs64[i].key;
}

/* Pointer of pair i of the sorted pairs. */
static inline uint32
pair_ptr(const BitonicMultiSort *ms, size_t i)
{
	return BitonicMultiSortNarrow(ms) ? bs_ptr32(ms->pairs32[i]) : ms->pairs64[i].ptr;
}

/*
 * Whether the pair key of one first-column value is cheap to compute on its
 * own (an exact key, or the prefix of text in byte order): then
 * BitonicMultiSortKeyOf may be called for each row as it arrives.
 */
bool
BitonicMultiSortHasCheapKey(const BitonicMultiSort *ms)
{
	return ms->key_of != NULL;
}

/*
 * Copy the pair keys of up to max pairs, evenly spaced from pair `from` to
 * the last added (all of them when there are no more); returns how many.
 */
size_t
BitonicMultiSortSampleKeys(const BitonicMultiSort *ms, size_t from, uint64 *keys, size_t max)
{
	size_t		avail = ms->npairs > from ? ms->npairs - from : 0;
	size_t		n = Min(max, avail);

	for (size_t i = 0; i < n; i++)
		keys[i] = pair_key(ms, from + i * avail / n);
	return n;
}

/* Number of pairs (non-NULL first-column values) added so far. */
size_t
BitonicMultiSortPairCount(const BitonicMultiSort *ms)
{
	return ms->npairs;
}

/* Sort the pairs with the core. */
static void
sort_pairs(BitonicMultiSort *ms)
{
	if (ms->kind == BITONIC_KIND_CONSTANT)
		return;					/* constant keys are already in pointer order */
	if (BitonicMultiSortNarrow(ms))
		BitonicSortPairs32(ms->pairs32, ms->npairs);
	else
		BitonicSortPairs64(ms->pairs64, ms->npairs);
}

/*
 * Write the pointers of the sorted pairs to order[0..npairs), left to right,
 * each run of equal keys re-sorted by the columns after when ties is set:
 * where the run's pairs lie (so the tie pass takes no memory of its own),
 * but the constant key's, through sort_order_run.  order may be the pairs'
 * own memory: a pointer is read before its place in order is written,
 * which lies over pairs already read.
 */
static void
pairs_to_order(BitonicMultiSort *ms, uint32 *order, TieContext *tc, bool ties)
{
	bool		constant = ms->kind == BITONIC_KIND_CONSTANT;
	bool		narrow = BitonicMultiSortNarrow(ms);
	size_t		start = 0;
	size_t		checked = 0;	/* where the last interrupt check was */

	if (!ties)
	{
		for (size_t i = 0; i < ms->npairs; i++)
		{
			order[i] = pair_ptr(ms, i);
			if ((i & 0xffff) == 0xffff)
				CHECK_FOR_INTERRUPTS();
		}
		return;
	}
	while (start < ms->npairs)
	{
		size_t		end = start + 1;
		uint64		key = pair_key(ms, start);

		while (end < ms->npairs && pair_key(ms, end) == key)
			end++;
		if (end - start > 1 && !narrow)
			sort_run(ms->pairs64 + start, end - start, tc);
		else if (end - start > 1 && !constant)
			sort_run32(ms->pairs32 + start, end - start, tc);
		for (size_t i = start; i < end; i++)
			order[i] = pair_ptr(ms, i);
		if (end - start > 1 && constant)
			sort_order_run(order + start, end - start, tc);
		if (end - checked >= 0x10000)
		{
			CHECK_FOR_INTERRUPTS();
			checked = end;
		}
		start = end;
	}
}

/* Milliseconds since t0. */
double
BitonicMsSince(instr_time t0)
{
	instr_time	t;

	INSTR_TIME_SET_CURRENT(t);
	INSTR_TIME_SUBTRACT(t, t0);
	return INSTR_TIME_GET_MILLISEC(t);
}

/*
 * Sort the added items and return their item numbers in ORDER BY order, in
 * memory of the sort's context that the caller now owns (freed with that
 * context).  Where order_in_pairs, that is the pairs' own memory, written
 * over them while the tie pass walks them: the sort then holds no pairs.
 */
uint32 *
BitonicMultiSortRun(BitonicMultiSort *ms, BitonicFetchFn fetch, void *arg)
{
	size_t		nitems = ms->npairs + ms->nnulls;
	bool		in_pairs = order_in_pairs(ms);
	uint32	   *order;
	uint32	   *nullpart;
	bool		exact = BitonicKeyKindExact(ms->kind);
	bool		ties = !exact || ms->ncolumns > 1;
	TieContext	tc = {ms, fetch, arg, exact ? 1 : 0, NULL, NULL, 0};
	size_t		foreseen = foreseen_tie_bytes(ms);
	size_t		tie_bytes;
	size_t		split_bytes = 0;
	bool		in_parts = !ties && in_pairs && BitonicPartsWanted(ms, ms->npairs);
	size_t		pairs_room = pairs_room_after_order(ms);
	char	   *pairs_free;		/* where that room starts */
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	BitonicCoreResetPeak();
	ms->sort_parts = 0;
	order = in_pairs ? (uint32 *) pairs_memory(ms) :
		MemoryContextAllocHuge(ms->cxt, Max(nitems, 1) * sizeof(uint32));
	pairs_free = in_pairs ? (char *) (order + nitems) : (char *) pairs_memory(ms);
	if (in_parts)
		split_bytes = BitonicPartsBegin(ms, order);	/* the pairs' order is written as it is sorted */
	else
	{
		sort_pairs(ms);
		if (!ties)
			pairs_to_order(ms, order, &tc, false);
	}
	ms->sort_ms = BitonicMsSince(t0);

	INSTR_TIME_SET_CURRENT(t0);
	if (ties)
		pairs_to_order(ms, order, &tc, true);
	ms->order_bytes = in_pairs ? BitonicRegionBytes(ms->pairs_region) :
		GetMemoryChunkSpace(order);
	if (in_pairs)
	{
		/* the order now owns the pairs' memory: it goes with the context */
		ms->pairs32 = NULL;
		ms->pairs64 = NULL;
		ms->pairs_region = NULL;
		ms->pairs_cap = 0;
	}
	if (ms->nulls_first && ms->nnulls > 0 && !in_parts)
		memmove(order + ms->nnulls, order, ms->npairs * sizeof(uint32));
	nullpart = order + (ms->nulls_first ? 0 : ms->npairs);
	memcpy(nullpart, ms->nulls, ms->nnulls * sizeof(uint32));
	if (ms->ncolumns > 1 && ms->nnulls > 1)
	{
		/* The NULL group ties on the first column: sort it by the others. */
		tc.first_column = 1;
		if (null_group_buffer_bytes(ms) <= pairs_room)
		{
			/* the buffer lent by the pairs' memory, past the order */
			tc.buffer = (bs_pair64 *) TYPEALIGN(sizeof(bs_pair64), pairs_free);
			tc.buffer_cap = ms->nnulls;
		}
		sort_order_run(nullpart, ms->nnulls, &tc);
	}
	/* the sorters' scratch and the tie pass's buffer, beyond what BitonicMultiSortBytes foresaw */
	tie_bytes = BitonicCorePeak() + split_bytes;
	if (tc.buffer_chunk)
	{
		tie_bytes += GetMemoryChunkSpace(tc.buffer_chunk);
		pfree(tc.buffer_chunk);
	}
	ms->scratch_bytes = tie_bytes > foreseen ? tie_bytes - foreseen : 0;
	ms->tie_ms = BitonicMsSince(t0);
	return order;
}
