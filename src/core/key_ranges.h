/*
 * key_ranges.h — consecutive ranges of normalised keys holding about equal
 * numbers of keys, cut from a sample: the ORDER BY tuple store writes each
 * row next to rows whose keys are in the same range, so that emitting the
 * rows in key order reads one range's rows (a few MB) at a time instead of
 * the whole store at random.
 *
 * A key's range is the last j with lower[j] <= key: a function of the key
 * alone (equal keys always share one), non-decreasing in it.  Finding it
 * takes no search for most keys: the sample's span is cut into equal cells,
 * a cell that holds any range bound into equal slices, about four a bound
 * (normalised float keys crowd into a few cells), and a table gives the
 * range of each slice's least key and of the next one's; only where those
 * differ is there a search, among those ranges alone, and where they differ
 * by one (the slice holds one bound, the usual case) it is one comparison.
 * A cell of b bounds takes at most 8b entries, hence BS_KEY_ENTRIES.
 */
#ifndef BS_KEY_RANGES_H
#define BS_KEY_RANGES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most ranges; cells of the span; most slices of one cell (log2); table entries. */
#define BS_KEY_RANGES_MAX 1024
#define BS_KEY_CELLS 4096
#define BS_KEY_SLICE_BITS_MAX 10
#define BS_KEY_ENTRIES (BS_KEY_CELLS + 8 * BS_KEY_RANGES_MAX + 1)

typedef struct bs_key_ranges
{
	uint32_t	nranges;		/* a power of two, 1..BS_KEY_RANGES_MAX */
	uint32_t	shift;			/* log2 of a cell's width */
	uint64_t	base;			/* the least sampled key */
	uint64_t	last;			/* offsets from base beyond this are in the last slice */
	uint64_t	lower[BS_KEY_RANGES_MAX];	/* least key of each range; lower[0] = 0 */
	uint32_t	entry[BS_KEY_CELLS];	/* the table entry of each cell's first slice */
	uint8_t		slice_shift[BS_KEY_CELLS];	/* log2 of the width of the cell's slices */
	uint16_t	range[BS_KEY_ENTRIES];	/* range of each slice's least key, in order */
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
	uint64_t	offset;
	uint64_t	cell;
	uint32_t	e;
	uint32_t	lo;
	uint32_t	hi;

	if (key < kr->base)
		return 0;				/* below every bound but lower[0] */
	offset = key - kr->base;
	offset = offset < kr->last ? offset : kr->last;
	cell = offset >> kr->shift;
	e = kr->entry[cell] + (uint32_t) ((offset - (cell << kr->shift)) >> kr->slice_shift[cell]);
	lo = kr->range[e];
	hi = kr->range[e + 1];
	/* a slice rarely holds more than one bound: one comparison, no branch to mispredict */
	if (hi - lo <= 1)
		return lo + (uint32_t) ((hi > lo) & (kr->lower[hi] <= key));
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
