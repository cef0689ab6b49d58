/*
 * test_bitonic.c — the CPU standard bitonic sorter against a qsort
 * reference: every n from 0 to 300, random n up to 2^20, five
 * distributions, both pair shapes, every SIMD variant, 1 and 2 threads.
 * The sorted pair arrays must be identical, i.e. the same permutation.
 */
#include "bs_sort.h"
#include "cpu_features.h"
#include "sort_check.h"
#include "unit.h"

/* Sort one input with the network and compare with qsort. */
static int
check_one(size_t n, gen_dist dist, uint64_t seed, int threads)
{
	return check_algorithm(BS_ALGO_BITONIC, n, dist, seed, threads, NULL);
}

int
main(void)
{
	uint64_t	state = 0x9e3779b97f4a7c15ULL;

	for (int level = BS_SIMD_PORTABLE; level <= (int) bs_cpu_simd_detected(); level++)
	{
		static const char *const names[] = {"portable", "avx2", "avx512"};

		bs_cpu_force_simd((bs_simd) level);
		for (int d = 0; d < GEN_DISTS; d++)
		{
			int			ok = 1;
			size_t		bad = 0;

			for (size_t n = 0; n <= 300 && ok; n++)
				if (!(ok = check_one(n, (gen_dist) d, n * 7919 + d, 1)))
					bad = n;
			unit_report(ok, "bitonic %s %s n=0..300%s", names[level],
						gen_dist_names[d], ok ? "" : " (first failure below)");
			if (!ok)
				unit_note("failed at n=%zu", bad);

			for (int r = 0; r < 6; r++)
			{
				size_t		n = (size_t) (gen_next(&state) % ((1u << 20) + 1));
				int			threads = 1 + (r & 1);

				unit_report(check_one(n, (gen_dist) d, gen_next(&state), threads),
							"bitonic %s %s n=%zu threads=%d", names[level],
							gen_dist_names[d], n, threads);
			}
		}
		unit_report(check_one((size_t) 1 << 20, GEN_RANDOM, 7, 2),
					"bitonic %s random n=2^20 threads=2", names[level]);
		unit_report(check_one(((size_t) 1 << 20) + 1, GEN_FEW_DISTINCT, 9, 2),
					"bitonic %s few-distinct n=2^20+1 threads=2", names[level]);
	}
	return unit_exit_status();
}
