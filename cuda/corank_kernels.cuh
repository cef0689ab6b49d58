/*
 * corank_kernels.cuh — the adaptive sorter's merge stages beyond the tile:
 * one pass over global memory per stage, templates over the pair shape.
 *
 * Stage k merges each two sorted runs of k/2 pairs, A and B, into a run of
 * k.  Bilardi and Nicolau's adaptive bitonic merge finds, level by level,
 * where each half-cleaner's exchanged block starts: at the first level the
 * lower half of the output is A's first q pairs and B's first k/2 - q, so
 * its split q is the co-rank of the diagonal k/2 (how many of A's pairs are
 * among the merged block's first k/2), and every later level's splits are
 * the co-ranks of the diagonals at multiples of its block size.  Rather than
 * walking those levels (a global phase each), every output tile of T pairs
 * finds the co-rank of its first diagonal directly, with one binary search
 * (bs_corank_kernel: thousands at once), and merges its pieces of A and B
 * in shared memory (bs_merge_tile), writing the tile to the other buffer.
 * Pairs are distinct, so the merge has no ties and one answer: the same
 * pairs in the same order as the level-by-level merge.  Positions >= n are
 * not there: a run at the end is shorter, or A alone.
 *
 *   bs_corank_kernel   the co-rank at the first diagonal of every tile
 *   bs_merge_tile      each output tile merged in shared memory
 */
#ifndef BS_CORANK_KERNELS_CUH
#define BS_CORANK_KERNELS_CUH

#include "bitonic_kernels.cuh"

/* The two runs stage k merges into the block holding position o (A from base, then B). */
struct bs_merge_block
{
	size_t		base,
				la,
				lb;

	/* The block of stage k that holds position o, of n pairs. */
	__host__ __device__ __forceinline__ bs_merge_block(size_t o, size_t n, size_t k)
	{
		base = o / k * k;
		la = n - base < k / 2 ? n - base : k / 2;
		lb = n - base - la < k / 2 ? n - base - la : k / 2;
	}
};

/*
 * How many of a[0..la)'s pairs are among the first d of the merge of
 * a[0..la) and b[0..lb) (both sorted, all pairs distinct; stores or
 * shared memory).
 */
