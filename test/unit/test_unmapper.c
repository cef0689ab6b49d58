/*
 * test_unmapper.c — mappings unmapped on a short-lived background thread:
 * every mapping queued is gone once the queue is waited for, the thread
 * gives its place in the thread budget back as it ends, a mapping queued
 * while the thread is ending still finds a thread, and where no thread may
 * start (the budget is full) the caller unmaps at once.  Kept mappings come
 * back by best fit with their contents (no page faulted anew), the rest of
 * a range stays kept, the cap holds, and what is kept is unmapped at its
 * idle deadline, by bs_unmap_release_kept or by the wait, never by a drain.
 * A kept range is lazily free (the kernel may reclaim it) until taken back
 * and written, and the thread that sleeps over it holds no place in the
 * budget's working threads but one among its sleeping threads, which are
 * bounded too.
 */
#include "threads.h"
#include "unmapper.h"
#include "unit.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
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

/*
 * Whether every page of [p, p + len) is unmapped (want_mapped 0: mincore
 * fails with ENOMEM) or mapped (want_mapped 1; resident or not: a page the
 * kernel reclaimed reads as zeros).
 */
static int
pages_are(char *p, size_t len, int want_mapped)
{
	unsigned char vec[64];
	size_t		page = (size_t) getpagesize();

	for (size_t at = 0; at < len; at += page * 64)
	{
		size_t		span = len - at < page * 64 ? len - at : page * 64;

		if ((mincore(p + at, span, vec) == 0) != want_mapped)
			return 0;
		if (!want_mapped && errno != ENOMEM)
			return 0;
	}
	return 1;
}

/* Whether no page of [p, p + len) is mapped any more. */
static int
unmapped(char *p, size_t len)
{
	return pages_are(p, len, 0);
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

/* Share a fresh budget of `limit` threads with nobody else. */
static void
share_budget(unsigned limit)
{
	static char pool_mem[64] __attribute__((aligned(64)));

	bs_threads_share(bs_thread_pool_init(pool_mem));
	bs_threads_set_limit(limit);
}

/* Go back to the process's own budget, without a shared limit. */
static void
unshare_budget(void)
{
	bs_threads_set_limit(UINT32_MAX);
	bs_threads_share(NULL);
}

/* With the budget full, the caller unmaps before bs_unmap_later returns. */
static void
check_no_thread(void)
{
	char	   *p = map_written(4 * MB);
	int			gone;

	if (p == NULL)
		return unit_report(0, "no thread: mmap failed");
	share_budget(0);
	bs_unmap_later(p, 4 * MB);
	gone = unmapped(p, 4 * MB);
	unshare_budget();
	unit_report(gone && bs_unmap_pending() == 0 && bs_threads_alive() == 0,
				"no thread may start (budget of 0): the mapping is unmapped at once");
}

/* Whether every byte of [p, p + len) is c. */
static int
filled_with(const char *p, size_t len, char c)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != c)
			return 0;
	return 1;
}

/*
 * Pages of lazily free memory the kernel has reclaimed, system-wide
 * (vmstat's pglazyfreed), or 0 where it cannot be read.
 */
static long
lazily_freed_pages(void)
{
	FILE	   *vmstat = fopen("/proc/vmstat", "r");
	char		line[128];
	long		pages = 0;

	if (vmstat == NULL)
		return 0;
	while (fgets(line, sizeof(line), vmstat) != NULL)
		if (sscanf(line, "pglazyfreed %ld", &pages) == 1)
			break;
	fclose(vmstat);
	return pages;
}

/*
 * Whether a kept range, written with c before it was kept, still holds it:
 * every page mapped and either c or, where the kernel reclaimed the page
 * while it was kept (MADV_FREE lets it under memory pressure), zeros; no
 * more zeroed pages than the kernel reclaimed since freed_before.
 */
