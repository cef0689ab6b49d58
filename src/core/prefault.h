/*
 * prefault.h — a background thread that faults in memory the caller is
 * about to fill, so that the kernel's page zeroing runs on another core.
 *
 * Ranges are queued and populated in order with MADV_POPULATE_WRITE, which
 * never writes to the memory: the caller may fill a range while it is being
 * populated.  The caller never waits for the thread (a full queue drops the
 * range: it is only advice) except where queued memory is to be freed:
 * bs_prefaulter_forget (one range) or bs_prefaulter_stop (all of them) must
 * return first, since the thread reads each page it has populated and a
 * read of unmapped memory is a SIGSEGV.  The thread blocks every signal and
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
	char	   *next;			/* what is left of the range being populated: */
	char	   *end;			/* [next, end) */
	char	   *busy;			/* the step being populated now (without the lock), */
	size_t		busy_len;		/* or NULL */
	pthread_cond_t idle;		/* signalled after each step */
	bool		stop;
	bool		running;
} bs_prefaulter;

/* Start the thread; false when it cannot run (then adding does nothing). */
extern bool bs_prefaulter_start(bs_prefaulter *pf);

/* Queue [start, start + len) to be faulted in. */
extern void bs_prefaulter_add(bs_prefaulter *pf, void *start, size_t len);

/*
 * Drop the queued ranges that overlap [start, start + len) (and the rest
 * of the one being populated, where it does) and wait until the thread's
 * step is not in it: afterwards the range may be freed.
 */
extern void bs_prefaulter_forget(bs_prefaulter *pf, const void *start, size_t len);

/* Drop what is queued, let the current step finish and join the thread. */
extern void bs_prefaulter_stop(bs_prefaulter *pf);

#ifdef __cplusplus
}
#endif

#endif							/* BS_PREFAULT_H */
