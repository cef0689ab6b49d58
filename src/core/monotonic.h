/*
 * monotonic.h — the monotonic clock of the sorting core, in nanoseconds,
 * and the pause of a wait that spins on it.
 */
#ifndef BS_MONOTONIC_H
#define BS_MONOTONIC_H

#include <time.h>

/* Nanoseconds on the monotonic clock. */
static inline long long
bs_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* One spin of a spin-wait: let the core's other hyperthread run. */
static inline void
bs_spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

#endif							/* BS_MONOTONIC_H */