static int
kept_intact(char *p, size_t len, char c, long freed_before)
{
	size_t		page = (size_t) getpagesize();
	long		zeroed = 0;

	if (!pages_are(p, len, 1))
		return 0;
	for (size_t at = 0; at < len; at += page)
	{
		if (filled_with(p + at, page, c))
			continue;
		if (!filled_with(p + at, page, 0))
			return 0;
		zeroed++;
	}
	return zeroed <= lazily_freed_pages() - freed_before;
}

/*
 * A kept 8 MB mapping gives back 3 MB from its start with their contents;
 * the 5 MB tail stays kept, a request larger than any range gets nothing,
 * 4 MB more leave a 1 MB tail too small to keep (unmapped), and with
 * nothing kept the thread ends without a wait.
 */
static void
check_keep_take(void)
{
	char	   *p = map_written(8 * MB);
	char	   *got;
	char	   *more;
	long		freed_before = lazily_freed_pages();
	int			ok;
	int			waited = 0;

	if (p == NULL)
		return unit_report(0, "keep: mmap failed");
	ok = bs_unmap_keep(p, 8 * MB, 0, 16 * MB, 60000) && bs_unmap_kept() == 8 * MB;
	got = bs_unmap_take(3 * MB, 4096, 0);
	ok &= got == p && kept_intact(p, 3 * MB, 0x5a, freed_before) && bs_unmap_kept() == 5 * MB;
	ok &= bs_unmap_take(6 * MB, 4096, 0) == NULL && bs_unmap_kept() == 5 * MB;
	more = bs_unmap_take(4 * MB, 4096, 0);
	ok &= more == p + 3 * MB && kept_intact(more, 4 * MB, 0x5a, freed_before) && bs_unmap_kept() == 0;
	while (bs_unmap_running() && waited < 5000)
	{
		usleep(1000);
		waited++;
	}
	ok &= !bs_unmap_running() && bs_threads_alive() == 0 && unmapped(p + 7 * MB, 1 * MB);
	munmap(p, 7 * MB);
	unit_report(ok, "an 8 MB mapping kept: 3 MB taken back, contents kept (or pages reclaimed); 5 MB stay kept, "
				"6 MB are not found; 4 MB more leave 1 MB, unmapped; the thread ends once nothing "
				"is kept (%d ms)", waited);
}

/*
 * Kinds: a range kept as one kind is not taken for another (a buffer gets
 * the page advice it asked for), and the rest of a range taken stays kept
 * as its kind.
 */
static void
check_kinds(void)
{
	char	   *p = map_written(8 * MB);
	char	   *got;
	int			ok;

	if (p == NULL)
		return unit_report(0, "kinds: mmap failed");
	ok = bs_unmap_keep(p, 8 * MB, 1, 16 * MB, 60000);
	ok &= bs_unmap_take(2 * MB, 4096, 0) == NULL && bs_unmap_kept() == 8 * MB;
	got = bs_unmap_take(2 * MB, 4096, 1);
	ok &= got == p && bs_unmap_kept() == 6 * MB;
	ok &= bs_unmap_take(2 * MB, 4096, 0) == NULL && bs_unmap_take(6 * MB, 4096, 1) == p + 2 * MB;
	ok &= bs_unmap_kept() == 0;
	bs_unmap_wait();
	munmap(p, 8 * MB);
	unit_report(ok, "a range kept as kind 1 is not taken as kind 0; taken as kind 1, its rest stays kind 1");
}

/*
 * 2 MB-aligned 2 MB from a kept 8 MB mapping: the head before the aligned
 * start (under 2 MB) is unmapped, the tail stays kept, and the wait unmaps it.
 */
