/*
 * monotonic.h — the monotonic clock of the sorting core, in nanoseconds.
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

#endif							/* BS_MONOTONIC_H */
