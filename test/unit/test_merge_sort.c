/*
 * test_merge_sort.c — the parallel merge sort under a comparator (the sort
 * behind libc-collated text): the same array as qsort for every
 * distribution, size around the chunk and segment boundaries, thread count
 * and record size; the interrupt hook runs on long sorts; the prefetch
 * hint is never given a record past the end of the array (a sentinel
 * follows it), and is given in merges.
 */
#include <stdbool.h>

#include "merge_sort.h"
#include "sort_check.h"
#include "unit.h"

/* A 24-byte record: a key, a unique tag, and bytes that must travel along. */
typedef struct wide_record
{
	uint64_t	key;
	uint32_t	tag;
	char		payload[12];
} wide_record;

/* What the callbacks of one pair sort saw. */
typedef struct pair_calls
{
	uint64_t	comparisons;
	uint64_t	hints;
	uint64_t	bad_hints;		/* of a record not among the n pairs */
	size_t		n;
} pair_calls;

/* bs_record_cmp over 64-bit-key pairs (ptr unique: a total order). */
static int
cmp_pairs(const void *a, const void *b, void *arg)
{
	__atomic_fetch_add(&((pair_calls *) arg)->comparisons, 1, __ATOMIC_RELAXED);
	return ref_cmp64(a, b);
}

/* bs_record_prefetch that counts its calls and those past the pairs (ptr >= n). */
static void
hint_pair(const void *a, void *arg)
{
	pair_calls *calls = arg;

	__atomic_fetch_add(&calls->hints, 1, __ATOMIC_RELAXED);
	if (((const bs_pair64 *) a)->ptr >= calls->n)
		__atomic_fetch_add(&calls->bad_hints, 1, __ATOMIC_RELAXED);
}

/* bs_record_cmp over wide records, descending by key, ascending by tag. */
static int
cmp_wide(const void *a, const void *b, void *arg)
{
	const wide_record *x = a;
	const wide_record *y = b;

	(void) arg;
	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return (x->tag > y->tag) - (x->tag < y->tag);
}

/* qsort adapter of cmp_wide. */
static int
qsort_wide(const void *a, const void *b)
{
	return cmp_wide(a, b, NULL);
}

/* Interrupt hook that counts its calls. */
static void
count_check(void *arg)
{
	(*(int *) arg)++;
}

/*
 * Merge sort of n pairs of a distribution on `threads` threads equals
 * qsort's; the hint (given one) saw no record past the pairs (a sentinel
 * follows them), and was given once there were merges.
 */
static int
check_pairs(size_t n, gen_dist dist, int threads, uint64_t seed, bool hinted)
{
	bs_pair64  *a = malloc((n + 1) * sizeof(bs_pair64));
	bs_pair64  *r = malloc((n + 1) * sizeof(bs_pair64));
	pair_calls	calls = {0, 0, 0, n};
	int			ok;

	gen_pairs64(a, n, dist, seed);
	a[n] = (bs_pair64) {.ptr = UINT32_MAX, .pad = 0, .key = 0};
	memcpy(r, a, n * sizeof(bs_pair64));
	qsort(r, n, sizeof(bs_pair64), ref_cmp64);
	ok = bs_merge_sort(a, n, sizeof(bs_pair64), cmp_pairs, hinted ? hint_pair : NULL, &calls,
					   threads, NULL) == BS_OK &&
		memcmp(a, r, n * sizeof(bs_pair64)) == 0 && (n < 2 || calls.comparisons > 0) &&
		calls.bad_hints == 0 && (!hinted || n <= 32768 || calls.hints > 0);
	free(a);
	free(r);
	return ok;
}

/* Merge sort of n wide records equals qsort's, payload included; the hook ran. */
static int
check_wide(size_t n, int threads)
{
	wide_record *a = malloc((n + 1) * sizeof(wide_record));
	wide_record *r = malloc((n + 1) * sizeof(wide_record));
	uint64_t	state = 99;
	int			checks = 0;
	bs_hooks	hooks = {NULL, NULL, count_check, NULL, &checks};
	int			ok;

	for (size_t i = 0; i < n; i++)
	{
		a[i].key = gen_next(&state) % 1000;
		a[i].tag = (uint32_t) i;
		memset(a[i].payload, (int) (i % 251), sizeof(a[i].payload));
	}
	memcpy(r, a, n * sizeof(wide_record));
	qsort(r, n, sizeof(wide_record), qsort_wide);
	ok = bs_merge_sort(a, n, sizeof(wide_record), cmp_wide, NULL, NULL, threads, &hooks) == BS_OK &&
		memcmp(a, r, n * sizeof(wide_record)) == 0 && checks > 0;
	free(a);
	free(r);
	return ok;
}

int
main(void)
{
	static const size_t sizes[] = {0, 1, 2, 3, 100, 32767, 32768, 32769, 65536, 98305, 300001};
	uint64_t	seed = 7;

	for (int d = 0; d < GEN_DISTS; d++)
		for (int threads = 1; threads <= 3; threads++)
		{
			int			ok = 1;

			for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && ok; i++)
				ok = check_pairs(sizes[i], (gen_dist) d, threads, seed++, false) &&
					check_pairs(sizes[i], (gen_dist) d, threads, seed++, true);
			unit_report(ok, "merge sort %s, %d thread(s), n = 0 .. 300001 = qsort, with and without prefetch hints inside the array",
						gen_dist_names[d], threads);
		}
	unit_report(check_wide(1000003, 2), "merge sort of 24-byte records, 2 threads, n = 1000003 = qsort; interrupt hook called");
	return unit_exit_status();
}
