/*
 * test_key_ranges.c — key ranges cut from a sample (the ORDER BY store's
 * placement of rows): a key's range never decreases with the key, equal keys
 * share one, every range holds about its share of random keys, keys outside
 * the sample go to the end ranges, and a sample of one value makes one
 * non-empty range.
 */
#include "key_ranges.h"
#include "pairs_gen.h"
#include "unit.h"

#include <string.h>

/* Whether bs_key_range equals the last j with lower[j] <= key, found by a linear walk. */
static int
matches_linear(const bs_key_ranges *kr, uint64_t key)
{
	uint32_t	j = 0;

	while (j + 1 < kr->nranges && kr->lower[j + 1] <= key)
		j++;
	return bs_key_range(kr, key) == j;
}

/* Cut nranges ranges from n keys of a distribution and check them on 200000 more. */
static void
check_dist(gen_dist dist, uint32_t nranges, size_t n)
{
	uint64_t	state = 0x9e3779b97f4a7c15ULL + dist;
	uint64_t   *sample = malloc(n * sizeof(uint64_t));
	bs_key_ranges *kr = malloc(sizeof(bs_key_ranges));
	size_t	   *count = calloc(nranges, sizeof(size_t));
	size_t		probes = 200000;
	size_t		most = 0;
	int			ok = 1;

	for (size_t i = 0; i < n; i++)
		sample[i] = gen_key(dist, i, n, &state);
	bs_key_ranges_cut(kr, sample, n, nranges);
	ok &= kr->lower[0] == 0;
	for (uint32_t j = 1; j < nranges; j++)
		ok &= kr->lower[j - 1] <= kr->lower[j];
	for (size_t i = 0; i < probes; i++)
	{
		uint64_t	key = gen_key(dist, i * n / probes, n, &state);

		ok &= matches_linear(kr, key);
		count[bs_key_range(kr, key)]++;
	}
	for (uint32_t j = 0; j < nranges; j++)
		most = count[j] > most ? count[j] : most;
	unit_report(ok, "%s keys, %u ranges: monotone bounds, search equals a linear walk",
				gen_dist_names[dist], nranges);
	if (dist == GEN_RANDOM)
		unit_report(most <= 2 * probes / nranges,
					"random keys, %u ranges from %zu samples: fullest range %zu of %zu keys (share %zu)",
					nranges, n, most, probes, probes / nranges);
	if (dist == GEN_ALL_EQUAL)
		unit_report(most == probes, "equal keys, %u ranges: all in one range", nranges);
	free(sample);
	free(kr);
	free(count);
}

/* Keys below and above every sampled key go to the first and last non-empty ranges. */
static void
check_outside(void)
{
	uint64_t	sample[64];
	static bs_key_ranges kr;

	for (int i = 0; i < 64; i++)
		sample[i] = 1000 + 10 * (uint64_t) (63 - i);
	bs_key_ranges_cut(&kr, sample, 64, 16);
	unit_report(bs_key_range(&kr, 0) == 0 &&
				bs_key_range(&kr, 999) == 0 &&
				bs_key_range(&kr, UINT64_MAX) == 15 &&
				bs_key_range(&kr, 1630) == 15 &&
				bs_key_range(&kr, 1000 + 10 * 32) == 8,
				"keys outside the sample: first and last range; a quantile starts its range");
}

/* The normalised key of a double (as the ORDER BY keys of float8). */
static uint64_t
double_key(double d)
{
	uint64_t	u;

	memcpy(&u, &d, sizeof(u));
	return (u >> 63) ? ~u : u | ((uint64_t) 1 << 63);
}

/*
 * Keys of doubles in [-0.5, 0.5) crowd into a few cells (half of them in one
 * binade): those cells are sliced, so that no slice spans more than a few
 * ranges and a key's range needs at most a short search.
 */
static void
check_crowded(void)
{
	uint64_t	state = 7;
	uint64_t   *sample = malloc(16384 * sizeof(uint64_t));
	bs_key_ranges *kr = malloc(sizeof(bs_key_ranges));
	uint32_t	widest = 0;
	int			ok = 1;

	for (int i = 0; i < 16384; i++)
		sample[i] = double_key((double) (gen_next(&state) >> 11) / 9007199254740992.0 - 0.5);
	bs_key_ranges_cut(kr, sample, 16384, 512);
	for (uint32_t c = 0; c < BS_KEY_CELLS; c++)
		for (uint32_t e = kr->entry[c]; e < kr->entry[c] + (1u << (kr->shift - kr->slice_shift[c])); e++)
		{
			uint32_t	width = (uint32_t) kr->range[e + 1] - kr->range[e];

			widest = width > widest ? width : widest;
		}
	for (int i = 0; i < 200000; i++)
		ok &= matches_linear(kr, double_key((double) (gen_next(&state) >> 11) / 9007199254740992.0 - 0.5));
	unit_report(ok && widest <= 4, "float8-like keys, 512 ranges: right ranges, widest slice spans %u ranges (at most 4)",
				widest);
	free(sample);
	free(kr);
}

/*
 * Ranges of every power-of-two count, from samples of every spread (a tight
 * cluster with far outliers, keys near UINT64_MAX), agree with the linear
 * walk at each bound, its neighbours and random keys.
 */
static void
check_bounds(void)
{
	uint64_t	state = 42;
	uint64_t	sample[4096];
	static bs_key_ranges kr;
	int			ok = 1;

	for (int spread = 0; spread < 4; spread++)
		for (uint32_t nranges = 1; nranges <= BS_KEY_RANGES_MAX; nranges *= 2)
		{
			for (int i = 0; i < 4096; i++)
			{
				uint64_t	r = gen_next(&state);

				sample[i] = spread == 0 ? r >> (i % 7) :
					spread == 1 ? (i % 100 == 0 ? r : 5000 + r % 64) :
					spread == 2 ? UINT64_MAX - r % 100000 :
					(uint64_t) (i % 3);
			}
			bs_key_ranges_cut(&kr, sample, 4096, nranges);
			for (uint32_t j = 0; j < nranges; j++)
			{
				ok &= matches_linear(&kr, kr.lower[j]);
				ok &= kr.lower[j] == 0 || matches_linear(&kr, kr.lower[j] - 1);
				ok &= kr.lower[j] == UINT64_MAX || matches_linear(&kr, kr.lower[j] + 1);
			}
			for (int i = 0; i < 2000; i++)
			{
				uint64_t	r = gen_next(&state);

				ok &= matches_linear(&kr, r);
				ok &= matches_linear(&kr, r % 70000);
				ok &= matches_linear(&kr, UINT64_MAX - r % 200000);
			}
		}
	unit_report(ok, "1..%d ranges, four spreads of sample: bounds, neighbours and random keys in the right range",
				BS_KEY_RANGES_MAX);
}

int
main(void)
{
	for (int d = 0; d < GEN_DISTS; d++)
		check_dist((gen_dist) d, 512, 16384);
	check_dist(GEN_RANDOM, 16, 512);
	check_dist(GEN_RANDOM, 1024, 32768);
	check_outside();
	check_bounds();
	check_crowded();
	return unit_exit_status();
}
