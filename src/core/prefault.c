/*
 * prefault.c — background faulting-in of memory about to be filled (see
 * prefault.h).
 */
#include "prefault.h"
#include "parallel.h"

#include <string.h>
#include <sys/mman.h>

/* Bytes populated per step: how long bs_prefaulter_stop may wait at most. */
#define STEP_BYTES ((size_t) 2 << 20)
/* Page size the populated ranges are trimmed to. */
#define PAGE_BYTES ((size_t) 4096)

/*
 * Read one byte of each page of [start, start + len): under shadow paging
 * (a VM whose host keeps its own copy of the page tables) the first access
 * to a page from user mode faults once more, after the kernel's populate;
 * taken here, the caller's first write to the page does not stall.  A read
 * never changes the memory the caller may be filling.
 */
static void
touch_pages(const char *start, size_t len)
{
	const volatile char *page = (const volatile char *) start;

	for (size_t off = 0; off < len; off += PAGE_BYTES)
		(void) page[off];
}

/* Thread body: populate queued ranges in order until stopped. */
static void *
prefault_main(void *arg)
{
	bs_prefaulter *pf = (bs_prefaulter *) arg;

	pthread_mutex_lock(&pf->lock);
	for (;;)
	{
		while (!pf->stop && pf->head == pf->tail)
			pthread_cond_wait(&pf->wake, &pf->lock);
		if (pf->stop)
			break;
		pf->next = pf->start[pf->head % BS_PREFAULT_QUEUE];
		pf->end = pf->next + pf->len[pf->head % BS_PREFAULT_QUEUE];
		pf->head++;
		/* one step at a time, so a stop or a forget is seen within a step */
		while (pf->next < pf->end && !pf->stop)
		{
			size_t		left = (size_t) (pf->end - pf->next);

			pf->busy = pf->next;
			pf->busy_len = left < STEP_BYTES ? left : STEP_BYTES;
			pf->next += pf->busy_len;
			pthread_mutex_unlock(&pf->lock);
#ifdef MADV_POPULATE_WRITE
			(void) madvise(pf->busy, pf->busy_len, MADV_POPULATE_WRITE);
#endif
			touch_pages(pf->busy, pf->busy_len);
			pthread_mutex_lock(&pf->lock);
			pf->busy = NULL;
			pthread_cond_broadcast(&pf->idle);
		}
		pf->next = pf->end = NULL;
	}
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

/* Start the thread (see prefault.h). */
bool
bs_prefaulter_start(bs_prefaulter *pf)
{
	memset(pf, 0, sizeof(bs_prefaulter));
	pf->running = bs_thread_start_synced(&pf->thread, prefault_main, pf, &pf->lock, &pf->wake,
										 &pf->idle);
	return pf->running;
}

/* Queue a range, trimmed to whole pages (see prefault.h). */
void
bs_prefaulter_add(bs_prefaulter *pf, void *start, size_t len)
{
	char	   *first = (char *) (((size_t) start + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1));
	char	   *end = (char *) (((size_t) start + len) & ~(PAGE_BYTES - 1));

	if (!pf->running || end <= first)
		return;
	pthread_mutex_lock(&pf->lock);
	if (pf->tail - pf->head < BS_PREFAULT_QUEUE)
	{
		pf->start[pf->tail % BS_PREFAULT_QUEUE] = first;
		pf->len[pf->tail % BS_PREFAULT_QUEUE] = (size_t) (end - first);
		pf->tail++;
		pthread_cond_signal(&pf->wake);
	}
	pthread_mutex_unlock(&pf->lock);
}

/* Whether [a, a + alen) and [b, b + blen) share a byte. */
static inline bool
overlap(const char *a, size_t alen, const char *b, size_t blen)
{
	return a < b + blen && b < a + alen;
}

/* Forget a range about to be freed (see prefault.h). */
void
bs_prefaulter_forget(bs_prefaulter *pf, const void *start, size_t len)
{
	const char *lo = (const char *) start;

	if (!pf->running || len == 0)
		return;
	pthread_mutex_lock(&pf->lock);
	for (unsigned i = pf->head; i != pf->tail; i++)
	{
		unsigned	at = i % BS_PREFAULT_QUEUE;

		if (overlap(pf->start[at], pf->len[at], lo, len))
			pf->len[at] = 0;
	}
	if (pf->next != NULL && overlap(pf->next, (size_t) (pf->end - pf->next), lo, len))
		pf->next = pf->end;
	while (pf->busy != NULL && overlap(pf->busy, pf->busy_len, lo, len))
		pthread_cond_wait(&pf->idle, &pf->lock);
	pthread_mutex_unlock(&pf->lock);
}

/* Stop and join the thread (see prefault.h). */
void
bs_prefaulter_stop(bs_prefaulter *pf)
{
	if (!pf->running)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_cond_signal(&pf->wake);
	pthread_mutex_unlock(&pf->lock);
	bs_thread_join_synced(pf->thread, &pf->lock, &pf->wake, &pf->idle);
	pf->running = false;
}