static void
check_take_aligned(void)
{
	char	   *p = map_written(8 * MB);
	char	   *got;
	long		freed_before = lazily_freed_pages();
	int			ok;

	if (p == NULL)
		return unit_report(0, "aligned take: mmap failed");
	ok = bs_unmap_keep(p, 8 * MB, 0, 16 * MB, 60000);
	got = bs_unmap_take(2 * MB, 2 * MB, 0);
	ok &= got != NULL && ((uintptr_t) got & (2 * MB - 1)) == 0 && got >= p && got - p < (ptrdiff_t) (2 * MB);
	ok &= got != NULL && bs_unmap_kept() == (size_t) (p + 8 * MB - (got + 2 * MB));
	bs_unmap_drain();
	ok &= got != NULL && unmapped(p, (size_t) (got - p)) && kept_intact(got, 2 * MB, 0x5a, freed_before);
	bs_unmap_wait();
	ok &= got != NULL && unmapped(got + 2 * MB, (size_t) (p + 8 * MB - (got + 2 * MB)));
	ok &= bs_unmap_kept() == 0 && bs_threads_alive() == 0;
	if (got != NULL)
		munmap(got, 2 * MB);
	unit_report(ok, "2 MB-aligned 2 MB from a kept 8 MB mapping: aligned, the head unmapped, "
				"the tail kept until the wait");
}

/* Past BS_UNMAP_KEPT ranges nothing more is kept. */
static void
check_range_limit(void)
{
	char	   *p = map_written((BS_UNMAP_KEPT + 1) * 4096);
	int			ok = 1;

	if (p == NULL)
		return unit_report(0, "range limit: mmap failed");
	for (int i = 0; i < BS_UNMAP_KEPT; i++)
		ok &= bs_unmap_keep(p + (size_t) i * 4096, 4096, 0, 64 * MB, 60000);
	ok &= !bs_unmap_keep(p + (size_t) BS_UNMAP_KEPT * 4096, 4096, 0, 64 * MB, 60000);
	ok &= bs_unmap_kept() == (size_t) BS_UNMAP_KEPT * 4096;
	bs_unmap_wait();
	ok &= unmapped(p, (size_t) BS_UNMAP_KEPT * 4096) && bs_unmap_kept() == 0;
	munmap(p + (size_t) BS_UNMAP_KEPT * 4096, 4096);
	unit_report(ok, "%d ranges kept, one more refused; all unmapped by the wait (queue of %d + %d)",
				BS_UNMAP_KEPT, BS_UNMAP_QUEUE, BS_UNMAP_KEPT);
}

/* Of two kept ranges, the smaller that fits is taken; past the cap nothing is kept. */
static void
check_best_fit_and_cap(void)
{
	char	   *big = map_written(8 * MB);
	char	   *small = map_written(4 * MB);
	char	   *over = map_written(8 * MB);
	char	   *got;
	long		freed_before = lazily_freed_pages();
	int			ok;

	if (big == NULL || small == NULL || over == NULL)
		return unit_report(0, "best fit: mmap failed");
	ok = bs_unmap_keep(big, 8 * MB, 0, 12 * MB, 60000) && bs_unmap_keep(small, 4 * MB, 0, 12 * MB, 60000);
	ok &= !bs_unmap_keep(over, 8 * MB, 0, 12 * MB, 60000) && bs_unmap_kept() == 12 * MB;
	got = bs_unmap_take(4 * MB, 4096, 0);
	ok &= got == small && bs_unmap_kept() == 8 * MB;
	bs_unmap_wait();
	ok &= unmapped(big, 8 * MB) && kept_intact(small, 4 * MB, 0x5a, freed_before);
	munmap(small, 4 * MB);
	munmap(over, 8 * MB);
	unit_report(ok, "8 and 4 MB kept under a 12 MB cap, a third refused; 4 MB asked for: the 4 MB range");
}

