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
 * per stage.  64-bit keys that span less than 2^32 are merged as packed
 * pairs (key_span_kernels.cuh).
 */
#include "tile_kernels.cuh"
#include "key_span_kernels.cuh"
#include "cost_model.h"
#include "cuda_internal.cuh"

/* Blocks for a global phase of ncmp comparators (a grid-stride loop does the rest). */
static unsigned
step_blocks(size_t ncmp)
{
	size_t		b = (ncmp + BS_CUDA_STEP_THREADS - 1) / BS_CUDA_STEP_THREADS;

	return (unsigned) (b < BS_CUDA_MAX_BLOCKS ? b : BS_CUDA_MAX_BLOCKS);
}

/* Pieces of `pairs` pairs (tiles, blocks) that cover n. */
static unsigned
block_count(size_t n, size_t pairs)
{
	return (unsigned) ((n + pairs - 1) / pairs);
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
	int			mirror = h == k / 2;

	/* h is T or 2T: bs_block_merge holds steps of strides h .. T */
	if (h == bs_pair_ops<P>::tile)
		BS_LAUNCH((bs_block_merge<P, 1>), dim3(block_count(n, bs_block_size<P, 1>::pairs)), dim3(BS_CUDA_TILE_THREADS), 0, stream)(d, n, mirror);
	else
		BS_LAUNCH((bs_block_merge<P, 2>), dim3(block_count(n, bs_block_size<P, 2>::pairs)), dim3(BS_CUDA_TILE_THREADS), 0, stream)(d, n, mirror);
	return bs_cuda_check(cudaGetLastError(), "bs_block_merge<<<>>>");
}

/*
 * The tile sort, in place, over every tile (adaptive or network merges);
 * with span non-null each tile's least and greatest key go to
 * span[2t], span[2t + 1].
 */
template<typename P>
static bool
sort_tiles(P *d, size_t n, bs_algorithm algo, uint64_t *span, cudaStream_t stream)
{
	const size_t T = bs_pair_ops<P>::tile;
	unsigned	ntiles = block_count(n, T);
	/* a single small tile needs no more threads than comparators per step (at least a warp) */
	size_t		threads = bs_pow2_ceil(n < T ? n : T) / 2;

	threads = threads < 32 ? 32 : threads > BS_CUDA_TILE_THREADS ? BS_CUDA_TILE_THREADS : threads;
	if (algo == BS_ALGO_ADAPTIVE)
		BS_LAUNCH((bs_tile_sort<P, true>), dim3(ntiles), dim3((unsigned) threads), 0, stream)(d, n, span);
	else
		BS_LAUNCH((bs_tile_sort<P, false>), dim3(ntiles), dim3((unsigned) threads), 0, stream)(d, n, span);
	return bs_cuda_check(cudaGetLastError(), "bs_tile_sort<<<>>>");
}

/* The standard sorter's merge stages: per stage its global passes, then the block merge. */
template<typename P>
static bool
standard_stages(P *d, size_t n, cudaStream_t stream)
{
	for (size_t k = 2 * bs_pair_ops<P>::tile; k <= bs_pow2_ceil(n); k *= 2)
		if (!standard_global_steps(d, n, k, stream) || !standard_block_merge(d, n, k, stream))
			return false;
	return true;
}

/*
 * The adaptive sorter's merge stages: per stage, the co-ranks of the
 * output tiles, then each tile merged, from one buffer into the other (d
 * and the scratch's n pairs, the co-ranks after them).  With an odd number
 * of stages the first (of 2T) is a block merge in d, in place, so that the
 * last one writes to d.
 */
