/*
 * cpu_features.h — which SIMD level the CPU sorters run at, and the
 * prefetch for writing.
 */
#ifndef BS_CPU_FEATURES_H
#define BS_CPU_FEATURES_H

/* SIMD levels, in increasing order; used as an index. */
typedef enum bs_simd
{
	BS_SIMD_PORTABLE = 0,
	BS_SIMD_AVX2,
	BS_SIMD_AVX512,
	BS_SIMD_LEVELS
} bs_simd;

/* The level in use: the best the CPU has, unless forced lower. */
extern bs_simd bs_cpu_simd(void);

/* The best level this CPU supports. */
extern bs_simd bs_cpu_simd_detected(void);

/* Force a level (tests run every variant); clamped to what the CPU has. */
extern void bs_cpu_force_simd(bs_simd level);

/* Whether the CPU has PREFETCHW, a prefetch that takes the line for writing. */
extern int	bs_cpu_has_prefetchw(void);

#endif							/* BS_CPU_FEATURES_H */