/* What is kept goes at its idle deadline, or at once when released; a drain does not wait for it. */
static void
check_idle_and_release(void)
{
	char	   *p = map_written(4 * MB);
	char	   *q = map_written(4 * MB);
	char	   *r = map_written(4 * MB);
	long		freed_before = lazily_freed_pages();
	int			ok;
	int			waited = 0;

	if (p == NULL || q == NULL || r == NULL)
		return unit_report(0, "idle: mmap failed");
	ok = bs_unmap_keep(p, 4 * MB, 0, 64 * MB, 50);
	while (bs_unmap_kept() > 0 && waited < 5000)
	{
		usleep(10000);
		waited += 10;
	}
	bs_unmap_drain();
	ok &= bs_unmap_kept() == 0 && unmapped(p, 4 * MB);
	unit_report(ok, "4 MB kept for 50 ms idle: unmapped after %d ms", waited);

	ok = bs_unmap_keep(q, 4 * MB, 0, 64 * MB, 3600000);
	bs_unmap_later(r, 4 * MB);
	bs_unmap_drain();
	ok &= unmapped(r, 4 * MB) && kept_intact(q, 4 * MB, 0x5a, freed_before) && bs_unmap_kept() == 4 * MB;
	bs_unmap_release_kept();
	bs_unmap_wait();
	ok &= unmapped(q, 4 * MB) && bs_unmap_kept() == 0 && bs_threads_alive() == 0;
	unit_report(ok, "a drain unmaps what is queued and leaves what is kept (an hour's idle time); "
				"a release unmaps it");
}

/* With the budget full, nothing is kept (the caller unmaps). */
static void
check_keep_no_thread(void)
{
	char	   *p = map_written(4 * MB);
	int			kept;

	if (p == NULL)
		return unit_report(0, "keep, no thread: mmap failed");
	share_budget(0);
	kept = bs_unmap_keep(p, 4 * MB, 0, 64 * MB, 60000);
	unshare_budget();
	munmap(p, 4 * MB);
	unit_report(!kept && bs_unmap_kept() == 0 && bs_threads_alive() == 0,
				"no thread may start (budget of 0): nothing is kept");
}

/*
 * kB the kernel may reclaim (smaps' LazyFree) in the mappings that overlap
 * [p, p + len), or -1 where smaps cannot be read.
 */
static long
lazy_free_kb(const char *p, size_t len)
{
	FILE	   *smaps = fopen("/proc/self/smaps", "r");
	char		line[512];
	long		total = 0;
	int			inside = 0;

	if (smaps == NULL)
		return -1;
	while (fgets(line, sizeof(line), smaps) != NULL)
	{
		unsigned long start,
					end;
		long		kb;

		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			inside = start < (uintptr_t) (p + len) && end > (uintptr_t) p;
		else if (inside && sscanf(line, "LazyFree: %ld kB", &kb) == 1)
			total += kb;
	}
	fclose(smaps);
	return total;
}

/*
 * A kept range is memory the kernel may reclaim (LazyFree covers it) with
 * its contents while the kernel leaves it; taken back and written, it is
 * ordinary memory again.
 */
static void
check_kept_is_reclaimable(void)
{
	char	   *p = map_written(4 * MB);
	char	   *got;
	long		freed_before = lazily_freed_pages();
	long		kept_kb;
	long		reclaimed_kb;
	long		written_kb;
	int			ok;

	if (p == NULL)
		return unit_report(0, "reclaimable: mmap failed");
	bs_unmap_wait();			/* nothing else kept: the LazyFree seen is this range's */
	ok = bs_unmap_keep(p, 4 * MB, 0, 64 * MB, 60000);
	kept_kb = lazy_free_kb(p, 4 * MB);
	got = bs_unmap_take(4 * MB, 4096, 0);
	ok &= got == p && kept_intact(p, 4 * MB, 0x5a, freed_before);
	reclaimed_kb = (lazily_freed_pages() - freed_before) * (getpagesize() / 1024);
	memset(p, 0x33, 4 * MB);
	written_kb = lazy_free_kb(p, 4 * MB);
	bs_unmap_wait();
	munmap(p, 4 * MB);
#ifdef MADV_FREE
	/*
	 * the kernel moves pages to its lazy-free list in per-CPU batches (a few
	 * may lag), and under memory pressure it may have reclaimed some already
	 */
	ok &= kept_kb + reclaimed_kb >= 3 * 1024 && written_kb == 0;
#else
	ok &= kept_kb <= 0;
#endif
	unit_report(ok, "4 MB kept: %ld kB lazily free (the kernel may reclaim them; %ld kB reclaimed "
				"meanwhile, system-wide); taken back with their contents and written: %ld kB",
				kept_kb, reclaimed_kb, written_kb);
}

