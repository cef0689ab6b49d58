/*
 * unmapper.c — mappings unmapped on a background thread (see unmapper.h).
 */
#include "unmapper.h"
#include "threads.h"

#include <pthread.h>
#include <sys/mman.h>

/* The queue, the thread's state and the bytes not yet unmapped, under lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ended = PTHREAD_COND_INITIALIZER;
static void *queued_addr[BS_UNMAP_QUEUE];
static size_t queued_len[BS_UNMAP_QUEUE];
static int nqueued;
static bool running;
static size_t pending;

/*
 * Thread body: unmap what is queued, newest first, until nothing is; then
 * give the thread's place back and end, in the same hold of the lock as the
 * last look at the queue, so that a mapping queued meanwhile finds no
 * thread running and starts one.
 */
static void *
unmap_queued(void *arg)
{
	(void) arg;
	pthread_mutex_lock(&lock);
	while (nqueued > 0)
	{
		void	   *addr = queued_addr[--nqueued];
		size_t		len = queued_len[nqueued];

		pthread_mutex_unlock(&lock);
		(void) munmap(addr, len);
		pthread_mutex_lock(&lock);
		pending -= len;
	}
	bs_thread_leave();
	running = false;
	pthread_cond_broadcast(&ended);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* Queue a mapping for the thread, starting it where none runs (see unmapper.h). */
void
bs_unmap_later(void *addr, size_t len)
{
	bool		queued = false;

	pthread_mutex_lock(&lock);
	if (nqueued < BS_UNMAP_QUEUE)
	{
		queued_addr[nqueued] = addr;
		queued_len[nqueued] = len;
		nqueued++;
		pending += len;
		queued = true;
		if (!running)
		{
			running = bs_thread_start_detached(unmap_queued, NULL);
			if (!running)
			{
				nqueued--;
				pending -= len;
				queued = false;
			}
		}
	}
	pthread_mutex_unlock(&lock);
	if (!queued)
		(void) munmap(addr, len);
}

/* Wait for the queue to empty and the thread to end (see unmapper.h). */
void
bs_unmap_wait(void)
{
	pthread_mutex_lock(&lock);
	while (running)
		pthread_cond_wait(&ended, &lock);
	pthread_mutex_unlock(&lock);
}

/* Bytes not yet unmapped (see unmapper.h). */
size_t
bs_unmap_pending(void)
{
	size_t		bytes;

	pthread_mutex_lock(&lock);
	bytes = pending;
	pthread_mutex_unlock(&lock);
	return bytes;
}
