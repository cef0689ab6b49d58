/*
 * test_cuda_kernels.cc — every kernel of the standard bitonic sorter run
 * through the SIMT emulator, each against a CPU reference of what that one
 * launch must do, for both pair shapes; plus the emulator's own semantics
 * (barriers, indices, launch errors) and its speed on a 64K-pair tile sort.
 */
#include "cuda/bitonic_kernels.cuh"
#include "cuda_test.h"

/* Each thread stores its index, waits at the barrier, reads its neighbour's. */
__global__ void
barrier_probe(unsigned *out)
{
	__shared__ unsigned s[1024];
	unsigned	t = threadIdx.x + threadIdx.y * blockDim.x;
	unsigned	nt = blockDim.x * blockDim.y;

	s[t] = t + 1000 * blockIdx.x;
	__syncthreads();
	out[blockIdx.x * nt + t] = s[(t + 1) % nt] + gridDim.x * 1000000;
	__syncthreads();
}

/* Barriers, 2-D blocks, grid indices and a bad configuration. */
static void
test_emulator(void)
{
	std::vector<unsigned> out(3 * 256);
	bool		ok = true;

	BS_LAUNCH(barrier_probe, dim3(3), dim3(32, 8), 0, nullptr)(out.data());
	ok = cudaGetLastError() == cudaSuccess;
	for (unsigned b = 0; b < 3; b++)
		for (unsigned t = 0; t < 256; t++)
			ok &= out[b * 256 + t] == (t + 1) % 256 + 1000 * b + 3000000;
	unit_report(ok, "emulator: __syncthreads orders shared-memory writes before reads, 3 blocks of 32x8");

	BS_LAUNCH(barrier_probe, dim3(1), dim3(1025), 0, nullptr)(out.data());
	unit_report(cudaGetLastError() == cudaErrorInvalidConfiguration && cudaGetLastError() == cudaSuccess,
				"emulator: 1025 threads a block is an invalid configuration, reported once");
}

/* bs_tile_sort: every tile (the last one partial) equals its sorted input. */
template<typename P>
static void
test_tile_sort(size_t n, gen_dist dist)
{
	const size_t T = bs_pair_ops<P>::tile;
	size_t		ntiles = (n + T - 1) / T;
	std::vector<P> a(n), ref;
	double		t0;

	gen_pairs(a.data(), n, dist, n + dist);
	ref = a;
	for (size_t lo = 0; lo < n; lo += T)
		ref_sort(ref.data() + lo, n - lo < T ? n - lo : T);
	t0 = now_seconds();
	BS_LAUNCH(bs_tile_sort<P>, dim3((unsigned) ntiles), dim3(BS_CUDA_TILE_THREADS), 0, nullptr)(a.data(), n);
	unit_report(cudaGetLastError() == cudaSuccess && same_pairs(a, ref),
				"bs_tile_sort %s n=%zu %s: every tile sorted (%.3f s)",
				shape_name(a.data()), n, gen_dist_names[dist], now_seconds() - t0);
}

/* bs_tile_merge: tiles that each hold a bitonic sequence come out sorted. */
template<typename P>
static void
test_tile_merge(size_t n)
{
	const size_t T = bs_pair_ops<P>::tile;
	size_t		ntiles = (n + T - 1) / T;
	std::vector<P> a(n), ref;

	gen_pairs(a.data(), n, GEN_RANDOM, n);
	for (size_t lo = 0; lo < n; lo += T)
	{
		size_t		m = n - lo < T ? n - lo : T;
		size_t		half = m < T / 2 ? m : T / 2;

		/* ascending first half, descending rest: bitonic, as after the global steps */
		ref_sort(a.data() + lo, half);
		ref_sort(a.data() + lo + half, m - half);
		for (size_t i = 0; i < (m - half) / 2; i++)
		{
			P			t = a[lo + half + i];

			a[lo + half + i] = a[lo + m - 1 - i];
			a[lo + m - 1 - i] = t;
		}
	}
	ref = a;
	for (size_t lo = 0; lo < n; lo += T)
		ref_sort(ref.data() + lo, n - lo < T ? n - lo : T);
	BS_LAUNCH(bs_tile_merge<P>, dim3((unsigned) ntiles), dim3(BS_CUDA_TILE_THREADS), 0, nullptr)(a.data(), n);
	unit_report(cudaGetLastError() == cudaSuccess && same_pairs(a, ref),
				"bs_tile_merge %s n=%zu: bitonic tiles merged", shape_name(a.data()), n);
}

/* bs_global_step: one mirror or plain step equals the same comparators run on the CPU. */
template<typename P>
static void
test_global_step(size_t n, size_t span, bool mirror)
{
	size_t		full = 1;
	std::vector<P> a(n), ref, input;

	while (full < n)
		full *= 2;
	gen_pairs(a.data(), n, GEN_RANDOM, n + span);
	ref = input = a;
	for (size_t c = 0; c < full / 2; c++)
	{
		size_t		i, p;

		bs_comparator<size_t>(c, span, mirror, &i, &p);
		if (p < n)
			bs_cmpx(ref[i], ref[p]);
	}
	/* few blocks, so the grid-stride loop is exercised too */
	BS_LAUNCH(bs_global_step<P>, dim3(3), dim3(BS_CUDA_STEP_THREADS), 0, nullptr)(a.data(), n, span, mirror ? 1 : 0, full / 2);
	unit_report(cudaGetLastError() == cudaSuccess && same_pairs(a, ref) && !same_pairs(a, input),
				"bs_global_step %s n=%zu %s span=%zu: the CPU's comparators, some exchanged", shape_name(a.data()), n,
				mirror ? "mirror" : "plain", span);
}

/* All kernel tests of one shape. */
template<typename P>
static void
test_shape(void)
{
	const size_t T = bs_pair_ops<P>::tile;

	test_tile_sort<P>(1, GEN_RANDOM);
	test_tile_sort<P>(T - 1, GEN_REVERSED);
	test_tile_sort<P>(5 * T / 2, GEN_RANDOM);
	test_tile_sort<P>(2 * T + 17, GEN_FEW_DISTINCT);
	test_tile_merge<P>(T);
	test_tile_merge<P>(3 * T + T / 3);
	test_global_step<P>(4 * T, 2 * T, true);
	test_global_step<P>(4 * T - 3, 4 * T, true);
	test_global_step<P>(4 * T + 5, T, false);
	test_global_step<P>(7 * T + 1, 4 * T, false);
}

int
main(void)
{
	test_emulator();
	test_shape<bs_pair32>();
	test_shape<bs_pair64>();
	/* the emulator's speed: a 512-thread shared-memory kernel over 64K pairs */
	test_tile_sort<bs_pair32>(65536, GEN_RANDOM);
	return unit_exit_status();
}
