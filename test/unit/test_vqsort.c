/*
 * test_vqsort.c — Highway's vqsort behind the core API: the same pair array
 * as the qsort reference for both shapes (a 64-bit-key pair sorts as a
 * 128-bit integer, so ties must come out by pointer), misaligned arrays
 * included; `auto` resolves to it on the CPU.  In a build without Highway
 * the algorithm must refuse with BS_ERR_UNSUPPORTED and `auto` must not
 * pick it.  Large inputs are split in place around sampled pivots before
 * vqsort sorts the parts: every distribution goes through splits on several
 * threads, and an array of identical pairs (no pivot splits it) still sorts.
 * Plain 64-bit keys (no pointers) sort the same way, top of the range
 * included.
 */
#include "sort_check.h"
#include "unit.h"

/* A 64-bit-key sort of an array that is 8- but not 16-byte aligned. */
static int
check_misaligned(size_t n)
{
	bs_options	opt = {BS_BACKEND_CPU, BS_ALGO_VQSORT, 1, NULL, NULL};
	char	   *raw = malloc((n + 2) * sizeof(bs_pair64));
	bs_pair64  *a = (bs_pair64 *) (((uintptr_t) raw + 15) / 16 * 16 + 8);
	bs_pair64  *r = malloc((n + 1) * sizeof(bs_pair64));
	int			ok;

	gen_pairs64(a, n, GEN_FEW_DISTINCT, 5);
	memcpy(r, a, n * sizeof(bs_pair64));
	qsort(r, n, sizeof(bs_pair64), ref_cmp64);
	ok = bs_sort_pairs64(a, n, &opt) == BS_OK && memcmp(a, r, n * sizeof(bs_pair64)) == 0;
	free(raw);
	free(r);
	return ok;
}

/* qsort order of plain 64-bit keys. */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

/*
 * n plain 64-bit keys (bs_cpu_vqsort_keys64) on `threads` threads against
 * qsort: random keys, every eighth one from the top 2^32 of the range
 * (where a packed pair's sentinels would live) or 0, so there are ties.
 */
static int
check_keys64(size_t n, int threads, uint64_t seed)
{
	bs_options	opt = {BS_BACKEND_CPU, BS_ALGO_VQSORT, threads, NULL, NULL};
	uint64_t   *a = malloc((n + 1) * sizeof(uint64_t));
	uint64_t   *r = malloc((n + 1) * sizeof(uint64_t));
	int			ok;

	for (size_t i = 0; i < n; i++)
	{
		uint64_t	k = gen_next(&seed);

		a[i] = i % 8 == 0 ? (k & 1 ? UINT64_MAX - (k >> 33) : 0) : k;
	}
	memcpy(r, a, n * sizeof(uint64_t));
	qsort(r, n, sizeof(uint64_t), cmp_u64);
	ok = bs_cpu_vqsort_keys64(a, n, &opt) == BS_OK && memcmp(a, r, n * sizeof(uint64_t)) == 0;
	free(a);
	free(r);
	return ok;
}

/* n identical pairs (no split can cut them) sorted on `threads` threads. */
static int
check_identical(size_t n, int threads)
{
	bs_options	opt = {BS_BACKEND_CPU, BS_ALGO_VQSORT, threads, NULL, NULL};
	bs_pair64  *a = malloc((n + 1) * sizeof(bs_pair64));
	bs_pair32  *b = malloc((n + 1) * sizeof(bs_pair32));
	int			ok;

	for (size_t i = 0; i < n; i++)
	{
		a[i].key = 7;
		a[i].ptr = 3;
		a[i].pad = 0;
		b[i] = bs_pack32(7, 3);
	}
	ok = bs_sort_pairs64(a, n, &opt) == BS_OK && bs_sort_pairs32(b, n, &opt) == BS_OK;
	for (size_t i = 0; i < n && ok; i++)
		ok = a[i].key == 7 && a[i].ptr == 3 && b[i] == bs_pack32(7, 3);
	free(a);
	free(b);
	return ok;
}

