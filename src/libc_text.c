/*
 * libc_text.c — sorting by text in a libc collation other than "C", where
 * PostgreSQL 15 has no abbreviated key (it does not trust strxfrm) and
 * every comparison is a strcoll.
 *
 * The comparison is PostgreSQL's own for such a collation (varstr_cmp):
 * byte-equal strings are equal; otherwise strcoll (strcoll_l for a named
 * collation, the database's LC_COLLATE for the default one), a tie broken
 * by strcmp.  Each string is copied once, NUL-terminated, into an arena of
 * blocks, and the sort moves 8-byte records (the copy's place, the item):
 * strcoll takes the copies as they are, and the strings one merge compares
 * lie close together.  It is plain C, so the sort runs on
 * bitonic_sort.cpu_threads threads (merge_sort.c) with the item breaking
 * ties, and cancellable between batches.
 */
#include "bitonic_sort.h"

#include <string.h>
#ifdef __GLIBC__
#include <langinfo.h>
#endif

#include "access/detoast.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_type_d.h"
#include "core/merge_sort.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/typcache.h"

/*
 * A copy's place: block number in the high bits, offset in the block in
 * 2-byte units in the low ones.  Copies start at even offsets below 4 MB,
 * so 2048 blocks can be named: shared blocks of up to 4 MB (as large as
 * the sort's copies, 64 kB at least: a small sort, an external sort's run,
 * takes no 4 MB), and a block of its own for each string over 1 MB or over
 * a shared block (a shared block then wastes less than 1 MB at its end).
 * That is 2 GB of text at the least (strings just over 1 MB), over 6 GB of
 * short strings; beyond, the caller sorts another way.
 */
#define ARENA_BLOCK_BYTES ((size_t) 4 << 20)
#define ARENA_OWN_BLOCK_BYTES ((size_t) 1 << 20)
#define ARENA_OFFSET_BITS 21
#define ARENA_MAX_BLOCKS ((size_t) 1 << (32 - ARENA_OFFSET_BITS))

/* One string of the sort: where its copy lies, and its item. */
typedef struct TextRecord
{
	uint32		ref;
	uint32		item;
} TextRecord;

/* The strings' copies: the blocks so far, and the shared block being filled. */
typedef struct TextArena
{
	char	  **blocks;
	size_t		nblocks;
	size_t		shared;			/* block number of the shared block being filled */
	size_t		used;			/* bytes used in it (block_bytes: none yet) */
	size_t		block_bytes;	/* size of a shared block: ARENA_BLOCK_BYTES at most */
} TextArena;

/* What the comparator needs: the column's order and the arena. */
typedef struct TextSortJob
{
	const BitonicLibcText *lt;
	TextArena	arena;
} TextSortJob;

/* The NUL-terminated copy a record names. */
static inline const char *
arena_string(const TextArena *arena, uint32 ref)
{
	return arena->blocks[ref >> ARENA_OFFSET_BITS] +
		(size_t) (ref & (((uint32) 1 << ARENA_OFFSET_BITS) - 1)) * 2;
}

/* A new block of size bytes; its number, or -1 when no more can be named. */
static int
arena_new_block(TextArena *arena, size_t size, const bs_hooks *hooks)
{
	if (arena->nblocks == ARENA_MAX_BLOCKS)
		return -1;
	arena->blocks[arena->nblocks] = hooks->alloc(size, hooks->arg);
	return (int) arena->nblocks++;
}

/* Bytes the copy of a string of len bytes takes: its NUL, evened up. */
static inline size_t
arena_need(size_t len)
{
	return (len + 2) & ~(size_t) 1;
}

/*
 * Copy len bytes at src into the arena, NUL-terminated; *ref names the copy.
 * False when the arena has named all the blocks it can.
 */
static bool
arena_copy(TextArena *arena, const char *src, uint32 len, uint32 *ref,
		   const bs_hooks *hooks)
{
	size_t		need = arena_need(len);
	/* a string larger than a shared block (or than ARENA_OWN_BLOCK_BYTES) gets a block of its own */
	bool		own = need > Min(ARENA_OWN_BLOCK_BYTES, arena->block_bytes);
	size_t		offset = 0;
	int			block;
	char	   *dst;

	if (own)
		block = arena_new_block(arena, need, hooks);
	else if (arena->block_bytes - arena->used >= need)
		block = (int) arena->shared;
	else if ((block = arena_new_block(arena, arena->block_bytes, hooks)) >= 0)
	{
		arena->shared = (size_t) block;
		arena->used = 0;
	}
	if (block < 0)
		return false;
	if (!own)
	{
		offset = arena->used;
		arena->used += need;
	}
	dst = arena->blocks[block] + offset;
	memcpy(dst, src, len);
	dst[len] = '\0';
	*ref = ((uint32) block << ARENA_OFFSET_BITS) | (uint32) (offset / 2);
	return true;
}

/* Bytes a non-NULL text value's copy will take in the arena. */
size_t
BitonicLibcTextCopyBytes(Datum value)
{
	return arena_need(toast_raw_datum_size(value) - VARHDRSZ);
}

/* Free the arena's blocks. */
static void
arena_free(TextArena *arena, const bs_hooks *hooks)
{
	for (size_t i = 0; i < arena->nblocks; i++)
		hooks->free(arena->blocks[i], hooks->arg);
	arena->nblocks = 0;
}

/*
 * Whether a collation other than "C" is a deterministic libc one; *lt is its
 * locale, 0 for the database's (strcoll's global LC_COLLATE).
 */
static bool
libc_locale(Oid collation, locale_t *lt)
{
	pg_locale_t locale = pg_newlocale_from_collation(collation);

	if (locale != NULL && (locale->provider != COLLPROVIDER_LIBC || !locale->deterministic))
		return false;
#ifdef HAVE_LOCALE_T
	*lt = locale != NULL ? locale->info.lt : (locale_t) 0;
	return true;
#else
	*lt = 0;
	return locale == NULL;
#endif
}

