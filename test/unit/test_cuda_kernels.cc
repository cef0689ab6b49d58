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

/* A store's name in the reports. */
static const char *
store_name(bool split)
{
	return split ? " split" : "";
}

/*
 * bs_tile_sort: every tile (the last one partial) equals its sorted input,
 * in place or (OUT_SPLIT) written to a split store; with random input,
 * each tile's least and greatest key noted too.
 */
template<typename P, bool ADAPTIVE, bool OUT_SPLIT = false>
static void
test_tile_sort(size_t n, gen_dist dist)
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
	dev_pairs<P, false> d(a);
	dev_pairs<P, OUT_SPLIT> out{std::vector<P>(OUT_SPLIT ? n : 0)};
	dev_buffer<uint64_t> span{std::vector<uint64_t>(2 * ntiles)};

	t0 = now_seconds();
	if (OUT_SPLIT)
		BS_LAUNCH((bs_tile_sort<P *, decltype(out.store()), ADAPTIVE>), dim3((unsigned) ntiles), dim3(BS_CUDA_TILE_THREADS), 0, nullptr)(d.store(), out.store(), n, note ? span.p : nullptr);
	else
		BS_LAUNCH((bs_tile_sort<P *, P *, ADAPTIVE>), dim3((unsigned) ntiles), dim3(BS_CUDA_TILE_THREADS), 0, nullptr)(d.store(), d.store(), n, note ? span.p : nullptr);
	ok = cudaGetLastError() == cudaSuccess;
	t0 = now_seconds() - t0;
	ok &= OUT_SPLIT ? same_pairs(out.get(), ref) && same_pairs(d.get(), a) : same_pairs(d.get(), ref);
	unit_report(ok && (!note || span.get() == want),
				"bs_tile_sort%s %s%s n=%zu %s seed %llu: every tile sorted%s (%.3f s)", ADAPTIVE ? "<adaptive>" : "",
				shape_name(a.data()), OUT_SPLIT ? " into a split store" : "", n, gen_dist_names[dist],
				(unsigned long long) seed, note ? ", its key span noted" : "", t0);
}

#ifdef BS_CUDA_EMU
/*
 * Rounds of bs_tile_round_merge for a merge of blocks of m pairs: its steps
 * of strides of a warp's pairs and more, NS a round, then one warp round.
 */
template<typename P>
static unsigned long long
merge_rounds(unsigned m)
{
	unsigned	warp_steps = bs_log2(32 * bs_tile_round<P>::G),
				steps = bs_log2(m),
				wide = steps > warp_steps ? steps - warp_steps : 0;

	return (wide + bs_tile_round<P>::NS - 1) / bs_tile_round<P>::NS + 1;
}

/*
 * The barriers of the standard sorter's shared-memory kernels, as their
 * rounds make them: a full tile sorted, the load's barrier and one a round
 * of every merge of 2 .. T; a block merge, per tile the barrier after the
 * registers are written, the rounds of the merge of T, and one after the
 * store (a barrier a step would be 1 + 78 and 14 a tile for packed pairs).
 */
template<typename P>
static void
test_round_barriers(void)
{
	const unsigned T = bs_pair_ops<P>::tile;
	std::vector<P> a(bs_pair_ops<P>::block);
	unsigned long long tile = 1,
				block = (bs_pair_ops<P>::block / T) * (2 + merge_rounds<P>(T)),
				before;

	for (unsigned m = 2; m <= T; m *= 2)
		tile += merge_rounds<P>(m);
	gen_pairs(a.data(), a.size(), GEN_RANDOM, 7);
	dev_buffer<P> d(a);

	before = bs_emu_barriers_total();
	BS_LAUNCH((bs_tile_sort<P *, P *, false>), dim3(1), dim3(BS_CUDA_TILE_THREADS), 0, nullptr)(d.p, d.p, (size_t) T, nullptr);
	unit_report(cudaGetLastError() == cudaSuccess && bs_emu_barriers_total() - before == tile,
				"bs_tile_sort %s: %llu barriers for a tile of %u (the design's %llu)",
				shape_name(a.data()), bs_emu_barriers_total() - before, T, tile);
	before = bs_emu_barriers_total();
	BS_LAUNCH((bs_block_merge<P *, P *, 2>), dim3(1), dim3(BS_CUDA_TILE_THREADS), 0, nullptr)(d.p, d.p, a.size(), 0);
	unit_report(cudaGetLastError() == cudaSuccess && bs_emu_barriers_total() - before == block,
				"bs_block_merge %s: %llu barriers for a block of %zu (the design's %llu)",
				shape_name(a.data()), bs_emu_barriers_total() - before, a.size(), block);
}
#endif

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
 * runs merged on the CPU, written to the other buffer (of either store),
 * the input intact.
 */
