/*
 * merge_sort.h — a parallel merge sort of fixed-size records under a
 * thread-safe comparator, for sort keys that have no normalised form (text
 * in a libc collation: every comparison is a strcoll).
 *
 * Chunks are sorted with qsort_r on bitonic_sort.cpu_threads threads, then
 * merged in rounds, each merge cut into independent output segments by a
 * co-rank search; a merge hints each run's record some way ahead, so what
 * a comparison reads through a record is fetched before it is needed (it
 * misses the cache in the late, wide rounds).  The hooks' interrupt check
 * runs on the calling thread between batches, and as soon as an interrupt
 * waits where the hooks have a pending probe: tasks of a few thousand
 * records keep that wait short.  The comparator must be a total order
 * (break ties by a unique field): the result is then the one sorted order.
 */
#ifndef BS_MERGE_SORT_H
#define BS_MERGE_SORT_H

#include "bs_sort.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Comparator of two records; called on worker threads. */
typedef int (*bs_record_cmp) (const void *a, const void *b, void *arg);

/*
 * Hint that a record will be compared soon (it may prefetch what the record
 * points to); called on worker threads, only with records of the array.
 */
typedef void (*bs_record_prefetch) (const void *record, void *arg);

/*
 * Sort n records of `size` bytes with cmp (prefetch may be NULL); both get
 * arg.  BS_ERR_NOMEM without scratch memory.
 */
extern bs_status bs_merge_sort(void *records, size_t n, size_t size,
							   bs_record_cmp cmp, bs_record_prefetch prefetch,
							   void *arg, int threads, const bs_hooks *hooks);

#ifdef __cplusplus
}
#endif

#endif							/* BS_MERGE_SORT_H */
