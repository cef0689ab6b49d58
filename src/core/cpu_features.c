/*
 * cpu_features.c — runtime detection of the SIMD level and the core count.
 */
#include "bs_sort.h"
#include "cpu_features.h"

#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static int	forced_level = -1;

/* The best level this CPU supports. */
bs_simd
bs_cpu_simd_detected(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))
		return BS_SIMD_AVX512;
	if (__builtin_cpu_supports("avx2"))
		return BS_SIMD_AVX2;
#endif
	return BS_SIMD_PORTABLE;
}

/* The level in use: the best the CPU has, unless forced lower. */
bs_simd
bs_cpu_simd(void)
{
	static int	detected = -1;

	if (detected < 0)
		detected = (int) bs_cpu_simd_detected();
	if (forced_level >= 0 && forced_level < detected)
		return (bs_simd) forced_level;
	return (bs_simd) detected;
}

/* Force a level (tests run every variant); clamped to what the CPU has. */
void
bs_cpu_force_simd(bs_simd level)
{
	forced_level = (int) level;
}

/* Whether the CPU has PREFETCHW (CPUID 0x80000001, ECX bit 8). */
int
bs_cpu_has_prefetchw(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned	eax,
				ebx,
				ecx,
				edx;

	if (__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx))
		return (ecx & bit_PRFCHW) != 0;
#endif
	return 0;
}

/* Name of the SIMD level in use. */
const char *
bs_cpu_simd_level(void)
{
	static const char *const names[BS_SIMD_LEVELS] = {"portable", "avx2", "avx512"};

	return names[bs_cpu_simd()];
}

/* Number of online CPU cores (at least 1). */
int
bs_cpu_core_count(void)
{
	long		n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int) n : 1;
}