template<typename P, bool SRC_SPLIT = false, bool DST_SPLIT = false>
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
	dev_pairs<P, SRC_SPLIT> d(a);
	dev_pairs<P, DST_SPLIT> out{std::vector<P>(n)};
	dev_buffer<size_t> corank{std::vector<size_t>(ntiles)};
	typedef decltype(d.store()) S;
	typedef decltype(out.store()) D;

	/* few blocks for the searches: the grid-stride loop works too */
	BS_LAUNCH(bs_corank_kernel<S>, dim3(2), dim3(BS_CUDA_STEP_THREADS), 0, nullptr)(d.store(), n, k, ntiles, corank.p);
	if (cudaPeekAtLastError() == cudaSuccess)
		BS_LAUNCH((bs_merge_tile<S, D>), dim3((unsigned) ntiles), dim3(BS_CUDA_TILE_THREADS), 0, nullptr)(d.store(), out.store(), n, k, corank.p);
	unit_report(cudaGetLastError() == cudaSuccess && same_pairs(out.get(), ref) && same_pairs(d.get(), a),
				"bs_corank_kernel + bs_merge_tile %s%s n=%zu k=%zu seed %llu: runs of k/2 merged into the other%s buffer",
				shape_name(a.data()), store_name(SRC_SPLIT), n, k, (unsigned long long) seed, store_name(DST_SPLIT));
}

/*
 * bs_block_merge: the end of a merge stage in blocks of B pairs: from runs
 * of T << (NS - 1) sorted (the stage's mirror step first), or from bitonic
 * blocks of B (plain steps), every block of 2h pairs comes out sorted: in
 * place, or from a split store into one array (TO_FLAT).
 */
template<typename P, unsigned NS, bool SPLIT = false, bool TO_FLAT = false>
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
	dev_pairs<P, SPLIT> d(a);
	dev_pairs<P, false> out{std::vector<P>(TO_FLAT ? n : 0)};
	size_t		pairs = bs_block_size<P, NS>::pairs;
	dim3		grid((unsigned) ((n + pairs - 1) / pairs));
	typedef decltype(d.store()) S;
	bool		ok;

	if (TO_FLAT)
		BS_LAUNCH((bs_block_merge<S, P *, NS>), grid, dim3(BS_CUDA_TILE_THREADS), 0, nullptr)(d.store(), out.store(), n, mirror ? 1 : 0);
	else
		BS_LAUNCH((bs_block_merge<S, S, NS>), grid, dim3(BS_CUDA_TILE_THREADS), 0, nullptr)(d.store(), d.store(), n, mirror ? 1 : 0);
	ok = cudaGetLastError() == cudaSuccess && same_pairs(TO_FLAT ? out.get() : d.get(), ref);
	unit_report(ok, "bs_block_merge<%u> %s%s%s n=%zu %s seed %llu: blocks of %zu sorted", NS, shape_name(a.data()),
				store_name(SPLIT), TO_FLAT ? " into one array" : "", n, mirror ? "mirror" : "plain",
				(unsigned long long) seed, 2 * h);
}

/*
 * bs_global_pass: NS steps (the first mirror or plain) on input the sorter
 * would give it (sorted runs of h, or bitonic blocks of 2h) equal the same
 * comparators run step by step on the CPU.
 */
template<typename P, unsigned NS, bool SPLIT = false>
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
	dev_pairs<P, SPLIT> d(a);
	/* few blocks: the grid-stride loop works too */
	BS_LAUNCH((bs_global_pass<decltype(d.store()), NS>), dim3(3), dim3(BS_CUDA_STEP_THREADS), 0, nullptr)(d.store(), n, h, mirror ? 1 : 0, full >> NS);
	unit_report(cudaGetLastError() == cudaSuccess && same_pairs(d.get(), ref) && !same_pairs(a, ref),
				"bs_global_pass<%u> %s%s n=%zu %s h=%zu seed %llu: the CPU's comparators, step by step", NS,
				shape_name(a.data()), store_name(SPLIT), n, mirror ? "mirror" : "plain", h, (unsigned long long) seed);
}

