/*
 * test_cuda_sort.cc — the CUDA backend's host code and kernels together,
 * through the SIMT emulator, for the standard and the adaptive sorter:
 * bs_cuda_sort_pairs32/64 and the core's dispatch
 * against a qsort reference, pair for pair, for n from 0 to a few hundred
 * thousand (powers of two and not), five distributions, both shapes; inputs
 * larger than the memory limit (chunks merged on the host) within that
 * limit.  Each sort runs under a schedule seed of its own (in the
 * emulator, with its checks on).  Builds for a real GPU too.  The
 * launches and the traffic against the cost model: test_cuda_cost.cc.
 */
#include "cuda/cost_model.h"
#include "cuda/cuda_internal.cuh"
#include "cuda_test.h"

#include <string>

static bs_algorithm algo = BS_ALGO_BITONIC;	/* the sorter under test */

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
		if (!(ok = check_sort<P>(algo, n, GEN_RANDOM, false)))
			bad = n;
	unit_report(ok, "cuda %s %s random n=0..300%s", bs_algorithm_name(algo), shape_name((P *) 0),
				ok ? "" : (" (fails at n=" + std::to_string(bad) + ")").c_str());
	for (int d = 0; d < GEN_DISTS; d++)
	{
		ok = true;
		for (size_t e = 0; e < sizeof(edges) / sizeof(edges[0]) && ok; e++)
			if (!(ok = check_sort<P>(algo, edges[e], (gen_dist) d, e % 2 == 1)))
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
		bool		ok = check_sort<P>(algo, sizes[s], GEN_RANDOM, false);

		unit_report(ok, "cuda %s %s random n=%zu (%.2f s emulated)", bs_algorithm_name(algo), shape_name((P *) 0),
					sizes[s], now_seconds() - t0);
	}
	for (int d = GEN_SORTED; d < GEN_DISTS; d++)
		unit_report(check_sort<P>(algo, 70001, (gen_dist) d, true), "cuda %s %s %s n=70001",
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
		ok = check_sort<P>(algo, 200003, GEN_RANDOM, false) && check_sort<P>(algo, 30001, GEN_FEW_DISTINCT, false);
		unit_report(ok && bs_emu_device_bytes_peak() <= allowed,
					"cuda %s %s in chunks: limit %zu bytes, peak device use %zu bytes",
					bs_algorithm_name(algo), shape_name((P *) 0), limits[l], bs_emu_device_bytes_peak());
#else
		ok = check_sort<P>(algo, 200003, GEN_RANDOM, false) && check_sort<P>(algo, 30001, GEN_FEW_DISTINCT, false);
		unit_report(ok, "cuda %s %s in chunks: limit %zu bytes (at least %zu)",
					bs_algorithm_name(algo), shape_name((P *) 0), limits[l], allowed);
#endif
	}
	bs_cuda_set_memory_limit(BS_CUDA_DEFAULT_LIMIT);
}

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
	}
	return cuda_test_exit();
}
