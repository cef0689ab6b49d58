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
 * per stage.  64-bit pairs beyond one tile are merged as 12-byte pairs
 * (pair_store.cuh: the tile sort writes the split store, the last pass
 * writes 16-byte pairs back); those whose keys span less than 2^32 as
 * packed pairs (key_span_kernels.cuh).
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
 * One pass of ns steps of the standard sorter over ngroups groups of the
 * store a: the kernel instantiated for ns (NS counts down from the shape's
 * most).
 */
template<typename S, unsigned NS = bs_pair_ops<bs_pair_t<S>>::pass_steps>
static bool
standard_pass(S a, size_t n, size_t h, unsigned ns, bool mirror, size_t ngroups, cudaStream_t stream)
{
	if constexpr (NS > 1)
	{
		if (ns < NS)
			return standard_pass<S, NS - 1>(a, n, h, ns, mirror, ngroups, stream);
	}
	BS_LAUNCH((bs_global_pass<S, NS>), dim3(step_blocks(ngroups)), dim3(BS_CUDA_STEP_THREADS), 0, stream)(a, n, h, mirror ? 1 : 0, ngroups);
	return bs_cuda_check(cudaGetLastError(), "bs_global_pass<<<>>>");
}

/*
 * The steps of merge stage k of the standard sorter whose strides are at
 * least the block B (the mirror step of span k, then the plain strides
 * k/4 .. B), bs_pair_ops<P>::pass_steps to a global pass.
 */
template<typename S>
static bool
standard_global_steps(S a, size_t n, size_t k, cudaStream_t stream)
{
	typedef bs_pair_t<S> P;
	const size_t B = bs_pair_ops<P>::block;
	size_t		full = bs_pow2_ceil(n);

	for (size_t h = k / 2; h >= B;)
	{
		unsigned	ns = bs_pass_steps(h, B, bs_pair_ops<P>::pass_steps);

		if (!standard_pass(a, n, h, ns, h == k / 2, full >> ns, stream))
			return false;
		h >>= ns;
	}
	return true;
}

/*
 * The rest of merge stage k in one launch (bs_block_merge), from the store
 * src into dst: the steps of strides h .. T, h = k/2 (the mirror step) or
 * B/2, in registers, the smaller ones in shared memory.
 */
template<typename S, typename D>
static bool
standard_block_merge(S src, D dst, size_t n, size_t k, cudaStream_t stream)
{
	typedef bs_pair_t<S> P;
	const size_t B = bs_pair_ops<P>::block;
	size_t		h = k / 2 < B / 2 ? k / 2 : B / 2;
	int			mirror = h == k / 2;

	/* h is T or 2T: bs_block_merge holds steps of strides h .. T */
	if (h == bs_pair_ops<P>::tile)
		BS_LAUNCH((bs_block_merge<S, D, 1>), dim3(block_count(n, bs_block_size<P, 1>::pairs)), dim3(BS_CUDA_TILE_THREADS), 0, stream)(src, dst, n, mirror);
	else
		BS_LAUNCH((bs_block_merge<S, D, 2>), dim3(block_count(n, bs_block_size<P, 2>::pairs)), dim3(BS_CUDA_TILE_THREADS), 0, stream)(src, dst, n, mirror);
	return bs_cuda_check(cudaGetLastError(), "bs_block_merge<<<>>>");
}

/*
 * The tile sort, from the store src into dst (in place where they are the
 * same), over every tile (adaptive or network merges); with span non-null
 * each tile's least and greatest key go to span[2t], span[2t + 1].
 */
template<typename S, typename D>
static bool
sort_tiles(S src, D dst, size_t n, bs_algorithm algo, uint64_t *span, cudaStream_t stream)
{
	const size_t T = bs_pair_ops<bs_pair_t<S>>::tile;
	unsigned	ntiles = block_count(n, T);
	/* a single small tile needs no more threads than it has pairs over two (a power of two, at least a warp) */
	size_t		threads = bs_pow2_ceil(n < T ? n : T) / 2;

	threads = threads < 32 ? 32 : threads > BS_CUDA_TILE_THREADS ? BS_CUDA_TILE_THREADS : threads;
	if (algo == BS_ALGO_ADAPTIVE)
		BS_LAUNCH((bs_tile_sort<S, D, true>), dim3(ntiles), dim3((unsigned) threads), 0, stream)(src, dst, n, span);
	else
		BS_LAUNCH((bs_tile_sort<S, D, false>), dim3(ntiles), dim3((unsigned) threads), 0, stream)(src, dst, n, span);
	return bs_cuda_check(cudaGetLastError(), "bs_tile_sort<<<>>>");
}

