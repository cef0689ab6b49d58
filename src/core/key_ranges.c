/*
 * key_ranges.c — ranges of normalised keys cut at a sample's quantiles, and
 * the cell table that finds a key's range (key_ranges.h).
 */
#include "key_ranges.h"
#include "bs_sort.h"

#include <stdlib.h>

/* qsort order of plain 64-bit keys. */
static int
compare_keys(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

/* The last j < nranges with lower[j] <= key, by bisection over all bounds. */
static uint32_t
range_by_bisection(const bs_key_ranges *kr, uint64_t key)
{
	uint32_t	j = 0;

	for (uint32_t step = kr->nranges / 2; step > 0; step /= 2)
		j += kr->lower[j + step] <= key ? step : 0;
	return j;
}

/* Cut the ranges at the sample's quantiles and fill the cell table (key_ranges.h). */
void
bs_key_ranges_cut(bs_key_ranges *kr, uint64_t *sample, size_t n, uint32_t nranges)
{
	uint64_t	span;

	if (bs_cpu_vqsort_keys64(sample, n, NULL) != BS_OK)
		qsort(sample, n, sizeof(uint64_t), compare_keys);
	kr->nranges = nranges;
	kr->lower[0] = 0;
	for (uint32_t j = 1; j < nranges; j++)
		kr->lower[j] = n > 0 ? sample[(size_t) j * n / nranges] : UINT64_MAX;
	kr->base = n > 0 ? sample[0] : 0;
	span = n > 0 ? sample[n - 1] - sample[0] : 0;
	kr->shift = 0;
	while ((span >> kr->shift) >= BS_KEY_CELLS)
		kr->shift++;
	for (uint32_t c = 0; c < BS_KEY_CELLS; c++)
	{
		uint64_t	least = kr->base + ((uint64_t) c << kr->shift);

		/* a cell whose least key would pass UINT64_MAX holds no key: any bound is below */
		kr->first[c] = (uint16_t) (least < kr->base ? nranges - 1 : range_by_bisection(kr, least));
	}
	kr->first[BS_KEY_CELLS] = (uint16_t) (nranges - 1);
}
