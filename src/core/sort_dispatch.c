/*
 * sort_dispatch.c — the sorting core's entry points: pick an algorithm and
 * run it.  Backends other than the CPU plug in here.
 */
#include "bs_sort.h"

#ifdef BS_HAVE_CUDA
#include "cuda/bs_cuda.h"
#endif

/* Options used when the caller passes none. */
static const bs_options default_options = {BS_BACKEND_CPU, BS_ALGO_AUTO, 1, NULL};

/* Sort n packed 32-bit-key pairs ascending by (key, ptr). */
bs_status
bs_sort_pairs32(bs_pair32 *pairs, size_t n, const bs_options *opt)
{
	if (opt == NULL)
		opt = &default_options;
#ifdef BS_HAVE_CUDA
	if (opt->backend == BS_BACKEND_CUDA)
		return bs_cuda_sort_pairs32(pairs, n, opt);
#endif
	if (opt->backend != BS_BACKEND_CPU)
		return BS_ERR_UNSUPPORTED;
	switch (opt->algorithm)
	{
		case BS_ALGO_AUTO:
		case BS_ALGO_BITONIC:
			return bs_cpu_bitonic_pairs32(pairs, n, opt);
		default:
			return BS_ERR_UNSUPPORTED;
	}
}

/* Sort n 64-bit-key pairs ascending by (key, ptr). */
bs_status
bs_sort_pairs64(bs_pair64 *pairs, size_t n, const bs_options *opt)
{
	if (opt == NULL)
		opt = &default_options;
#ifdef BS_HAVE_CUDA
	if (opt->backend == BS_BACKEND_CUDA)
		return bs_cuda_sort_pairs64(pairs, n, opt);
#endif
	if (opt->backend != BS_BACKEND_CPU)
		return BS_ERR_UNSUPPORTED;
	switch (opt->algorithm)
	{
		case BS_ALGO_AUTO:
		case BS_ALGO_BITONIC:
			return bs_cpu_bitonic_pairs64(pairs, n, opt);
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
	}
	return "unknown status";
}
