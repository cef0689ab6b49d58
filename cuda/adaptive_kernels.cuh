/*
 * adaptive_kernels.cuh — the adaptive bitonic sorter's kernels and device
 * functions (Bilardi and Nicolau's merge as GPU-ABiSort runs it: every
 * subsequence of a merge phase at once), templates over the pair shape.
 *
 * A half-cleaner on a bitonic sequence of distinct pairs exchanges a
 * contiguous prefix or suffix of its comparators (seed 003, Thm. 2/3), so a
 * merge phase needs, per subsequence, one binary search for the split index
 * q (O(log m) comparisons instead of m/2) and an exchange of two blocks of
 * equal length.  GPU-ABiSort keeps the sequence in bitonic trees so that the
 * exchange is O(1) pointer swaps; on a GPU the two blocks are contiguous, so
 * here they are swapped in place with coalesced accesses instead — no
 * pointer chasing, no tree build, no extra memory — and only the exchanged
 * pairs are read and written.  Subsequences of <= 16 pairs finish with the
 * non-adaptive network, as in GPU-ABiSort.  Positions >= n are +infinity and
 * never move: a comparator whose partner is >= n never exchanges.
 *
 *   bs_tile_adaptive_merge   a merge inside a shared-memory tile (the tile
 *                            kernels are in tile_kernels.cuh; the merges
 *                            beyond the tile are in corank_kernels.cuh)
 */
#ifndef BS_ADAPTIVE_KERNELS_CUH
#define BS_ADAPTIVE_KERNELS_CUH

#include "bitonic_kernels.cuh"

/* Below this subsequence length the merge is the plain network. */
#define BS_ADAPTIVE_MIN 16

/* Whether comparator i of the half-cleaner at base (half h; mirror or plain) exchanges. */
template<typename P, typename I>
static __device__ __forceinline__ bool
bs_exchanges(const P *a, I n, I base, I h, bool mirror, I i)
{
	I			p = mirror ? base + 2 * h - 1 - i : base + h + i;

	return p < n && bs_pair_ops<P>::gt(a[base + i], a[p]);
}

/* The comparators [*lo, *hi) the half-cleaner at base exchanges: binary search for q. */
template<typename P, typename I>
static __device__ __forceinline__ void
bs_adaptive_split(const P *a, I n, I base, I h, bool mirror, I *lo, I *hi)
{
	bool		last = bs_exchanges<P, I>(a, n, base, h, mirror, h - 1);
	I			l = 0,
				r = h - 1;

	while (l < r)
	{
		I			mid = l + (r - l) / 2;

		if (bs_exchanges<P, I>(a, n, base, h, mirror, mid) == last)
			r = mid;
		else
			l = mid + 1;
	}
	*lo = last ? l : 0;
	*hi = last ? h : l;
}

/* Exchange the pairs of comparator i of the half-cleaner at base. */
template<typename P, typename I>
static __device__ __forceinline__ void
bs_exchange(P *a, I base, I h, bool mirror, I i)
{
	I			p = mirror ? base + 2 * h - 1 - i : base + h + i;
	P			t = a[base + i];

	a[base + i] = a[p];
	a[p] = t;
}

/* An adaptive merge of every block of m pairs in a shared tile of `valid` pairs. */
template<typename P>
static __device__ __forceinline__ void
bs_tile_adaptive_merge(P *s, unsigned valid, unsigned m, bool mirror)
{
	const unsigned T = bs_pair_ops<P>::tile;
	BS_SHARED_ARRAY(unsigned, lo, bs_pair_ops<P>::tile / (2 * BS_ADAPTIVE_MIN));
	BS_SHARED_ARRAY(unsigned, hi, bs_pair_ops<P>::tile / (2 * BS_ADAPTIVE_MIN));

	for (; m > BS_ADAPTIVE_MIN; m /= 2, mirror = false)
	{
		unsigned	h = m / 2;

		for (unsigned j = threadIdx.x; j < T / m; j += blockDim.x)
			bs_adaptive_split<P, unsigned>(s, valid, j * m, h, mirror, &lo[j], &hi[j]);
		__syncthreads();
		for (unsigned c = threadIdx.x; c < T / 2 && c < valid; c += blockDim.x)
		{
			unsigned	j = c / h,
						i = c % h;

			if (i >= lo[j] && i < hi[j])
				bs_exchange<P, unsigned>(s, j * m, h, mirror, i);
		}
		__syncthreads();
	}
	bs_tile_network_merge(s, valid, m, mirror);
}

#endif							/* BS_ADAPTIVE_KERNELS_CUH */
