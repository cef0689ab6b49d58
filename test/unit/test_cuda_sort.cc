/*
 * test_cuda_sort.cc — the CUDA backend's host code and kernels together,
 * through the SIMT emulator, for the standard and the adaptive sorter:
 * bs_cuda_sort_pairs32/64 and the core's dispatch
 * against a qsort reference, pair for pair, for n from 0 to a few hundred
 * thousand (powers of two and not), five distributions, both shapes; inputs
 * larger than the memory limit (chunks merged on the host) within that
 * limit; the number of kernel launches the cost model assumes.  Each sort
 * runs under a schedule seed of its own (in the emulator, with its checks
 * on).  Builds for a real GPU too, without the emulator's counters.
 */
#include "cuda/cost_model.h"
#include "cuda/cuda_internal.cuh"
#include "cuda_test.h"

#include <string>

static bs_algorithm algo = BS_ALGO_BITONIC;	/* the sorter under test */

/* Sort one input on the GPU and by qsort; true when identical and (emulator) nothing leaked. */
template<typename P>
static bool
check_sort(size_t n, gen_dist dist, bool via_core)
{
	bs_options	opt = {BS_BACKEND_CUDA, algo, 1, NULL, NULL};
	std::vector<P> a(n), ref;

	gen_pairs(a.data(), n, dist, n * 7919 + dist);
	ref = a;
	ref_sort(ref.data(), n);
	use_seed(n * 7919 + dist + algo);
	if ((via_core ? core_sort(a.data(), n, &opt) : cuda_sort(a.data(), n, &opt)) != BS_OK)
		return false;
#ifdef BS_CUDA_EMU
	if (bs_emu_live_objects() != 0)
		return false;
#endif
	return same_pairs(a, ref);
}

/* Every n from 0 to 300 (random) and the edges of tiles in every distribution. */
template<typename P>
static void
test_small(void)
{
	const size_t T = bs_pair_ops<P>::tile;
	const size_t edges[] = {0, 1, 2, 3, 15, 16, 17, 255, 256, 257, T - 1, T, T + 1, 2 * T + 3};
	bool		ok = true;
	size_t		bad = 0;

	for (size_t n = 0; n <= 300 && ok; n++)
		if (!(ok = check_sort<P>(n, GEN_RANDOM, false)))
			bad = n;
	unit_report(ok, "cuda %s %s random n=0..300%s", bs_algorithm_name(algo), shape_name((P *) 0),
				ok ? "" : (" (fails at n=" + std::to_string(bad) + ")").c_str());
	for (int d = 0; d < GEN_DISTS; d++)
	{
		ok = true;
		for (size_t e = 0; e < sizeof(edges) / sizeof(edges[0]) && ok; e++)
			if (!(ok = check_sort<P>(edges[e], (gen_dist) d, e % 2 == 1)))
				bad = edges[e];
		unit_report(ok, "cuda %s %s %s n=0..2T+3 at the edges, direct and via bs_sort_pairs%s",
					bs_algorithm_name(algo), shape_name((P *) 0), gen_dist_names[d],
					ok ? "" : (" (fails at n=" + std::to_string(bad) + ")").c_str());
	}
}

/* Large n, powers of two and not, through several merge stages. */
template<typename P>
static void
test_large(void)
{
	const size_t sizes[] = {65536, 100003, 262145, 300000};

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		double		t0 = now_seconds();
		bool		ok = check_sort<P>(sizes[s], GEN_RANDOM, false);

		unit_report(ok, "cuda %s %s random n=%zu (%.2f s emulated)", bs_algorithm_name(algo), shape_name((P *) 0),
					sizes[s], now_seconds() - t0);
	}
	for (int d = GEN_SORTED; d < GEN_DISTS; d++)
		unit_report(check_sort<P>(70001, (gen_dist) d, true), "cuda %s %s %s n=70001",
					bs_algorithm_name(algo), shape_name((P *) 0), gen_dist_names[d]);
}

/* Inputs beyond the memory limit: sorted in chunks, merged, never over the limit. */
template<typename P>
static void
test_chunks(void)
{
	const size_t limits[] = {10000 * sizeof(P), 65536 * sizeof(P), 1};

	for (size_t l = 0; l < sizeof(limits) / sizeof(limits[0]); l++)
	{
		/* below one tile and its scratch the limit cannot hold */
		size_t		least = bs_pair_ops<P>::tile * sizeof(P) + bs_gpu_scratch_bytes<P>(bs_pair_ops<P>::tile, algo);
		size_t		allowed = limits[l] > least ? limits[l] : least;
		bool		ok;

		bs_cuda_set_memory_limit(limits[l]);
#ifdef BS_CUDA_EMU
		bs_emu_reset_peak();
		ok = check_sort<P>(200003, GEN_RANDOM, false) && check_sort<P>(30001, GEN_FEW_DISTINCT, false);
		unit_report(ok && bs_emu_device_bytes_peak() <= allowed,
					"cuda %s %s in chunks: limit %zu bytes, peak device use %zu bytes",
					bs_algorithm_name(algo), shape_name((P *) 0), limits[l], bs_emu_device_bytes_peak());
#else
		ok = check_sort<P>(200003, GEN_RANDOM, false) && check_sort<P>(30001, GEN_FEW_DISTINCT, false);
		unit_report(ok, "cuda %s %s in chunks: limit %zu bytes (at least %zu)",
					bs_algorithm_name(algo), shape_name((P *) 0), limits[l], allowed);
#endif
	}
	bs_cuda_set_memory_limit(BS_CUDA_DEFAULT_LIMIT);
}

#ifdef BS_CUDA_EMU
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

		ok &= check_sort<P>(sizes[s], GEN_REVERSED, false);
		ok &= bs_emu_op_count(BS_EMU_LAUNCH) - before == model_cost<P>(sizes[s], true).launches;
		before = bs_emu_op_count(BS_EMU_LAUNCH);
		ok &= check_sort<P>(sizes[s], GEN_RANDOM, false);
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
			bool		ok = check_sort<P>(n, narrow ? GEN_FEW_DISTINCT : GEN_RANDOM, false);
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
#endif

int
main(void)
{
	char		info[400];

#ifdef BS_CUDA_EMU
	unit_report(bs_cuda_device_info(info, sizeof(info)) == 1 && strstr(info, "SIMT emulator") != NULL,
				"bs_cuda_device_info: the emulated device is usable (%s)", info);
#else
	unit_report(bs_cuda_device_info(info, sizeof(info)) == 1, "bs_cuda_device_info: the device is usable (%s)", info);
#endif
	for (algo = BS_ALGO_BITONIC; algo <= BS_ALGO_ADAPTIVE; algo = (bs_algorithm) (algo + 1))
	{
		test_small<bs_pair32>();
		test_small<bs_pair64>();
		test_large<bs_pair32>();
		test_large<bs_pair64>();
		test_chunks<bs_pair32>();
		test_chunks<bs_pair64>();
#ifdef BS_CUDA_EMU
		test_launch_count<bs_pair32>();
		test_launch_count<bs_pair64>();
		test_traffic<bs_pair32>();
		test_traffic<bs_pair64>();
		test_span_edge();
#endif
	}
	return cuda_test_exit();
}