/*
 * The standard sorter's merge stages over the store a (tiles sorted): per
 * stage its global passes, then the block merge, the last one into out
 * (a itself: in place).
 */
template<typename S, typename D>
static bool
standard_stages(S a, D out, size_t n, cudaStream_t stream)
{
	size_t		top = bs_pow2_ceil(n);

	for (size_t k = 2 * bs_pair_ops<bs_pair_t<S>>::tile; k <= top; k *= 2)
		if (!standard_global_steps(a, n, k, stream) ||
			!(k == top ? standard_block_merge(a, out, n, k, stream) : standard_block_merge(a, a, n, k, stream)))
			return false;
	return true;
}

/* One adaptive merge stage k from the store src into dst: the tiles' co-ranks, then each tile merged. */
template<typename S, typename D>
static bool
adaptive_stage(S src, D dst, size_t n, size_t k, size_t *corank, cudaStream_t stream)
{
	size_t		ntiles = block_count(n, bs_pair_ops<bs_pair_t<S>>::tile);

	BS_LAUNCH(bs_corank_kernel<S>, dim3(step_blocks(ntiles)), dim3(BS_CUDA_STEP_THREADS), 0, stream)(src, n, k, ntiles, corank);
	if (!bs_cuda_check(cudaGetLastError(), "bs_corank_kernel<<<>>>"))
		return false;
	BS_LAUNCH((bs_merge_tile<S, D>), dim3((unsigned) ntiles), dim3(BS_CUDA_TILE_THREADS), 0, stream)(src, dst, n, k, corank);
	return bs_cuda_check(cudaGetLastError(), "bs_merge_tile<<<>>>");
}

/*
 * The adaptive sorter's merge stages over the store first (tiles sorted):
 * each stage from one buffer into the other (first, other), the last one
 * into out, which is first itself or lies over other's memory: so the last
 * stage reads other, or first (out_over_other).  Where the stage count
 * does not make it so, the first stage (of 2T) is a block merge in place.
 */
template<typename S, typename D>
static bool
adaptive_stages(S first, S other, D out, bool out_over_other, size_t n, size_t *corank, cudaStream_t stream)
{
	const size_t T = bs_pair_ops<bs_pair_t<S>>::tile;
	long		stages = bs_stage_count(n, T);
	size_t		k = 2 * T;
	bool		at_first = true;

	if (bs_adaptive_block_first(stages, out_over_other))
	{
		if (!standard_block_merge(first, first, n, k, stream))
			return false;
		k *= 2;
		stages--;
	}
	for (; stages > 1; stages--, k *= 2, at_first = !at_first)
		if (!adaptive_stage(at_first ? first : other, at_first ? other : first, n, k, corank, stream))
			return false;
	return stages == 0 || adaptive_stage(at_first ? first : other, out, n, k, corank, stream);
}

/* Scratch bytes of the adaptive sorter's co-ranks for n pairs in tiles of T. */
static size_t
corank_bytes(size_t n, size_t T)
{
	return block_count(n, T) * sizeof(size_t);
}

/* Bytes of the tiles' key spans at the front of a 64-bit sort's scratch (16-byte aligned). */
static size_t
span_bytes(size_t n)
{
	return block_count(n, BS_CUDA_TILE_PAIRS64) * 2 * sizeof(uint64_t);
}

