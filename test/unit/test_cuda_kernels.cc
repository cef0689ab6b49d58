/*
 * test_cuda_kernels.cc — every kernel of the standard and the adaptive
 * bitonic sorter, on device memory, each against a CPU reference of what
 * that one launch (or merge stage) must do, for both pair shapes, under several
 * schedule seeds (in the emulator, with its race, bounds and barrier checks
 * on); plus launch semantics (barriers, indices, launch errors) and the
 * emulator's speed on a 64K-pair tile sort.  Builds for a real GPU too.
 */
#include "cuda/tile_kernels.cuh"
#include "cuda_test.h"

static uint64_t seed;			/* the schedule seed of the tests running now */

/* Each thread stores its index, waits at the barrier, reads its neighbour's. */
__global__ void
barrier_probe(unsigned *out)
{
	BS_SHARED_ARRAY(unsigned, s, 1024);
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
	dev_buffer<unsigned> d(std::vector<unsigned>(3 * 256));
	std::vector<unsigned> out;
	cudaError_t first,
				second;
	bool		ok;

	BS_LAUNCH(barrier_probe, dim3(3), dim3(32, 8), 0, nullptr)(d.p);
	ok = cudaGetLastError() == cudaSuccess;
	out = d.get();
	for (unsigned b = 0; b < 3; b++)
		for (unsigned t = 0; t < 256; t++)
			ok &= out[b * 256 + t] == (t + 1) % 256 + 1000 * b + 3000000;
	unit_report(ok, "launch: __syncthreads orders shared-memory writes before reads, 3 blocks of 32x8");

	BS_LAUNCH(barrier_probe, dim3(1), dim3(1025), 0, nullptr)(d.p);
	first = cudaGetLastError();
	second = cudaGetLastError();
	unit_report(first == cudaErrorInvalidValue && second == cudaSuccess,
				"launch: 1025 threads a block is an invalid argument, reported once (got %d, then %d)",
				(int) first, (int) second);
}

/* A tile sort kernel and its name. */
template<typename P>
struct tile_kernel
{
	void		(*fn) (P *, size_t, uint64_t *);
	const char *name;
};

/*
 * bs_tile_sort: every tile (the last one partial) equals its sorted input;
 * with random input, each tile's least and greatest key noted too.
 */
template<typename P>
static void
test_tile_sort(tile_kernel<P> k, size_t n, gen_dist dist)
{
	const size_t T = bs_pair_ops<P>::tile;
	size_t		ntiles = (n + T - 1) / T;
	std::vector<P> a(n), ref;
	std::vector<uint64_t> want(2 * ntiles);
	bool		note = dist == GEN_RANDOM;
	double		t0;
	bool		ok;

	gen_pairs(a.data(), n, dist, n + dist);
	ref = a;
	for (size_t t = 0; t < ntiles; t++)
	{
		size_t		len = n - t * T < T ? n - t * T : T;

		ref_sort(ref.data() + t * T, len);
		want[2 * t] = bs_pair_ops<P>::key(ref[t * T]);
		want[2 * t + 1] = bs_pair_ops<P>::key(ref[t * T + len - 1]);
	}
	dev_buffer<P> d(a);
	dev_buffer<uint64_t> span{std::vector<uint64_t>(2 * ntiles)};

	t0 = now_seconds();
	BS_LAUNCH(k.fn, dim3((unsigned) ntiles), dim3(BS_CUDA_TILE_THREADS), 0, nullptr)(d.p, n, note ? span.p : nullptr);
	ok = cudaGetLastError() == cudaSuccess;
	t0 = now_seconds() - t0;
	unit_report(ok && same_pairs(d.get(), ref) && (!note || span.get() == want),
				"%s %s n=%zu %s seed %llu: every tile sorted%s (%.3f s)", k.name, shape_name(a.data()), n,
				gen_dist_names[dist], (unsigned long long) seed, note ? ", its key span noted" : "", t0);
}

/* Reverse a[lo, hi). */
template<typename P>
static void
reverse_range(std::vector<P> &a, size_t lo, size_t hi)
{
	for (; lo + 1 < hi; lo++, hi--)
	{
		P			t = a[lo];

		a[lo] = a[hi - 1];
		a[hi - 1] = t;
	}
}

/*
 * Make each block of m pairs bitonic, as the sorter hands it to a merge
 * phase: ascending first half, descending second.  A last, partial block is
 * followed by +infinity (positions >= n), so it must fall first and rise
 * after to stay bitonic.
 */
