/*
 * threads.h — every thread the sorting core starts (parallel-for helpers,
 * workers, the prefaulter) is started and joined here: with every signal
 * blocked, and counted against a budget of threads, so that many backends
 * sorting at once cannot exhaust the system's tasks (RLIMIT_NPROC, a
 * service's TasksMax) and make the postmaster's fork() fail.
 *
 * Two bounds apply.  A process never has more than BS_PROCESS_THREADS of
 * them alive.  When a shared counter is attached (PostgreSQL's shared
 * memory, with the module preloaded), the processes that share it have at
 * most `limit` alive together.  A detached thread that from some point on
 * mostly sleeps (the unmapper over kept memory) may move to a second count
 * of its own, sleeping threads, bounded by the same `limit`, so that it
 * holds no place that working threads need while the number of tasks stays
 * bounded.  A thread that a bound refuses, or that
 * pthread_create cannot start, is never an error: the caller runs the work
 * on fewer threads (the calling one, at least).
 */
#ifndef BS_THREADS_H
#define BS_THREADS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most threads one process has alive at once (a parallel-for's 63 helpers and three workers). */
#define BS_PROCESS_THREADS 66

/* Start a thread with every signal blocked, within the budget; false when it could not start. */
extern bool bs_thread_start(pthread_t *thread, void *(*fn) (void *), void *arg);

/* Join a thread of bs_thread_start and give its place in the budget back. */
extern void bs_thread_join(pthread_t thread);

/*
 * Start a thread that waits under `lock` on `wake` and signals `done` (a
 * background thread and its owner): the three are made first, and
 * destroyed again where the thread could not start; whether it started.
 */
extern bool bs_thread_start_synced(pthread_t *thread, void *(*fn) (void *), void *arg,
								   pthread_mutex_t *lock, pthread_cond_t *wake,
								   pthread_cond_t *done);

/* Join a thread of bs_thread_start_synced, and destroy its lock and conditions. */
extern void bs_thread_join_synced(pthread_t thread, pthread_mutex_t *lock, pthread_cond_t *wake,
								  pthread_cond_t *done);

/*
 * Start a detached thread (nobody joins it), with every signal blocked and
 * within the budget; false when it could not start.  The thread gives its
 * place back itself, by bs_thread_leave as it ends (or moves it by
 * bs_thread_start_sleeping), and its owner must see that done before
 * bs_threads_release_all.
 */
extern bool bs_thread_start_detached(void *(*fn) (void *), void *arg);

/* A detached thread's last call: its place in the budget goes back. */
extern void bs_thread_leave(void);

/*
 * A detached thread that will mostly sleep gives its place back and takes
 * one among the sleeping threads instead; false (nothing changed) where the
 * sleeping threads sharing the counter are at the limit.  Its last call is
 * then bs_thread_leave_sleeping, not bs_thread_leave.
 */
extern bool bs_thread_start_sleeping(void);

/* A sleeping thread's last call: its place among the sleeping threads goes back. */
extern void bs_thread_leave_sleeping(void);

/* A count of the threads alive in the processes that share it (in shared memory). */
typedef struct bs_thread_pool bs_thread_pool;

/* Bytes a bs_thread_pool takes. */
extern size_t bs_thread_pool_size(void);

/* Make a pool at `mem` (once, when the shared memory is made): no thread alive. */
extern bs_thread_pool *bs_thread_pool_init(void *mem);

/* Count this process's threads in `pool` too (NULL: this process's budget alone). */
extern void bs_threads_share(bs_thread_pool *pool);

/* Most threads the processes sharing the counter may have alive together. */
extern void bs_threads_set_limit(unsigned limit);

/* Threads this process has alive now. */
extern unsigned bs_threads_alive(void);

/* Threads alive in every process sharing the pool (this one's alone without a pool). */
extern unsigned bs_threads_shared_alive(void);

/* Sleeping threads of every process sharing the pool (this one's alone without a pool). */
extern unsigned bs_threads_shared_sleeping(void);

/*
 * Give back the shared places of threads this process still counts (at its
 * exit; none are left when every thread was joined).
 */
extern void bs_threads_release_all(void);

#ifdef __cplusplus
}
#endif

#endif							/* BS_THREADS_H */
