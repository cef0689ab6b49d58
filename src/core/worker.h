/*
 * worker.h — one background thread that runs one job at a time for its
 * owner: the owner hands a job over, goes on with its own work, and waits
 * for the job before it touches what the job touches.
 *
 * The thread blocks every signal (it is started by bs_thread_start) and
 * runs nothing but the jobs it is given, which must not call into
 * PostgreSQL (no allocation, no error reporting).
 */
#ifndef BS_WORKER_H
#define BS_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*bs_job_fn) (void *arg);

typedef struct bs_worker
{
	pthread_t	thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* a job or the stop, for the thread */
	pthread_cond_t done;		/* the job is done, for the owner */
	bs_job_fn	fn;				/* the job handed over */
	void	   *arg;
	atomic_bool busy;			/* a job is handed over and not done (written under lock) */
	atomic_bool stop;			/* the owner stops the thread (written under lock) */
	bool		running;
} bs_worker;

/* Start the thread; false when it cannot run (the owner then does the jobs itself). */
extern bool bs_worker_start(bs_worker *w);

/* Hand a job to the worker, which must be idle (bs_worker_wait). */
extern void bs_worker_run(bs_worker *w, bs_job_fn fn, void *arg);

/* Wait until the job handed over, if any, is done. */
extern void bs_worker_wait(bs_worker *w);

/* Wait for the job and join the thread; nothing happens when it is not running. */
extern void bs_worker_stop(bs_worker *w);

#ifdef __cplusplus
}
#endif

#endif							/* BS_WORKER_H */
