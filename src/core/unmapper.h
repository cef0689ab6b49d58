/*
 * unmapper.h — large mappings given back to the kernel on a short-lived
 * background thread, so that the sort that freed them ends without waiting
 * for it: munmap of 4 kB pages took 30-40 ms for the 1.1 GB of a 10M-row
 * sort on the test VM (memcg uncharging, page freeing), all of it after
 * the last row.
 *
 * A mapping queued here must no longer be read or written by anyone.  The
 * thread starts when a mapping is queued and none runs, within the thread
 * budget (threads.h), unmaps what is queued, and ends; where it cannot
 * start, or the queue is full, the caller's thread unmaps at once.  The
 * thread calls nothing but munmap.
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

/* Unmap [addr, addr + len) on the background thread, or now where it cannot. */
extern void bs_unmap_later(void *addr, size_t len);

/* Wait until every mapping queued is unmapped and the thread has ended. */
extern void bs_unmap_wait(void);

/* Bytes queued and not yet unmapped. */
extern size_t bs_unmap_pending(void);

#ifdef __cplusplus
}
#endif

#endif							/* BS_UNMAPPER_H */
