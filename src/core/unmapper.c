/*
 * unmapper.c — mappings unmapped on a background thread, or kept for reuse,
 * as memory the kernel may reclaim, until an idle deadline (see unmapper.h).
 */
#include "unmapper.h"
#include "threads.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>

/* A page range of a mapping, and for a kept one the kind a take must match. */
typedef struct bs_range
{
	char	   *addr;
	size_t		len;
	unsigned	kind;
} bs_range;

/* Everything below is under lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ended = PTHREAD_COND_INITIALIZER; /* the thread ended */
static pthread_cond_t drained = PTHREAD_COND_INITIALIZER;	/* nothing pending */
static pthread_cond_t wake;		/* on the monotonic clock: the deadline moved */
static pthread_once_t wake_once = PTHREAD_ONCE_INIT;
static bs_range queued[BS_UNMAP_QUEUE + BS_UNMAP_KEPT];	/* room for every kept range too */
static int	nqueued;
static size_t pending;			/* bytes queued or being unmapped */
static bs_range kept[BS_UNMAP_KEPT];
static int	nkept;
static size_t kept_bytes;
static struct timespec kept_until;	/* monotonic time the kept ranges go back */
static bool running;

/* Make the deadline's condition variable wait on the monotonic clock. */
static void
init_wake(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&wake, &attr);
	pthread_condattr_destroy(&attr);
}

/* Take the lock (the condition variables made first). */
static void
lock_unmapper(void)
{
	pthread_once(&wake_once, init_wake);
	pthread_mutex_lock(&lock);
}