int
main(void)
{
	uint64_t	state = 0x1234567;

	if (!bs_cpu_has_vqsort())
	{
		bs_pair32	p[2] = {2, 1};
		bs_options	opt = {BS_BACKEND_CPU, BS_ALGO_VQSORT, 1, NULL, NULL};

		unit_report(bs_sort_pairs32(p, 2, &opt) == BS_ERR_UNSUPPORTED,
					"vqsort refused in a build without Highway");
		unit_report(bs_cpu_vqsort_keys64(p, 2, &opt) == BS_ERR_UNSUPPORTED,
					"vqsort of plain keys refused in a build without Highway");
		unit_report(bs_choose_algorithm(BS_BACKEND_CPU, 1000) != BS_ALGO_VQSORT,
					"auto does not pick vqsort without Highway");
		return unit_exit_status();
	}

	unit_report(bs_choose_algorithm(BS_BACKEND_CPU, 1000000) == BS_ALGO_VQSORT,
				"auto picks vqsort on the CPU");
	for (int d = 0; d < GEN_DISTS; d++)
	{
		int			ok = 1;

		for (size_t n = 0; n <= 300 && ok; n++)
			ok = check_algorithm(BS_ALGO_VQSORT, n, (gen_dist) d, n + 1, 1, NULL);
		unit_report(ok, "vqsort %s n=0..300", gen_dist_names[d]);
		for (int r = 0; r < 3; r++)
		{
			size_t		n = (size_t) (gen_next(&state) % ((1u << 20) + 1));

			unit_report(check_algorithm(BS_ALGO_VQSORT, n, (gen_dist) d, gen_next(&state), 1, NULL),
						"vqsort %s n=%zu", gen_dist_names[d], n);
		}
	}
	/* chunk layouts: several threads, odd thread counts, more than one round of chunks */
	{
		static const struct
		{
			size_t		n;
			int			threads;
		}			layouts[] = {
			{65537, 2}, {300001, 2}, {1048579, 2}, {3000000, 3}, {5000011, 4},
			{(1u << 23) * 2 + 5, 1},
		};

		for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
			unit_report(check_algorithm(BS_ALGO_VQSORT, layouts[i].n, GEN_RANDOM,
										gen_next(&state), layouts[i].threads, NULL),
						"vqsort random n=%zu on %d threads", layouts[i].n, layouts[i].threads);
	}
	/* in-place splits of every distribution, on two and three threads */
	for (int d = 0; d < GEN_DISTS; d++)
		for (int threads = 2; threads <= 3; threads++)
			unit_report(check_algorithm(BS_ALGO_VQSORT, 700001, (gen_dist) d,
										gen_next(&state), threads, NULL),
						"vqsort %s n=700001 split for %d threads", gen_dist_names[d], threads);
	unit_report(check_algorithm(BS_ALGO_VQSORT, (1u << 23) + 3, GEN_SORTED, 11, 2, NULL),
				"vqsort sorted n=2^23+3 split into parts of at most 2^23 on 2 threads");
	unit_report(check_identical((1u << 23) + 9, 1), "vqsort n=2^23+9 identical pairs, 1 thread");
	unit_report(check_identical(300000, 2), "vqsort n=300000 identical pairs, 2 threads");
	unit_report(check_misaligned(100003), "vqsort 64-bit-key pairs, misaligned array");
	unit_report(check_keys64(0, 1, 3) && check_keys64(1, 1, 4) && check_keys64(1000, 1, 5),
				"vqsort plain 64-bit keys n=0, 1, 1000");
	unit_report(check_keys64(700001, 2, 6), "vqsort plain 64-bit keys n=700001 split for 2 threads");
	unit_report(check_keys64((1u << 23) + 17, 2, 7), "vqsort plain 64-bit keys n=2^23+17 on 2 threads");
	return unit_exit_status();
}
