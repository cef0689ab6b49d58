/*
 * thread_budget.c — the server-wide budget of the sorts' threads: a count
 * in shared memory of the threads every backend's sorts have alive, bounded
 * by bitonic_sort.max_threads (core/threads.h).  With the module in
 * shared_preload_libraries, a backend whose sort would pass the bound gets
 * fewer threads (at worst its own alone), as parallel query's workers are
 * bounded by max_parallel_workers; loaded later (LOAD, CREATE EXTENSION in
 * a server without it preloaded), each backend has only its own bound.
 */
#include "bitonic_sort.h"

#include "core/threads.h"
#include "core/unmapper.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static bool shared = false;		/* this process counts its threads in the pool */
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* Ask for the pool's shared memory. */
static void
request_pool(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(bs_thread_pool_size());
}

/*
 * At exit, give back the places of threads this backend still counts:
 * none once every thread is joined, as the clean-up of every query does,
 * and the unmapper's thread, which gives its own back, has ended.
 */
static void
release_threads(int code, Datum arg)
{
	bs_unmap_wait();
	bs_threads_release_all();
	bs_threads_share(NULL);
	shared = false;
}

/* Find (or make, in the postmaster) the pool and count this process's threads in it. */
static void
attach_pool(void)
{
	bool		found;
	void	   *mem;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	mem = ShmemInitStruct("bitonic_sort thread pool", bs_thread_pool_size(), &found);
	bs_threads_share(found ? (bs_thread_pool *) mem : bs_thread_pool_init(mem));
	shared = true;
	LWLockRelease(AddinShmemInitLock);
}

/*
 * Before a sort of this backend starts threads: have its exit give back
 * what it still counts (once per process; a forked backend does not keep
 * the postmaster's exit callbacks).
 */
void
BitonicThreadBudgetEnter(void)
{
	static pid_t registered_in = 0;

	if (!shared || registered_in == MyProcPid)
		return;
	on_shmem_exit(release_threads, (Datum) 0);
	registered_in = MyProcPid;
}

/* Take part in the server-wide budget when the module is preloaded. */
void
BitonicThreadBudgetInit(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = request_pool;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = attach_pool;
}

/* Whether this backend's threads count in the server-wide budget. */
bool
BitonicThreadBudgetShared(void)
{
	return shared;
}
