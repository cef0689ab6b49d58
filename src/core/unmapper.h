/*
 * unmapper.h — large mappings given back to the kernel on a short-lived
 * background thread, so that the sort that freed them ends without waiting
 * for it: munmap of 4 kB pages took 30-40 ms for the 1.1 GB of a 10M-row
 * sort on the test VM (memcg uncharging, page freeing), all of it after
 * the last row.
 *
 * A mapping may instead be kept, already faulted in, for the process's
 * next sort (bitonic_sort.keep_memory): fresh memory costs a page fault per
 * 4 kB page, 0.5-4 s per GB on the VMs this was measured on, where a kept
 * range costs nothing.  A kept range is memory the kernel may reclaim
 * (MADV_FREE): it counts as available, and under memory pressure the kernel
 * takes its pages without writing them anywhere; a page it took faults in
 * anew, zeroed, when the range is used again.  Kept ranges are taken back
 * by size, best fit, and the thread unmaps them once no range was kept for
 * an idle time.
 *
 * A mapping queued or kept here must no longer be read or written by
 * anyone until it is taken back.  The thread starts when a mapping is
 * queued or kept and none runs, within the thread budget (threads.h),
 * unmaps what is queued, sleeps while ranges are kept and unmaps them at
 * their deadline, and ends when nothing is left (a take of the last kept
 * range wakes it); where it cannot start, or the queue is full, the
 * caller's thread unmaps at once (and keeps nothing).  Before it first
 * sleeps the thread moves to the budget's sleeping threads
 * (bs_thread_start_sleeping), so that kept memory holds no place other
 * sorts' threads need; where the sleeping threads are at the limit, what
 * is kept is unmapped at once instead.  The thread calls nothing of
 * PostgreSQL's: munmap, the clock and its own lock.
 */
#ifndef BS_UNMAPPER_H
#define BS_UNMAPPER_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Mappings the queue holds; a mapping past them is unmapped by the caller. */
#define BS_UNMAP_QUEUE 64

/* Ranges kept at most; a mapping past them is not kept. */
#define BS_UNMAP_KEPT 256

/* The smallest piece of a taken range kept for later (the smallest request: 2 MB). */
#define BS_UNMAP_KEEP_MIN ((size_t) 2 << 20)

/* Unmap [addr, addr + len) on the background thread, or now where it cannot. */
extern void bs_unmap_later(void *addr, size_t len);

/*
 * Keep the page-aligned [addr, addr + len) for bs_unmap_take of the same
 * kind (the caller's own tag: what it made of the mapping, its page advice)
 * while the kept bytes stay within cap and fewer than BS_UNMAP_KEPT ranges
 * are kept, and unmap everything kept once idle_ms pass without another
 * range kept; false (nothing done) when it does not fit or no thread can
 * start: the caller unmaps it.  A kept range's contents may be lost (the
 * kernel may reclaim its pages): the taker writes before it reads.
 */
extern bool bs_unmap_keep(void *addr, size_t len, unsigned kind, size_t cap, unsigned idle_ms);

/*
 * len bytes (a multiple of the page size) at an address aligned to align (a
 * power of two) cut from the smallest kept range of the kind that holds
 * them, or NULL (always once the idle deadline has passed); the rest of
 * that range stays kept, of its kind, where a piece is BS_UNMAP_KEEP_MIN or
 * more, else it is unmapped.
 */
extern void *bs_unmap_take(size_t len, size_t align, unsigned kind);

/* Have the thread unmap every kept range now. */
extern void bs_unmap_release_kept(void);

/* Wait until every mapping queued (not kept) is unmapped. */
extern void bs_unmap_drain(void);

/* Unmap the kept ranges and wait until everything is unmapped and the thread has ended. */
extern void bs_unmap_wait(void);

/* Bytes queued and not yet unmapped. */
extern size_t bs_unmap_pending(void);

/* Whether the thread is alive (it may no longer count in the budget). */
extern bool bs_unmap_running(void);

/* Bytes kept for reuse. */
extern size_t bs_unmap_kept(void);

#ifdef __cplusplus
}
#endif

#endif							/* BS_UNMAPPER_H */
