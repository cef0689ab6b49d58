/*
 * bench_clock.h — the clock of the stand-alone benchmark programs.
 */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <time.h>

/* Milliseconds of the monotonic clock. */
static inline double
bench_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#endif							/* BENCH_CLOCK_H */
