/*
 * test_worker.c — the background thread that runs one job at a time: jobs
 * handed over back to back (each side spinning) all run once, in order,
 * their writes seen by the owner once it has waited; a job handed to a
 * worker that has gone to sleep, and a wait that goes to sleep on a long
 * job, still meet; a stop runs the job handed over before it and joins.
 */
#include "mono_clock.h"
#include "unit.h"
#include "worker.h"

#include <time.h>

/* Jobs check_back_to_back hands over. */
#define ROUNDS 200000

/* What a job writes: plain memory, seen by the owner only through the wait. */
typedef struct job_state
{
	long		runs;			/* jobs run */
	long		last;			/* the argument of the last one */
	int			in_order;		/* each job's argument was the runs before it */
	long		sleep_us;		/* how long a job sleeps first */
} job_state;

static job_state state;

/* Sleep for us microseconds. */
static void
sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

/* The job: sleep if asked, then count itself and check its argument. */
static void
count_job(void *arg)
{
	long		n = (long) (size_t) arg;

	if (state.sleep_us > 0)
		sleep_us(state.sleep_us);
	state.in_order &= n == state.runs;
	state.last = n;
	state.runs++;
}

/* Start a worker and forget what earlier jobs wrote. */
static int
start(bs_worker *w)
{
	state.runs = 0;
	state.last = -1;
	state.in_order = 1;
	state.sleep_us = 0;
	return bs_worker_start(w);
}

/*
 * Jobs handed over one after the other, each waited for at once: every job
 * runs once and in order, and after each wait the owner sees its writes.
 */
static void
check_back_to_back(void)
{
	static bs_worker w;
	int			seen = 1;
	double		t0;

	if (!start(&w))
	{
		unit_report(0, "jobs back to back: the worker starts");
		return;
	}
	t0 = mono_seconds();
	for (long i = 0; i < ROUNDS; i++)
	{
		bs_worker_run(&w, count_job, (void *) (size_t) i);
		bs_worker_wait(&w);
		seen &= state.runs == i + 1 && state.last == i;
	}
	unit_note("%d jobs handed over and waited for in %.0f ms", ROUNDS, (mono_seconds() - t0) * 1e3);
	bs_worker_stop(&w);
	unit_report(seen && state.in_order && state.runs == ROUNDS,
				"%d jobs back to back: each runs once, in order, its writes seen after the wait",
				ROUNDS);
}

/*
 * Past the spin, each side sleeps: a job handed to a worker idle for 20 ms
 * runs, and a wait for a job of 20 ms returns once it is done.
 */
static void
check_sleepers(void)
{
	static bs_worker w;
	int			ok = 1;
	double		t0;

	if (!start(&w))
	{
		unit_report(0, "sleeping sides: the worker starts");
		return;
	}
	for (long i = 0; i < 3; i++)
	{
		sleep_us(20000);		/* the worker has stopped spinning */
		bs_worker_run(&w, count_job, (void *) (size_t) i);
		bs_worker_wait(&w);
		ok &= state.runs == i + 1;
	}
	state.sleep_us = 20000;		/* the owner stops spinning */
	t0 = mono_seconds();
	bs_worker_run(&w, count_job, (void *) (size_t) 3);
	bs_worker_wait(&w);
	ok &= state.runs == 4 && mono_seconds() - t0 >= 0.019;
	bs_worker_stop(&w);
	unit_report(ok && state.in_order,
				"a job handed to a sleeping worker runs; a wait that sleeps returns when the job is done");
}

/*
 * A stop right after a job is handed over runs the job first; a stop of a
 * worker that is spinning, or asleep, joins it at once.
 */
static void
check_stops(void)
{
	static bs_worker w;
	int			ran;
	double		spinning;
	double		sleeping;
	double		t0;

	start(&w);
	state.sleep_us = 5000;
	bs_worker_run(&w, count_job, (void *) (size_t) 0);
	bs_worker_stop(&w);
	ran = state.runs == 1;

	start(&w);
	bs_worker_run(&w, count_job, (void *) (size_t) 0);
	bs_worker_wait(&w);
	t0 = mono_seconds();
	bs_worker_stop(&w);			/* the worker is spinning for the next job */
	spinning = mono_seconds() - t0;

	start(&w);
	sleep_us(20000);
	t0 = mono_seconds();
	bs_worker_stop(&w);			/* the worker sleeps */
	sleeping = mono_seconds() - t0;
	unit_note("stop while spinning %.3f ms, while asleep %.3f ms", spinning * 1e3, sleeping * 1e3);
	unit_report(ran && !w.running && spinning < 0.05 && sleeping < 0.05,
				"a stop runs the job handed over first, and joins a spinning or sleeping worker");
}

int
main(void)
{
	check_back_to_back();
	check_sleepers();
	check_stops();
	return unit_exit_status();
}
