/*
 * bitonic_kernels.cuh — the standard bitonic sorter's kernel and device
 * functions, templates over the pair shape (see pair_ops.cuh).
 *
 * All-ascending formulation for any n: positions >= n act as +infinity
 * sentinels that never move, so a comparator whose partner is >= n is
 * skipped — the network padded to a power of two, without the padding.  In
 * a tile of `valid` < T pairs (the last one, or a small input) the same
 * holds, and the merges above the tile's own power of two are skipped too.
 *
 *   bs_tile_network_merge  a merge inside a shared-memory tile (the tile
 *                          kernels are in tile_kernels.cuh)
 *   bs_global_step         one step of a merge whose stride is >= T, in
 *                          global memory
 */
#ifndef BS_BITONIC_KERNELS_CUH
#define BS_BITONIC_KERNELS_CUH

#include "pair_ops.cuh"

/* Pairs of this block's tile below n. */
template<typename P>
static __device__ __forceinline__ unsigned
bs_tile_valid(size_t n)
{
	size_t		left = n - (size_t) blockIdx.x * bs_pair_ops<P>::tile;

	return left < bs_pair_ops<P>::tile ? (unsigned) left : bs_pair_ops<P>::tile;
}

/* The smallest power of two >= valid: merges of larger blocks change nothing. */
static __device__ __forceinline__ unsigned
bs_tile_top(unsigned valid)
{
	unsigned	top = 1;

	while (top < valid)
		top *= 2;
	return top;
}

/* One network step inside a shared-memory tile of `valid` pairs, then the block's barrier. */
template<typename P>
static __device__ __forceinline__ void
bs_tile_step(P *s, unsigned valid, unsigned span, bool mirror)
{
	unsigned	ncmp = valid < bs_pair_ops<P>::tile / 2 ? valid : bs_pair_ops<P>::tile / 2;

	/* comparator c's lower index is >= c: from c = valid on, both are beyond the tile */
	for (unsigned c = threadIdx.x; c < ncmp; c += blockDim.x)
	{
		unsigned	i, p;

		bs_comparator<unsigned>(c, span, mirror, &i, &p);
		if (p < valid)
			bs_cmpx(s[i], s[p]);
	}
	__syncthreads();
}

/* Copy this block's valid pairs into shared memory. */
template<typename P>
static __device__ __forceinline__ void
bs_tile_load(P *s, const P *a, unsigned valid)
{
	const P    *src = a + (size_t) blockIdx.x * bs_pair_ops<P>::tile;

	for (unsigned i = threadIdx.x; i < valid; i += blockDim.x)
		s[i] = src[i];
	__syncthreads();
}

/* Copy the tile's valid pairs back. */
template<typename P>
static __device__ __forceinline__ void
bs_tile_store(const P *s, P *a, unsigned valid)
{
	P		   *dst = a + (size_t) blockIdx.x * bs_pair_ops<P>::tile;

	for (unsigned i = threadIdx.x; i < valid; i += blockDim.x)
		dst[i] = s[i];
}

/* The network's merge of every block of m pairs in the tile: first step mirror or plain. */
template<typename P>
static __device__ __forceinline__ void
bs_tile_network_merge(P *s, unsigned valid, unsigned m, bool mirror)
{
	bs_tile_step(s, valid, mirror ? m : m / 2, mirror);
	for (unsigned j = m / 4; j >= 1; j /= 2)
		bs_tile_step(s, valid, j, false);
}

/* One global step: ncmp comparators of stride (or mirror block) span. */
template<typename P>
__global__ void
__launch_bounds__(BS_CUDA_STEP_THREADS)
bs_global_step(P *a, size_t n, size_t span, int mirror, size_t ncmp)
{
	size_t		stride = (size_t) gridDim.x * blockDim.x;

	for (size_t c = (size_t) blockIdx.x * blockDim.x + threadIdx.x; c < ncmp; c += stride)
	{
		size_t		i, p;

		bs_comparator<size_t>(c, span, mirror != 0, &i, &p);
		if (p < n)
			bs_cmpx(a[i], a[p]);
	}
}

#endif							/* BS_BITONIC_KERNELS_CUH */
