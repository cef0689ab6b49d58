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
	struct TieItem *items;		/* buffer for one run */
	size_t		items_cap;
	uint32	   *run;			/* item numbers of one run of equal keys */
	size_t		run_cap;
	bs_pair64 **keyed;			/* per column: a run's keys of that column, or NULL */
	size_t	   *keyed_cap;
	bs_pair64  *text_keyed;		/* a run's next 8 bytes of text, at one level at a time */
	size_t		text_keyed_cap;
} TieContext;

/* One item of a run, with its first compared column fetched once. */
typedef struct TieItem
{
	Datum		value;
	uint32		item;
	bool		isnull;
} TieItem;

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
	for (int i = 1; i < ncolumns; i++)
	{
		if (has_exact_key(&columns[i]))
			ms->tie_keys[i] = BitonicKeyFunction(getBaseType(columns[i].typid));
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
	/* a bounded sort grows its pairs by a quarter: a doubling would pass its bound */
	if (ms->grow_by_quarter && ms->pairs_cap > 0)
		ms->pairs_cap = grown_capacity(0, Max(total, ms->pairs_cap + ms->pairs_cap / 4));
	else
		ms->pairs_cap = grown_capacity(ms->pairs_cap, total);
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
	uint64		flip = ms->descending ? UINT64_MAX : 0;

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
 * What the tie pass will take where the whole input is one run (no usable
 * key): its run buffers (the libc text sort's records and their merge
 * scratch are as large), and the libc text sort's copies of the strings.
 */
static size_t
foreseen_tie_bytes(const BitonicMultiSort *ms)
{
	if (ms->kind != BITONIC_KIND_CONSTANT)
		return 0;
	return ms->npairs * (sizeof(TieItem) + sizeof(uint32)) + ms->text_bytes;
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

static void sort_run(uint32 *order, size_t len, TieContext *tc);

/* Sort the items order[0..len) with qsort and the full comparators. */
static void
sort_run_compared(uint32 *order, size_t len, TieContext *tc)
{
	if (len > tc->items_cap)
	{
		tc->items_cap = Max(len, 64);
		if (tc->items)
			pfree(tc->items);
		tc->items = MemoryContextAllocHuge(tc->ms->cxt, tc->items_cap * sizeof(TieItem));
	}
	for (size_t i = 0; i < len; i++)
	{
		if (tc->ms->prefetch != NULL && i + TIE_PREFETCH < len)
			tc->ms->prefetch(tc->arg, order[i + TIE_PREFETCH]);
		tc->items[i].item = order[i];
		tc->fetch(tc->arg, order[i], tc->first_column, &tc->items[i].value, &tc->items[i].isnull);
		if ((i & 0xffff) == 0xffff)
			CHECK_FOR_INTERRUPTS();
	}
	qsort_interruptible(tc->items, len, sizeof(TieItem), tie_compare, tc);
	for (size_t i = 0; i < len; i++)
		order[i] = tc->items[i].item;
}

/*
 * A run ordered by libc-collated text in the first column: sorted by it on
 * threads, then each group of equal strings by the other columns (with
 * qsort alone where the strings are too many for the threaded sort).
 */
static void
sort_run_libc_text(uint32 *order, size_t len, TieContext *tc)
{
	bool	   *starts = tc->ms->ncolumns > 1 ?
		MemoryContextAllocHuge(tc->ms->cxt, len * sizeof(bool)) : NULL;

	if (!BitonicLibcTextSort(&tc->ms->libc_text, order, len, tc->ms->text_bytes,
							 tc->fetch, tc->arg, 0, starts))
	{
		if (starts)
			pfree(starts);
		sort_run_compared(order, len, tc);
		return;
	}
	if (starts == NULL)
		return;
	tc->first_column = 1;
	for (size_t s = 0; s < len;)
	{
		size_t		e = s + 1;

		while (e < len && !starts[e])
			e++;
		if (e - s > 1)
			sort_run(order + s, e - s, tc);
		s = e;
	}
	tc->first_column = 0;
	pfree(starts);
}

/* A buffer of at least len pairs, kept in *buffer (of *cap pairs) for the next run. */
static bs_pair64 *
pair_buffer(TieContext *tc, bs_pair64 **buffer, size_t *cap, size_t len)
{
	if (len > *cap)
	{
		*cap = Max(len, 64);
		if (*buffer)
			pfree(*buffer);
		*buffer = MemoryContextAllocHuge(tc->ms->cxt, *cap * sizeof(bs_pair64));
	}
	return *buffer;
}

/* The tie pass's buffer for len keys of column `column` (one per column: runs nest by column). */
static bs_pair64 *
keyed_buffer(TieContext *tc, int column, size_t len)
{
	if (tc->keyed == NULL)
	{
		tc->keyed = MemoryContextAllocZero(tc->ms->cxt, sizeof(bs_pair64 *) * tc->ms->ncolumns);
		tc->keyed_cap = MemoryContextAllocZero(tc->ms->cxt, sizeof(size_t) * tc->ms->ncolumns);
	}
	return pair_buffer(tc, &tc->keyed[column], &tc->keyed_cap[column], len);
}

/*
 * Sort the items order[0..len) by column first_column, which has an exact
 * key: the non-NULL items' keys (flipped for DESC) sorted with their item
 * numbers (TIE_SORTER_MIN says by what), the NULL items before or after
 * them in item order; then each group of equal keys, and the NULL group,
 * by the columns after it.
 */
static void
sort_run_keyed(uint32 *order, size_t len, TieContext *tc)
{
	int			column = tc->first_column;
	SortSupport ssup = &tc->ms->ssup[column];
	BitonicKeyFn key_of = tc->ms->tie_keys[column];
	uint64		flip = ssup->ssup_reverse ? UINT64_MAX : 0;
	bs_pair64  *pairs = keyed_buffer(tc, column, len);
	size_t		nkeys = 0;
	size_t		nnulls = 0;
	size_t		keys_at;
	size_t		nulls_at;

	/* keys from the front, NULL items from the back */
	for (size_t i = 0; i < len; i++)
	{
		Datum		value;
		bool		isnull;

		if (tc->ms->prefetch != NULL && i + TIE_PREFETCH < len)
			tc->ms->prefetch(tc->arg, order[i + TIE_PREFETCH]);
		tc->fetch(tc->arg, order[i], column, &value, &isnull);
		if (isnull)
			pairs[len - 1 - nnulls++].ptr = order[i];
		else
		{
			pairs[nkeys].ptr = order[i];
			pairs[nkeys].pad = 0;
			pairs[nkeys++].key = key_of(value) ^ flip;
		}
		if ((i & 0xffff) == 0xffff)
			CHECK_FOR_INTERRUPTS();
	}
	if (nkeys >= TIE_SORTER_MIN)
		BitonicSortPairs64OnCpu(pairs, nkeys);
	else
		sort_tie_pairs(pairs, nkeys);
	keys_at = ssup->ssup_nulls_first ? nnulls : 0;
	nulls_at = ssup->ssup_nulls_first ? 0 : nkeys;
	for (size_t i = 0; i < nkeys; i++)
		order[keys_at + i] = pairs[i].ptr;
	for (size_t i = 0; i < nnulls; i++)
		order[nulls_at + i] = pairs[len - 1 - i].ptr;
	if (column + 1 == tc->ms->ncolumns)
		return;					/* ties are in item order */
	tc->first_column = column + 1;
	if (nnulls > 1)
		sort_run(order + nulls_at, nnulls, tc);
	for (size_t s = 0; s < nkeys;)
	{
		size_t		e = s + 1;

		while (e < nkeys && pairs[e].key == pairs[s].key)
			e++;
		if (e - s > 1)
			sort_run(order + keys_at + s, e - s, tc);
		s = e;
	}
	tc->first_column = column;
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

/* text_chunk_key of item's first column, flipped for DESC (*longer as there). */
static uint64
item_chunk_key(TieContext *tc, uint32 item, size_t depth, uint64 flip, bool *longer)
{
	Datum		value;
	bool		isnull;

	*longer = false;
	tc->fetch(tc->arg, item, 0, &value, &isnull);
	Assert(!isnull);
	return (isnull ? 0 : text_chunk_key(value, depth, longer)) ^ flip;
}

/*
 * Sort the items order[0..len), a run whose first column (text in byte
 * order, no NULL) is equal in its first 8 * (level + 1) bytes, by its next
 * 8 bytes (sorted in place), then each group of equal
 * bytes one level deeper; strings equal to their end go on to the columns
 * after (ties in item order, which the run and each group are in).  The
 * groups are found again from the items' bytes, so that every level sorts
 * in one buffer, no larger than the comparators' would be.  A
 * prefix shared by all the strings (URLs, paths) made every comparison of
 * the tie pass a comparator call: 3M rows of one 25-byte prefix and an md5
 * sorted in 7.3-9.8 s in memory against the native Sort's 4.2 s.
 */
static void
sort_run_text_deeper(uint32 *order, size_t len, TieContext *tc, int level)
{
	size_t		depth = (size_t) (level + 1) * sizeof(uint64);
	uint64		flip = tc->ms->ssup[0].ssup_reverse ? UINT64_MAX : 0;
	bs_pair64  *pairs = pair_buffer(tc, &tc->text_keyed, &tc->text_keyed_cap, len);
	bool		any_longer = false;
	bool		longer;
	uint64		key;

	for (size_t i = 0; i < len; i++)
	{
		if (tc->ms->prefetch != NULL && i + TIE_PREFETCH < len)
			tc->ms->prefetch(tc->arg, order[i + TIE_PREFETCH]);
		pairs[i].ptr = order[i];
		pairs[i].pad = 0;
		pairs[i].key = item_chunk_key(tc, order[i], depth, flip, &longer);
		any_longer |= longer;
		if ((i & 0xffff) == 0xffff)
			CHECK_FOR_INTERRUPTS();
	}
	if (!any_longer)
	{
		/* equal strings: the columns after, or item order */
		if (tc->ms->ncolumns > 1)
		{
			tc->first_column = 1;
			sort_run(order, len, tc);
			tc->first_column = 0;
		}
		return;
	}
	/* in place: the pair sorter's scratch would take as much again */
	sort_tie_pairs(pairs, len);
	for (size_t i = 0; i < len; i++)
		order[i] = pairs[i].ptr;
	/* the groups, each item's key computed once more (a group's end finds the next one's key) */
	key = item_chunk_key(tc, order[0], depth, flip, &longer);
	for (size_t s = 0; s < len;)
	{
		size_t		e = s + 1;
		uint64		next = 0;

		while (e < len && (next = item_chunk_key(tc, order[e], depth, flip, &longer)) == key)
			e++;
		if (e - s >= TEXT_DEEPER_MIN && level + 1 < TEXT_DEEPER_LEVELS)
			sort_run_text_deeper(order + s, e - s, tc, level + 1);
		else if (e - s > 1)
			sort_run_compared(order + s, e - s, tc);
		s = e;
		key = next;
	}
}

/*
 * Sort the items order[0..len), a run of ties, from column first_column on:
 * by that column's key where it has an exact one, by the bytes after the
 * key where it is text in byte order, else by comparators.
 */
static void
sort_run(uint32 *order, size_t len, TieContext *tc)
{
	if (tc->ms->tie_keys[tc->first_column] != NULL)
		sort_run_keyed(order, len, tc);
	else if (tc->first_column == 0 && tc->ms->text_prefix && len >= TEXT_DEEPER_MIN)
		sort_run_text_deeper(order, len, tc, 0);
	else if (tc->first_column == 0 && tc->ms->libc_text.usable && len >= LIBC_TEXT_THREADED_MIN)
		sort_run_libc_text(order, len, tc);
	else
		sort_run_compared(order, len, tc);
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
	if (ms->kind == BITONIC_KIND_EXACT32)
		BitonicSortPairs32(ms->pairs32, ms->npairs);
	else if (ms->kind != BITONIC_KIND_CONSTANT)
		BitonicSortPairs64(ms->pairs64, ms->npairs);
	/* constant keys are already in pointer order: nothing to sort */
}

/* The tie pass's buffer for a run of len item numbers. */
static uint32 *
run_buffer(TieContext *tc, size_t len)
{
	if (len > tc->run_cap)
	{
		tc->run_cap = Max(len, 64);
		if (tc->run)
			pfree(tc->run);
		tc->run = MemoryContextAllocHuge(tc->ms->cxt, tc->run_cap * sizeof(uint32));
	}
	return tc->run;
}

/*
 * Write the pointers of the sorted pairs to order[0..npairs), left to right,
 * each run of equal keys re-sorted by the full comparators when ties is
 * set.  order may be the pairs' own memory: a run's pointers are copied out
 * before its place in order is written, which lies over pairs already read.
 */
static void
pairs_to_order(BitonicMultiSort *ms, uint32 *order, TieContext *tc, bool ties)
{
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
		if (end - start == 1)
			order[start] = pair_ptr(ms, start);
		else
		{
			uint32	   *run = run_buffer(tc, end - start);

			for (size_t i = start; i < end; i++)
				run[i - start] = pair_ptr(ms, i);
			sort_run(run, end - start, tc);
			memcpy(order + start, run, (end - start) * sizeof(uint32));
		}
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
	TieContext	tc = {ms, fetch, arg, exact ? 1 : 0, NULL, 0, NULL, 0, NULL, NULL};
	size_t		foreseen = foreseen_tie_bytes(ms);
	size_t		tie_bytes;
	size_t		split_bytes = 0;
	bool		in_parts = !ties && in_pairs && BitonicPartsWanted(ms, ms->npairs);
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	BitonicCoreResetPeak();
	ms->sort_parts = 0;
	order = in_pairs ? (uint32 *) pairs_memory(ms) :
		MemoryContextAllocHuge(ms->cxt, Max(nitems, 1) * sizeof(uint32));
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
		sort_run(nullpart, ms->nnulls, &tc);
	}
	if (tc.items)
		pfree(tc.items);
	if (tc.run)
		pfree(tc.run);
	/* the sorters' scratch and the tie pass's buffers, beyond what BitonicMultiSortBytes foresaw */
	tie_bytes = BitonicCorePeak() + tc.run_cap * sizeof(uint32) + tc.items_cap * sizeof(TieItem) +
		split_bytes;
	tie_bytes += tc.text_keyed_cap * sizeof(bs_pair64);
	if (tc.text_keyed)
		pfree(tc.text_keyed);
	if (tc.keyed != NULL)
	{
		for (int c = 0; c < ms->ncolumns; c++)
		{
			tie_bytes += tc.keyed_cap[c] * sizeof(bs_pair64);
			if (tc.keyed[c])
				pfree(tc.keyed[c]);
		}
		pfree(tc.keyed);
		pfree(tc.keyed_cap);
	}
	ms->scratch_bytes = tie_bytes > foreseen ? tie_bytes - foreseen : 0;
	ms->tie_ms = BitonicMsSince(t0);
	return order;
}
