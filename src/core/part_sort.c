/*
 * part_sort.c — pairs split by key range and sorted part by part on a
 * worker thread (see part_sort.h).
 *
 * A part is sorted as 64-bit values rather than 128-bit pairs where it can
 * be: each pair's key less the part's smallest, above the pair's position
 * in the part (about 16 bits for a part of 32k pairs).  A 64-bit sort is
 * about twice as fast as a 128-bit one, and the pointers are then read by
 * position from a copy of the part's pointers, 4 bytes a pair (looked up in
 * the pairs themselves, 16 bytes apart, that read was a third of the
 * worker's time in a 10M-row ORDER BY).  Where the keys' spread needs more
 * bits than are left, their low bits are dropped; the keys that then pack
 * alike sort by position.  Each run of values with equal keys once packed
 * that is not in (key, ptr) order is then sorted again, packed as its key
 * less the run's least above its pointer (its keys differ only in the bits
 * dropped, so that fits whole).  Random keys leave next to none, and equal
 * keys are in pointer order already where the pointers of a key grow with
 * the input (the store's locators do, and the split keeps the input's
 * order).
 */
#include "part_sort.h"
#include "parallel.h"

#include <stdlib.h>
#include <string.h>

/* Most threads the split uses (one slice of the pairs each). */
#define SPLIT_THREADS 8

/* Largest part sorted as packed values (their scratch: 12 bytes a pair). */
#define PACK_MAX_PAIRS ((size_t) 1 << 20)

/* Runs of like-packed pairs up to this length are ordered by insertion. */
#define RUN_INSERTION_MAX 32

/* The split's shared state: each thread counts, then scatters, its own slice. */
typedef struct split_job
{
	const bs_pair64 *pairs;
	size_t		n;
	bs_pair64  *dst;
	const bs_key_ranges *kr;
	int			nslices;
	size_t		(*offsets)[BS_KEY_RANGES_MAX];	/* per slice: counts, then next slots */
} split_job;

/*
 * First pass over slice s: how many of its pairs fall in each range.  The
 * range is not kept (in the pair's pad) for the second pass, which looks it
 * up again: writing the pads back cost more than the second look-up (10M
 * pairs in 256 ranges on two threads, standalone: 85 against 71 ms for the
 * whole split with int8-like keys, 80 against 67 ms with float8's).
 */
static void
count_slice(void *ctx, size_t s, size_t end)
{
	split_job  *job = (split_job *) ctx;

	for (; s < end; s++)
	{
		size_t		from = s * job->n / job->nslices;
		size_t		to = (s + 1) * job->n / job->nslices;
		size_t	   *count = job->offsets[s];

		memset(count, 0, sizeof(job->offsets[s]));
		for (size_t i = from; i < to; i++)
			count[bs_key_range(job->kr, job->pairs[i].key)]++;
	}
}

/* Second pass over slice s: each pair to its range's next slot (pad cleared). */
static void
scatter_slice(void *ctx, size_t s, size_t end)
{
	split_job  *job = (split_job *) ctx;

	for (; s < end; s++)
	{
		size_t		from = s * job->n / job->nslices;
		size_t		to = (s + 1) * job->n / job->nslices;
		size_t	   *next = job->offsets[s];

		for (size_t i = from; i < to; i++)
		{
			bs_pair64  *d = &job->dst[next[bs_key_range(job->kr, job->pairs[i].key)]++];

			d->key = job->pairs[i].key;
			d->ptr = job->pairs[i].ptr;
			d->pad = 0;
		}
	}
}

/* Cut the parts and scatter the pairs into them (see part_sort.h). */
void
bs_part_sort_split(bs_part_sort *ps, const bs_pair64 *pairs, size_t n, bs_pair64 *dst,
				   uint32_t nparts, bs_key_ranges *kr, uint64_t *sample, int threads)
{
	size_t		offsets[SPLIT_THREADS][BS_KEY_RANGES_MAX];
	size_t		nsample = (size_t) nparts * BS_PART_SAMPLE;
	split_job	job = {pairs, n, dst, kr, 1, offsets};
	size_t		at = 0;

	if (nsample > n)
		nsample = n;
	for (size_t i = 0; i < nsample; i++)
		sample[i] = pairs[i * n / nsample].key;
	bs_key_ranges_cut(kr, sample, nsample, nparts);

	if (threads > SPLIT_THREADS)
		threads = SPLIT_THREADS;
	job.nslices = threads > 1 ? threads : 1;
	bs_parallel_for(threads, 0, (size_t) job.nslices, 1, count_slice, &job);
	/* range by range, slice by slice: where each slice's pairs of a range go */
	for (uint32_t r = 0; r < nparts; r++)
	{
		ps->starts[r] = at;
		for (int s = 0; s < job.nslices; s++)
		{
			size_t		count = offsets[s][r];

			offsets[s][r] = at;
			at += count;
		}
	}
	ps->starts[nparts] = at;
	bs_parallel_for(threads, 0, (size_t) job.nslices, 1, scatter_slice, &job);
	ps->parts = dst;
	ps->nparts = nparts;
}

