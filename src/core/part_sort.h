/*
 * part_sort.h — a sort of 64-bit-key pairs whose order can be read before
 * it is complete: the pairs are split into parts by key range (in parallel,
 * one pass to count and one to scatter), then a worker thread sorts the
 * parts one after the other and writes each part's pointers to the order,
 * publishing how much of the order is final.  The caller reads the first
 * parts' order while the worker sorts the rest.
 *
 * The result is the order of a full sort by (key, ptr): equal keys share a
 * range, so a part is a contiguous run of the sorted pairs.  Nothing here
 * calls into PostgreSQL; the worker allocates only with malloc: the
 * sorter's own (NULL hooks), and 12 bytes a pair of the longest part for
 * sorting parts as packed 64-bit values (part_sort.c).
 */
#ifndef BS_PART_SORT_H
#define BS_PART_SORT_H

#include "bs_sort.h"
#include "key_ranges.h"
#include "worker.h"

#include <stdatomic.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Keys sampled per part to cut the parts. */
#define BS_PART_SAMPLE 32

typedef struct bs_part_sort
{
	bs_worker	worker;
	bs_pair64  *parts;			/* the pairs grouped by part (a part sorted as pairs: in place) */
	size_t		starts[BS_KEY_RANGES_MAX + 1];	/* part p is parts[starts[p], starts[p + 1]) */
	uint32_t	nparts;
	uint32_t   *order;			/* pointers of parts[i] go to order[i] */
	bs_options	opt;			/* how a part is sorted: one thread */
	atomic_size_t ready;		/* order[0, ready) is final */
	atomic_int	status;			/* BS_OK, or the first failure */
	atomic_bool cancel;			/* set by bs_part_sort_stop: sort no further part */
} bs_part_sort;

/*
 * Cut nparts (a power of two) key ranges from a sample of the n pairs and
 * scatter the pairs into dst grouped by range, ranges in key order (pad
 * cleared; the source pairs are only read); fills ps->parts,
 * ps->starts and ps->nparts.  kr is scratch
 * space for the ranges; sample holds nparts * BS_PART_SAMPLE keys.
 */
extern void bs_part_sort_split(bs_part_sort *ps, const bs_pair64 *pairs, size_t n,
							   bs_pair64 *dst, uint32_t nparts, bs_key_ranges *kr,
							   uint64_t *sample, int threads);

/*
 * Sort the parts in order, writing the pointers to order[] and publishing
 * ready after each part; on a worker thread when one starts, else here
 * before returning.  Each part is sorted by opt's backend and algorithm
 * (resolve BS_ALGO_AUTO for the whole sort first: a part is smaller) on
 * one thread, with malloc.
 */
extern void bs_part_sort_start(bs_part_sort *ps, uint32_t *order, const bs_options *opt);

/*
 * How many of the pairs' pointers are final (order[0, result)): all of them
 * once every part is sorted; BS_OK or the failure that stopped the sort in
 * *status.
 */
extern size_t bs_part_sort_ready(bs_part_sort *ps, bs_status *status);

/*
 * Let the part being sorted finish, sort no other, and join the worker
 * (nothing when none runs): a stop waits for one part at most, whatever is
 * left of the sort.
 */
extern void bs_part_sort_stop(bs_part_sort *ps);

#ifdef __cplusplus
}
#endif

#endif							/* BS_PART_SORT_H */
