/*
 * read_ahead.h — a background thread that reads files ahead of their
 * reader: reads are queued, each into memory of its own, and the thread
 * does them in the order queued, but for those the owner waits for before
 * the thread begins them, which the owner does itself; the owner waits
 * only where it needs a read's bytes.  The thread blocks every signal and
 * calls nothing but pread (or, for a read of mapped memory, reads it to
 * bring it into the caches and its pages into the page tables).  The queue is a ring that the owner alone fills
 * and the thread alone empties, with no lock: a lock taken by both at each
 * read made them wait for each other in the kernel (90,000 futex calls in
 * a 10M-row sort at 4 MB).  The lock is taken only to sleep and to wake.  The owner wakes the
 * sleeping thread only once a batch of reads is queued
 * (bs_read_ahead_batch), or when it waits: a merge of many runs queues a
 * small read every few microseconds, and a wake-up for each would cost
 * the owner a system call each; a merge of few runs queues few reads, and
 * a batch as large would leave each of them to its wait.  Memory that a
 * read queued or under way writes to may be freed only after that read
 * was waited for, or after bs_read_ahead_cancel (or _stop) returned.  A
 * bs_read waited for may be queued again, but freed (or its state set
 * other than by these calls) only after bs_read_ahead_cancel or _stop
 * returned: until then the thread may still look at its state through the
 * ring's older place for it.
 */
#ifndef BS_READ_AHEAD_H
#define BS_READ_AHEAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most reads queued before the owner wakes the sleeping thread. */
#define BS_READ_AHEAD_BATCH 64

/* Reads the ring holds; the owner waits for room past that many. */
#define BS_READ_AHEAD_RING 256

/* A read's state. */
#define BS_READ_IDLE 0			/* not queued, or done and waited for */
#define BS_READ_QUEUED 1		/* queued, not begun */
#define BS_READ_UNDER_WAY 2		/* taken by the thread (or the owner) */
#define BS_READ_DONE 3			/* done: got and err tell how */

/*
 * The fd of a read that only touches len bytes of mapped memory at dst
 * (one load a cache line), so that the owner finds them in the caches and
 * their pages mapped; got is len.
 */
#define BS_READ_TOUCH (-2)

/* One read: len bytes of fd from offset on, into dst (or touched: BS_READ_TOUCH). */
typedef struct bs_read
{
	int			fd;
	char	   *dst;
	size_t		len;
	off_t		offset;
	ssize_t		got;			/* bytes read (fewer at the file's end), or -1 */
	int			err;			/* errno where got is -1 */
	atomic_int	state;
} bs_read;

typedef struct bs_read_ahead
{
	pthread_t	thread;
	pthread_mutex_t lock;		/* taken only to sleep and to wake */
	pthread_cond_t wake;		/* reads queued, a cancel or the stop, for the thread */
	pthread_cond_t done;		/* a read is done, for the owner */
	bs_read    *ring[BS_READ_AHEAD_RING];
	atomic_ullong queued;		/* reads ever queued: the owner's */
	atomic_ullong taken;		/* places of the ring ever passed: the thread's */
	atomic_ullong drop_below;	/* reads queued before this are dropped, unread */
	atomic_bool sleeping;		/* the thread sleeps on wake, or is about to */
	atomic_bool owner_sleeping; /* the owner sleeps on done, or is about to */
	atomic_bool stop;
	int			batch;			/* reads queued that wake the sleeping thread (the owner's) */
	bool		running;
} bs_read_ahead;

/*
 * Start the thread, woken once BS_READ_AHEAD_BATCH reads are queued; false
 * when it cannot run (the owner then reads itself).
 */
extern bool bs_read_ahead_start(bs_read_ahead *ra);

/* Wake the sleeping thread once `batch` reads are queued from now on (1 to BS_READ_AHEAD_BATCH). */
extern void bs_read_ahead_batch(bs_read_ahead *ra, int batch);

/* Queue a read (fd, dst, len and offset set), which must be idle. */
extern void bs_read_ahead_submit(bs_read_ahead *ra, bs_read *r);

/*
 * Queue a read (as bs_read_ahead_submit) only where the thread runs and
 * the ring has room: false, and nothing done, where not (a read that may
 * be left undone, as a touch).
 */
extern bool bs_read_ahead_try_submit(bs_read_ahead *ra, bs_read *r);

/* Wait until a queued read is done; its got and err then tell how. */
extern void bs_read_ahead_wait(bs_read_ahead *ra, bs_read *r);

/*
 * Drop the queued reads (each done with ECANCELED, unread) and wait for
 * the one under way: afterwards no read writes to memory.
 */
extern void bs_read_ahead_cancel(bs_read_ahead *ra);

/* Cancel and join the thread; nothing happens when it is not running. */
extern void bs_read_ahead_stop(bs_read_ahead *ra);

#ifdef __cplusplus
}
#endif

#endif							/* BS_READ_AHEAD_H */
