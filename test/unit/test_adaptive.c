/*
 * test_adaptive.c — the CPU adaptive bitonic sorter: the same pair array,
 * bit for bit, as the standard bitonic sorter and a qsort reference, over
 * the standard sorter's sizes and distributions, both pair shapes, 1 and 2
 * threads; and Bilardi–Nicolau's bound of fewer than 2 n log2 n comparisons,
 * with the measured ratio to n log2 n printed.
 */
#include "bs_sort.h"
#include "sort_check.h"
#include "unit.h"

#include <math.h>

/* log2 of the padded size: the bound is stated for N = 2^k. */
static double
padded_log2(size_t n)
{
	size_t		p = 1;

	while (p < n)
		p *= 2;
	return log2((double) p);
}

/*
 * Sort one input with the adaptive sorter and with the network; both must
 * equal the qsort reference (and so each other) bit for bit.
 */
static int
check_one(size_t n, gen_dist dist, uint64_t seed, int threads, uint64_t *comps)
{
	return check_algorithm(BS_ALGO_ADAPTIVE, n, dist, seed, threads, comps) &&
		check_algorithm(BS_ALGO_BITONIC, n, dist, seed, threads, NULL);
}

/* The comparison bound for one n: fewer than 2 N log2 N for the padded N. */
static int
within_bound(size_t n, uint64_t comps)
{
	double		k = padded_log2(n);

	return n < 2 || (double) comps < 2.0 * exp2(k) * k;
}

int
main(void)
{
	uint64_t	state = 0x2545f4914f6cdd1dULL;
	static const size_t edge[] = {0, 1, 2, 3, 15, 16, 17};

	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		unit_report(check_one(edge[i], GEN_RANDOM, 11 + i, 1, NULL),
					"adaptive random n=%zu", edge[i]);

	for (int d = 0; d < GEN_DISTS; d++)
	{
		int			ok = 1,
					bound_ok = 1;
		size_t		bad = 0;

		for (size_t n = 0; n <= 300; n++)
		{
			uint64_t	comps;

			if (!check_one(n, (gen_dist) d, n * 31 + d, 1, &comps) && ok)
				ok = 0, bad = n;
			if (!within_bound(n, comps))
				bound_ok = 0;
		}
		unit_report(ok, "adaptive %s n=0..300 equals bitonic and qsort", gen_dist_names[d]);
		if (!ok)
			unit_note("first failure at n=%zu", bad);
		unit_report(bound_ok, "adaptive %s n=0..300 under 2 N log2 N comparisons", gen_dist_names[d]);

		for (int r = 0; r < 4; r++)
		{
			size_t		n = (size_t) (gen_next(&state) % ((1u << 20) + 1));
			int			threads = 1 + (r & 1);
			uint64_t	comps;

			unit_report(check_one(n, (gen_dist) d, gen_next(&state), threads, &comps) &&
						within_bound(n, comps),
						"adaptive %s n=%zu threads=%d", gen_dist_names[d], n, threads);
		}
	}

	/* Powers of two: the measured ratio to n log2 n, against the bound of 2. */
	for (int k = 4; k <= 20; k += 2)
	{
		size_t		n = (size_t) 1 << k;
		uint64_t	comps;
		int			ok = check_one(n, GEN_RANDOM, (uint64_t) k, 2, &comps);
		double		ratio = (double) comps / ((double) n * k);

#ifdef BS_COUNT_COMPARISONS
		unit_report(ok && ratio < 2.0 && comps > 0,
					"adaptive n=2^%d: %llu comparisons = %.3f n log2 n (bound 2; network %.2f)",
					k, (unsigned long long) comps, ratio, (k + 1) / 4.0);
#else
		unit_report(ok, "adaptive n=2^%d sorted (comparisons not counted in this build)", k);
		(void) ratio;
#endif
	}
	return unit_exit_status();
}
