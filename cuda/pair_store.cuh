/*
 * pair_store.cuh — how pairs lie in global memory.  The kernels read a
 * store with s[i] (a pair, by value), write with bs_put(s, i, pair) and
 * offset it with s + k, so each kernel is a template over the store:
 *
 *   P *           one array of pairs (8-byte packed, or 16-byte 64-bit pairs)
 *   bs_split64    64-bit pairs as an array of keys and an array of
 *                 pointers: 12 bytes a pair, not 16, in every pass over them
 */
#ifndef BS_PAIR_STORE_CUH
#define BS_PAIR_STORE_CUH

#include "pair_ops.cuh"

/* 64-bit pairs as two arrays: key[i] and ptr[i] make pair i. */
struct bs_split64
{
	uint64_t   *key;
	uint32_t   *ptr;

	/* Pair i (its padding zero). */
	__host__ __device__ __forceinline__ bs_pair64 operator[](size_t i) const
	{
		bs_pair64	p;

		p.key = key[i];
		p.ptr = ptr[i];
		p.pad = 0;
		return p;
	}

	/* The store from pair k on. */
	__host__ __device__ __forceinline__ bs_split64 operator+(size_t k) const
	{
		bs_split64	s = {key + k, ptr + k};

		return s;
	}
};

/* The split layout of n pairs in memory at base: n keys, then n pointers (12 n bytes). */
static __host__ __device__ __forceinline__ bs_split64
bs_split64_at(void *base, size_t n)
{
	bs_split64	s = {(uint64_t *) base, (uint32_t *) ((char *) base + n * sizeof(uint64_t))};

	return s;
}

/* The pair type of a store (defined for each kind of store below). */
template<typename S> struct bs_store;
template<typename P> struct bs_store<P *>
{
	typedef P	pair;
};
template<typename P> struct bs_store<const P *>
{
	typedef P	pair;
};
template<> struct bs_store<bs_split64>
{
	typedef bs_pair64 pair;
};
template<typename S> using bs_pair_t = typename bs_store<S>::pair;

/* Write pair i of an array of pairs. */
template<typename P>
static __device__ __forceinline__ void
bs_put(P *a, size_t i, const P &p)
{
	a[i] = p;
}

/* Write pair i of a split store (its key and its pointer). */
static __device__ __forceinline__ void
bs_put(const bs_split64 &a, size_t i, const bs_pair64 &p)
{
	a.key[i] = p.key;
	a.ptr[i] = p.ptr;
}

#endif							/* BS_PAIR_STORE_CUH */
