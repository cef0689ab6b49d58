/*
 * sort_check.h — sort one generated input with a given algorithm, both
 * pair shapes, and compare with the qsort reference pair for pair.
 */
#ifndef BS_SORT_CHECK_H
#define BS_SORT_CHECK_H

#include "pairs_gen.h"

/*
 * Sort n pairs of distribution `dist` (seeded) with `algorithm` on `threads`
 * threads; 1 when both shapes equal the qsort reference exactly.  The larger
 * comparison count of the two shapes goes to *comps when comps is set.
 */
static inline int
check_algorithm(bs_algorithm algorithm, size_t n, gen_dist dist, uint64_t seed,
				int threads, uint64_t *comps)
{
	uint64_t	c32 = 0,
				c64 = 0;
	bs_options	opt32 = {BS_BACKEND_CPU, algorithm, threads, NULL, &c32};
	bs_options	opt64 = {BS_BACKEND_CPU, algorithm, threads, NULL, &c64};
	bs_pair32  *a32 = malloc((n + 1) * sizeof(bs_pair32));
	bs_pair32  *r32 = malloc((n + 1) * sizeof(bs_pair32));
	bs_pair64  *a64 = malloc((n + 1) * sizeof(bs_pair64));
	bs_pair64  *r64 = malloc((n + 1) * sizeof(bs_pair64));
	int			ok;

	gen_pairs32(a32, n, dist, seed);
	memcpy(r32, a32, n * sizeof(bs_pair32));
	gen_pairs64(a64, n, dist, seed);
	memcpy(r64, a64, n * sizeof(bs_pair64));
	qsort(r32, n, sizeof(bs_pair32), ref_cmp32);
	qsort(r64, n, sizeof(bs_pair64), ref_cmp64);
	ok = bs_sort_pairs32(a32, n, &opt32) == BS_OK &&
		bs_sort_pairs64(a64, n, &opt64) == BS_OK &&
		memcmp(a32, r32, n * sizeof(bs_pair32)) == 0 &&
		memcmp(a64, r64, n * sizeof(bs_pair64)) == 0;
	if (comps)
		*comps = c32 > c64 ? c32 : c64;
	free(a32);
	free(r32);
	free(a64);
	free(r64);
	return ok;
}

#endif							/* BS_SORT_CHECK_H */
