/*
 * pair_ops.cuh — what the kernels and the host code need to know about a
 * pair shape: its order, its tile size and its warp shuffle.  Written once
 * per shape; every sorter is a template over these traits.
 */
#ifndef BS_PAIR_OPS_CUH
#define BS_PAIR_OPS_CUH

#include "bs_cuda.h"
#include "bs_cuda_config.h"
#include "cuda_compat.cuh"

template<typename P> struct bs_pair_ops;

/* Packed 32-bit-key pairs: the uint64 order is the (key, ptr) order. */
template<> struct bs_pair_ops<bs_pair32>
{
	static const unsigned tile = BS_CUDA_TILE_PAIRS32;
	static const unsigned pass_steps = BS_CUDA_PASS_STEPS32;
	static const unsigned block = BS_CUDA_BLOCK_PAIRS32;

	/* Whether a orders after b. */
	static __host__ __device__ __forceinline__ bool gt(bs_pair32 a, bs_pair32 b)
	{
		return a > b;
	}

	/* The pair's key. */
	static __host__ __device__ __forceinline__ uint64_t key(bs_pair32 a)
	{
		return a >> 32;
	}

	/* Lane (lane ^ lanes)'s pair, the whole warp shuffling. */
	static __device__ __forceinline__ bs_pair32 shfl_xor(bs_pair32 a, unsigned lanes)
	{
		return __shfl_xor_sync(0xffffffffu, a, (int) lanes);
	}
};

/* 64-bit-key pairs: by key, then pointer. */
template<> struct bs_pair_ops<bs_pair64>
{
	static const unsigned tile = BS_CUDA_TILE_PAIRS64;
	static const unsigned pass_steps = BS_CUDA_PASS_STEPS64;
	static const unsigned block = BS_CUDA_BLOCK_PAIRS64;

	/* Whether a orders after b. */
	static __host__ __device__ __forceinline__ bool gt(const bs_pair64 &a, const bs_pair64 &b)
	{
		return a.key > b.key || (a.key == b.key && a.ptr > b.ptr);
	}

	/* The pair's key. */
	static __host__ __device__ __forceinline__ uint64_t key(const bs_pair64 &a)
	{
		return a.key;
	}

	/* Lane (lane ^ lanes)'s pair, the whole warp shuffling (key and pointer). */
	static __device__ __forceinline__ bs_pair64 shfl_xor(const bs_pair64 &a, unsigned lanes)
	{
		bs_pair64	p;

		p.key = __shfl_xor_sync(0xffffffffu, a.key, (int) lanes);
		p.ptr = __shfl_xor_sync(0xffffffffu, a.ptr, (int) lanes);
		p.pad = 0;
		return p;
	}
};

/* Order two pairs in place: the smaller one first. */
template<typename P>
static __host__ __device__ __forceinline__ void
bs_cmpx(P &a, P &b)
{
	if (bs_pair_ops<P>::gt(a, b))
	{
		P			t = a;

		a = b;
		b = t;
	}
}

/*
 * Comparator c of a network step: the first (mirror) step of a merge of
 * blocks of `span` pairs compares i with its mirror in the block; a plain
 * step compares i with i + span.  Sets *i < *p.
 */
template<typename I>
static __host__ __device__ __forceinline__ void
bs_comparator(I c, I span, bool mirror, I *i, I *p)
{
	if (mirror)
	{
		I			half = span / 2;
		I			base = (c / half) * span;
		I			t = c % half;

		*i = base + t;
		*p = base + span - 1 - t;
	}
	else
	{
		*i = (c / span) * 2 * span + c % span;
		*p = *i + span;
	}
}

#endif							/* BS_PAIR_OPS_CUH */
