/*
 * threads.c — the core's threads, started within a budget (see threads.h).
 */
#include "threads.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

struct bs_thread_pool
{
	atomic_uint alive;
	atomic_uint sleeping;
};

static atomic_uint process_alive;	/* threads of this process alive */
static atomic_uint process_sleeping;	/* threads of this process that sleep (0 or 1) */
static atomic_uint *shared_alive;	/* of every process sharing the budget, or NULL */
static atomic_uint *shared_sleeping;	/* sleeping threads of every process, or NULL */
static unsigned shared_limit = UINT32_MAX;

/* Add one to a shared count below shared_limit; false (nothing added) when it is full. */
static bool
count_below_limit(atomic_uint *count)
{
	unsigned	all = atomic_load(count);

	do
	{
		if (all >= shared_limit)
			return false;
	} while (!atomic_compare_exchange_weak(count, &all, all + 1));
	return true;
}

/* Take a place for one thread in the process's and the shared budget; false when full. */
static bool
take_place(void)
{
	unsigned	mine = atomic_fetch_add(&process_alive, 1);

	if (mine >= BS_PROCESS_THREADS || (shared_alive != NULL && !count_below_limit(shared_alive)))
	{
		atomic_fetch_sub(&process_alive, 1);
		return false;
	}
	return true;
}

/* Give one thread's place back. */
static void
give_place(void)
{
	atomic_fetch_sub(&process_alive, 1);
	if (shared_alive != NULL)
		atomic_fetch_sub(shared_alive, 1);
}

/* Start a thread that inherits a mask blocking every signal (see threads.h). */
bool
bs_thread_start(pthread_t *thread, void *(*fn) (void *), void *arg)
{
	sigset_t	all,
				old;
	bool		ok;

	if (!take_place())
		return false;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ok = pthread_create(thread, NULL, fn, arg) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ok)
		give_place();
	return ok;
}

/* Start a detached thread that gives its own place back (see threads.h). */
bool
bs_thread_start_detached(void *(*fn) (void *), void *arg)
{
	pthread_t	thread;

	if (!bs_thread_start(&thread, fn, arg))
		return false;
	pthread_detach(thread);
	return true;
}

/* A detached thread's place goes back (see threads.h). */
void
bs_thread_leave(void)
{
	give_place();
}

/* Move a detached thread's place to the sleeping threads' (see threads.h). */
bool
bs_thread_start_sleeping(void)
{
	if (shared_sleeping != NULL && !count_below_limit(shared_sleeping))
		return false;
	atomic_fetch_add(&process_sleeping, 1);
	give_place();
	return true;
}

/* A sleeping thread's place goes back (see threads.h). */
void
bs_thread_leave_sleeping(void)
{
	atomic_fetch_sub(&process_sleeping, 1);
	if (shared_sleeping != NULL)
		atomic_fetch_sub(shared_sleeping, 1);
}

/* Join a thread and give its place back (see threads.h). */
void
bs_thread_join(pthread_t thread)
{
	pthread_join(thread, NULL);
	give_place();
}

/* Make a lock and two conditions, then start the thread (see threads.h). */
bool
bs_thread_start_synced(pthread_t *thread, void *(*fn) (void *), void *arg,
					   pthread_mutex_t *lock, pthread_cond_t *wake, pthread_cond_t *done)
{
	pthread_mutex_init(lock, NULL);
	pthread_cond_init(wake, NULL);
	pthread_cond_init(done, NULL);
	if (bs_thread_start(thread, fn, arg))
		return true;
	pthread_cond_destroy(done);
	pthread_cond_destroy(wake);
	pthread_mutex_destroy(lock);
	return false;
}

/* Join the thread, then destroy its lock and conditions (see threads.h). */
void
bs_thread_join_synced(pthread_t thread, pthread_mutex_t *lock, pthread_cond_t *wake,
					  pthread_cond_t *done)
{
	bs_thread_join(thread);
	pthread_cond_destroy(done);
	pthread_cond_destroy(wake);
	pthread_mutex_destroy(lock);
}

/* Bytes of a pool (see threads.h). */
size_t
bs_thread_pool_size(void)
{
	return sizeof(bs_thread_pool);
}

/* Make an empty pool (see threads.h). */
bs_thread_pool *
bs_thread_pool_init(void *mem)
{
	bs_thread_pool *pool = (bs_thread_pool *) mem;

	atomic_init(&pool->alive, 0);
	atomic_init(&pool->sleeping, 0);
	return pool;
}

/* Share the budget through a pool (see threads.h). */
void
bs_threads_share(bs_thread_pool *pool)
{
	shared_alive = pool != NULL ? &pool->alive : NULL;
	shared_sleeping = pool != NULL ? &pool->sleeping : NULL;
}

/* The shared limit (see threads.h). */
void
bs_threads_set_limit(unsigned limit)
{
	shared_limit = limit;
}

/* Threads of this process alive now. */
unsigned
bs_threads_alive(void)
{
	return atomic_load(&process_alive);
}

/* Sleeping threads of the processes sharing the pool (see threads.h). */
unsigned
bs_threads_shared_sleeping(void)
{
	return shared_sleeping != NULL ? atomic_load(shared_sleeping) : atomic_load(&process_sleeping);
}

/* Threads alive in the processes sharing the pool (see threads.h). */
unsigned
bs_threads_shared_alive(void)
{
	return shared_alive != NULL ? atomic_load(shared_alive) : atomic_load(&process_alive);
}

/* Give back what this process still counts in the shared budget (see threads.h). */
void
bs_threads_release_all(void)
{
	unsigned	mine = atomic_exchange(&process_alive, 0);
	unsigned	asleep = atomic_exchange(&process_sleeping, 0);

	if (shared_alive != NULL && mine > 0)
		atomic_fetch_sub(shared_alive, mine);
	if (shared_sleeping != NULL && asleep > 0)
		atomic_fetch_sub(shared_sleeping, asleep);
}
