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
 *   bs_tile_network_merge  a merge inside a shared-memory tile, a barrier
 *                          per step (the adaptive tile merge's last steps)
 *   bs_tile_round_merge    the same in rounds: each thread's pairs in
 *                          registers for several steps, the last ones
 *                          with warp shuffles, a barrier a round (the
 *                          tile kernels are in tile_kernels.cuh)
 *   bs_global_pass         up to pass_steps network steps of a merge whose
 *                          strides are >= T in one pass over global memory,
 *                          the pairs they compare held in registers
 */
#ifndef BS_BITONIC_KERNELS_CUH
#define BS_BITONIC_KERNELS_CUH

#include "pair_store.cuh"

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

/* log2 of a power of two, at compile time. */
static constexpr unsigned
bs_log2(unsigned x)
{
	return x <= 1 ? 0 : 1 + bs_log2(x / 2);
}

/*
 * A round of a merge in a shared-memory tile (bs_tile_round_merge): each
 * of the block's threads holds G pairs (the tile over the threads: 8
 * packed, 4 64-bit) and does up to NS = log2(G) network steps on them.
 * The tile is padded with a pair after every G, so that when each thread
 * of a warp takes G consecutive pairs (a warp round), the threads' pairs
 * lie G + 1 apart and the warp's accesses fall in different banks.
 */
template<typename P>
struct bs_tile_round
{
	static const unsigned G = bs_pair_ops<P>::tile / BS_CUDA_TILE_THREADS;
	static const unsigned NS = bs_log2(G);
	static const unsigned slots = bs_pair_ops<P>::tile + bs_pair_ops<P>::tile / G;
	static_assert(G >= 2 && (1u << NS) == G, "a power of two of pairs per thread");
};

/* The shared-memory slot of tile position i: padded (PAD) or not. */
template<typename P, bool PAD>
static __device__ __forceinline__ unsigned
bs_tile_slot(unsigned i)
{
	return PAD ? i + i / bs_tile_round<P>::G : i;
}

/* Copy this block's valid pairs from the store a into shared memory (padded: PAD). */
template<bool PAD = false, typename P, typename S>
static __device__ __forceinline__ void
bs_tile_load(P *s, S a, unsigned valid)
{
	S			src = a + (size_t) blockIdx.x * bs_pair_ops<P>::tile;

	for (unsigned i = threadIdx.x; i < valid; i += blockDim.x)
		s[bs_tile_slot<P, PAD>(i)] = src[i];
	__syncthreads();
}

/* Copy the tile's valid pairs to the store a (from a padded tile: PAD). */
template<bool PAD = false, typename P, typename D>
static __device__ __forceinline__ void
bs_tile_store(const P *s, D a, unsigned valid)
{
	D			dst = a + (size_t) blockIdx.x * bs_pair_ops<P>::tile;

	for (unsigned i = threadIdx.x; i < valid; i += blockDim.x)
		bs_put(dst, i, s[bs_tile_slot<P, PAD>(i)]);
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

/*
 * A group of bs_global_pass: the 2^NS pairs that NS network steps of strides
 * h .. L = h >> (NS - 1) compare among themselves, in a block of 2h pairs
 * from base, at offset r < L.  The first half steps by L from base + r; the
 * second half from base + h + r, or, for a pass that starts with the
 * stage's mirror step, from base + h + (L - 1 - r) (the mirrors of the
 * first half, in ascending order).  Positions grow with m in each half.
 */
template<unsigned NS, typename I = size_t>
struct bs_group
{
	static const unsigned G = 1u << NS;
	I			base, h, L, r;
	bool		mirror;

	/* Group g of a pass with highest stride h (L a power of two: base = (g / L) * 2h). */
	__host__ __device__ __forceinline__ bs_group(I g, I h_, bool mirror_)
	:			h(h_), L(h_ >> (NS - 1)), mirror(mirror_)
	{
		r = g & (L - 1);
		base = (g - r) << NS;
	}

	/* Where the group's pair m lies. */
	__host__ __device__ __forceinline__ I pos(unsigned m) const
	{
		if (m < G / 2)
			return base + r + m * L;
		return base + h + (mirror ? L - 1 - r : r) + (m - G / 2) * L;
	}
};

/*
 * Load the group's pairs below n from the store a into v (a zero pair for
 * those at or past n: never compared or stored).  Grp: a group type with
 * G and pos(m) (bs_group, or bs_block_merge's own).
 */
template<typename S, typename Grp>
static __device__ __forceinline__ void
bs_group_load(bs_pair_t<S> *v, S a, size_t n, const Grp &grp)
{
BS_UNROLL
	for (unsigned m = 0; m < Grp::G; m++)
		v[m] = grp.pos(m) < n ? a[grp.pos(m)] : bs_pair_t<S>();
}

/*
 * The group's NS steps in registers: the first mirror (m with G-1-m) or
 * plain (m with m + G/2), then the plain steps inside each half (m with
 * m + bit); a partner at or past n is +infinity and is not compared.
 */
template<typename P, typename Grp>
static __device__ __forceinline__ void
bs_group_network(P *v, size_t n, const Grp &grp)
{
	const unsigned G = Grp::G;

	/* two loops, not one with a chosen partner: every index stays known at compile time */
	if (grp.mirror)
	{
BS_UNROLL
		for (unsigned m = 0; m < G / 2; m++)
			if (grp.pos(G - 1 - m) < n)
				bs_cmpx(v[m], v[G - 1 - m]);
	}
	else
	{
BS_UNROLL
		for (unsigned m = 0; m < G / 2; m++)
			if (grp.pos(m + G / 2) < n)
				bs_cmpx(v[m], v[m + G / 2]);
	}
BS_UNROLL
	for (unsigned bit = G / 4; bit >= 1; bit /= 2)
	{
BS_UNROLL
		for (unsigned m = 0; m < G; m++)
			if ((m & bit) == 0 && grp.pos(m + bit) < n)
				bs_cmpx(v[m], v[m + bit]);
	}
}

/* Store the group's pairs below n from v to the store a. */
template<typename S, typename Grp>
static __device__ __forceinline__ void
bs_group_store(const bs_pair_t<S> *v, S a, size_t n, const Grp &grp)
{
BS_UNROLL
	for (unsigned m = 0; m < Grp::G; m++)
		if (grp.pos(m) < n)
			bs_put(a, grp.pos(m), v[m]);
}

/*
 * The work of one round of a merge in a padded shared-memory tile of
 * `valid` pairs: NS network steps of strides h .. h >> (NS - 1) (the first
 * the mirror step where mirror) on bs_group's layout at tile scale, each
 * thread's groups loaded into registers, compared there and stored back.
 */
template<typename P, unsigned NS>
static __device__ __forceinline__ void
bs_tile_round_groups(P *s, unsigned valid, unsigned h, bool mirror)
{
	const unsigned G = 1u << NS;

	for (unsigned g = threadIdx.x; g < bs_pair_ops<P>::tile / G; g += blockDim.x)
	{
		bs_group<NS, unsigned> grp(g, h, mirror);
		P			v[G];

		if (grp.pos(0) >= valid)	/* its least position: the group is past the tile's pairs */
			continue;

		BS_UNROLL
		for (unsigned m = 0; m < G; m++)
			v[m] = grp.pos(m) < valid ? s[bs_tile_slot<P, true>(grp.pos(m))] : P();
		bs_group_network(v, valid, grp);
		BS_UNROLL
		for (unsigned m = 0; m < G; m++)
			if (grp.pos(m) < valid)
				s[bs_tile_slot<P, true>(grp.pos(m))] = v[m];
	}
}

/* One round of a merge in a padded tile: its groups, then the block's barrier. */
template<typename P, unsigned NS>
static __device__ __forceinline__ void
bs_tile_round_steps(P *s, unsigned valid, unsigned h, bool mirror)
{
	bs_tile_round_groups<P, NS>(s, valid, h, mirror);
	__syncthreads();
}

/* A round of ns <= NS steps (the template instantiated for ns). */
template<typename P, unsigned NS>
static __device__ __forceinline__ void
bs_tile_round_of(P *s, unsigned valid, unsigned h, unsigned ns, bool mirror)
{
	if constexpr (NS > 1)
	{
		if (ns < NS)
		{
			bs_tile_round_of<P, NS - 1>(s, valid, h, ns, mirror);
			return;
		}
	}
	bs_tile_round_steps<P, NS>(s, valid, h, mirror);
}

/*
 * One network step of stride j >= G (the mirror step across blocks of 2j
 * where mirror) on a thread's G consecutive pairs v from tile position
 * first (a warp holds 32 G).  The partner of position i is i ^ x (x = j,
 * or 2j - 1 for the mirror), the lower one where i & j is 0; a partner at
 * or past valid is +infinity.  The partners lie in lane lane ^ (x / G), in
 * register m (plain) or G - 1 - m (mirror): fetched for all G pairs with
 * warp shuffles before any changes.  Every index is known at compile time,
 * so v stays in registers.
 */
template<typename P>
static __device__ __forceinline__ void
bs_warp_shuffle_step(P *v, unsigned first, unsigned valid, unsigned j, bool mirror)
{
	const unsigned G = bs_tile_round<P>::G;
	unsigned	x = mirror ? 2 * j - 1 : j;
	bool		lower = (first & j) == 0;
	P			y[G];

	if (mirror)
	{
		BS_UNROLL
		for (unsigned m = 0; m < G; m++)
			y[m] = bs_pair_ops<P>::shfl_xor(v[G - 1 - m], x / G);
	}
	else
	{
		BS_UNROLL
		for (unsigned m = 0; m < G; m++)
			y[m] = bs_pair_ops<P>::shfl_xor(v[m], x / G);
	}
	BS_UNROLL
	for (unsigned m = 0; m < G; m++)
	{
		if (lower ? ((first + m) ^ x) < valid && bs_pair_ops<P>::gt(v[m], y[m]) :
			first + m < valid && bs_pair_ops<P>::gt(y[m], v[m]))
			v[m] = y[m];
	}
}

/*
 * The steps of strides h .. 1 (h < G; the first the mirror step where
 * mirror) on a thread's G consecutive pairs v from tile position first,
 * in its registers: the strides unrolled, so every index is known at
 * compile time.
 */
template<typename P>
static __device__ __forceinline__ void
bs_thread_steps(P *v, unsigned first, unsigned valid, unsigned h, bool mirror)
{
	const unsigned G = bs_tile_round<P>::G;

	BS_UNROLL
	for (unsigned j = G / 2; j >= 1; j /= 2)
	{
		if (j > h)
			continue;
		if (mirror && j == h)
		{
			BS_UNROLL
			for (unsigned m = 0; m < G; m++)
			{
				unsigned	p = (m ^ (2 * j - 1)) & (G - 1);

				if (p > m && first + p < valid)
					bs_cmpx(v[m], v[p]);
			}
			continue;
		}
		BS_UNROLL
		for (unsigned m = 0; m < G; m++)
		{
			unsigned	p = (m ^ j) & (G - 1);

			if (p > m && first + p < valid)
				bs_cmpx(v[m], v[p]);
		}
	}
}

/*
 * The warp round of a merge in a padded tile: each thread takes the G
 * consecutive pairs of its groups t (t * G on) into registers and does the
 * merge's steps of strides h .. 1 (all below 32 G; the first the mirror
 * step where mirror): those of G and more with shuffles, the smaller in
 * its registers; stores them back; then the block's barrier.  Launched
 * with 1-D blocks of a multiple of 32 threads, so a warp's lanes take
 * consecutive groups and the same trip count: every lane of a warp takes
 * part in every shuffle, and a warp whose pairs all lie past valid skips
 * the round.
 */
template<typename P>
static __device__ __forceinline__ void
bs_tile_warp_round(P *s, unsigned valid, unsigned h, bool mirror)
{
	const unsigned G = bs_tile_round<P>::G;

	for (unsigned t = threadIdx.x; t < bs_pair_ops<P>::tile / G; t += blockDim.x)
	{
		unsigned	first = t * G;
		unsigned	j = h;
		bool		first_mirror = mirror;
		P			v[G];

		if ((t & ~31u) * G >= valid)	/* the whole warp is past the tile's pairs (the same for all its lanes) */
			continue;

		BS_UNROLL
		for (unsigned m = 0; m < G; m++)
			v[m] = first + m < valid ? s[bs_tile_slot<P, true>(first + m)] : P();
		for (; j >= G; j /= 2, first_mirror = false)
			bs_warp_shuffle_step(v, first, valid, j, first_mirror);
		bs_thread_steps(v, first, valid, j, first_mirror);
		BS_UNROLL
		for (unsigned m = 0; m < G; m++)
			if (first + m < valid)
				s[bs_tile_slot<P, true>(first + m)] = v[m];
	}
	__syncthreads();
}

/*
 * The network's merge of every block of m pairs in a padded tile (first
 * step mirror or plain): its steps of strides of a warp's 32 G pairs and
 * more in rounds of up to bs_tile_round<P>::NS (bs_group's layout at tile
 * scale), the smaller ones in one warp round; a barrier a round.
 */
template<typename P>
static __device__ __forceinline__ void
bs_tile_round_merge(P *s, unsigned valid, unsigned m, bool mirror)
{
	const unsigned WARP_PAIRS = 32 * bs_tile_round<P>::G;
	unsigned	h = m / 2;

	while (h >= WARP_PAIRS)
	{
		unsigned	ns = 1;

		while (ns < bs_tile_round<P>::NS && (h >> ns) >= WARP_PAIRS)
			ns++;
		bs_tile_round_of<P, bs_tile_round<P>::NS>(s, valid, h, ns, mirror);
		h >>= ns;
		mirror = false;
	}
	bs_tile_warp_round(s, valid, h, mirror);
}

/*
 * NS network steps of a merge stage in one global pass: the first is the
 * stage's mirror step (span 2h) or a plain step of stride h, the others the
 * plain steps of strides h/2 .. L >= T, over the pairs of the store a.
 * Each thread loads a group into registers, compares there and stores it
 * once; consecutive threads take consecutive offsets r < L, so every load
 * and store is coalesced.
 */
template<typename S, unsigned NS>
__global__ void
__launch_bounds__(BS_CUDA_STEP_THREADS)
bs_global_pass(S a, size_t n, size_t h, int mirror, size_t ngroups)
{
	size_t		stride = (size_t) gridDim.x * blockDim.x;

	for (size_t g = (size_t) blockIdx.x * blockDim.x + threadIdx.x; g < ngroups; g += stride)
	{
		bs_group<NS> grp(g, h, mirror != 0);
		bs_pair_t<S> v[bs_group<NS>::G];

		bs_group_load(v, a, n, grp);
		bs_group_network(v, n, grp);
		bs_group_store(v, a, n, grp);
	}
}

#endif							/* BS_BITONIC_KERNELS_CUH */
