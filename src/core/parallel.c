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
	atomic_bool abandon;		/* an interrupt waits: claim no further chunk */
} parallel_job;

/*
 * Claim chunks of the job until none is left or the job is abandoned; the
 * caller passes the hooks whose pending probe it asks after each chunk
 * (helpers pass NULL).
 * Every chunk claimed below the end is run whole, so the items done are
 * those before job->next.
 */
static void
parallel_drain(parallel_job *job, const bs_hooks *probe)
{
	while (!atomic_load_explicit(&job->abandon, memory_order_relaxed))
	{
		size_t		begin = atomic_fetch_add(&job->next, job->grain);
		size_t		end;

		if (begin >= job->end)
			return;
		end = begin + job->grain;
		if (end > job->end)
			end = job->end;
		job->fn(job->ctx, begin, end);
		if (probe != NULL && probe->pending(probe->arg))
			atomic_store_explicit(&job->abandon, true, memory_order_relaxed);
	}
}

/* Thread entry point: drain the shared job. */
static void *
parallel_worker(void *arg)
{
	parallel_drain((parallel_job *) arg, NULL);
	return NULL;
}

/*
 * Run fn over [begin, end) on up to `threads` threads; with hooks to probe,
 * stop early when their pending probe fires (see parallel.h).  Returns the first item not done:
 * end when every one was.
 */
static size_t
parallel_run(int threads, size_t begin, size_t end, size_t grain,
			 bs_task_fn fn, void *ctx, const bs_hooks *probe)
{
	parallel_job job;
	pthread_t	tids[BS_MAX_THREADS];
	int			started = 0;
	size_t		chunks;
	size_t		next;

	if (grain == 0)
		grain = 1;
	if (end <= begin)
		return end;
	chunks = (end - begin + grain - 1) / grain;
	if (threads > BS_MAX_THREADS)
		threads = BS_MAX_THREADS;
	if ((size_t) threads > chunks)
		threads = (int) chunks;
	if (threads <= 1 && probe == NULL)
	{
		fn(ctx, begin, end);
		return end;
	}

	job.fn = fn;
	job.ctx = ctx;
	job.end = end;
	job.grain = grain;
	atomic_init(&job.next, begin);
	atomic_init(&job.abandon, false);

	for (int i = 0; i < threads - 1; i++)
	{
		if (!bs_thread_start(&tids[started], parallel_worker, &job))
			break;
		started++;
	}

	parallel_drain(&job, probe);
	for (int i = 0; i < started; i++)
		bs_thread_join(tids[i]);
	next = atomic_load(&job.next);
	return next < end ? next : end;
}

/* Run fn over [begin, end) on up to `threads` threads (see parallel.h). */
void
bs_parallel_for(int threads, size_t begin, size_t end, size_t grain,
				bs_task_fn fn, void *ctx)
{
	(void) parallel_run(threads, begin, end, grain, fn, ctx, NULL);
}

/*
 * bs_parallel_for in batches with an interrupt check before each, and
 * where the hooks have a pending probe, as soon as it fires (see parallel.h).  A check that
 * returns while the probe still fires (the interrupt is held off) turns the
 * probe off for the rest of the call, which then stops at batches only.
 */
void
bs_parallel_for_checked(int threads, size_t nitems, size_t grain, size_t batch,
						bs_task_fn fn, void *ctx, const bs_hooks *hooks)
{
	bool		checked = hooks != NULL && hooks->check != NULL;
	const bs_hooks *probe = checked && hooks->pending != NULL ? hooks : NULL;
	bool		stopped = false;	/* the last run stopped for the probe */

	if (batch < grain)
		batch = grain;
	for (size_t begin = 0; begin < nitems;)
	{
		size_t		end = nitems - begin < batch ? nitems : begin + batch;

		if (checked)
			hooks->check(hooks->arg);
		if (stopped && probe->pending(probe->arg))
			probe = NULL;		/* the check left it waiting: held off */
		begin = parallel_run(threads, begin, end, grain, fn, ctx, probe);
		stopped = begin < end;
	}
}