/* Bits that hold the value v (0 for 0). */
static inline int
bits_of(uint64_t v)
{
	return v == 0 ? 0 : 64 - __builtin_clzll((unsigned long long) v);
}

/*
 * Write the pointers of a run of packed values (positions in their low bits)
 * to order, from ptrs: the part's pointers by position.
 */
static inline void
write_positions(const uint32_t *ptrs, const uint64_t *run, size_t len, uint64_t mask,
				uint32_t *order)
{
	for (size_t i = 0; i < len; i++)
		order[i] = ptrs[run[i] & mask];
}

/* Whether pair a comes before pair b: (key, ptr) order. */
static inline bool
pair_before(const bs_pair64 *a, const bs_pair64 *b)
{
	return a->key != b->key ? a->key < b->key : a->ptr < b->ptr;
}

/*
 * Write the pointers of a run of packed values (positions in the part in
 * their low bits, mask) to order in the (key, ptr) order of their pairs: by
 * insertion when short, else by sorting the run again packed as each key
 * less the run's least above the pointer.  The run's keys differ in the
 * bits the packing dropped only (at most 21), so that packs whole below
 * 2^63.
 */
static bs_status
order_run(const bs_pair64 *pairs, const uint32_t *ptrs, uint64_t *run, size_t len, uint64_t mask,
		  uint32_t *order, const bs_options *opt)
{
	uint64_t	lo = UINT64_MAX;
	bs_status	status;

	if (len <= RUN_INSERTION_MAX)
	{
		for (size_t i = 1; i < len; i++)
		{
			uint64_t	value = run[i];
			size_t		j = i;

			for (; j > 0 && pair_before(&pairs[value & mask], &pairs[run[j - 1] & mask]); j--)
				run[j] = run[j - 1];
			run[j] = value;
		}
		write_positions(ptrs, run, len, mask, order);
		return BS_OK;
	}
	for (size_t i = 0; i < len; i++)
		lo = pairs[run[i] & mask].key < lo ? pairs[run[i] & mask].key : lo;
	for (size_t i = 0; i < len; i++)
	{
		const bs_pair64 *pair = &pairs[run[i] & mask];

		run[i] = (pair->key - lo) << 32 | pair->ptr;
	}
	status = bs_sort_pairs32(run, len, opt);
	for (size_t i = 0; status == BS_OK && i < len; i++)
		order[i] = (uint32_t) run[i];
	return status;
}

/*
 * Write the pointers of a part sorted as packed values to order: run by run
 * of equal packed keys, each run put in (key, ptr) order where it is not.
 */
static bs_status
write_packed_order(const bs_pair64 *pairs, const uint32_t *ptrs, uint64_t *packed, size_t len,
				   int pos_bits, uint32_t *order, const bs_options *opt)
{
	uint64_t	mask = ((uint64_t) 1 << pos_bits) - 1;

	for (size_t i = 0, end; i < len; i = end)
	{
		bool		in_order = true;

		for (end = i + 1; end < len && (packed[end] >> pos_bits) == (packed[i] >> pos_bits); end++)
			in_order &= pair_before(&pairs[packed[end - 1] & mask], &pairs[packed[end] & mask]);
		if (in_order)
			write_positions(ptrs, packed + i, end - i, mask, order + i);
		else
		{
			bs_status	status = order_run(pairs, ptrs, packed + i, end - i, mask, order + i,
											   opt);

			if (status != BS_OK)
				return status;
		}
	}
	return BS_OK;
}

/*
 * Sort a part of len (2 or more) pairs as packed values in scratch (len
 * entries) and write its pointers to order (see the head of this file).
 * ptrs (len entries) takes the part's pointers by position, so that the
 * sorted positions are looked up in 4 bytes a pair rather than 16.  The
 * values stay below 2^63: the adaptive sorter pads with values whose top 32
 * bits are all set.
 */
