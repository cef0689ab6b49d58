/*
 * mono_clock.h — the clock of the unit tests and the benchmark programs.
 */
#ifndef BS_MONO_CLOCK_H
#define BS_MONO_CLOCK_H

#include <time.h>

/* Seconds of the monotonic clock. */
static inline double
mono_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif							/* BS_MONO_CLOCK_H */