/*
 * Whether text in this collation sorts in byte order: "C" and "POSIX", and,
 * under glibc, a deterministic libc collation whose locale has no collation
 * rules (C.UTF-8, say), for which glibc's strcoll is strcmp.  PostgreSQL's
 * comparison (varstr_cmp) then orders as memcmp does, the shorter of two
 * strings first where one begins the other, exactly as in "C".
 */
bool
BitonicCollationSortsBytes(Oid collation)
{
	if (!OidIsValid(collation))
		return false;
	if (BitonicCollateIsC(collation))
		return true;
#if defined(__GLIBC__) && defined(HAVE_LOCALE_T)
	{
		locale_t	lt;

		/* a word item comes back in the pointer, as glibc keeps both in one union */
		union
		{
			char	   *string;
			unsigned int word;
		}			nrules;

		if (!libc_locale(collation, &lt))
			return false;
		nrules.string = lt ? nl_langinfo_l(_NL_COLLATE_NRULES, lt) :
			nl_langinfo(_NL_COLLATE_NRULES);
		return nrules.word == 0;
	}
#endif
	return false;
}

/*
 * Whether a sort column is text (or varchar, or a domain over either)
 * ordered by text's default operator in a libc collation other than "C";
 * fills *lt when it is.
 */
bool
BitonicLibcTextInit(const BitonicSortColumn *col, BitonicLibcText *lt)
{
	TypeCacheEntry *tc = lookup_type_cache(TEXTOID, TYPECACHE_GT_OPR);

	memset(lt, 0, sizeof(BitonicLibcText));
	if (!BitonicIsTextOrder(col->typid, col->sortop) || !OidIsValid(col->collation) ||
		BitonicCollateIsC(col->collation) || !libc_locale(col->collation, &lt->locale))
		return false;
	lt->descending = col->sortop == tc->gt_opr;
	lt->usable = true;
	return true;
}

/*
 * Comparator on worker threads: the column's order (varstr_cmp's: equal
 * bytes, else strcoll, a tie broken by strcmp), then the item.
 */
static int
compare_records(const void *a, const void *b, void *arg)
{
	const TextRecord *x = (const TextRecord *) a;
	const TextRecord *y = (const TextRecord *) b;
	const TextSortJob *job = (const TextSortJob *) arg;
	const char *s1 = arena_string(&job->arena, x->ref);
	const char *s2 = arena_string(&job->arena, y->ref);
	int			bytes = strcmp(s1, s2);
	int			r;

	if (bytes == 0)
		return (x->item > y->item) - (x->item < y->item);
#ifdef HAVE_LOCALE_T
	r = job->lt->locale ? strcoll_l(s1, s2, job->lt->locale) : strcoll(s1, s2);
#else
	r = strcoll(s1, s2);
#endif
	if (r == 0)
		r = bytes;
	return job->lt->descending ? (r < 0) - (r > 0) : (r > 0) - (r < 0);
}

/* Prefetch hint on worker threads: the string a record names. */
static void
prefetch_record(const void *a, void *arg)
{
	const TextSortJob *job = (const TextSortJob *) arg;

	__builtin_prefetch(arena_string(&job->arena, ((const TextRecord *) a)->ref));
}

/*
 * Sort items order[0..n) (none NULL in `column`, their copies text_bytes
 * in all: BitonicLibcTextCopyBytes) by that column and then item;
 * starts_run, when given, marks each item whose string differs from the
 * one before it.  False, with order untouched, when the strings are more
 * than the arena can name (at the least 2 GB of them).
 */
bool
BitonicLibcTextSort(const BitonicLibcText *lt, uint32 *order, size_t n, size_t text_bytes,
					BitonicFetchFn fetch, void *arg, int column, bool *starts_run)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "bitonic_sort text",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	const bs_hooks *hooks = BitonicCoreHooks();
	TextRecord *records = hooks->alloc(Max(n, 1) * sizeof(TextRecord), hooks->arg);
	/* shared blocks sized to the strings' copies, from 64 kB to ARENA_BLOCK_BYTES */
	size_t		block_bytes = Min(Max(text_bytes, (size_t) 64 * 1024), ARENA_BLOCK_BYTES);
	TextSortJob job = {lt, {palloc(ARENA_MAX_BLOCKS * sizeof(char *)), 0, 0, block_bytes, block_bytes}};
	bool		fits = true;
	bs_status	status;

	for (size_t i = 0; i < n && fits; i++)
	{
		Datum		value;
		bool		isnull;
		struct varlena *v;

		fetch(arg, order[i], column, &value, &isnull);
		Assert(!isnull);
		v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));
		fits = arena_copy(&job.arena, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), &records[i].ref,
						  hooks);
		records[i].item = order[i];
		if ((Pointer) v != DatumGetPointer(value))
			pfree(v);
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	if (fits)
	{
		status = bs_merge_sort(records, n, sizeof(TextRecord), compare_records,
							   prefetch_record, &job, bitonic_sort_cpu_threads, hooks);
		if (status != BS_OK)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory while sorting")));
		for (size_t i = 0; i < n; i++)
		{
			order[i] = records[i].item;
			if (starts_run != NULL)
				starts_run[i] = i == 0 ||
					strcmp(arena_string(&job.arena, records[i].ref),
						   arena_string(&job.arena, records[i - 1].ref)) != 0;
			if ((i & 0xffff) == 0xffff)
				CHECK_FOR_INTERRUPTS();
		}
	}
	hooks->free(records, hooks->arg);
	arena_free(&job.arena, hooks);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return fits;
}
