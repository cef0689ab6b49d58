/*
 * test_cuda_cost.cc — the CUDA sorters against the cost model of
 * docs/cuda.md (cuda/cost_model.h), through the SIMT emulator's counters:
 * the kernel launches of whole sorts, the global-memory traffic of sorts of
 * 2^16 to 2^20 pairs in full passes, and the packed or wide way of 64-bit
 * keys at the 2^32 span edge, for the standard and the adaptive sorter and
 * both shapes (every sort also checked pair for pair against qsort).  Apart
 * from test_cuda_sort so that the two run side by side: about a minute
 * each.  Emulator only (mk/unit.mk builds it there, not for a real GPU).
 */
#include "cuda/cost_model.h"
#include "cuda/cuda_internal.cuh"
#include "cuda_test.h"

#ifndef BS_CUDA_EMU
#error "test_cuda_cost needs the SIMT emulator's counters"
#endif

static bs_algorithm algo = BS_ALGO_BITONIC;	/* the sorter under test */

/* The cost model of one sort of n pairs by the sorter under test (narrow: 64-bit keys spanning less than 2^32). */
template<typename P>
static bs_cuda_cost
model_cost(size_t n, bool narrow)
{
	if (sizeof(P) == sizeof(bs_pair32))
		return bs_cost_sort32(n, algo == BS_ALGO_ADAPTIVE);
	return bs_cost_sort64(n, algo == BS_ALGO_ADAPTIVE, narrow);
}

/* The emulator's launch counter agrees with the cost model. */
template<typename P>
static void
test_launch_count(void)
{
	const size_t sizes[] = {2, 4096, 4097, 65536, 131073};
	bool		ok = true;

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		long		before = bs_emu_op_count(BS_EMU_LAUNCH);

		ok &= check_sort<P>(algo, sizes[s], GEN_REVERSED, false);
		ok &= bs_emu_op_count(BS_EMU_LAUNCH) - before == model_cost<P>(sizes[s], true).launches;
		before = bs_emu_op_count(BS_EMU_LAUNCH);
		ok &= check_sort<P>(algo, sizes[s], GEN_RANDOM, false);
		ok &= bs_emu_op_count(BS_EMU_LAUNCH) - before == model_cost<P>(sizes[s], false).launches;
	}
	unit_report(ok, "cuda %s %s: kernel launches as the cost model counts them",
				bs_algorithm_name(algo), shape_name((P *) 0));
}

/*
 * The most traffic the adaptive sorter's co-rank searches add, in passes
 * over n pairs of pair_bytes: per stage and tile, `sectors` sectors for each
 * of at most 2 log2(n) probes (two for a pair of the split store: its key
 * and its pointer), one for the co-rank written, and two where the tile's
 * pieces start and end inside a sector (the standard sorter: none).
 */
static double
search_passes(size_t n, size_t tile, size_t pair_bytes, unsigned sectors)
{
	double		log2n = 0,
				stages = 0;

	if (algo != BS_ALGO_ADAPTIVE)
		return 0.0;
	for (size_t m = n; m > 1; m /= 2)
		log2n++;
	for (size_t k = 2 * tile; k <= bs_pow2_ceil(n); k *= 2)
		stages++;
	return stages * (2 * sectors * log2n + 3) * 32 / (2.0 * tile * pair_bytes);
}

/*
 * The global-memory traffic the emulator measures for whole sorts, in full
 * passes (2 n sizeof(P) bytes): of random pairs, and for 64-bit pairs also
 * of keys spanning less than 2^32 (sorted packed): the standard sorter's
 * equals the cost model's (but for the tiles' spans, under a hundredth of
 * a pass); the adaptive one's, the model's plus at most what the co-rank
 * searches add.
 */
template<typename P>
static void
test_traffic(void)
{
	for (int narrow = 0; narrow <= (sizeof(P) == sizeof(bs_pair64) ? 1 : 0); narrow++)
		for (unsigned e = 16; e <= 20; e += 2)
		{
			size_t		n = (size_t) 1 << e;
			bs_emu_traffic before = bs_emu_traffic_total(),
						after;
			bool		ok = check_sort<P>(algo, n, narrow ? GEN_FEW_DISTINCT : GEN_RANDOM, false);
			double		passes,
						model = model_cost<P>(n, narrow).passes,
						extra = sizeof(P) == sizeof(bs_pair32) ? search_passes(n, BS_CUDA_TILE_PAIRS32, 8, 1) :
				narrow ? search_passes(n, BS_CUDA_TILE_PAIRS32, 8, 1) / 2 : search_passes(n, BS_CUDA_TILE_PAIRS64, 16, 2);

			after = bs_emu_traffic_total();
			passes = (double) (after.read_bytes - before.read_bytes + after.written_bytes - before.written_bytes) /
				(2.0 * (double) n * sizeof(P));
			ok &= passes >= model && passes <= model + extra + 0.01;
			unit_report(ok, "cuda %s %s%s n=2^%u: %.2f full passes over global memory measured, the cost model's %.2f%s",
						bs_algorithm_name(algo), shape_name((P *) 0), narrow ? " (keys spanning < 2^32)" : "", e,
						passes, model, algo == BS_ALGO_ADAPTIVE ? " (and the searches')" : "");
		}
}

/* 64-bit keys spanning exactly 2^32 - 1 go the packed way, 2^32 the wide one; both sort right. */
static void
test_span_edge(void)
{
	for (uint64_t span : {(uint64_t) UINT32_MAX, (uint64_t) UINT32_MAX + 1})
	{
		bs_options	opt = {BS_BACKEND_CUDA, algo, 1, NULL, NULL};
		size_t		n = 50000;
		std::vector<bs_pair64> a(n), ref;
		long		before = bs_emu_op_count(BS_EMU_LAUNCH);
		bool		ok;

		gen_pairs(a.data(), n, GEN_RANDOM, span);
		for (size_t i = 0; i < n; i++)
			a[i].key = ~(uint64_t) 0 - span + (i % 3 == 0 ? 0 : i % 3 == 1 ? span : a[i].key % span);
		ref = a;
		ref_sort(ref.data(), n);
		ok = cuda_sort(a.data(), n, &opt) == BS_OK && same_pairs(a, ref);
		ok &= bs_emu_op_count(BS_EMU_LAUNCH) - before == model_cost<bs_pair64>(n, span <= UINT32_MAX).launches;
		unit_report(ok, "cuda %s pairs64: keys up to 2^64 - 1 spanning %llu sorted the %s way",
					bs_algorithm_name(algo), (unsigned long long) span, span <= UINT32_MAX ? "packed" : "wide");
	}
}

int
main(void)
{
	for (algo = BS_ALGO_BITONIC; algo <= BS_ALGO_ADAPTIVE; algo = (bs_algorithm) (algo + 1))
	{
		test_launch_count<bs_pair32>();
		test_launch_count<bs_pair64>();
		test_traffic<bs_pair32>();
		test_traffic<bs_pair64>();
		test_span_edge();
	}
	return cuda_test_exit();
}