/* The monotonic clock now, plus ms milliseconds. */
static struct timespec
clock_after(unsigned ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long) (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L)
	{
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* Whether the monotonic clock has reached t. */
static bool
reached(struct timespec t)
{
	struct timespec now = clock_after(0);

	return now.tv_sec > t.tv_sec || (now.tv_sec == t.tv_sec && now.tv_nsec >= t.tv_nsec);
}

/* addr rounded up to a multiple of align (a power of two). */
static char *
align_up(char *addr, size_t align)
{
	return (char *) (((uintptr_t) addr + align - 1) & ~(uintptr_t) (align - 1));
}

/* Append a range to ranges[*count], adding its length to *bytes (under lock, room checked by the caller). */
static void
add_range(bs_range *ranges, int *count, size_t *bytes, char *addr, size_t len, unsigned kind)
{
	ranges[*count].addr = addr;
	ranges[*count].len = len;
	ranges[*count].kind = kind;
	(*count)++;
	*bytes += len;
}

/*
 * Queue the kept ranges for unmapping (under lock), as many as the queue
 * holds (all of them unless a release came just before); the deadline of
 * any left is now.
 */
static void
expire_kept_locked(void)
{
	while (nkept > 0 && nqueued < BS_UNMAP_QUEUE + BS_UNMAP_KEPT)
	{
		bs_range	r = kept[--nkept];

		kept_bytes -= r.len;
		add_range(queued, &nqueued, &pending, r.addr, r.len, 0);
	}
	kept_until = clock_after(0);
}

/* Queue what is kept once its deadline has passed (under lock): nothing past it is handed out. */
static void
expire_if_due_locked(void)
{
	if (nkept > 0 && reached(kept_until))
		expire_kept_locked();
}

/*
 * Thread body: unmap what is queued, newest first; while ranges are kept,
 * sleep until their deadline, then queue them too; once nothing is left,
 * end, in the same hold of the lock as the last look, so that a mapping
 * queued or kept meanwhile finds no thread running and starts one.  Before
 * it first sleeps the thread moves from the budget's working threads to
 * its sleeping ones (a backend's kept memory must not hold a place other
 * sorts' threads need for a minute); where they are full it keeps nothing:
 * what is kept is unmapped at once.
 */
static void *
unmapper_main(void *arg)
{
	bool		sleeper = false;

	(void) arg;
	lock_unmapper();
	for (;;)
	{
		bs_range	r;

		if (nqueued == 0 && nkept == 0)
			break;
		if (nqueued == 0 && !reached(kept_until))
		{
			/* a copy: the deadline may move while the wait reads it */
			struct timespec until = kept_until;

			if (!sleeper && !bs_thread_start_sleeping())
			{
				expire_kept_locked();
				continue;
			}
			sleeper = true;
			pthread_cond_timedwait(&wake, &lock, &until);
			continue;
		}
		if (nqueued == 0)
			expire_kept_locked();
		r = queued[--nqueued];
		pthread_mutex_unlock(&lock);
		(void) munmap(r.addr, r.len);
		pthread_mutex_lock(&lock);
		pending -= r.len;
		if (pending == 0)
			pthread_cond_broadcast(&drained);
	}
	if (sleeper)
		bs_thread_leave_sleeping();
	else
		bs_thread_leave();
	running = false;
	pthread_cond_broadcast(&ended);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* Have the thread running (under lock); false when it cannot start. */
static bool
ensure_thread(void)
{
	if (!running)
		running = bs_thread_start_detached(unmapper_main, NULL);
	return running;
}

/* Queue a range for the thread (under lock); false when it must be unmapped by the caller. */
static bool
queue_locked(char *addr, size_t len)
{
	if (nqueued >= BS_UNMAP_QUEUE || !ensure_thread())
		return false;
	add_range(queued, &nqueued, &pending, addr, len, 0);
	pthread_cond_signal(&wake);	/* the thread may sleep until a deadline */
	return true;
}

/* Queue a mapping for the thread, starting it where none runs (see unmapper.h). */
void
bs_unmap_later(void *addr, size_t len)
{
	bool		queued_ok;

	lock_unmapper();
	queued_ok = queue_locked(addr, len);
	pthread_mutex_unlock(&lock);
	if (!queued_ok)
		(void) munmap(addr, len);
}

/*
 * Tell the kernel it may reclaim a range's pages instead of writing them
 * anywhere (MADV_FREE): until it does, they stay mapped with their contents
 * and a write takes them back without a fault; once it has, a page reads as
 * zeros and faults in anew.  Where the kernel lacks it the range stays as
 * it is.
 */
static void
let_kernel_reclaim(void *addr, size_t len)
{
#ifdef MADV_FREE
	(void) madvise(addr, len, MADV_FREE);
#else
	(void) addr;
	(void) len;
#endif
}

/* Keep a mapping for reuse within cap bytes, until idle_ms from now (see unmapper.h). */
bool
bs_unmap_keep(void *addr, size_t len, unsigned kind, size_t cap, unsigned idle_ms)
{
	bool		ok;

	lock_unmapper();
	expire_if_due_locked();		/* what a release left (a full queue) stays released */
	ok = nkept < BS_UNMAP_KEPT && kept_bytes + len <= cap && ensure_thread();
	if (ok)
	{
		/* before anyone can take it: a write after the advice keeps its page */
		let_kernel_reclaim(addr, len);
		add_range(kept, &nkept, &kept_bytes, addr, len, kind);
		kept_until = clock_after(idle_ms);
		pthread_cond_signal(&wake);
	}
	pthread_mutex_unlock(&lock);
	return ok;
}

/*
 * A piece of a taken range that is not handed out: kept again where it is
 * large enough to be taken, else queued; false: the caller unmaps it.
 */
static bool
give_back_locked(char *addr, size_t len, unsigned kind)
{
	if (len == 0)
		return true;
	if (len >= BS_UNMAP_KEEP_MIN && nkept < BS_UNMAP_KEPT)
	{
		add_range(kept, &nkept, &kept_bytes, addr, len, kind);
		return true;
	}
	return queue_locked(addr, len);
}

/* The smallest kept range of the kind that holds len bytes aligned to align, or -1 (under lock). */
static int
best_fit_locked(size_t len, size_t align, unsigned kind)
{
	int			best = -1;

	for (int i = 0; i < nkept; i++)
	{
		char	   *start = align_up(kept[i].addr, align);

		if (kept[i].kind == kind && start + len <= kept[i].addr + kept[i].len &&
			(best < 0 || kept[i].len < kept[best].len))
			best = i;
	}
	return best;
}

/* Take len bytes aligned to align from the kept ranges, or NULL (see unmapper.h). */
void *
bs_unmap_take(size_t len, size_t align, unsigned kind)
{
	bs_range	r,
				left[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
	char	   *start = NULL;
	int			i;

	lock_unmapper();
	expire_if_due_locked();		/* whether or not the thread has woken */
	i = best_fit_locked(len, align, kind);
	if (i >= 0)
	{
		r = kept[i];
		kept[i] = kept[--nkept];
		kept_bytes -= r.len;
		start = align_up(r.addr, align);
		if (!give_back_locked(r.addr, (size_t) (start - r.addr), kind))
			left[0] = (bs_range) {r.addr, (size_t) (start - r.addr), kind};
		if (!give_back_locked(start + len, (size_t) (r.addr + r.len - (start + len)), kind))
			left[1] = (bs_range) {start + len, (size_t) (r.addr + r.len - (start + len)), kind};
	}
	if (nkept == 0)
		pthread_cond_signal(&wake); /* nothing left kept (taken or expired): the thread moves on */
	pthread_mutex_unlock(&lock);
	for (int k = 0; k < 2; k++)
		if (left[k].len > 0)
			(void) munmap(left[k].addr, left[k].len);
	return start;
}

/* Have every kept range unmapped now (see unmapper.h). */
void
bs_unmap_release_kept(void)
{
	lock_unmapper();
	if (nkept > 0)
	{
		expire_kept_locked();
		pthread_cond_signal(&wake);
	}
	pthread_mutex_unlock(&lock);
}

/* Wait until nothing queued is left to unmap (see unmapper.h). */
void
bs_unmap_drain(void)
{
	lock_unmapper();
	while (pending > 0)
		pthread_cond_wait(&drained, &lock);
	pthread_mutex_unlock(&lock);
}

/* Unmap the kept ranges, wait for the queue to empty and the thread to end (see unmapper.h). */
void
bs_unmap_wait(void)
{
	bs_unmap_release_kept();
	lock_unmapper();
	while (running)
		pthread_cond_wait(&ended, &lock);
	pthread_mutex_unlock(&lock);
}

/* Bytes not yet unmapped (see unmapper.h). */
size_t
bs_unmap_pending(void)
{
	size_t		bytes;

	lock_unmapper();
	bytes = pending;
	pthread_mutex_unlock(&lock);
	return bytes;
}

/* Whether the thread is alive (see unmapper.h). */
bool
bs_unmap_running(void)
{
	bool		alive;

	lock_unmapper();
	alive = running;
	pthread_mutex_unlock(&lock);
	return alive;
}

/* Bytes kept for reuse (see unmapper.h). */
size_t
bs_unmap_kept(void)
{
	size_t		bytes;

	lock_unmapper();
	bytes = kept_bytes;
	pthread_mutex_unlock(&lock);
	return bytes;
}