template<typename A, typename I>
static __device__ __forceinline__ I
bs_corank(A a, I la, A b, I lb, I d)
{
	typedef bs_pair_t<A> P;
	I			lo = d > lb ? d - lb : 0,
				hi = d < la ? d : la;

	/* a[m] is among the first d exactly when it is below b[d - 1 - m] */
	while (lo < hi)
	{
		I			m = lo + (hi - lo) / 2;

		if (bs_pair_ops<P>::gt(b[d - 1 - m], a[m]))
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* The co-rank at the first diagonal of each of the ntiles output tiles of stage k (pairs in the store src). */
template<typename S>
__global__ void
__launch_bounds__(BS_CUDA_STEP_THREADS)
bs_corank_kernel(S src, size_t n, size_t k, size_t ntiles, size_t *corank)
{
	typedef bs_pair_t<S> P;

	for (size_t t = (size_t) blockIdx.x * blockDim.x + threadIdx.x; t < ntiles; t += (size_t) gridDim.x * blockDim.x)
	{
		size_t		o = t * bs_pair_ops<P>::tile;
		bs_merge_block blk(o, n, k);

		corank[t] = bs_corank<S, size_t>(src + blk.base, blk.la, src + blk.base + blk.la, blk.lb, o - blk.base);
	}
}

/* What output tile blockIdx.x of stage k merges: its pieces of A and B in the store. */
template<typename S>
struct bs_tile_pieces
{
	S			a,
				b;
	unsigned	na,
				nb;
	size_t		o;				/* the tile's first position */
};

/* The pieces between the co-ranks of the tile's first and last diagonals. */
template<typename S>
static __device__ __forceinline__ bs_tile_pieces<S>
bs_merge_tile_pieces(S src, size_t n, size_t k, const size_t *corank)
{
	typedef bs_pair_t<S> P;
	bs_tile_pieces<S> t;
	unsigned	valid = bs_tile_valid<P>(n);
	bs_merge_block blk((size_t) blockIdx.x * bs_pair_ops<P>::tile, n, k);
	size_t		d0,
				i0,
				i1;

	t.o = (size_t) blockIdx.x * bs_pair_ops<P>::tile;
	d0 = t.o - blk.base;
	i0 = corank[blockIdx.x];
	/* the tile ends where the block does, or where the next tile starts */
	i1 = d0 + valid == blk.la + blk.lb ? blk.la : corank[blockIdx.x + 1];
	t.na = (unsigned) (i1 - i0);
	t.nb = valid - t.na;
	t.a = src + blk.base + i0;
	t.b = src + blk.base + blk.la + (d0 - i0);
	return t;
}

/* Load the tile's pieces into s: A's, then B's (coalesced). */
template<typename P, typename S>
static __device__ __forceinline__ void
bs_merge_tile_load(P *s, const bs_tile_pieces<S> &t)
{
	for (unsigned i = threadIdx.x; i < t.na + t.nb; i += blockDim.x)
		s[i] = i < t.na ? t.a[i] : t.b[i - t.na];
}

/*
 * This thread's IPT consecutive outputs of the merge of s[0..na) and
 * s[na..na+nb), from position threadIdx.x * IPT on, into v (zero pairs
 * past the tile's end: never written back).
 */
template<typename P, unsigned IPT, typename S>
static __device__ __forceinline__ void
bs_merge_tile_items(const P *s, const bs_tile_pieces<S> &t, P *v)
{
	unsigned	first = threadIdx.x * IPT;
	unsigned	i = 0,
				j = 0;

	if (first < t.na + t.nb)
	{
		i = bs_corank<const P *, unsigned>(s, t.na, s + t.na, t.nb, first);
		j = first - i;
	}
	BS_UNROLL
	for (unsigned q = 0; q < IPT; q++)
	{
		bool		take_a = i < t.na && (j >= t.nb || bs_pair_ops<P>::gt(s[t.na + j], s[i]));

		v[q] = P();
		if (take_a)
			v[q] = s[i++];
		else if (j < t.nb)
			v[q] = s[t.na + j++];
	}
}

/* Write this thread's outputs back into s, at their positions in the tile. */
template<typename P, unsigned IPT, typename S>
static __device__ __forceinline__ void
bs_merge_tile_put(P *s, const bs_tile_pieces<S> &t, const P *v)
{
	unsigned	first = threadIdx.x * IPT;

	BS_UNROLL
	for (unsigned q = 0; q < IPT; q++)
		if (first + q < t.na + t.nb)
			s[first + q] = v[q];
}

/*
 * Stage k's output tile blockIdx.x (launched with BS_CUDA_TILE_THREADS
 * threads): its pieces of A and B loaded into shared memory, merged there
 * (each thread IPT consecutive outputs, held in registers), written back
 * to shared memory and stored to the store dst coalesced.
 */
template<typename S, typename D>
__global__ void
__launch_bounds__(BS_CUDA_TILE_THREADS)
bs_merge_tile(S src, D dst, size_t n, size_t k, const size_t *corank)
{
	typedef bs_pair_t<S> P;
	const unsigned IPT = bs_pair_ops<P>::tile / BS_CUDA_TILE_THREADS;
	BS_SHARED_ARRAY(P, s, bs_pair_ops<P>::tile);
	bs_tile_pieces<S> t = bs_merge_tile_pieces(src, n, k, corank);
	P			v[IPT];

	bs_merge_tile_load(s, t);
	__syncthreads();
	bs_merge_tile_items<P, IPT>(s, t, v);
	__syncthreads();
	bs_merge_tile_put<P, IPT>(s, t, v);
	__syncthreads();
	for (unsigned i = threadIdx.x; i < t.na + t.nb; i += blockDim.x)
		bs_put(dst, t.o + i, s[i]);
}

#endif							/* BS_CORANK_KERNELS_CUH */
