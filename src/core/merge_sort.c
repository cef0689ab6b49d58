/*
 * merge_sort.c — parallel merge sort of records under a comparator (see
 * merge_sort.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* qsort_r */
#endif
#include "merge_sort.h"

#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "parallel.h"

/*
 * Records per chunk sorted by one qsort_r call, and output records per
 * merge task: a cancel waits for the task each thread runs, so a task is
 * kept to milliseconds even where a comparison is a strcoll of 100-300 ns
 * (a chunk of 32k records took 100-200 ms of them).
 */
#define CHUNK_RECORDS ((size_t) 1 << 12)
#define SEGMENT_RECORDS ((size_t) 1 << 13)
/* Tasks per thread between two interrupt checks (a cancel does not wait for a batch). */
#define BATCH_TASKS 16
/* How many records ahead of each run's head a merge hints. */
#define PREFETCH_AHEAD 16

/* One sort: arrays, record layout, comparator and the merge round under way. */
typedef struct merge_job
{
	char	   *data;
	char	   *scratch;
	size_t		n;
	size_t		size;
	bs_record_cmp cmp;
	bs_record_prefetch prefetch;	/* may be NULL */
	void	   *arg;
	size_t		width;			/* length of the runs merged this round */
} merge_job;

/* Record i of an array. */
static inline char *
record(const merge_job *job, char *base, size_t i)
{
	return base + i * job->size;
}

/* Sort chunks [b, e) of the data with qsort_r. */
static void
sort_chunks(void *vjob, size_t b, size_t e)
{
	merge_job  *job = (merge_job *) vjob;

	for (size_t c = b; c < e; c++)
	{
		size_t		lo = c * CHUNK_RECORDS;
		size_t		len = job->n - lo < CHUNK_RECORDS ? job->n - lo : CHUNK_RECORDS;

		qsort_r(record(job, job->data, lo), len, job->size, job->cmp, job->arg);
	}
}

/* How many of the first k outputs of merging runs a[0..m) and b[0..nb) come from a. */
static size_t
corank(const merge_job *job, size_t k, char *a, size_t m, char *b, size_t nb)
{
	size_t		lo = k > nb ? k - nb : 0;
	size_t		hi = k < m ? k : m;

	while (lo < hi)
	{
		size_t		i = lo + (hi - lo) / 2;
		size_t		j = k - i;

		if (j > 0 && i < m &&
			job->cmp(record(job, a, i), record(job, b, j - 1), job->arg) < 0)
			lo = i + 1;
		else
			hi = i;
	}
	return lo;
}

/* Hint records [from, to) of a run, those before its end len. */
static inline void
hint(const merge_job *job, char *run, size_t from, size_t to, size_t len)
{
	if (job->prefetch == NULL)
		return;
	for (size_t k = from; k < to && k < len; k++)
		job->prefetch(record(job, run, k), job->arg);
}

/* Merge output segments [b, e) of this round from data into scratch. */
static void
merge_segments(void *vjob, size_t b, size_t e)
{
	merge_job  *job = (merge_job *) vjob;
	size_t		w = job->width;

	for (size_t s = b; s < e; s++)
	{
		size_t		o0 = s * SEGMENT_RECORDS;
		size_t		o1 = o0 + SEGMENT_RECORDS < job->n ? o0 + SEGMENT_RECORDS : job->n;
		size_t		base = o0 / (2 * w) * (2 * w);
		size_t		m = job->n - base < w ? job->n - base : w;
		size_t		nb = job->n - base - m < w ? job->n - base - m : w;
		char	   *a = record(job, job->data, base);
		char	   *bb = record(job, job->data, base + m);
		size_t		i = corank(job, o0 - base, a, m, bb, nb);
		size_t		j = o0 - base - i;

		hint(job, a, i, i + PREFETCH_AHEAD, m);
		hint(job, bb, j, j + PREFETCH_AHEAD, nb);
		for (size_t o = o0; o < o1; o++)
		{
			char	   *src;

			if (j >= nb || (i < m && job->cmp(record(job, a, i), record(job, bb, j), job->arg) < 0))
			{
				src = record(job, a, i++);
				hint(job, a, i + PREFETCH_AHEAD - 1, i + PREFETCH_AHEAD, m);
			}
			else
			{
				src = record(job, bb, j++);
				hint(job, bb, j + PREFETCH_AHEAD - 1, j + PREFETCH_AHEAD, nb);
			}
			memcpy(record(job, job->scratch, o), src, job->size);
		}
	}
}

/* Sort n records (see merge_sort.h). */
bs_status
bs_merge_sort(void *records, size_t n, size_t size, bs_record_cmp cmp,
			  bs_record_prefetch prefetch, void *arg, int threads, const bs_hooks *hooks)
{
	merge_job	job = {records, NULL, n, size, cmp, prefetch, arg, 0};
	size_t		nchunks = (n + CHUNK_RECORDS - 1) / CHUNK_RECORDS;

	if (n < 2 || size == 0)
		return BS_OK;
	if (threads < 1)
		threads = 1;
	if (nchunks > 1)
	{
		job.scratch = bs_core_alloc(hooks, n * size);
		if (job.scratch == NULL)
			return BS_ERR_NOMEM;
	}
	bs_parallel_for_checked(threads, nchunks, 1, BATCH_TASKS * threads, sort_chunks, &job, hooks);
	/* runs of CHUNK_RECORDS, a multiple of SEGMENT_RECORDS / 2: no segment spans two merges */
	for (job.width = CHUNK_RECORDS; job.width < n; job.width *= 2)
	{
		char	   *t;

		bs_parallel_for_checked(threads, (n + SEGMENT_RECORDS - 1) / SEGMENT_RECORDS, 1,
								BATCH_TASKS * threads, merge_segments, &job, hooks);
		t = job.data;
		job.data = job.scratch;
		job.scratch = t;
	}
	if (job.data != (char *) records)
	{
		memcpy(records, job.data, n * size);
		job.scratch = job.data;
	}
	if (job.scratch != NULL)
		bs_core_free(hooks, job.scratch);
	return BS_OK;
}
