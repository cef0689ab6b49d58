/*
 * parallel.h — a minimal parallel-for for the CPU sorters.
 *
 * Workers are plain pthreads started with every signal blocked (the backend
 * that calls us keeps its signal handling) within the thread budget
 * (threads.h), and joined before the call returns, so no worker outlives a
 * phase and hooks run only on the caller; or, where the caller keeps its
 * helpers (bs_parallel_keep_helpers), parked until its next call.  Threads
 * the budget refuses or that cannot start leave the work to fewer threads,
 * never an error.
 */
#ifndef BS_PARALLEL_H
#define BS_PARALLEL_H

#include "threads.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One task of a parallel-for: run items [begin, end) with shared context. */
typedef void (*bs_task_fn) (void *ctx, size_t begin, size_t end);

/*
 * Run fn over [begin, end) in chunks of `grain` items on up to `threads`
 * threads (the caller included).  Falls back to the calling thread alone when
 * threads <= 1, the work is small, or a thread cannot be started.
 */
extern void bs_parallel_for(int threads, size_t begin, size_t end, size_t grain,
							bs_task_fn fn, void *ctx);

/*
 * bs_parallel_for over [0, nitems) in batches of `batch` items, calling the
 * hooks' interrupt check on the calling thread before each batch, while no
 * worker runs (so the check may longjmp).  Where the hooks have a pending
 * probe, the calling thread also asks it after each chunk it runs: when an interrupt
 * waits, every thread stops claiming chunks, the helpers finish the chunk
 * they run and are joined, and the check runs at once (the work goes on
 * from the first chunk left should the check return).  A stop then waits
 * for one chunk at most: tasks keep a chunk's work bounded in time.
 */
struct bs_hooks;
extern void bs_parallel_for_checked(int threads, size_t nitems, size_t grain,
									size_t batch, bs_task_fn fn, void *ctx,
									const struct bs_hooks *hooks);

/*
 * Keep the helpers of the parallel-fors the calling thread runs from now on:
 * parked between calls and handed the next call's work, not started and
 * joined for each (a sort of many small runs makes two or three
 * parallel-fors a run, and a thread's start and join cost about 0.2 ms on
 * a virtual machine).  Parked helpers hold their places in the budget
 * (threads.h) and run nothing but the parallel-fors' tasks, so the interrupt
 * check still runs with no task running.  Parallel-fors of other threads
 * start their own helpers, as before.
 */
extern void bs_parallel_keep_helpers(void);

/*
 * Join the kept helpers and keep none from now on; nothing where none are
 * kept.  Keeping is one flag, not a count: where two sorts of a backend
 * keep helpers at once (a sort below another's), the first to release them
 * ends the keeping for both, and the other's parallel-fors start and join
 * their helpers again, as without it.
 */
extern void bs_parallel_release_helpers(void);

/* Helpers kept now (parked or working). */
extern int	bs_parallel_kept_helpers(void);

#ifdef __cplusplus
}
#endif

#endif							/* BS_PARALLEL_H */
