/*
 * key_ranges.h — consecutive ranges of normalised keys holding about equal
 * numbers of keys, cut from a sample: the ORDER BY tuple store writes each
 * row next to rows whose keys are in the same range, so that emitting the
 * rows in key order reads one range's rows (a few MB) at a time instead of
 * the whole store at random.
 *
 * A key's range is the last j with lower[j] <= key: a function of the key
 * alone (equal keys always share one), non-decreasing in it.  Finding it
 * takes one look-up in a table of cells (equal slices of the sample's span)
 * and, where a cell holds range bounds, a search among those only.
 */
#ifndef BS_KEY_RANGES_H
#define BS_KEY_RANGES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most ranges, and the cells of the look-up table. */
#define BS_KEY_RANGES_MAX 1024
#define BS_KEY_CELLS 4096

typedef struct bs_key_ranges
{
	uint32_t	nranges;		/* a power of two, 1..BS_KEY_RANGES_MAX */
	uint32_t	shift;			/* a key's cell: (key - base) >> shift, at most the last */
	uint64_t	base;			/* the least sampled key */
	uint64_t	lower[BS_KEY_RANGES_MAX];	/* least key of each range; lower[0] = 0 */
	uint16_t	first[BS_KEY_CELLS + 1];	/* range of each cell's least key; then the last range */
} bs_key_ranges;

/*
 * Cut nranges ranges at quantiles of the n keys of sample (sorted here, in
 * place); a range whose bound equals the next one's is empty.
 */
extern void bs_key_ranges_cut(bs_key_ranges *kr, uint64_t *sample, size_t n, uint32_t nranges);

/* The range of a key: the last j with lower[j] <= key. */
static inline uint32_t
bs_key_range(const bs_key_ranges *kr, uint64_t key)
{
	uint64_t	cell;
	uint32_t	lo;
	uint32_t	hi;

	if (key < kr->base)
		return 0;				/* below every bound but lower[0] */
	cell = (key - kr->base) >> kr->shift;
	if (cell > BS_KEY_CELLS - 1)
		cell = BS_KEY_CELLS - 1;
	lo = kr->first[cell];
	hi = kr->first[cell + 1];
	while (lo < hi)
	{
		uint32_t	mid = (lo + hi + 1) / 2;

		if (kr->lower[mid] <= key)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

#ifdef __cplusplus
}
#endif

#endif							/* BS_KEY_RANGES_H */
