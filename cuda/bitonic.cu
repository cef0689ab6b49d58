/*
 * bitonic.cu — which kernels to launch, in which order, for a buffer of n
 * pairs already on the GPU.  The standard and the adaptive sorter share the
 * shape of launch sequence (tile sort; per merge stage beyond the tile,
 * global work, then shared-memory work): the standard sorter does up to
 * pass_steps network steps in one pass (bs_global_pass) while the strides
 * are at least a block of 4 tiles, and finishes the stage in one more pass
 * (bs_block_merge: registers, then shared memory); the adaptive
 * sorter finds each output tile's co-rank (bs_corank_kernel) and merges
 * the tile in shared memory into a second buffer (bs_merge_tile): one pass
 * per stage.
 */
#include "tile_kernels.cuh"
#include "cost_model.h"
#include "cuda_internal.cuh"

/* Blocks for a global phase of ncmp comparators (a grid-stride loop does the rest). */
static unsigned
step_blocks(size_t ncmp)
{
	size_t		b = (ncmp + BS_CUDA_STEP_THREADS - 1) / BS_CUDA_STEP_THREADS;

	return (unsigned) (b < BS_CUDA_MAX_BLOCKS ? b : BS_CUDA_MAX_BLOCKS);
}

/*
 * One pass of ns steps of the standard sorter over ngroups groups: the
 * kernel instantiated for ns (NS counts down from the shape's most).
 */
template<typename P, unsigned NS = bs_pair_ops<P>::pass_steps>
static bool
standard_pass(P *d, size_t n, size_t h, unsigned ns, bool mirror, size_t ngroups, cudaStream_t stream)
{
	if constexpr (NS > 1)
	{
		if (ns < NS)
			return standard_pass<P, NS - 1>(d, n, h, ns, mirror, ngroups, stream);
	}
	BS_LAUNCH((bs_global_pass<P, NS>), dim3(step_blocks(ngroups)), dim3(BS_CUDA_STEP_THREADS), 0, stream)(d, n, h, mirror ? 1 : 0, ngroups);
	return bs_cuda_check(cudaGetLastError(), "bs_global_pass<<<>>>");
}

/*
 * The steps of merge stage k of the standard sorter whose strides are at
 * least the block B (the mirror step of span k, then the plain strides
 * k/4 .. B), bs_pair_ops<P>::pass_steps to a global pass.
 */
template<typename P>
static bool
standard_global_steps(P *d, size_t n, size_t k, cudaStream_t stream)
{
	const size_t B = bs_pair_ops<P>::block;
	size_t		full = bs_pow2_ceil(n);

	for (size_t h = k / 2; h >= B;)
	{
		unsigned	ns = bs_pass_steps(h, B, bs_pair_ops<P>::pass_steps);

		if (!standard_pass<P>(d, n, h, ns, h == k / 2, full >> ns, stream))
			return false;
		h >>= ns;
	}
	return true;
}

/*
 * The rest of merge stage k in one launch (bs_block_merge): the steps of
 * strides h .. T, h = k/2 (the mirror step) or B/2, in registers, the
 * smaller ones in shared memory.
 */
template<typename P>
static bool
standard_block_merge(P *d, size_t n, size_t k, cudaStream_t stream)
{
	const size_t B = bs_pair_ops<P>::block;
	size_t		h = k / 2 < B / 2 ? k / 2 : B / 2;
	unsigned	blocks = (unsigned) ((n + B - 1) / B);
	int			mirror = h == k / 2;

	/* h is T or 2T: bs_block_merge holds steps of strides h .. T */
	if (h == bs_pair_ops<P>::tile)
		BS_LAUNCH((bs_block_merge<P, 1>), dim3(blocks), dim3(BS_CUDA_TILE_THREADS), 0, stream)(d, n, mirror);
	else
		BS_LAUNCH((bs_block_merge<P, 2>), dim3(blocks), dim3(BS_CUDA_TILE_THREADS), 0, stream)(d, n, mirror);
	return bs_cuda_check(cudaGetLastError(), "bs_block_merge<<<>>>");
}

/* One shared-memory launch over every tile: src's tiles into dst's (dst may be src). */
template<typename P>
static bool
launch_tiles(void (*kernel) (const P *, P *, size_t), const char *name, const P *src, P *dst, size_t n,
			 cudaStream_t stream)
{
	const size_t T = bs_pair_ops<P>::tile;
	unsigned	ntiles = (unsigned) ((n + T - 1) / T);
	/* a single small tile needs no more threads than comparators per step (at least a warp) */
	size_t		threads = bs_pow2_ceil(n < T ? n : T) / 2;

	threads = threads < 32 ? 32 : threads > BS_CUDA_TILE_THREADS ? BS_CUDA_TILE_THREADS : threads;
	BS_LAUNCH(kernel, dim3(ntiles), dim3((unsigned) threads), 0, stream)(src, dst, n);
	return bs_cuda_check(cudaGetLastError(), name);
}

