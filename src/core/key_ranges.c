/*
 * key_ranges.c — ranges of normalised keys cut at a sample's quantiles, and
 * the table of cells and slices that finds a key's range (key_ranges.h).
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

/* Range of the key at offset from base; past UINT64_MAX there is no key, so the last. */
static uint16_t
range_at(const bs_key_ranges *kr, uint64_t offset)
{
	uint64_t	key = kr->base + offset;

	return (uint16_t) (key < kr->base ? kr->nranges - 1 : range_by_bisection(kr, key));
}

/* log2 of the slices for a cell holding `bounds` range bounds: about four slices a bound. */
static uint32_t
slice_bits(uint32_t bounds, uint32_t shift)
{
	uint32_t	bits = 0;

	if (bounds == 0)
		return 0;
	while (((uint32_t) 1 << bits) < bounds)
		bits++;
	bits += 2;
	bits = bits < BS_KEY_SLICE_BITS_MAX ? bits : BS_KEY_SLICE_BITS_MAX;
	return bits < shift ? bits : shift;
}

/* Cut the ranges at the sample's quantiles and fill the look-up table (key_ranges.h). */
void
bs_key_ranges_cut(bs_key_ranges *kr, uint64_t *sample, size_t n, uint32_t nranges)
{
	uint64_t	span;
	uint32_t	e = 0;

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
	/* the last offset inside the last cell (cells may reach past UINT64_MAX) */
	kr->last = kr->shift + 12 >= 64 ? UINT64_MAX :
		((uint64_t) BS_KEY_CELLS << kr->shift) - 1;

	for (uint32_t c = 0; c < BS_KEY_CELLS; c++)
	{
		uint64_t	start = (uint64_t) c << kr->shift;
		uint32_t	first = range_at(kr, start);
		uint32_t	next = c + 1 < BS_KEY_CELLS ? range_at(kr, start + ((uint64_t) 1 << kr->shift)) :
			nranges - 1;
		uint32_t	bits = slice_bits(next - first, kr->shift);

		kr->entry[c] = e;
		kr->slice_shift[c] = (uint8_t) (kr->shift - bits);
		for (uint64_t s = 0; s < ((uint64_t) 1 << bits); s++)
			kr->range[e++] = s == 0 ? (uint16_t) first : range_at(kr, start + (s << kr->slice_shift[c]));
	}
	kr->range[e] = (uint16_t) (nranges - 1);
}
