/*
 * tile_kernels.cuh — the shared-memory kernels of both sorters: one tile of
 * T pairs per block, loaded once, merged with the network (standard) or
 * adaptively, stored once.
 *
 *   bs_tile_sort         sorts each tile: the merges of blocks 2 .. T
 *   bs_block_merge       finishes a merge stage of the standard sorter in
 *                        blocks of R tiles: its steps of stride T .. B/2
 *                        in registers, the smaller ones tile by tile in
 *                        shared memory
 */
#ifndef BS_TILE_KERNELS_CUH
#define BS_TILE_KERNELS_CUH

#include "adaptive_kernels.cuh"
#include "corank_kernels.cuh"

/* Merge every block of m pairs of the tile, adaptively or with the network in rounds (padded). */
template<typename P, bool ADAPTIVE>
static __device__ __forceinline__ void
bs_tile_merge_blocks(P *s, unsigned valid, unsigned m, bool mirror)
{
	if (ADAPTIVE)
		bs_tile_adaptive_merge(s, valid, m, mirror);
	else
		bs_tile_round_merge(s, valid, m, mirror);
}

/*
 * Sort every tile of T pairs (the last one may be partial) from the store
 * src into the store dst (the same one: in place); with span non-null,
 * note the tile's least and greatest key (its first and last pair) in
 * span[2 * tile], span[2 * tile + 1].
 */
template<typename S, typename D, bool ADAPTIVE>
__global__ void
__launch_bounds__(BS_CUDA_TILE_THREADS)
bs_tile_sort(S src, D dst, size_t n, uint64_t *span)
{
	typedef bs_pair_t<S> P;
	/* the adaptive merge uses the tile unpadded */
	BS_SHARED_ARRAY(P, s, ADAPTIVE ? bs_pair_ops<P>::tile : bs_tile_round<P>::slots);
	unsigned	valid = bs_tile_valid<P>(n);
	unsigned	top = bs_tile_top(valid);

	bs_tile_load<!ADAPTIVE>(s, src, valid);
	for (unsigned k = 2; k <= top; k *= 2)
		bs_tile_merge_blocks<P, ADAPTIVE>(s, valid, k, true);
	if (span != nullptr && threadIdx.x == 0)
	{
		span[2 * blockIdx.x] = bs_pair_ops<P>::key(s[0]);
		span[2 * blockIdx.x + 1] = bs_pair_ops<P>::key(s[bs_tile_slot<P, !ADAPTIVE>(valid - 1)]);
	}
	bs_tile_store<!ADAPTIVE>(s, dst, valid);
}

/*
 * A group of bs_block_merge: bs_group's layout with lowest stride T and
 * highest h = T << (NS - 1), in a block of pairs, positions in 32 bits.
 * This thread's group j starts at tile (j * threads / T) * G, offset r =
 * threadIdx.x + (j * threads) % T: both known at compile time but for
 * threadIdx.x, which keeps few registers live.
 */
template<unsigned NS, unsigned T>
struct bs_block_group
{
	static const unsigned G = 1u << NS;
	unsigned	base,
				r;
	bool		mirror;

	/* This thread's group j. */
	__device__ __forceinline__ bs_block_group(unsigned j, bool mirror_)
	:			mirror(mirror_)
	{
		base = (j * BS_CUDA_TILE_THREADS / T) * (2u * (T << (NS - 1)));
		r = threadIdx.x + (j * BS_CUDA_TILE_THREADS) % T;
	}

	/* Where the group's pair m lies in the block. */
	__device__ __forceinline__ unsigned pos(unsigned m) const
	{
		return m < G / 2 ? base + r + m * T :
			base + (T << (NS - 1)) + (mirror ? T - 1 - r : r) + (m - G / 2) * T;
	}
};

/* Pairs of one block of bs_block_merge<P, NS>: B, or 2T for the one step of stride T (half the registers). */
template<typename P, unsigned NS>
struct bs_block_size
{
	static const unsigned pairs = NS == 1 ? 2 * bs_pair_ops<P>::tile : bs_pair_ops<P>::block;
};

/*
 * Finish a merge stage of the standard sorter inside every block of
 * bs_block_size pairs (R of them tiles; launched with
 * BS_CUDA_TILE_THREADS threads): its NS steps of strides T << (NS - 1) ..
 * T (the first the stage's mirror step where the stage is no larger than
 * the block) in registers, each thread holding its block's pairs /
 * BS_CUDA_TILE_THREADS of them as bs_block_group groups (group j's pair m lies in tile
 * (j * threads / T) * G + m); then, tile by tile, the thread's pairs of
 * that tile written into shared memory, the steps of stride < T there, and
 * the tile stored.  One pass over global memory, from the store src into
 * the store dst (the same one: in place; a block reads all its pairs
 * before it writes any).  One block per SM at least, said outright: left
 * to aim at two, ptxas spills the split store's pairs.
 */
template<typename S, typename D, unsigned NS>
__global__ void
__launch_bounds__(BS_CUDA_TILE_THREADS, 1)
bs_block_merge(S src, D dst, size_t n, int mirror)
{
	typedef bs_pair_t<S> P;
	const unsigned T = bs_pair_ops<P>::tile;
	const unsigned G = bs_block_group<NS, T>::G;
	const unsigned BLOCK = bs_block_size<P, NS>::pairs;
	const unsigned GROUPS = BLOCK / G / BS_CUDA_TILE_THREADS;	/* a thread's */
	static_assert(bs_pair_ops<P>::block == 4 * bs_pair_ops<P>::tile && T % BS_CUDA_TILE_THREADS == 0 && NS <= 2,
				  "a block of 4 tiles, each a multiple of the threads");
	BS_SHARED_ARRAY(P, s, bs_tile_round<P>::slots);
	size_t		first = (size_t) blockIdx.x * BLOCK;
	size_t		left = n - first;
	S			blk = src + first;
	D			out = dst + first;
	P			v[GROUPS * G];

	BS_UNROLL
	for (unsigned j = 0; j < GROUPS; j++)
	{
		bs_block_group<NS, T> grp(j, mirror != 0);

		bs_group_load(v + j * G, blk, left, grp);
		bs_group_network(v + j * G, left, grp);
	}
	BS_UNROLL
	for (unsigned c = 0; c < BLOCK / T; c++)
	{
		unsigned	valid;

		if ((size_t) c * T >= left)
			break;
		valid = left - (size_t) c * T < T ? (unsigned) (left - (size_t) c * T) : T;
		BS_UNROLL
		for (unsigned j = 0; j < GROUPS; j++)
		{
			bs_block_group<NS, T> grp(j, mirror != 0);

			BS_UNROLL
			for (unsigned m = 0; m < G; m++)
				if ((j * BS_CUDA_TILE_THREADS / T) * G + m == c && grp.pos(m) - c * T < valid)
					s[bs_tile_slot<P, true>(grp.pos(m) - c * T)] = v[j * G + m];
		}
		__syncthreads();
		bs_tile_round_merge(s, valid, T, false);
		for (unsigned i = threadIdx.x; i < valid; i += blockDim.x)
			bs_put(out, (size_t) c * T + i, s[bs_tile_slot<P, true>(i)]);
		__syncthreads();
	}
}

#endif							/* BS_TILE_KERNELS_CUH */