/* Bytes of n 64-bit pairs in the split layout (bs_split64_at), 16-byte aligned. */
static size_t
split_bytes(size_t n)
{
	return (n * (sizeof(uint64_t) + sizeof(uint32_t)) + 15) / 16 * 16;
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
 * Sort n packed pairs at d in place (tiles, then stages); the adaptive
 * sorter's second buffer at other, its co-ranks at corank.
 */
static bool
sort_packed_pairs(bs_pair32 *d, size_t n, bs_algorithm algo, bs_pair32 *other, size_t *corank, cudaStream_t stream)
{
	if (!sort_tiles(d, d, n, algo, (uint64_t *) nullptr, stream))
		return false;
	return algo == BS_ALGO_ADAPTIVE ? adaptive_stages(d, other, d, false, n, corank, stream) : standard_stages(d, d, n, stream);
}

/*
 * 64-bit pairs (tiles sorted into the split store) whose keys span less
 * than 2^32, sorted on the 8-byte path: packed over the split keys, sorted
 * there (the adaptive sorter's second buffer in d, whose pairs are in the
 * split store now; its co-ranks at corank), unpacked into d.
 */
static bool
sort_packed(bs_split64 split, bs_pair64 *d, size_t n, uint64_t least, bs_algorithm algo, size_t *corank,
			cudaStream_t stream)
{
	bs_pair32  *packed = (bs_pair32 *) split.key;

	BS_LAUNCH(bs_pack_span<bs_split64>, dim3(step_blocks(n)), dim3(BS_CUDA_STEP_THREADS), 0, stream)(split, packed, n, least);
	if (!bs_cuda_check(cudaGetLastError(), "bs_pack_span<<<>>>") ||
		!sort_packed_pairs(packed, n, algo, (bs_pair32 *) d, corank, stream))
		return false;
	BS_LAUNCH(bs_unpack_span, dim3(step_blocks(n)), dim3(BS_CUDA_STEP_THREADS), 0, stream)(packed, d, n, least);
	return bs_cuda_check(cudaGetLastError(), "bs_unpack_span<<<>>>");
}

/* Device scratch bytes of packed pairs: the adaptive sorter's second buffer and co-ranks. */
template<>
size_t
bs_gpu_scratch_bytes<bs_pair32>(size_t n, bs_algorithm algo)
{
	return algo == BS_ALGO_ADAPTIVE ? n * sizeof(bs_pair32) + corank_bytes(n, BS_CUDA_TILE_PAIRS32) : 0;
}

/*
 * Device scratch bytes of 64-bit pairs: the tiles' key spans, the split
 * store (12 bytes a pair) and the adaptive sorter's co-ranks (its second
 * buffer lies over the pairs' own).
 */
template<>
size_t
bs_gpu_scratch_bytes<bs_pair64>(size_t n, bs_algorithm algo)
{
	return span_bytes(n) + split_bytes(n) + (algo == BS_ALGO_ADAPTIVE ? corank_bytes(n, BS_CUDA_TILE_PAIRS64) : 0);
}

/* Sort n packed pairs in device memory with the chosen algorithm (auto: standard). */
template<>
bool
bs_gpu_sort<bs_pair32>(bs_pair32 *d, size_t n, bs_algorithm algo, void *scratch, cudaStream_t stream)
{
	bs_pair32  *other = (bs_pair32 *) scratch;

	if (n < 2)
		return true;
	return sort_packed_pairs(d, n, algo, other, algo == BS_ALGO_ADAPTIVE ? (size_t *) (other + n) : nullptr, stream);
}

/*
 * Sort n 64-bit pairs in device memory with the chosen algorithm (auto:
 * standard).  One tile is sorted in place.  Otherwise the tile sort writes
 * the split store (12 bytes a pair) and notes each tile's key span: where
 * all keys span less than 2^32 the merges run on the 8-byte path; else on
 * the split store (the adaptive sorter's other buffer the split layout
 * over d), the last one into d.
 */
template<>
bool
bs_gpu_sort<bs_pair64>(bs_pair64 *d, size_t n, bs_algorithm algo, void *scratch, cudaStream_t stream)
{
	uint64_t   *span = (uint64_t *) scratch;
	bs_split64	split = bs_split64_at((char *) scratch + span_bytes(n), n);
	size_t	   *corank = (size_t *) ((char *) scratch + span_bytes(n) + split_bytes(n));
	uint64_t	least,
				greatest;

	if (n < 2)
		return true;
	if (n <= BS_CUDA_TILE_PAIRS64)
		return sort_tiles(d, d, n, algo, (uint64_t *) nullptr, stream);
	if (!sort_tiles(d, split, n, algo, span, stream) ||
		!key_span(span, block_count(n, BS_CUDA_TILE_PAIRS64), &least, &greatest, stream))
		return false;
	if (greatest - least <= UINT32_MAX)
		return sort_packed(split, d, n, least, algo, corank, stream);
	if (algo == BS_ALGO_ADAPTIVE)
		return adaptive_stages(split, bs_split64_at(d, n), d, true, n, corank, stream);
	return standard_stages(split, d, n, stream);
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