/*
 * The standard sorter: tiles sorted in shared memory; per merge stage
 * beyond the tile, its global passes, then the block merge.
 */
template<typename P>
static bool
standard_sort(P *d, size_t n, void *scratch, cudaStream_t stream)
{
	(void) scratch;
	if (!launch_tiles(bs_tile_sort<P, false>, "bs_tile_sort<<<>>>", d, d, n, stream))
		return false;
	for (size_t k = 2 * bs_pair_ops<P>::tile; k <= bs_pow2_ceil(n); k *= 2)
		if (!standard_global_steps(d, n, k, stream) || !standard_block_merge(d, n, k, stream))
			return false;
	return true;
}

/* Merge stages of the adaptive sorter for n pairs: each reads one buffer and writes the other. */
static unsigned
adaptive_stages(size_t n, size_t T)
{
	unsigned	stages = 0;

	for (size_t k = 2 * T; k <= bs_pow2_ceil(n); k *= 2)
		stages++;
	return stages;
}

/*
 * The adaptive sorter: tiles sorted adaptively in shared memory; per merge
 * stage beyond the tile, the co-ranks of the output tiles, then each tile
 * merged, from one buffer into the other (d and the scratch's n pairs).
 * With an odd number of stages the tile sort writes to the scratch, so that
 * the last stage writes to d.
 */
template<typename P>
static bool
adaptive_sort(P *d, size_t n, void *scratch, cudaStream_t stream)
{
	const size_t T = bs_pair_ops<P>::tile;
	size_t		ntiles = (n + T - 1) / T;
	P		   *other = (P *) scratch;
	size_t	   *corank = (size_t *) (other + n);
	P		   *cur = adaptive_stages(n, T) % 2 ? other : d;

	if (!launch_tiles(bs_tile_sort<P, true>, "bs_tile_sort<adaptive><<<>>>", d, cur, n, stream))
		return false;
	for (size_t k = 2 * T; k <= bs_pow2_ceil(n); k *= 2)
	{
		P		   *next = cur == d ? other : d;

		BS_LAUNCH(bs_corank_kernel<P>, dim3(step_blocks(ntiles)), dim3(BS_CUDA_STEP_THREADS), 0, stream)(cur, n, k, ntiles, corank);
		if (!bs_cuda_check(cudaGetLastError(), "bs_corank_kernel<<<>>>"))
			return false;
		BS_LAUNCH(bs_merge_tile<P>, dim3((unsigned) ntiles), dim3(BS_CUDA_TILE_THREADS), 0, stream)(cur, next, n, k, corank);
		if (!bs_cuda_check(cudaGetLastError(), "bs_merge_tile<<<>>>"))
			return false;
		cur = next;
	}
	return true;
}

/*
 * Device scratch bytes the algorithm needs for n pairs: the adaptive
 * sorter's second buffer of n pairs and its tiles' co-ranks.
 */
template<typename P>
size_t
bs_gpu_scratch_bytes(size_t n, bs_algorithm algo)
{
	size_t		ntiles = (n + bs_pair_ops<P>::tile - 1) / bs_pair_ops<P>::tile;

	return algo == BS_ALGO_ADAPTIVE ? n * sizeof(P) + ntiles * sizeof(size_t) : 0;
}

/* Sort n pairs in device memory with the chosen algorithm (auto: standard). */
template<typename P>
bool
bs_gpu_sort(P *d, size_t n, bs_algorithm algo, void *scratch, cudaStream_t stream)
{
	if (n < 2)
		return true;
	return algo == BS_ALGO_ADAPTIVE ? adaptive_sort(d, n, scratch, stream) : standard_sort(d, n, scratch, stream);
}

template size_t bs_gpu_scratch_bytes<bs_pair32>(size_t, bs_algorithm);
template size_t bs_gpu_scratch_bytes<bs_pair64>(size_t, bs_algorithm);
template bool bs_gpu_sort<bs_pair32>(bs_pair32 *, size_t, bs_algorithm, void *, cudaStream_t);
template bool bs_gpu_sort<bs_pair64>(bs_pair64 *, size_t, bs_algorithm, void *, cudaStream_t);
