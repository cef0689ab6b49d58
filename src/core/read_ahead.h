/*
 * read_ahead.h — a background thread that reads files ahead of their
 * reader: reads are queued and done in the order queued, each into memory
 * of its own, and the owner waits for one only where it needs its bytes.
 *
 * The thread blocks every signal and calls nothing but pread.  The owner
 * wakes it only once a batch of reads is queued (bs_read_ahead_batch), or
 * when it waits: a merge of many runs queues a small read every
 * few microseconds, and a wake-up for each would cost the owner a system
 * call each; a merge of few runs queues few reads, and a batch as large
 * would leave each of them to its wait.  Memory that a read
 * queued or under way writes to may be freed only after that read was
 * waited for, or after bs_read_ahead_cancel (or _stop) returned.
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

/* A read's state. */
#define BS_READ_IDLE 0			/* not queued, or done and waited for */
#define BS_READ_QUEUED 1		/* queued or under way */
#define BS_READ_DONE 2			/* done: got and err tell how */

/* One read: len bytes of fd from offset on, into dst. */
typedef struct bs_read
{
	int			fd;
	char	   *dst;
	size_t		len;
	off_t		offset;
	ssize_t		got;			/* bytes read (fewer at the file's end), or -1 */
	int			err;			/* errno where got is -1 */
	atomic_int	state;
	struct bs_read *next;		/* the queue's next read */
} bs_read;

typedef struct bs_read_ahead
{
	pthread_t	thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* reads queued, or the stop, for the thread */
	pthread_cond_t done;		/* a read is done, for the owner */
	bs_read    *head;			/* the queue, in order */
	bs_read    *tail;
	int			queued;			/* reads in the queue */
	int			batch;			/* reads queued that wake the sleeping thread (the owner's) */
	bs_read    *busy;			/* the read under way (taken off the queue), or NULL */
	bool		sleeping;		/* the thread waits on wake */
	bool		stop;
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
