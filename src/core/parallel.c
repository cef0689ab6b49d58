/*
 * parallel.c — a minimal parallel-for for the CPU sorters (see parallel.h).
 */
#include "bs_sort.h"
#include "parallel.h"

#include <stdatomic.h>

#define BS_MAX_THREADS 64

typedef struct parallel_job
{
	bs_task_fn	fn;
	void	   *ctx;
	size_t		end;
	size_t		grain;
	atomic_size_t next;			/* first item not yet claimed */
} parallel_job;

/* Claim chunks of the job until none is left. */
static void
parallel_drain(parallel_job *job)
{
	for (;;)
	{
		size_t		begin = atomic_fetch_add(&job->next, job->grain);
		size_t		end;

		if (begin >= job->end)
			return;
		end = begin + job->grain;
		if (end > job->end)
			end = job->end;
		job->fn(job->ctx, begin, end);
	}
}

/* Thread entry point: drain the shared job. */
static void *
parallel_worker(void *arg)
{
	parallel_drain((parallel_job *) arg);
	return NULL;
}

/* Run fn over [begin, end) on up to `threads` threads (see parallel.h). */
void
bs_parallel_for(int threads, size_t begin, size_t end, size_t grain,
				bs_task_fn fn, void *ctx)
{
	parallel_job job;
	pthread_t	tids[BS_MAX_THREADS];
	int			started = 0;
	size_t		chunks;

	if (grain == 0)
		grain = 1;
	if (end <= begin)
		return;
	chunks = (end - begin + grain - 1) / grain;
	if (threads > BS_MAX_THREADS)
		threads = BS_MAX_THREADS;
	if ((size_t) threads > chunks)
		threads = (int) chunks;
	if (threads <= 1)
	{
		fn(ctx, begin, end);
		return;
	}

	job.fn = fn;
	job.ctx = ctx;
	job.end = end;
	job.grain = grain;
	atomic_init(&job.next, begin);

	for (int i = 0; i < threads - 1; i++)
	{
		if (!bs_thread_start(&tids[started], parallel_worker, &job))
			break;
		started++;
	}

	parallel_drain(&job);
	for (int i = 0; i < started; i++)
		bs_thread_join(tids[i]);
}

/* bs_parallel_for in batches with an interrupt check before each (see parallel.h). */
void
bs_parallel_for_checked(int threads, size_t nitems, size_t grain, size_t batch,
						bs_task_fn fn, void *ctx, const bs_hooks *hooks)
{
	if (batch < grain)
		batch = grain;
	for (size_t begin = 0; begin < nitems; begin += batch)
	{
		size_t		end = nitems - begin < batch ? nitems : begin + batch;

		if (hooks && hooks->check)
			hooks->check(hooks->arg);
		bs_parallel_for(threads, begin, end, grain, fn, ctx);
	}
}
