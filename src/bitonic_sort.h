/*
 * bitonic_sort.h — shared declarations of the PostgreSQL glue.
 *
 * Grouped by the file that defines them, one file per job.
 */
#ifndef BITONIC_SORT_H
#define BITONIC_SORT_H

#include "postgres.h"

#include "core/bs_sort.h"

/* guc.c */
typedef enum BitonicDevice
{
	BITONIC_DEVICE_AUTO,
	BITONIC_DEVICE_CPU,
	BITONIC_DEVICE_GPU
} BitonicDevice;

extern int	bitonic_sort_device;
extern int	bitonic_sort_algorithm;	/* a bs_algorithm */
extern int	bitonic_sort_cpu_threads;
extern int	bitonic_sort_gpu_memory_limit;	/* MB */
extern char *bitonic_sort_emu_fail;	/* emulated builds only */
extern void BitonicGucInit(void);

/* sort_run.c */
extern void BitonicSortPairs32(bs_pair32 *pairs, size_t n);
extern void BitonicSortPairs64(bs_pair64 *pairs, size_t n);
extern bool BitonicGpuUsable(const char **reason);

/* keys.c */
typedef enum BitonicKeyWidth
{
	BITONIC_KEY_NONE = 0,		/* the type has no exact fixed-width key */
	BITONIC_KEY_32 = 32,
	BITONIC_KEY_64 = 64
} BitonicKeyWidth;

extern BitonicKeyWidth BitonicKeyWidthForType(Oid typid);
extern void BitonicKeysFromArray32(Oid typid, const char *values, size_t n,
								   bool descending, bs_pair32 *pairs);
extern void BitonicKeysFromArray64(Oid typid, const char *values, size_t n,
								   bool descending, bs_pair64 *pairs);

#endif							/* BITONIC_SORT_H */
