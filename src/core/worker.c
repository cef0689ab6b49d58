/*
 * worker.c — a background thread that runs one job at a time (see worker.h).
 */
#include "worker.h"
#include "parallel.h"

#include <string.h>

/* Thread body: run each job handed over until stopped. */
static void *
worker_main(void *arg)
{
	bs_worker  *w = (bs_worker *) arg;

	pthread_mutex_lock(&w->lock);
	for (;;)
	{
		while (!w->stop && w->fn == NULL)
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->fn == NULL)
			break;
		pthread_mutex_unlock(&w->lock);
		w->fn(w->arg);
		pthread_mutex_lock(&w->lock);
		w->fn = NULL;
		pthread_cond_signal(&w->done);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Start the thread (see worker.h). */
bool
bs_worker_start(bs_worker *w)
{
	memset(w, 0, sizeof(bs_worker));
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	pthread_cond_init(&w->done, NULL);
	w->running = bs_thread_start(&w->thread, worker_main, w);
	if (!w->running)
	{
		pthread_cond_destroy(&w->done);
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
	}
	return w->running;
}

/* Hand a job to the idle worker (see worker.h). */
void
bs_worker_run(bs_worker *w, bs_job_fn fn, void *arg)
{
	pthread_mutex_lock(&w->lock);
	w->fn = fn;
	w->arg = arg;
	pthread_mutex_unlock(&w->lock);
	/* after the unlock: the woken worker finds the lock free instead of waking us back */
	pthread_cond_signal(&w->wake);
}

/* Wait for the job handed over (see worker.h). */
void
bs_worker_wait(bs_worker *w)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->lock);
	while (w->fn != NULL)
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
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	bs_thread_join(w->thread);
	pthread_cond_destroy(&w->done);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	w->running = false;
}