template<typename P>
static void
make_bitonic_blocks(std::vector<P> &a, size_t m)
{
	size_t		n = a.size();

	for (size_t lo = 0; lo < n; lo += m)
	{
		size_t		len = n - lo < m ? n - lo : m;
		size_t		half = len < m / 2 ? len : m / 2;

		ref_sort(a.data() + lo, half);
		ref_sort(a.data() + lo + half, len - half);
		if (len == m)
			reverse_range(a, lo + half, lo + len);
		else
			reverse_range(a, lo, lo + half);
	}
}

/*
 * Random pairs as a merge stage gives them to its global steps: sorted runs
 * of h pairs (the stage's mirror step merges them in pairs), or bitonic
 * blocks of 2h (its plain steps of stride h).
 */
template<typename P>
static void
merge_input(std::vector<P> &a, size_t h, bool mirror)
{
	size_t		n = a.size();

	gen_pairs(a.data(), n, GEN_RANDOM, n + h);
	if (mirror)
		for (size_t lo = 0; lo < n; lo += h)
			ref_sort(a.data() + lo, n - lo < h ? n - lo : h);
	else
		make_bitonic_blocks(a, 2 * h);
}

/*
 * bs_corank_kernel + bs_merge_tile: one merge stage k of the adaptive
 * sorter on sorted runs of k/2 (the last run short, or alone) equals the
 * runs merged on the CPU, written to the other buffer, the input intact.
 */
template<typename P>
static void
test_merge_stage(size_t n, size_t k)
{
	const size_t T = bs_pair_ops<P>::tile;
	size_t		ntiles = (n + T - 1) / T;
	std::vector<P> a(n), ref;

	merge_input(a, k / 2, true);
	ref = a;
	for (size_t lo = 0; lo < n; lo += k)
		ref_sort(ref.data() + lo, n - lo < k ? n - lo : k);
	dev_buffer<P> d(a);
	dev_buffer<P> out{std::vector<P>(n)};
	dev_buffer<size_t> corank{std::vector<size_t>(ntiles)};

	/* few blocks for the searches: the grid-stride loop works too */
	BS_LAUNCH(bs_corank_kernel<P>, dim3(2), dim3(BS_CUDA_STEP_THREADS), 0, nullptr)(d.p, n, k, ntiles, corank.p);
	if (cudaPeekAtLastError() == cudaSuccess)
		BS_LAUNCH(bs_merge_tile<P>, dim3((unsigned) ntiles), dim3(BS_CUDA_TILE_THREADS), 0, nullptr)(d.p, out.p, n, k, corank.p);
	unit_report(cudaGetLastError() == cudaSuccess && same_pairs(out.get(), ref) && same_pairs(d.get(), a),
				"bs_corank_kernel + bs_merge_tile %s n=%zu k=%zu seed %llu: runs of k/2 merged into the other buffer",
				shape_name(a.data()), n, k, (unsigned long long) seed);
}

/*
 * bs_block_merge: the end of a merge stage in blocks of B pairs: from runs
 * of T << (NS - 1) sorted (the stage's mirror step first), or from bitonic
 * blocks of B (plain steps), every block of 2h pairs comes out sorted.
 */
template<typename P, unsigned NS>
static void
test_block_merge(size_t n, bool mirror)
{
	const size_t T = bs_pair_ops<P>::tile;
	const size_t B = bs_pair_ops<P>::block;
	size_t		h = T << (NS - 1);
	std::vector<P> a(n), ref;

	if (mirror)
		merge_input(a, h, true);
	else
	{
		gen_pairs(a.data(), n, GEN_RANDOM, n);
		make_bitonic_blocks(a, B);
	}
	ref = a;
	for (size_t lo = 0; lo < n; lo += 2 * h)
		ref_sort(ref.data() + lo, n - lo < 2 * h ? n - lo : 2 * h);
	dev_buffer<P> d(a);
	size_t		pairs = bs_block_size<P, NS>::pairs;

	BS_LAUNCH((bs_block_merge<P, NS>), dim3((unsigned) ((n + pairs - 1) / pairs)), dim3(BS_CUDA_TILE_THREADS), 0, nullptr)(d.p, n, mirror ? 1 : 0);
	unit_report(cudaGetLastError() == cudaSuccess && same_pairs(d.get(), ref),
				"bs_block_merge<%u> %s n=%zu %s seed %llu: blocks of %zu sorted", NS, shape_name(a.data()), n,
				mirror ? "mirror" : "plain", (unsigned long long) seed, 2 * h);
}

