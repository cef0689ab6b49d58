/*
 * libc_text.c — sorting by text in a libc collation other than "C", where
 * PostgreSQL 15 has no abbreviated key (it does not trust strxfrm) and
 * every comparison is a strcoll.
 *
 * The comparison is PostgreSQL's own for such a collation (varstr_cmp):
 * byte-equal strings are equal; otherwise strcoll (strcoll_l for a named
 * collation, the database's LC_COLLATE for the default one), a tie broken
 * by strcmp.  It is plain C on NUL-terminated copies, so the sort runs on
 * bitonic_sort.cpu_threads threads (merge_sort.c) with the row locator
 * breaking ties, and cancellable between batches.
 */
#include "bitonic_sort.h"

#include <string.h>

#include "catalog/pg_collation_d.h"
#include "catalog/pg_type_d.h"
#include "core/merge_sort.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/typcache.h"

/* Strings shorter than this are copied to the stack per comparison. */
#define SHORT_STRING 256

/* One string of the sort: its bytes, length and item. */
typedef struct TextRecord
{
	const char *data;			/* NUL-terminated when len >= SHORT_STRING */
	uint32		len;
	uint32		item;
} TextRecord;

/*
 * Whether a sort column is text (or varchar, or a domain over either)
 * ordered by text's default operator in a libc collation other than "C";
 * fills *lt when it is.
 */
bool
BitonicLibcTextInit(const BitonicSortColumn *col, BitonicLibcText *lt)
{
	TypeCacheEntry *tc = lookup_type_cache(TEXTOID, TYPECACHE_GT_OPR);
	pg_locale_t locale;

	memset(lt, 0, sizeof(BitonicLibcText));
	if (!BitonicIsTextOrder(col->typid, col->sortop) || !OidIsValid(col->collation) ||
		lc_collate_is_c(col->collation))
		return false;
	locale = pg_newlocale_from_collation(col->collation);
	if (locale != NULL && (locale->provider != COLLPROVIDER_LIBC || !locale->deterministic))
		return false;
#ifdef HAVE_LOCALE_T
	lt->locale = locale != NULL ? locale->info.lt : (locale_t) 0;
#else
	if (locale != NULL)
		return false;
#endif
	lt->descending = col->sortop == tc->gt_opr;
	lt->usable = true;
	return true;
}

/* strcoll of two records' strings, ties broken by strcmp (varstr_cmp's rule). */
static int
collate(const TextRecord *x, const TextRecord *y, const BitonicLibcText *lt)
{
	char		buf1[SHORT_STRING];
	char		buf2[SHORT_STRING];
	const char *s1 = x->data;
	const char *s2 = y->data;
	int			r;

	if (x->len < SHORT_STRING)
	{
		memcpy(buf1, x->data, x->len);
		buf1[x->len] = '\0';
		s1 = buf1;
	}
	if (y->len < SHORT_STRING)
	{
		memcpy(buf2, y->data, y->len);
		buf2[y->len] = '\0';
		s2 = buf2;
	}
#ifdef HAVE_LOCALE_T
	r = lt->locale ? strcoll_l(s1, s2, lt->locale) : strcoll(s1, s2);
#else
	r = strcoll(s1, s2);
#endif
	return r != 0 ? r : strcmp(s1, s2);
}

/* Comparator on worker threads: the column's order, then the item. */
static int
compare_records(const void *a, const void *b, void *arg)
{
	const TextRecord *x = (const TextRecord *) a;
	const TextRecord *y = (const TextRecord *) b;
	const BitonicLibcText *lt = (const BitonicLibcText *) arg;
	int			r = 0;

	if (x->len != y->len || memcmp(x->data, y->data, x->len) != 0)
		r = collate(x, y, lt);
	if (r == 0)
		return (x->item > y->item) - (x->item < y->item);
	return lt->descending ? (r < 0) - (r > 0) : (r > 0) - (r < 0);
}

/*
 * Sort items order[0..n) (none NULL in `column`) by that column and then
 * item; starts_run, when given, marks each item whose string differs from
 * the one before it.
 */
void
BitonicLibcTextSort(const BitonicLibcText *lt, uint32 *order, size_t n,
					BitonicFetchFn fetch, void *arg, int column, bool *starts_run)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "bitonic_sort text",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	const bs_hooks *hooks = BitonicCoreHooks();
	TextRecord *records = hooks->alloc(Max(n, 1) * sizeof(TextRecord), hooks->arg);
	bs_status	status;

	for (size_t i = 0; i < n; i++)
	{
		Datum		value;
		bool		isnull;
		struct varlena *v;

		fetch(arg, order[i], column, &value, &isnull);
		Assert(!isnull);
		v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));
		records[i].data = VARDATA_ANY(v);
		records[i].len = VARSIZE_ANY_EXHDR(v);
		records[i].item = order[i];
		if (records[i].len >= SHORT_STRING)
			records[i].data = pnstrdup(records[i].data, records[i].len);
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	status = bs_merge_sort(records, n, sizeof(TextRecord), compare_records,
						   (void *) lt, bitonic_sort_cpu_threads, hooks);
	if (status != BS_OK)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory while sorting")));
	for (size_t i = 0; i < n; i++)
	{
		order[i] = records[i].item;
		if (starts_run != NULL)
			starts_run[i] = i == 0 || records[i].len != records[i - 1].len ||
				memcmp(records[i].data, records[i - 1].data, records[i].len) != 0;
	}
	hooks->free(records, hooks->arg);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}
