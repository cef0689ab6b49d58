/*
 * read_ahead.c — a background thread that reads files ahead of their reader
 * (see read_ahead.h).
 *
 * A merge of 294 runs at 4 MB reads about 220,000 pieces of 4 kB: on the
 * backend's thread, the kernel's copies of them were 17% of a 10M-row sort.
 * Here they run on another core while the merge goes on; where the merge
 * reaches a piece not read yet, it reads it itself if the thread has not
 * begun it, else waits for it.
 */
#include "read_ahead.h"
#include "monotonic.h"
#include "threads.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Longest the owner spins on a read under way before it sleeps, in nanoseconds. */
#define SPIN_NS 20000

/* Spins between two looks at the clock. */
#define SPINS_PER_CLOCK 64

/* Touch r's memory, a load a cache line, and count it read. */
static void
touch(bs_read *r)
{
	const volatile char *p = r->dst;
	char		sum = 0;

	for (size_t i = 0; i < r->len; i += 64)
		sum += p[i];
	if (r->len > 0)
		sum += p[r->len - 1];
	(void) sum;
	r->got = (ssize_t) r->len;
}

/* Read r whole, or to its file's end; got and err tell how. */
static void
do_read(bs_read *r)
{
	size_t		done = 0;

	r->err = 0;
	if (r->fd == BS_READ_TOUCH)
	{
		touch(r);
		return;
	}
	while (done < r->len)
	{
		ssize_t		n = pread(r->fd, r->dst + done, r->len - done, r->offset + (off_t) done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
		{
			r->err = errno;
			r->got = -1;
			return;
		}
		if (n == 0)
			break;
		done += (size_t) n;
	}
	r->got = (ssize_t) done;
}

/* Take a queued read to do it: false where the thread or the owner took it first. */
static bool
claim(bs_read *r)
{
	int			queued = BS_READ_QUEUED;

	return atomic_compare_exchange_strong(&r->state, &queued, BS_READ_UNDER_WAY);
}

/* Wake the thread where it sleeps (or is about to). */
static void
wake_thread(bs_read_ahead *ra)
{
	if (!atomic_load(&ra->sleeping))
		return;
	pthread_mutex_lock(&ra->lock);
	pthread_cond_signal(&ra->wake);
	pthread_mutex_unlock(&ra->lock);
}

/*
 * The thread sleeps until the owner wakes it for reads queued past `taken`,
 * a cancel or the stop.  It says it sleeps before it looks at the queue a
 * last time, and the owner looks whether it sleeps after it queues: one of
 * the two sees the other's word.
 */
static void
sleep_until_queued(bs_read_ahead *ra, unsigned long long taken)
{
	pthread_mutex_lock(&ra->lock);
	atomic_store(&ra->sleeping, true);
	while (!atomic_load(&ra->stop) && atomic_load(&ra->queued) == taken)
		pthread_cond_wait(&ra->wake, &ra->lock);
	atomic_store(&ra->sleeping, false);
	pthread_mutex_unlock(&ra->lock);
}

/*
 * Thread body: do the queued reads in order (drop those below drop_below;
 * pass those the owner took) until stopped.
 */
static void *
read_ahead_main(void *arg)
{
	bs_read_ahead *ra = (bs_read_ahead *) arg;
	unsigned long long taken = 0;

	while (!atomic_load(&ra->stop))
	{
		bs_read    *r;

		if (atomic_load(&ra->queued) == taken)
		{
			sleep_until_queued(ra, taken);
			continue;
		}
		r = ra->ring[taken % BS_READ_AHEAD_RING];
		/* a read the owner took itself (bs_read_ahead_wait) is its own */
		if (claim(r))
		{
			if (taken < atomic_load(&ra->drop_below))
			{
				r->got = -1;
				r->err = ECANCELED;
			}
			else
				do_read(r);
			atomic_store(&r->state, BS_READ_DONE);
		}
		atomic_store(&ra->taken, ++taken);
		if (atomic_load(&ra->owner_sleeping))
		{
			pthread_mutex_lock(&ra->lock);
			pthread_cond_broadcast(&ra->done);
			pthread_mutex_unlock(&ra->lock);
		}
	}
	return NULL;
}

/* Start the thread (see read_ahead.h). */
bool
bs_read_ahead_start(bs_read_ahead *ra)
{
	memset(ra, 0, sizeof(bs_read_ahead));
	atomic_init(&ra->queued, 0);
	atomic_init(&ra->taken, 0);
	atomic_init(&ra->drop_below, 0);
	atomic_init(&ra->sleeping, false);
	atomic_init(&ra->owner_sleeping, false);
	atomic_init(&ra->stop, false);
	ra->batch = BS_READ_AHEAD_BATCH;
	ra->running = bs_thread_start_synced(&ra->thread, read_ahead_main, ra, &ra->lock, &ra->wake,
										 &ra->done);
	return ra->running;
}

/* Set the batch that wakes the thread (see read_ahead.h). */
void
bs_read_ahead_batch(bs_read_ahead *ra, int batch)
{
	ra->batch = batch < 1 ? 1 : batch > BS_READ_AHEAD_BATCH ? BS_READ_AHEAD_BATCH : batch;
}

/*
 * The owner sleeps until `ready` holds of ra and arg, after the thread's
 * next read at the latest; it says it sleeps before it looks a last time,
 * and the thread looks whether it sleeps after each read.
 */
static void
sleep_until(bs_read_ahead *ra, bool (*ready) (bs_read_ahead *ra, const void *arg), const void *arg)
{
	pthread_mutex_lock(&ra->lock);
	atomic_store(&ra->owner_sleeping, true);
	while (!ready(ra, arg))
		pthread_cond_wait(&ra->done, &ra->lock);
	atomic_store(&ra->owner_sleeping, false);
	pthread_mutex_unlock(&ra->lock);
}

/* Whether the ring has room for one more read. */
static bool
ring_has_room(bs_read_ahead *ra, const void *arg)
{
	(void) arg;
	return atomic_load(&ra->queued) - atomic_load(&ra->taken) < BS_READ_AHEAD_RING;
}

/* Whether read arg is done. */
static bool
read_done(bs_read_ahead *ra, const void *arg)
{
	(void) ra;
	return atomic_load(&((const bs_read *) arg)->state) == BS_READ_DONE;
}

/* Whether the thread has taken every read queued. */
static bool
queue_empty(bs_read_ahead *ra, const void *arg)
{
	(void) arg;
	return atomic_load(&ra->taken) == atomic_load(&ra->queued);
}

/* Put a read in the ring, which has room, and wake the thread once a batch is queued. */
static void
enqueue(bs_read_ahead *ra, bs_read *r)
{
	unsigned long long queued;

	/*
	 * the read is set before it is queued: the thread may take it through
	 * an earlier place in the ring that held r, done by the owner itself
	 */
	atomic_store_explicit(&r->state, BS_READ_QUEUED, memory_order_release);
	queued = atomic_load_explicit(&ra->queued, memory_order_relaxed);
	ra->ring[queued % BS_READ_AHEAD_RING] = r;
	atomic_store(&ra->queued, queued + 1);
	if (queued + 1 - atomic_load(&ra->taken) >= (unsigned long long) ra->batch)
		wake_thread(ra);
}

/* Queue a read, or do it now where the thread is not running (see read_ahead.h). */
void
bs_read_ahead_submit(bs_read_ahead *ra, bs_read *r)
{
	if (!ra->running)
	{
		do_read(r);
		atomic_store_explicit(&r->state, BS_READ_DONE, memory_order_relaxed);
		return;
	}
	if (!ring_has_room(ra, NULL))
	{
		wake_thread(ra);
		sleep_until(ra, ring_has_room, NULL);
	}
	enqueue(ra, r);
}

/* Queue a read where the thread runs and the ring has room; false (r untouched) where not. */
bool
bs_read_ahead_try_submit(bs_read_ahead *ra, bs_read *r)
{
	if (!ra->running || !ring_has_room(ra, NULL))
		return false;
	enqueue(ra, r);
	return true;
}

/* Whether r is done, spinning SPIN_NS at most for it. */
static bool
spin_until_done(const bs_read *r)
{
	long long	deadline = bs_monotonic_ns() + SPIN_NS;

	for (int spins = 1;; spins++)
	{
		if (atomic_load_explicit(&r->state, memory_order_acquire) == BS_READ_DONE)
			return true;
		if (spins % SPINS_PER_CLOCK == 0 && bs_monotonic_ns() > deadline)
			return false;
		bs_spin_pause();
	}
}

/*
 * Wait for a queued read (see read_ahead.h): do it here where the thread
 * has not begun it, else wake the thread where it sleeps and wait.  The
 * thread does the reads in the order queued, and a merge needs them in the
 * order of its keys: with the thread behind, the merge waited for the
 * reads queued before the one it needed.
 */
void
bs_read_ahead_wait(bs_read_ahead *ra, bs_read *r)
{
	if (atomic_load_explicit(&r->state, memory_order_acquire) != BS_READ_DONE)
	{
		/* the reads queued after it are the thread's */
		wake_thread(ra);
		if (claim(r))
			do_read(r);
		else if (!spin_until_done(r))
			sleep_until(ra, read_done, r);
	}
	atomic_store_explicit(&r->state, BS_READ_IDLE, memory_order_relaxed);
}

/*
 * Drop the reads queued (each done with ECANCELED, unread) and wait for the
 * one under way (see read_ahead.h): the thread takes every read queued, and
 * the owner queues none meanwhile.
 */
void
bs_read_ahead_cancel(bs_read_ahead *ra)
{
	if (!ra->running)
		return;
	atomic_store(&ra->drop_below, atomic_load(&ra->queued));
	if (queue_empty(ra, NULL))
		return;
	wake_thread(ra);
	sleep_until(ra, queue_empty, NULL);
}

/* Cancel, and join the thread (see read_ahead.h). */
void
bs_read_ahead_stop(bs_read_ahead *ra)
{
	if (!ra->running)
		return;
	bs_read_ahead_cancel(ra);
	pthread_mutex_lock(&ra->lock);
	atomic_store(&ra->stop, true);
	pthread_cond_signal(&ra->wake);
	pthread_mutex_unlock(&ra->lock);
	bs_thread_join_synced(ra->thread, &ra->lock, &ra->wake, &ra->done);
	ra->running = false;
}