/*
 * bs_global_pass: NS steps (the first mirror or plain) on input the sorter
 * would give it (sorted runs of h, or bitonic blocks of 2h) equal the same
 * comparators run step by step on the CPU.
 */
template<typename P, unsigned NS>
static void
test_global_pass(size_t n, size_t h, bool mirror)
{
	size_t		full = 1;
	std::vector<P> a(n), ref;

	while (full < n)
		full *= 2;
	merge_input(a, h, mirror);
	ref = a;
	for (unsigned step = 0; step < NS; step++)
	{
		size_t		span = step == 0 && mirror ? 2 * h : h >> step;

		for (size_t c = 0; c < full / 2; c++)
		{
			size_t		i, p;

			bs_comparator<size_t>(c, span, step == 0 && mirror, &i, &p);
			if (p < n)
				bs_cmpx(ref[i], ref[p]);
		}
	}
	dev_buffer<P> d(a);
	/* few blocks: the grid-stride loop works too */
	BS_LAUNCH((bs_global_pass<P, NS>), dim3(3), dim3(BS_CUDA_STEP_THREADS), 0, nullptr)(d.p, n, h, mirror ? 1 : 0, full >> NS);
	unit_report(cudaGetLastError() == cudaSuccess && same_pairs(d.get(), ref) && !same_pairs(a, ref),
				"bs_global_pass<%u> %s n=%zu %s h=%zu seed %llu: the CPU's comparators, step by step", NS,
				shape_name(a.data()), n, mirror ? "mirror" : "plain", h, (unsigned long long) seed);
}

/* The standard and the adaptive kernels of one shape. */
template<typename P>
static void
test_shape(void)
{
	const size_t T = bs_pair_ops<P>::tile;

	for (int adaptive = 0; adaptive <= 1; adaptive++)
	{
		tile_kernel<P> sort = {adaptive ? bs_tile_sort<P, true> : bs_tile_sort<P, false>,
			adaptive ? "bs_tile_sort<adaptive>" : "bs_tile_sort"};

		test_tile_sort<P>(sort, 1, GEN_RANDOM);
		test_tile_sort<P>(sort, T - 1, GEN_REVERSED);
		test_tile_sort<P>(sort, 5 * T / 2, GEN_RANDOM);
		test_tile_sort<P>(sort, 2 * T + 17, GEN_FEW_DISTINCT);
	}
	test_block_merge<P, 1>(2 * T, true);
	test_block_merge<P, 1>(5 * T + 3, true);
	test_block_merge<P, 2>(4 * T, true);
	test_block_merge<P, 2>(9 * T + T / 3, true);
	test_block_merge<P, 2>(8 * T, false);
	test_block_merge<P, 2>(6 * T + 5, false);
	test_global_pass<P, 1>(4 * T, T, true);
	test_global_pass<P, 1>(4 * T + 5, T, false);
	test_global_pass<P, 2>(4 * T - 3, 2 * T, true);
	test_global_pass<P, 3>(7 * T + 1, 4 * T, false);
	test_global_pass<P, bs_pair_ops<P>::pass_steps>(((size_t) T << bs_pair_ops<P>::pass_steps) + 3 * T + 1,
												   (size_t) T << (bs_pair_ops<P>::pass_steps - 1), true);
	test_merge_stage<P>(4 * T, 2 * T);
	test_merge_stage<P>(8 * T, 8 * T);
	test_merge_stage<P>(5 * T + 7, 4 * T);
	test_merge_stage<P>(3 * T - 1, 4 * T);
}

int
main(void)
{
	test_emulator();
	for (uint64_t s : test_seeds)
	{
		use_seed(seed = s);
		test_shape<bs_pair32>();
		test_shape<bs_pair64>();
	}
	/* the emulator's speed: a 512-thread shared-memory kernel over 64K pairs */
	test_tile_sort<bs_pair32>({bs_tile_sort<bs_pair32, false>, "bs_tile_sort"}, 65536, GEN_RANDOM);
	test_tile_sort<bs_pair32>({bs_tile_sort<bs_pair32, true>, "bs_tile_sort<adaptive>"}, 65536, GEN_RANDOM);
	return cuda_test_exit();
}
