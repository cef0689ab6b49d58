/*
 * worker.c — a background thread that runs one job at a time (see worker.h).
 *
 * Each side spins a while on `busy` before it sleeps on a condition
 * variable: the ingest hands the worker a job every 50-60 us (a staging
 * buffer of about 1,200 rows), and a thread put to sleep for each took
 * longer to wake than the wait itself (10M rows: each side blocked about
 * 8,000 times a query, and was idle 13-22% of the reading).  The flag is
 * written under the lock, so a side that found it unchanged under the lock
 * is signalled when it changes.
 */
#include "worker.h"
#include "monotonic.h"
#include "parallel.h"

#include <sched.h>
#include <string.h>

/* Longest a side spins on busy before it sleeps, in nanoseconds. */
#define SPIN_NS 50000

/* Spins between two looks at the clock. */
#define SPINS_PER_CLOCK 64

/*
 * Spin for at most SPIN_NS until busy equals want, or for the worker (want
 * is true) until it is stopped; whether it did.
 */
static bool
spin_until(const bs_worker *w, bool want)
{
	long long	deadline = 0;

	for (int spins = 0;; spins++)
	{
		if (atomic_load_explicit(&w->busy, memory_order_acquire) == want ||
			(want && atomic_load_explicit(&w->stop, memory_order_relaxed)))
			return true;
		if (spins % SPINS_PER_CLOCK == 0)
		{
			long long	now = bs_monotonic_ns();

			if (deadline == 0)
				deadline = now + SPIN_NS;
			else if (now > deadline)
				return false;
			else
				sched_yield();	/* a busy core's other threads (the one awaited?) go first */
		}
		bs_spin_pause();
	}
}

/* Thread body: run each job handed over until stopped. */
static void *
worker_main(void *arg)
{
	bs_worker  *w = (bs_worker *) arg;

	for (;;)
	{
		if (!spin_until(w, true))
		{
			pthread_mutex_lock(&w->lock);
			while (!atomic_load(&w->stop) && !atomic_load(&w->busy))
				pthread_cond_wait(&w->wake, &w->lock);
			pthread_mutex_unlock(&w->lock);
		}
		if (!atomic_load_explicit(&w->busy, memory_order_acquire))
			break;				/* stopped */
		w->fn(w->arg);
		pthread_mutex_lock(&w->lock);
		atomic_store_explicit(&w->busy, false, memory_order_release);
		pthread_cond_signal(&w->done);
		pthread_mutex_unlock(&w->lock);
	}
	return NULL;
}

/* Start the thread (see worker.h). */
bool
bs_worker_start(bs_worker *w)
{
	memset(w, 0, sizeof(bs_worker));
	atomic_init(&w->busy, false);
	atomic_init(&w->stop, false);
	w->running = bs_thread_start_synced(&w->thread, worker_main, w, &w->lock, &w->wake,
										 &w->done);
	return w->running;
}

/* Hand a job to the idle worker (see worker.h). */
void
bs_worker_run(bs_worker *w, bs_job_fn fn, void *arg)
{
	pthread_mutex_lock(&w->lock);
	w->fn = fn;
	w->arg = arg;
	atomic_store_explicit(&w->busy, true, memory_order_release);
	pthread_mutex_unlock(&w->lock);
	/* after the unlock: the woken worker finds the lock free instead of waking us back */
	pthread_cond_signal(&w->wake);
}

/* Wait for the job handed over (see worker.h). */
void
bs_worker_wait(bs_worker *w)
{
	if (!w->running || spin_until(w, false))
		return;
	pthread_mutex_lock(&w->lock);
	while (atomic_load(&w->busy))
		pthread_cond_wait(&w->done, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

/* Finish the job and join the thread (see worker.h). */
void
bs_worker_stop(bs_worker *w)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->lock);
	atomic_store(&w->stop, true);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	bs_thread_join_synced(w->thread, &w->lock, &w->wake, &w->done);
	w->running = false;
}
