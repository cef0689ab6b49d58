/*
 * tile_kernels.cuh — the shared-memory kernels of both sorters: one tile of
 * T pairs per block, loaded once, merged with the network (standard) or
 * adaptively, stored once.
 *
 *   bs_tile_sort<P, A>   sorts each tile: the merges of blocks 2 .. T
 *   bs_tile_merge<P>     finishes a merge stage of the standard sorter:
 *                        every step below T
 */
#ifndef BS_TILE_KERNELS_CUH
#define BS_TILE_KERNELS_CUH

#include "adaptive_kernels.cuh"
#include "corank_kernels.cuh"

/* Merge every block of m pairs of the tile, adaptively or with the network. */
template<typename P, bool ADAPTIVE>
static __device__ __forceinline__ void
bs_tile_merge_blocks(P *s, unsigned valid, unsigned m, bool mirror)
{
	if (ADAPTIVE)
		bs_tile_adaptive_merge(s, valid, m, mirror);
	else
		bs_tile_network_merge(s, valid, m, mirror);
}

/* Sort every tile of T pairs of src into dst (the last one may be partial; dst may be src). */
template<typename P, bool ADAPTIVE>
__global__ void
__launch_bounds__(BS_CUDA_TILE_THREADS)
bs_tile_sort(const P *src, P *dst, size_t n)
{
	BS_SHARED_ARRAY(P, s, bs_pair_ops<P>::tile);
	unsigned	valid = bs_tile_valid<P>(n);
	unsigned	top = bs_tile_top(valid);

	bs_tile_load(s, src, valid);
	for (unsigned k = 2; k <= top; k *= 2)
		bs_tile_merge_blocks<P, ADAPTIVE>(s, valid, k, true);
	bs_tile_store(s, dst, valid);
}

/* Finish a merge stage of the standard sorter inside every tile: all steps of stride < T. */
template<typename P>
__global__ void
__launch_bounds__(BS_CUDA_TILE_THREADS)
bs_tile_merge(const P *src, P *dst, size_t n)
{
	BS_SHARED_ARRAY(P, s, bs_pair_ops<P>::tile);
	unsigned	valid = bs_tile_valid<P>(n);
	unsigned	top = bs_tile_top(valid);

	bs_tile_load(s, src, valid);
	if (top > 1)
		bs_tile_network_merge(s, valid, top, false);
	bs_tile_store(s, dst, valid);
}

#endif							/* BS_TILE_KERNELS_CUH */
