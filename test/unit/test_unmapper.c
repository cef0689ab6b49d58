/*
 * test_unmapper.c — mappings unmapped on a short-lived background thread:
 * every mapping queued is gone once the queue is waited for, the thread
 * gives its place in the thread budget back as it ends, a mapping queued
 * while the thread is ending still finds a thread, and where no thread may
 * start (the budget is full) the caller unmaps at once.
 */
#include "threads.h"
#include "unmapper.h"
#include "unit.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MB ((size_t) 1 << 20)

/* Mappings check_back_to_back queues one by one. */
#define ROUNDS 2000

/* A fresh anonymous mapping of len bytes, every page written. */
static char *
map_written(size_t len)
{
	char	   *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0x5a, len);
	return p;
}

/* Whether no page of [p, p + len) is mapped any more (mincore: ENOMEM). */
static int
unmapped(char *p, size_t len)
{
	unsigned char vec[64];
	size_t		page = (size_t) getpagesize();

	for (size_t at = 0; at < len; at += page * 64)
	{
		size_t		span = len - at < page * 64 ? len - at : page * 64;

		if (mincore(p + at, span, vec) == 0 || errno != ENOMEM)
			return 0;
	}
	return 1;
}

/* Mappings of several sizes queued together are all gone after the wait. */
static void
check_queued(int count)
{
	char	   *maps[2 * BS_UNMAP_QUEUE];
	size_t		lens[2 * BS_UNMAP_QUEUE];
	int			gone = 1;

	for (int i = 0; i < count; i++)
	{
		lens[i] = (size_t) (1 + i % 5) * MB;
		maps[i] = map_written(lens[i]);
		if (maps[i] == NULL)
			return unit_report(0, "%d mappings: mmap failed", count);
	}
	for (int i = 0; i < count; i++)
		bs_unmap_later(maps[i], lens[i]);
	bs_unmap_wait();
	for (int i = 0; i < count; i++)
		gone &= unmapped(maps[i], lens[i]);
	unit_report(gone && bs_unmap_pending() == 0 && bs_threads_alive() == 0,
				"%d mappings queued at once (queue of %d): all unmapped after the wait, "
				"nothing pending, the thread ended and gave its place back",
				count, BS_UNMAP_QUEUE);
}

/*
 * One mapping at a time, each queued as the thread that unmapped the one
 * before may be ending: none is left behind.
 */
static void
check_back_to_back(void)
{
	char	   *last = NULL;
	int			gone = 1;

	for (int i = 0; i < ROUNDS; i++)
	{
		char	   *p = map_written(64 * 1024);

		if (p == NULL)
			return unit_report(0, "back to back: mmap failed");
		bs_unmap_later(p, 64 * 1024);
		if (i % 100 == 99)
		{
			bs_unmap_wait();
			gone &= unmapped(p, 64 * 1024);
		}
		last = p;
	}
	bs_unmap_wait();
	gone &= unmapped(last, 64 * 1024);
	unit_report(gone && bs_unmap_pending() == 0 && bs_threads_alive() == 0,
				"%d mappings queued one by one: each unmapped, no thread left alive", ROUNDS);
}

/* With the budget full, the caller unmaps before bs_unmap_later returns. */
static void
check_no_thread(void)
{
	static char pool_mem[64] __attribute__((aligned(64)));
	bs_thread_pool *pool = bs_thread_pool_init(pool_mem);
	char	   *p = map_written(4 * MB);
	int			gone;

	if (p == NULL)
		return unit_report(0, "no thread: mmap failed");
	bs_threads_share(pool);
	bs_threads_set_limit(0);
	bs_unmap_later(p, 4 * MB);
	gone = unmapped(p, 4 * MB);
	bs_threads_set_limit(UINT32_MAX);
	bs_threads_share(NULL);
	unit_report(gone && bs_unmap_pending() == 0 && bs_threads_alive() == 0,
				"no thread may start (budget of 0): the mapping is unmapped at once");
}

int
main(void)
{
	if (bs_thread_pool_size() > 64)
	{
		unit_report(0, "a thread pool fits the test's 64 bytes");
		return unit_exit_status();
	}
	check_queued(1);
	check_queued(BS_UNMAP_QUEUE);
	check_queued(2 * BS_UNMAP_QUEUE);
	check_back_to_back();
	check_no_thread();
	return unit_exit_status();
}
