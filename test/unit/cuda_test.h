/*
 * cuda_test.h — what the CUDA unit tests share: the pair generators and the
 * qsort reference of pairs_gen.h as overloads over the pair shape, so every
 * test is written once as a template and run for both shapes.
 */
#ifndef BS_CUDA_TEST_H
#define BS_CUDA_TEST_H

#include "cuda/bs_cuda.h"
#include "cuda/emu/cuda_emu.h"
#include "pairs_gen.h"
#include "unit.h"

#include <cstring>
#include <ctime>
#include <vector>

/* Fill packed 32-bit-key pairs. */
static inline void
gen_pairs(bs_pair32 *p, size_t n, gen_dist dist, uint64_t seed)
{
	gen_pairs32(p, n, dist, seed);
}

/* Fill 64-bit-key pairs. */
static inline void
gen_pairs(bs_pair64 *p, size_t n, gen_dist dist, uint64_t seed)
{
	gen_pairs64(p, n, dist, seed);
}

/* qsort reference of packed pairs. */
static inline void
ref_sort(bs_pair32 *p, size_t n)
{
	qsort(p, n, sizeof(*p), ref_cmp32);
}

/* qsort reference of 64-bit-key pairs. */
static inline void
ref_sort(bs_pair64 *p, size_t n)
{
	qsort(p, n, sizeof(*p), ref_cmp64);
}

/* The CUDA entry point of a shape. */
static inline bs_status
cuda_sort(bs_pair32 *p, size_t n, const bs_options *opt)
{
	return bs_cuda_sort_pairs32(p, n, opt);
}

/* The CUDA entry point of a shape. */
static inline bs_status
cuda_sort(bs_pair64 *p, size_t n, const bs_options *opt)
{
	return bs_cuda_sort_pairs64(p, n, opt);
}

/* The core's dispatching entry point of a shape. */
static inline bs_status
core_sort(bs_pair32 *p, size_t n, const bs_options *opt)
{
	return bs_sort_pairs32(p, n, opt);
}

/* The core's dispatching entry point of a shape. */
static inline bs_status
core_sort(bs_pair64 *p, size_t n, const bs_options *opt)
{
	return bs_sort_pairs64(p, n, opt);
}

/* Name of a shape for test names. */
static inline const char *
shape_name(const bs_pair32 *)
{
	return "pairs32";
}

/* Name of a shape for test names. */
static inline const char *
shape_name(const bs_pair64 *)
{
	return "pairs64";
}

/* Whether two pair arrays are identical. */
template<typename P>
static bool
same_pairs(const std::vector<P> &a, const std::vector<P> &b)
{
	return a.size() == b.size() && (a.empty() || memcmp(a.data(), b.data(), a.size() * sizeof(P)) == 0);
}

/* Seconds on the monotonic clock. */
static inline double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif							/* BS_CUDA_TEST_H */
