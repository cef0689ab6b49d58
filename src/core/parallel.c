/*
 * parallel.c — a minimal parallel-for for the CPU sorters (see parallel.h).
 */
#include "bs_sort.h"
#include "parallel.h"

#include <stdatomic.h>
#include <stdint.h>

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
 * The helpers kept by one thread, their owner (bs_parallel_keep_helpers):
 * each round hands a job to the first `wanted` of them, which drain it and
 * count themselves out of `running`; the owner drains it too and then waits
 * for running to reach 0.
 */
typedef struct kept_helpers
{
	atomic_bool keeping;		/* the owner keeps helpers: set after owner, by the owner */
	pthread_t	owner;
	int			count;			/* helpers started and not joined */
	pthread_t	tids[BS_MAX_THREADS];
	pthread_mutex_t lock;		/* guards what follows */
	pthread_cond_t wake;		/* a round begins, or the stop, for the helpers */
	pthread_cond_t done;		/* the round's last helper is done, for the owner */
	parallel_job *job;
	unsigned	round;
	int			wanted;
	int			running;
	bool		stop;
} kept_helpers;

static kept_helpers kept = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

/* Kept helper's entry point (arg: its index): drain each round's job it is wanted for. */
static void *
kept_helper_main(void *arg)
{
	int			index = (int) (intptr_t) arg;
	unsigned	seen;

	pthread_mutex_lock(&kept.lock);
	/* started for the round under way: take part in it */
	seen = kept.round - 1;
	for (;;)
	{
		parallel_job *job;

		while (!kept.stop && kept.round == seen)
			pthread_cond_wait(&kept.wake, &kept.lock);
		if (kept.stop)
			break;
		seen = kept.round;
		if (index >= kept.wanted)
			continue;
		job = kept.job;
		pthread_mutex_unlock(&kept.lock);
		parallel_drain(job, NULL);
		pthread_mutex_lock(&kept.lock);
		if (--kept.running == 0)
			pthread_cond_signal(&kept.done);
	}
	pthread_mutex_unlock(&kept.lock);
	return NULL;
}

/* Whether the calling thread's parallel-fors use kept helpers. */
static bool
uses_kept_helpers(void)
{
	return atomic_load_explicit(&kept.keeping, memory_order_acquire) &&
		pthread_equal(pthread_self(), kept.owner);
}

/*
 * Hand job to `helpers` kept helpers (started where fewer are kept), drain
 * it on the calling thread too, and wait for the helpers to finish it.
 */
static void
run_with_kept_helpers(parallel_job *job, int helpers, const bs_hooks *probe)
{
	pthread_mutex_lock(&kept.lock);
	kept.job = job;
	kept.round++;
	while (kept.count < helpers &&
		   bs_thread_start(&kept.tids[kept.count], kept_helper_main, (void *) (intptr_t) kept.count))
		kept.count++;
	kept.wanted = helpers < kept.count ? helpers : kept.count;
	kept.running = kept.wanted;
	pthread_cond_broadcast(&kept.wake);
	pthread_mutex_unlock(&kept.lock);

	parallel_drain(job, probe);

	pthread_mutex_lock(&kept.lock);
	while (kept.running > 0)
		pthread_cond_wait(&kept.done, &kept.lock);
	pthread_mutex_unlock(&kept.lock);
}

/*
 * Start up to `helpers` helpers on job, drain it on the calling thread too,
 * and join them.
 */
static void
run_with_started_helpers(parallel_job *job, int helpers, const bs_hooks *probe)
{
	pthread_t	tids[BS_MAX_THREADS];
	int			started = 0;

	while (started < helpers && bs_thread_start(&tids[started], parallel_worker, job))
		started++;
	parallel_drain(job, probe);
	for (int i = 0; i < started; i++)
		bs_thread_join(tids[i]);
}

/* Keep the calling thread's helpers (see parallel.h). */
void
bs_parallel_keep_helpers(void)
{
	if (atomic_load(&kept.keeping))
		return;
	kept.owner = pthread_self();
	atomic_store_explicit(&kept.keeping, true, memory_order_release);
}

/* Join the kept helpers (see parallel.h). */
void
bs_parallel_release_helpers(void)
{
	if (!atomic_load(&kept.keeping))
		return;
	pthread_mutex_lock(&kept.lock);
	kept.stop = true;
	pthread_cond_broadcast(&kept.wake);
	pthread_mutex_unlock(&kept.lock);
	for (int i = 0; i < kept.count; i++)
		bs_thread_join(kept.tids[i]);
	kept.count = 0;
	kept.stop = false;
	atomic_store(&kept.keeping, false);
}

/* Helpers kept now (see parallel.h). */
int
bs_parallel_kept_helpers(void)
{
	return kept.count;
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

	if (threads > 1 && uses_kept_helpers())
		run_with_kept_helpers(&job, threads - 1, probe);
	else
		run_with_started_helpers(&job, threads - 1, probe);
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
