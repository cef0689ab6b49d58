/*
 * sort_bitonic.c — the standard bitonic sorter on the CPU, for both pair
 * shapes, with AVX-512 / AVX2 / portable variants chosen at run time.
 */
#include "bs_sort.h"
#include "cpu_features.h"
#include "parallel.h"

/* Pairs per cache-resident tile: the local phase sorts one tile at a time. */
#define BS_NET_TILE ((size_t) 4096)
/* Comparators per parallel chunk of a global pass. */
#define BS_NET_GRAIN ((size_t) 1 << 16)
/* Tiles per parallel chunk of a local phase. */
#define BS_NET_TILE_GRAIN ((size_t) 2)
/* Work items between two interrupt checks. */
#define BS_NET_CHECK_EVERY ((size_t) 1 << 20)
/* Below this many pairs the sort stays on the calling thread. */
#define BS_NET_PARALLEL_MIN ((size_t) 1 << 16)

/* One pass of the network: pairs, n, stride or block size, tile size. */
typedef struct bs_net_pass
{
	void	   *pairs;
	size_t		n;
	size_t		span;
	size_t		tile;
} bs_net_pass;

/*
 * Run one pass in batches of about BS_NET_CHECK_EVERY comparators (each
 * item costs `cost`), checking for interrupts between batches; a batch
 * holds a chunk for every thread at least.
 */
static void
bs_net_run(bs_task_fn fn, bs_net_pass *pass, size_t nitems, size_t grain,
		   size_t cost, int threads, const bs_hooks *hooks)
{
	size_t		batch = BS_NET_CHECK_EVERY / cost;

	if (pass->n < BS_NET_PARALLEL_MIN)
		threads = 1;
	if (batch < grain * (size_t) threads)
		batch = grain * (size_t) threads;
	bs_parallel_for_checked(threads, nitems, grain, batch, fn, pass, hooks);
}

/* Comparators of a tile's pass: its whole sort when `whole`, else the end of a merge. */
static size_t
bs_net_tile_cost(size_t tile, int whole)
{
	size_t		levels = 0;

	while (((size_t) 1 << levels) < tile)
		levels++;
	if (levels == 0)
		return 1;
	return tile / 2 * (whole ? levels * (levels + 1) / 2 : levels);
}

/* Packed 32-bit-key pairs compare as plain integers. */
#define PAIR32_GT(x, y) ((x) > (y))
/* 64-bit-key pairs compare by key, then pointer. */
#define PAIR64_GT(x, y) (((x).key > (y).key) | (((x).key == (y).key) & ((x).ptr > (y).ptr)))

#define NET_PAIR bs_pair32
#define NET_GT PAIR32_GT
#define NET_TARGET
#define NET_NAME(s) net32_portable_##s
#include "bitonic_network.inc"
#undef NET_TARGET
#undef NET_NAME
#define NET_TARGET __attribute__((target("avx2")))
#define NET_NAME(s) net32_avx2_##s
#include "bitonic_network.inc"
#undef NET_TARGET
#undef NET_NAME
#define NET_TARGET __attribute__((target("avx512f,avx512vl")))
#define NET_NAME(s) net32_avx512_##s
#include "bitonic_network.inc"
#undef NET_TARGET
#undef NET_NAME
#undef NET_PAIR
#undef NET_GT

#define NET_PAIR bs_pair64
#define NET_GT PAIR64_GT
#define NET_TARGET
#define NET_NAME(s) net64_portable_##s
#include "bitonic_network.inc"
#undef NET_TARGET
#undef NET_NAME
#define NET_TARGET __attribute__((target("avx2")))
#define NET_NAME(s) net64_avx2_##s
#include "bitonic_network.inc"
#undef NET_TARGET
#undef NET_NAME
#define NET_TARGET __attribute__((target("avx512f,avx512vl")))
#define NET_NAME(s) net64_avx512_##s
#include "bitonic_network.inc"
#undef NET_TARGET
#undef NET_NAME
#undef NET_PAIR
#undef NET_GT

/* Network variants by SIMD level (indexed by bs_simd). */
static void (*const net32_sort[BS_SIMD_LEVELS]) (bs_pair32 *, size_t, int, const bs_hooks *) = {
	net32_portable_sort, net32_avx2_sort, net32_avx512_sort
};
static void (*const net64_sort[BS_SIMD_LEVELS]) (bs_pair64 *, size_t, int, const bs_hooks *) = {
	net64_portable_sort, net64_avx2_sort, net64_avx512_sort
};

/* Sort packed pairs with the network variant for this CPU. */
bs_status
bs_cpu_bitonic_pairs32(bs_pair32 *pairs, size_t n, const bs_options *opt)
{
	if (n > BS_MAX_PAIRS)
		return BS_ERR_TOO_MANY;
	net32_sort[bs_cpu_simd()] (pairs, n, opt->threads, opt->hooks);
	return BS_OK;
}

/* Sort 64-bit-key pairs with the network variant for this CPU. */
bs_status
bs_cpu_bitonic_pairs64(bs_pair64 *pairs, size_t n, const bs_options *opt)
{
	if (n > BS_MAX_PAIRS)
		return BS_ERR_TOO_MANY;
	net64_sort[bs_cpu_simd()] (pairs, n, opt->threads, opt->hooks);
	return BS_OK;
}
