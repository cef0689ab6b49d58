/*
 * scan_place.c — where a BitonicSort node stores each row: next to rows of
 * nearby first-column keys.
 *
 * Emit reads the rows in key order.  Stored in input order they lie all
 * over the store, and every row is a cache miss and, in 4 kB pages, a TLB
 * miss: so the store used transparent huge pages, which a VM may fault in
 * slowly (docs/order-by.md, "Huge pages").  Placed by key range, the rows
 * of one range lie in the chunks of one stream (about 1 MB in all), and
 * emit reads one range after the other: a few MB at a time, which the
 * caches and the TLB hold, in 4 kB pages.
 *
 * The ranges are cut at quantiles of the first rows' keys (the sample, kept
 * in input order at the start of the store); a key outside the sample goes
 * to the first or last range.  Only a first column whose key is cheap to
 * compute for one row (an exact key, "C" text's prefix) is placed: the key
 * decides the row's stream before the row is stored, and is computed again
 * for the pairs with the rest of its batch.  Equal keys share a range and a
 * stream's locators grow with input order, so ties stay in input order.
 */
#include "scan.h"

#include "core/key_ranges.h"

#include "executor/tuptable.h"

/* Bytes of rows a key range should hold, and the fewest ranges worth placing. */
#define RANGE_BYTES ((size_t) 1024 * 1024)
#define MIN_RANGES 16

/* Sampled rows per key range (the first rows of the input). */
#define SAMPLE_PER_RANGE 32

/*
 * Plan the placement of a sort of about expected_bytes of rows: when the
 * rows are many and the key cheap, the ranges to cut, and the store's large
 * blocks in 4 kB pages (or the pool's).
 */
void
BitonicPlacePlan(BitonicScanState *state, double expected_bytes)
{
	uint32		nranges = MIN_RANGES;

	state->place_ranges = 0;
	state->nranges = 0;
	if (!BitonicMultiSortHasCheapKey(&state->ms) ||
		expected_bytes < (double) MIN_RANGES * RANGE_BYTES)
		return;
	while (nranges < BS_KEY_RANGES_MAX && (double) nranges * 2 * RANGE_BYTES <= expected_bytes)
		nranges *= 2;
	state->place_ranges = nranges;
	state->store.pages = BITONIC_PAGES_SMALL;
}

/* Rows to read in order before the ranges are cut (0: no placement planned). */
size_t
BitonicPlaceSampleRows(const BitonicScanState *state)
{
	return (size_t) state->place_ranges * SAMPLE_PER_RANGE;
}

/*
 * Cut the ranges from the keys of the rows read so far (every one of them
 * keyed) and open one stream per range, and one for NULLs.  With fewer
 * non-NULL keys than ranges nothing is placed, and the store's next blocks
 * take huge pages again.
 */
void
BitonicPlaceStart(BitonicScanState *state)
{
	size_t		max = BitonicPlaceSampleRows(state);
	uint64	   *sample = palloc(max * sizeof(uint64));
	size_t		n = BitonicMultiSortFirstKeys(&state->ms, sample, max);

	Assert(state->nbatch == 0);
	if (n < state->place_ranges)
	{
		state->store.pages = BITONIC_PAGES_HUGE;
		state->place_ranges = 0;
		pfree(sample);
		return;
	}
	state->ranges = MemoryContextAlloc(state->cxt, sizeof(bs_key_ranges));
	bs_key_ranges_cut(state->ranges, sample, n, state->place_ranges);
	pfree(sample);
	state->nranges = state->place_ranges;
	BitonicStoreOpenStreams(&state->store, state->nranges + 1);
}

/* The stream of the slot's row: its first column's key range, or the NULL stream. */
int
BitonicPlaceStream(BitonicScanState *state, TupleTableSlot *slot)
{
	bool		isnull;
	Datum		value = slot_getattr(slot, state->keys.attnos[0], &isnull);

	if (isnull)
		return (int) state->nranges;
	return (int) bs_key_range(state->ranges, BitonicMultiSortKeyOf(&state->ms, value));
}
