/*
 * part_sort.c — pairs split by key range and sorted part by part on a
 * worker thread (see part_sort.h).
 */
#include "part_sort.h"
#include "parallel.h"

#include <stdlib.h>
#include <string.h>

/* Most threads the split uses (one slice of the pairs each). */
#define SPLIT_THREADS 8

/* The split's shared state: each thread counts, then scatters, its own slice. */
typedef struct split_job
{
	bs_pair64  *pairs;			/* their pads are written */
	size_t		n;
	bs_pair64  *dst;
	const bs_key_ranges *kr;
	int			nslices;
	size_t		(*offsets)[BS_KEY_RANGES_MAX];	/* per slice: counts, then next slots */
} split_job;

/*
 * First pass over slice s: how many of its pairs fall in each range; each
 * pair's range is kept in its pad for the second pass.
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
		{
			uint32_t	range = bs_key_range(job->kr, job->pairs[i].key);

			job->pairs[i].pad = range;
			count[range]++;
		}
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
			bs_pair64  *d = &job->dst[next[job->pairs[i].pad]++];

			d->key = job->pairs[i].key;
			d->ptr = job->pairs[i].ptr;
			d->pad = 0;
		}
	}
}

/* Cut the parts and scatter the pairs into them (see part_sort.h). */
void
bs_part_sort_split(bs_part_sort *ps, bs_pair64 *pairs, size_t n, bs_pair64 *dst,
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

/* Worker job: sort each part, write its pointers, publish (see part_sort.h). */
static void
sort_parts(void *arg)
{
	bs_part_sort *ps = (bs_part_sort *) arg;

	for (uint32_t p = 0; p < ps->nparts; p++)
	{
		size_t		from = ps->starts[p];
		size_t		len = ps->starts[p + 1] - from;
		bs_status	status;

		if (atomic_load_explicit(&ps->cancel, memory_order_relaxed))
			return;
		status = bs_sort_pairs64(ps->parts + from, len, &ps->opt);

		if (status != BS_OK)
		{
			atomic_store(&ps->status, (int) status);
			return;
		}
		for (size_t i = from; i < from + len; i++)
			ps->order[i] = ps->parts[i].ptr;
		atomic_store_explicit(&ps->ready, from + len, memory_order_release);
	}
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
