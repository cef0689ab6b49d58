/*
 * prefault.h — a background thread that faults in memory the caller is
 * about to fill, so that the kernel's page zeroing runs on another core.
 *
 * Ranges are queued and populated in order with MADV_POPULATE_WRITE, which
 * never writes to the memory: the caller may fill a range while it is being
 * populated.  The caller never waits for the thread (a full queue drops the
 * range: it is only advice) except in bs_prefaulter_stop, which must run
 * before any queued memory is freed.  The thread blocks every signal and
 * calls nothing but madvise.
 */
#ifndef BS_PREFAULT_H
#define BS_PREFAULT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BS_PREFAULT_QUEUE 16

typedef struct bs_prefaulter
{
	pthread_t	thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	char	   *start[BS_PREFAULT_QUEUE];
	size_t		len[BS_PREFAULT_QUEUE];
	unsigned	head;			/* next range to take */
	unsigned	tail;			/* next free entry */
	bool		stop;
	bool		running;
} bs_prefaulter;

/* Start the thread; false when it cannot run (then adding does nothing). */
extern bool bs_prefaulter_start(bs_prefaulter *pf);

/* Queue [start, start + len) to be faulted in. */
extern void bs_prefaulter_add(bs_prefaulter *pf, void *start, size_t len);

/* Drop what is queued, let the current step finish and join the thread. */
extern void bs_prefaulter_stop(bs_prefaulter *pf);

#ifdef __cplusplus
}
#endif

#endif							/* BS_PREFAULT_H */