static bs_status
sort_part_packed(const bs_pair64 *pairs, size_t len, uint64_t *scratch, uint32_t *ptrs,
				 uint32_t *order, const bs_options *opt)
{
	uint64_t	lo = UINT64_MAX;
	uint64_t	hi = 0;
	int			pos_bits = bits_of(len - 1);
	int			key_bits;
	int			shift;
	bs_status	status;

	for (size_t i = 0; i < len; i++)
	{
		lo = pairs[i].key < lo ? pairs[i].key : lo;
		hi = pairs[i].key > hi ? pairs[i].key : hi;
		ptrs[i] = pairs[i].ptr;
	}
	key_bits = bits_of(hi - lo);
	shift = key_bits + pos_bits > 63 ? key_bits + pos_bits - 63 : 0;
	for (size_t i = 0; i < len; i++)
		scratch[i] = ((pairs[i].key - lo) >> shift) << pos_bits | i;
	status = bs_sort_pairs32(scratch, len, opt);
	if (status != BS_OK)
		return status;
	return write_packed_order(pairs, ptrs, scratch, len, pos_bits, order, opt);
}

/*
 * Sort one part, packed where the scratch has room (scratch_len values and
 * as many pointers), and write its pointers to order.
 */
static bs_status
sort_part(bs_pair64 *pairs, size_t len, uint64_t *scratch, uint32_t *ptrs, size_t scratch_len,
		  uint32_t *order, const bs_options *opt)
{
	bs_status	status;

	if (len >= 2 && len <= scratch_len)
		return sort_part_packed(pairs, len, scratch, ptrs, order, opt);
	status = bs_sort_pairs64(pairs, len, opt);
	for (size_t i = 0; status == BS_OK && i < len; i++)
		order[i] = pairs[i].ptr;
	return status;
}

/* Pairs of the longest part that packs (0 when none). */
static size_t
longest_packed_part(const bs_part_sort *ps)
{
	size_t		longest = 0;

	for (uint32_t p = 0; p < ps->nparts; p++)
	{
		size_t		len = ps->starts[p + 1] - ps->starts[p];

		if (len <= PACK_MAX_PAIRS && len > longest)
			longest = len;
	}
	return longest;
}

/* Worker job: sort each part, write its pointers, publish (see part_sort.h). */
static void
sort_parts(void *arg)
{
	bs_part_sort *ps = (bs_part_sort *) arg;
	size_t		scratch_len = longest_packed_part(ps);
	uint64_t   *scratch = scratch_len > 0 ?
		malloc(scratch_len * (sizeof(uint64_t) + sizeof(uint32_t))) : NULL;
	uint32_t   *ptrs = scratch != NULL ? (uint32_t *) (scratch + scratch_len) : NULL;

	if (scratch == NULL)
		scratch_len = 0;		/* no room: every part sorts as pairs */
	for (uint32_t p = 0; p < ps->nparts; p++)
	{
		size_t		from = ps->starts[p];
		size_t		len = ps->starts[p + 1] - from;
		bs_status	status;

		if (atomic_load_explicit(&ps->cancel, memory_order_relaxed))
			break;
		status = sort_part(ps->parts + from, len, scratch, ptrs, scratch_len, ps->order + from,
						   &ps->opt);
		if (status != BS_OK)
		{
			atomic_store(&ps->status, (int) status);
			break;
		}
		atomic_store_explicit(&ps->ready, from + len, memory_order_release);
	}
	free(scratch);
}

/* Sort the parts on a worker, or here (see part_sort.h). */
void
bs_part_sort_start(bs_part_sort *ps, uint32_t *order, const bs_options *opt)
{
	ps->order = order;
	ps->opt = *opt;
	ps->opt.threads = 1;
	ps->opt.hooks = NULL;
	ps->opt.comparisons = NULL;
	atomic_init(&ps->ready, 0);
	atomic_init(&ps->status, BS_OK);
	atomic_init(&ps->cancel, false);
	if (bs_worker_start(&ps->worker))
		bs_worker_run(&ps->worker, sort_parts, ps);
	else
		sort_parts(ps);
}

/* How much of the order is final (see part_sort.h). */
size_t
bs_part_sort_ready(bs_part_sort *ps, bs_status *status)
{
	size_t		ready = atomic_load_explicit(&ps->ready, memory_order_acquire);

	*status = (bs_status) atomic_load(&ps->status);
	return ready;
}

/* Stop after the part being sorted and join the worker (see part_sort.h). */
void
bs_part_sort_stop(bs_part_sort *ps)
{
	atomic_store_explicit(&ps->cancel, true, memory_order_relaxed);
	bs_worker_stop(&ps->worker);
}