template<typename P>
static bool
adaptive_stages(P *d, size_t n, void *scratch, cudaStream_t stream)
{
	const size_t T = bs_pair_ops<P>::tile;
	size_t		ntiles = block_count(n, T);
	P		   *other = (P *) scratch;
	size_t	   *corank = (size_t *) (other + n);
	P		   *cur = d;
	size_t		k = 2 * T;

	if (bs_stage_count(n, T) % 2 == 1)
	{
		if (!standard_block_merge(d, n, k, stream))
			return false;
		k *= 2;
	}
	for (; k <= bs_pow2_ceil(n); k *= 2)
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

/* The merge stages of the chosen sorter, after the tile sort. */
template<typename P>
static bool
merge_stages(P *d, size_t n, bs_algorithm algo, void *scratch, cudaStream_t stream)
{
	return algo == BS_ALGO_ADAPTIVE ? adaptive_stages(d, n, scratch, stream) : standard_stages(d, n, stream);
}

/* Scratch bytes of one shape's sorter for n pairs: the adaptive sorter's second buffer and co-ranks. */
template<typename P>
static size_t
sorter_scratch_bytes(size_t n, bs_algorithm algo)
{
	return algo == BS_ALGO_ADAPTIVE ? n * sizeof(P) + block_count(n, bs_pair_ops<P>::tile) * sizeof(size_t) : 0;
}

/* Bytes of the tiles' key spans at the front of a 64-bit sort's scratch (16-byte aligned). */
static size_t
span_bytes(size_t n)
{
	return block_count(n, BS_CUDA_TILE_PAIRS64) * 2 * sizeof(uint64_t);
}

/* The least and greatest key of all tiles' spans (a reduction, a copy back, a wait). */
static bool
key_span(uint64_t *span, size_t ntiles, uint64_t *least, uint64_t *greatest, cudaStream_t stream)
{
	uint64_t	host[2];

	BS_LAUNCH(bs_span_reduce, dim3(1), dim3(BS_CUDA_STEP_THREADS), 0, stream)(span, ntiles);
	if (!bs_cuda_check(cudaGetLastError(), "bs_span_reduce<<<>>>") ||
		!bs_cuda_check(cudaMemcpyAsync(host, span, sizeof(host), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync") ||
		!bs_cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize"))
		return false;
	*least = host[0];
	*greatest = host[1];
	return true;
}

/*
 * 64-bit pairs (tiles sorted) whose keys span less than 2^32, sorted on the
 * 8-byte path: packed into the scratch, sorted there (the packed sorter's
 * scratch after them), unpacked into d.
 */
static bool
sort_packed(bs_pair64 *d, size_t n, uint64_t least, bs_algorithm algo, char *scratch, cudaStream_t stream)
{
	bs_pair32  *packed = (bs_pair32 *) scratch;

	BS_LAUNCH(bs_pack_span, dim3(step_blocks(n)), dim3(BS_CUDA_STEP_THREADS), 0, stream)(d, packed, n, least);
	if (!bs_cuda_check(cudaGetLastError(), "bs_pack_span<<<>>>") ||
		!sort_tiles(packed, n, algo, (uint64_t *) nullptr, stream) ||
		!merge_stages(packed, n, algo, packed + n, stream))
		return false;
	BS_LAUNCH(bs_unpack_span, dim3(step_blocks(n)), dim3(BS_CUDA_STEP_THREADS), 0, stream)(packed, d, n, least);
	return bs_cuda_check(cudaGetLastError(), "bs_unpack_span<<<>>>");
}

/* Device scratch bytes of packed pairs: the sorter's. */
template<>
size_t
bs_gpu_scratch_bytes<bs_pair32>(size_t n, bs_algorithm algo)
{
	return sorter_scratch_bytes<bs_pair32>(n, algo);
}

/*
 * Device scratch bytes of 64-bit pairs: the tiles' key spans, then the
 * packed copy and its sorter's scratch, or the 64-bit sorter's, whichever
 * is larger.
 */
template<>
size_t
bs_gpu_scratch_bytes<bs_pair64>(size_t n, bs_algorithm algo)
{
	size_t		packed = n * sizeof(bs_pair32) + sorter_scratch_bytes<bs_pair32>(n, algo);
	size_t		wide = sorter_scratch_bytes<bs_pair64>(n, algo);

	return span_bytes(n) + (packed > wide ? packed : wide);
}

/* Sort n packed pairs in device memory with the chosen algorithm (auto: standard). */
template<>
bool
bs_gpu_sort<bs_pair32>(bs_pair32 *d, size_t n, bs_algorithm algo, void *scratch, cudaStream_t stream)
{
	if (n < 2)
		return true;
	return sort_tiles(d, n, algo, (uint64_t *) nullptr, stream) && merge_stages(d, n, algo, scratch, stream);
}

/*
 * Sort n 64-bit pairs in device memory with the chosen algorithm (auto:
 * standard): the tile sort notes each tile's key span; where all keys span
 * less than 2^32 the merges run on the 8-byte path.
 */
template<>
bool
bs_gpu_sort<bs_pair64>(bs_pair64 *d, size_t n, bs_algorithm algo, void *scratch, cudaStream_t stream)
{
	uint64_t   *span = (uint64_t *) scratch;
	char	   *rest = (char *) scratch + span_bytes(n);
	uint64_t	least,
				greatest;

	if (n < 2)
		return true;
	if (!sort_tiles(d, n, algo, span, stream) ||
		!key_span(span, block_count(n, BS_CUDA_TILE_PAIRS64), &least, &greatest, stream))
		return false;
	if (greatest - least <= UINT32_MAX)
		return sort_packed(d, n, least, algo, rest, stream);
	return merge_stages(d, n, algo, rest, stream);
}

/* The most pairs one device sort takes within budget bytes (its scratch included). */
template<typename P>
size_t
bs_gpu_chunk_pairs(size_t budget, bs_algorithm algo)
{
	size_t		lo = 0,
				hi = budget / sizeof(P);

	while (lo < hi)
	{
		size_t		m = hi - (hi - lo) / 2;

		if (m * sizeof(P) + bs_gpu_scratch_bytes<P>(m, algo) <= budget)
			lo = m;
		else
			hi = m - 1;
	}
	return lo;
}

template size_t bs_gpu_chunk_pairs<bs_pair32>(size_t, bs_algorithm);
template size_t bs_gpu_chunk_pairs<bs_pair64>(size_t, bs_algorithm);