/* A thread that ends at once. */
static void *
return_at_once(void *arg)
{
	return arg;
}

/*
 * The thread sleeping over kept memory gives its place in the budget back:
 * with a shared limit of one thread, another thread starts while the range
 * is kept.
 */
static void
check_sleeper_uncounted(void)
{
	char	   *p = map_written(4 * MB);
	pthread_t	other;
	int			waited = 0;
	int			ok;
	int			started;

	if (p == NULL)
		return unit_report(0, "sleeper: mmap failed");
	share_budget(1);
	ok = bs_unmap_keep(p, 4 * MB, 0, 64 * MB, 3600000);
	/* the shared count is the last the moving thread gives back */
	while (bs_threads_shared_alive() > 0 && waited < 5000)
	{
		usleep(1000);
		waited++;
	}
	started = bs_thread_start(&other, return_at_once, NULL);
	if (started)
		bs_thread_join(other);
	ok &= started && bs_unmap_running() && bs_unmap_kept() == 4 * MB;
	unshare_budget();
	bs_unmap_wait();
	ok &= unmapped(p, 4 * MB) && !bs_unmap_running();
	unit_report(ok, "4 MB kept for an hour: the sleeping thread counts for no place in a budget of "
				"one (another thread started; %d ms), the range is still kept", waited);
}

/*
 * The sleeping threads have a bound of their own: with a shared limit of
 * one and another process's unmapper asleep over its kept memory, this
 * process's unmapper may not sleep, so what it was to keep is unmapped at
 * once and the thread ends.
 */
static void
check_sleepers_bounded(void)
{
	bs_thread_pool *pool = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char	   *p = map_written(4 * MB);
	int			ready[2];
	int			done[2];
	char		c = 0;
	pid_t		child;
	int			waited = 0;
	int			ok;

	if (pool == MAP_FAILED || p == NULL || pipe(ready) != 0 || pipe(done) != 0)
		return unit_report(0, "sleepers bounded: set-up failed");
	bs_thread_pool_init(pool);
	child = fork();
	if (child == 0)
	{
		/* the other process: keeps 4 MB of its own and sleeps over them until told */
		char	   *q = map_written(4 * MB);

		bs_threads_share(pool);
		bs_threads_set_limit(1);
		if (q != NULL && bs_unmap_keep(q, 4 * MB, 0, 64 * MB, 3600000))
			while (bs_threads_shared_sleeping() == 0 || bs_threads_shared_alive() > 0)
				usleep(1000);
		(void) write(ready[1], &c, 1);
		(void) read(done[0], &c, 1);
		bs_unmap_wait();
		bs_threads_release_all();
		_exit(0);
	}
	ok = child > 0 && read(ready[0], &c, 1) == 1;
	bs_threads_share(pool);
	bs_threads_set_limit(1);
	ok &= bs_threads_shared_sleeping() == 1;
	ok &= bs_unmap_keep(p, 4 * MB, 0, 64 * MB, 3600000);
	while (bs_unmap_running() && waited < 5000)
	{
		usleep(1000);
		waited++;
	}
	ok &= !bs_unmap_running() && bs_unmap_kept() == 0 && unmapped(p, 4 * MB);
	ok &= bs_threads_shared_sleeping() == 1 && bs_threads_shared_alive() == 0;
	(void) write(done[1], &c, 1);
	if (child > 0)
		waitpid(child, NULL, 0);
	ok &= bs_threads_shared_sleeping() == 0;
	unshare_budget();
	munmap(pool, 4096);
	unit_report(ok, "another process's unmapper asleep over kept memory, a limit of one: this one "
				"may not sleep, unmaps what it was to keep and ends (%d ms)", waited);
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
	check_keep_take();
	check_take_aligned();
	check_kinds();
	check_range_limit();
	check_best_fit_and_cap();
	check_idle_and_release();
	check_keep_no_thread();
	check_kept_is_reclaimable();
	check_sleeper_uncounted();
	check_sleepers_bounded();
	return unit_exit_status();
}
