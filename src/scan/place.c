/*
 * place.c — where a BitonicSort node stores each row: next to rows of
 * nearby first-column keys.
 *
 * Emit reads the rows in key order.  Stored in input order they lie all
 * over the store, and every row is a cache miss and, in 4 kB pages, a TLB
 * miss: so such a store takes transparent huge pages, which a VM may fault
 * in slowly (docs/order-by.md, "Huge pages").  Placed by key range, the
 * rows of one range lie in the chunks of one stream (about 1 MB in all),
 * and emit reads one range after the other: a few MB at a time, which the
 * caches and the TLB hold, in 4 kB pages (under
 * bitonic_sort.transparent_huge_pages = mixed; where it is "always", or
 * "auto" on a machine whose 4 kB pages are slow, every block asks for
 * huge pages all the same: large_alloc.c).
 *
 * The ranges are cut at quantiles of the first rows' keys (the sample, kept
 * in input order at the start of the store), and cut again from the keys
 * that arrived since, each time the rows read have grown fourfold, so that
 * an input whose keys drift still finds ranges that fit it.  At each cut
 * after the first every stream leaves its chunk: a chunk only ever holds
 * rows of one range of one cut, and the rows that follow a cut lie above
 * every row before it.  Only a first column whose key is cheap to compute
 * for one row (an exact key, the prefix of text in byte order) is placed:
 * the key decides the row's stream before the row is stored (and, without
 * the worker of ingest.c, is computed again for the pairs with the
 * rest of its batch).  Between two cuts equal keys share a
 * range and a stream's locators grow with input order; a cut may move a
 * key to another stream, whose new chunk lies above the key's earlier rows.
 * So ties stay in input order.
 */
#include "scan/place.h"


#include "executor/tuptable.h"

/*
 * Bytes of rows a key range should hold, the fewest ranges, and the fewest
 * bytes of rows worth placing (below, the rows' 4 kB pages cost more than
 * the random reads they save: docs/order-by.md).
 */
#define RANGE_BYTES ((size_t) 2 * 1024 * 1024)
#define MIN_RANGES 16
#define PLACE_MIN_BYTES ((double) 128 * 1024 * 1024)

/* Keys sampled per range at each cut, and the growth of the rows read between cuts. */
#define SAMPLE_PER_RANGE 32
#define RECUT_GROWTH 4

/*
 * Plan the placement of a sort of about expected_bytes of rows: when the
 * rows are many and the key cheap, the ranges to cut, and the store's large
 * blocks of the kind read in order (4 kB pages under "mixed"; or the pool's).
 */
void
BitonicPlacePlan(BitonicScanState *state, double expected_bytes)
{
	uint32		nranges = MIN_RANGES;

	state->place_ranges = 0;
	state->nranges = 0;
	if (!BitonicMultiSortHasCheapKey(&state->ms) || expected_bytes < PLACE_MIN_BYTES)
		return;
	while (nranges < BS_KEY_RANGES_MAX && (double) nranges * 2 * RANGE_BYTES <= expected_bytes)
		nranges *= 2;
	state->place_ranges = nranges;
	state->next_cut = (size_t) nranges * SAMPLE_PER_RANGE;
	state->cut_from = 0;
	state->store.pages = BITONIC_PAGES_SMALL;
}

/*
 * Cut the ranges from the keys of the rows read since the last cut (every
 * row read is keyed); the first cut opens one stream per range and one for
 * NULLs.  When the first cut finds fewer non-NULL keys than ranges nothing
 * is placed, and the store's next blocks take huge pages again; a later cut
 * that finds too few keeps the ranges it has.
 */
void
BitonicPlaceCut(BitonicScanState *state)
{
	size_t		max = (size_t) state->place_ranges * SAMPLE_PER_RANGE;
	uint64	   *sample = palloc(max * sizeof(uint64));
	size_t		n = BitonicMultiSortSampleKeys(&state->ms, state->cut_from, sample, max);

	Assert(state->nbatch == 0);
	state->cut_from = BitonicMultiSortPairCount(&state->ms);
	state->next_cut = state->ntuples * RECUT_GROWTH;
	if (n >= state->place_ranges)
	{
		if (state->ranges == NULL)
			state->ranges = MemoryContextAlloc(state->cxt, sizeof(bs_key_ranges));
		bs_key_ranges_cut(state->ranges, sample, n, state->place_ranges);
		if (state->nranges == 0)
			BitonicStoreOpenStreams(&state->store, state->place_ranges + 1);
		else
			BitonicStoreCloseChunks(&state->store);
		state->nranges = state->place_ranges;
		state->range_cuts++;
	}
	else if (state->nranges == 0)
	{
		state->store.pages = BITONIC_PAGES_HUGE;
		state->place_ranges = 0;
	}
	pfree(sample);
}

/* The stream of the slot's row: its first column's key range, or the NULL stream. */
int
BitonicPlaceStream(BitonicScanState *state, TupleTableSlot *slot)
{
	bool		isnull;
	Datum		value = slot_getattr(slot, state->keys.attnos[0], &isnull);

	return BitonicKeyStream(state->ranges, state->nranges,
							isnull ? 0 : BitonicMultiSortKeyIn(&state->ms, value), isnull);
}
