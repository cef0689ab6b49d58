/*
 * bitonic_kernels.cuh — the standard bitonic sorter's kernel and device
 * functions, templates over the pair shape (see pair_ops.cuh).
 *
 * All-ascending formulation for any n: positions >= n act as +infinity
 * sentinels that never move.  In shared memory they are real sentinels
 * (a partial tile is padded); in global memory a comparator whose partner is
 * >= n is skipped, which is the same network without the padding memory.
 *
 *   bs_tile_network_merge  a merge inside a shared-memory tile (the tile
 *                          kernels are in tile_kernels.cuh)
 *   bs_global_step         one step of a merge whose stride is >= T, in
 *                          global memory
 */
#ifndef BS_BITONIC_KERNELS_CUH
#define BS_BITONIC_KERNELS_CUH

#include "pair_ops.cuh"

/* One network step inside a shared-memory tile, then the block's barrier. */
template<typename P>
static __device__ __forceinline__ void
bs_tile_step(P *s, unsigned span, bool mirror)
{
	for (unsigned c = threadIdx.x; c < bs_pair_ops<P>::tile / 2; c += blockDim.x)
	{
		unsigned	i, p;

		bs_comparator<unsigned>(c, span, mirror, &i, &p);
		bs_cmpx(s[i], s[p]);
	}
	__syncthreads();
}

/* Copy this block's tile into shared memory, sentinels beyond n. */
template<typename P>
static __device__ __forceinline__ void
bs_tile_load(P *s, const P *a, size_t n)
{
	const unsigned T = bs_pair_ops<P>::tile;
	size_t		base = (size_t) blockIdx.x * T;

	for (unsigned i = threadIdx.x; i < T; i += blockDim.x)
		s[i] = base + i < n ? a[base + i] : bs_pair_ops<P>::sentinel();
	__syncthreads();
}

/* Copy the tile back, the pairs below n only. */
template<typename P>
static __device__ __forceinline__ void
bs_tile_store(const P *s, P *a, size_t n)
{
	const unsigned T = bs_pair_ops<P>::tile;
	size_t		base = (size_t) blockIdx.x * T;

	for (unsigned i = threadIdx.x; i < T; i += blockDim.x)
		if (base + i < n)
			a[base + i] = s[i];
}

/* The network's merge of every block of m pairs in the tile: first step mirror or plain. */
template<typename P>
static __device__ __forceinline__ void
bs_tile_network_merge(P *s, unsigned m, bool mirror)
{
	bs_tile_step(s, mirror ? m : m / 2, mirror);
	for (unsigned j = m / 4; j >= 1; j /= 2)
		bs_tile_step(s, j, false);
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
