/*
 * sort_dispatch.c — the sorting core's entry points: pick an algorithm and
 * run it.  Backends other than the CPU plug in here.
 */
#include "bs_sort.h"

#ifdef BS_HAVE_CUDA
#include "cuda/bs_cuda.h"
#endif

/*
 * Below this many pairs `auto` uses the adaptive sorter on the CPU, at or
 * above it the standard network: measured with test/bench/sorter_bench on a
 * 2-core AVX-512 machine, the adaptive sort is 10-15% faster up to 2^17 pairs
 * and falls behind from 2^18 on, where its pointer chasing misses the cache
 * while the network streams through memory.
 */
#define BS_AUTO_ADAPTIVE_BELOW ((size_t) 1 << 18)

/* Options used when the caller passes none. */
static const bs_options default_options = {BS_BACKEND_CPU, BS_ALGO_AUTO, 1, NULL, NULL};

/* Below this many pairs `auto` picks the adaptive sorter on a backend. */
size_t
bs_auto_threshold(bs_backend backend)
{
	(void) backend;
	return BS_AUTO_ADAPTIVE_BELOW;
}

/*
 * The algorithm BS_ALGO_AUTO resolves to for n pairs on a backend: the
 * standard bitonic sorter on the GPU; on the CPU the fastest correct sorter
 * of this build, Highway's vqsort where it is built in, otherwise the faster
 * of our two bitonic sorters for this n.
 */
bs_algorithm
bs_choose_algorithm(bs_backend backend, size_t n)
{
	if (backend == BS_BACKEND_CUDA)
		return BS_ALGO_BITONIC;
	if (bs_cpu_has_vqsort())
		return BS_ALGO_VQSORT;
	return n < bs_auto_threshold(backend) ? BS_ALGO_ADAPTIVE : BS_ALGO_BITONIC;
}

#ifdef BS_HAVE_VQSORT
/* Whether this build has Highway's vqsort: yes. */
int
bs_cpu_has_vqsort(void)
{
	return 1;
}
#else
/* Whether this build has Highway's vqsort: no. */
int
bs_cpu_has_vqsort(void)
{
	return 0;
}

/* Without Highway there is no vqsort: say so. */
bs_status
bs_cpu_vqsort_pairs32(bs_pair32 *pairs, size_t n, const bs_options *opt)
{
	(void) pairs;
	(void) n;
	(void) opt;
	return BS_ERR_UNSUPPORTED;
}

/* Without Highway there is no vqsort: say so. */
bs_status
bs_cpu_vqsort_pairs64(bs_pair64 *pairs, size_t n, const bs_options *opt)
{
	(void) pairs;
	(void) n;
	(void) opt;
	return BS_ERR_UNSUPPORTED;
}

/* Without Highway there is no vqsort: say so. */
bs_status
bs_cpu_vqsort_keys64(uint64_t *keys, size_t n, const bs_options *opt)
{
	(void) keys;
	(void) n;
	(void) opt;
	return BS_ERR_UNSUPPORTED;
}
#endif

/*
 * The algorithm to run for n pairs under `opt` (NULL means the defaults), or
 * BS_ALGO_AUTO when no sorter of this build can serve the options.
 */
static bs_algorithm
resolve_algorithm(const bs_options **opt, size_t n)
{
	if (*opt == NULL)
		*opt = &default_options;
	if ((*opt)->backend != BS_BACKEND_CPU)
		return BS_ALGO_AUTO;
	if ((*opt)->algorithm == BS_ALGO_AUTO)
		return bs_choose_algorithm((*opt)->backend, n);
	return (*opt)->algorithm;
}

/* Sort n packed 32-bit-key pairs ascending by (key, ptr). */
bs_status
bs_sort_pairs32(bs_pair32 *pairs, size_t n, const bs_options *opt)
{
#ifdef BS_HAVE_CUDA
	if (opt != NULL && opt->backend == BS_BACKEND_CUDA)
		return bs_cuda_sort_pairs32(pairs, n, opt);
#endif
	switch (resolve_algorithm(&opt, n))
	{
		case BS_ALGO_BITONIC:
			return bs_cpu_bitonic_pairs32(pairs, n, opt);
		case BS_ALGO_ADAPTIVE:
			return bs_cpu_adaptive_pairs32(pairs, n, opt);
		case BS_ALGO_VQSORT:
			return bs_cpu_vqsort_pairs32(pairs, n, opt);
		default:
			return BS_ERR_UNSUPPORTED;
	}
}

/* Sort n 64-bit-key pairs ascending by (key, ptr). */
bs_status
bs_sort_pairs64(bs_pair64 *pairs, size_t n, const bs_options *opt)
{
#ifdef BS_HAVE_CUDA
	if (opt != NULL && opt->backend == BS_BACKEND_CUDA)
		return bs_cuda_sort_pairs64(pairs, n, opt);
#endif
	switch (resolve_algorithm(&opt, n))
	{
		case BS_ALGO_BITONIC:
			return bs_cpu_bitonic_pairs64(pairs, n, opt);
		case BS_ALGO_ADAPTIVE:
			return bs_cpu_adaptive_pairs64(pairs, n, opt);
		case BS_ALGO_VQSORT:
			return bs_cpu_vqsort_pairs64(pairs, n, opt);
		default:
			return BS_ERR_UNSUPPORTED;
	}
}

/* Name of an algorithm. */
const char *
bs_algorithm_name(bs_algorithm algo)
{
	switch (algo)
	{
		case BS_ALGO_AUTO:
			return "auto";
		case BS_ALGO_BITONIC:
			return "bitonic";
		case BS_ALGO_ADAPTIVE:
			return "adaptive";
		case BS_ALGO_VQSORT:
			return "vqsort";
	}
	return "unknown";
}

/* Short English text of a status code. */
const char *
bs_status_message(bs_status status)
{
	switch (status)
	{
		case BS_OK:
			return "success";
		case BS_ERR_NOMEM:
			return "out of memory";
		case BS_ERR_TOO_MANY:
			return "too many elements for 32-bit pointers";
		case BS_ERR_UNSUPPORTED:
			return "algorithm or backend not available in this build";
		case BS_ERR_DEVICE:
			return "the GPU backend failed";
		case BS_ERR_DEVICE_LOST:
			return "the GPU failed while writing the sorted pairs back";
	}
	return "unknown status";
}