/* The tile sorts, standard or adaptive, of one shape. */
template<typename P, bool ADAPTIVE>
static void
test_tile_sorts(void)
{
	const size_t T = bs_pair_ops<P>::tile;

	test_tile_sort<P, ADAPTIVE>(1, GEN_RANDOM);
	test_tile_sort<P, ADAPTIVE>(T - 1, GEN_REVERSED);
	test_tile_sort<P, ADAPTIVE>(5 * T / 2, GEN_RANDOM);
	test_tile_sort<P, ADAPTIVE>(2 * T + 17, GEN_FEW_DISTINCT);
}

/* The block merges and global passes of one shape, over one store. */
template<typename P, bool SPLIT>
static void
test_passes(void)
{
	const size_t T = bs_pair_ops<P>::tile;

	test_block_merge<P, 1, SPLIT>(2 * T, true);
	test_block_merge<P, 1, SPLIT>(5 * T + 3, true);
	test_block_merge<P, 2, SPLIT>(4 * T, true);
	test_block_merge<P, 2, SPLIT>(9 * T + T / 3, true);
	test_block_merge<P, 2, SPLIT>(8 * T, false);
	test_block_merge<P, 2, SPLIT>(6 * T + 5, false);
	test_global_pass<P, 1, SPLIT>(4 * T, T, true);
	test_global_pass<P, 1, SPLIT>(4 * T + 5, T, false);
	test_global_pass<P, 2, SPLIT>(4 * T - 3, 2 * T, true);
	test_global_pass<P, 3, SPLIT>(7 * T + 1, 4 * T, false);
	test_global_pass<P, bs_pair_ops<P>::pass_steps, SPLIT>(((size_t) T << bs_pair_ops<P>::pass_steps) + 3 * T + 1,
														  (size_t) T << (bs_pair_ops<P>::pass_steps - 1), true);
}

/* The adaptive sorter's merge stages of one shape, from one store into another. */
template<typename P, bool SRC_SPLIT, bool DST_SPLIT>
static void
test_merge_stages(void)
{
	const size_t T = bs_pair_ops<P>::tile;

	test_merge_stage<P, SRC_SPLIT, DST_SPLIT>(4 * T, 2 * T);
	test_merge_stage<P, SRC_SPLIT, DST_SPLIT>(8 * T, 8 * T);
	test_merge_stage<P, SRC_SPLIT, DST_SPLIT>(5 * T + 7, 4 * T);
	test_merge_stage<P, SRC_SPLIT, DST_SPLIT>(3 * T - 1, 4 * T);
}

/* The standard and the adaptive kernels of one shape, over one array of pairs. */
template<typename P>
static void
test_shape(void)
{
	test_tile_sorts<P, false>();
	test_tile_sorts<P, true>();
	test_passes<P, false>();
	test_merge_stages<P, false, false>();
}

/*
 * The kernels of the 64-bit sorters over the split store: the tile sort
 * into it, passes in it, the last pass out of it into one array.
 */
static void
test_split_store(void)
{
	const size_t T = BS_CUDA_TILE_PAIRS64;

	test_tile_sort<bs_pair64, false, true>(5 * T / 2, GEN_RANDOM);
	test_tile_sort<bs_pair64, true, true>(2 * T + 17, GEN_FEW_DISTINCT);
	test_passes<bs_pair64, true>();
	test_block_merge<bs_pair64, 1, true, true>(5 * T + 3, true);
	test_block_merge<bs_pair64, 2, true, true>(6 * T + 5, false);
	test_merge_stages<bs_pair64, true, true>();
	test_merge_stages<bs_pair64, true, false>();
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
		test_split_store();
	}
#ifdef BS_CUDA_EMU
	test_round_barriers<bs_pair32>();
	test_round_barriers<bs_pair64>();
#endif
	/* the emulator's speed: a 512-thread shared-memory kernel over 64K pairs */
	test_tile_sort<bs_pair32, false>(65536, GEN_RANDOM);
	test_tile_sort<bs_pair32, true>(65536, GEN_RANDOM);
	return cuda_test_exit();
}
