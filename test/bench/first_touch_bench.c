/*
 * first_touch_bench.c — what it costs this machine to write memory the
 * process has never touched (not a test; `make bench-first-touch`).
 *
 * Every ORDER BY and gpu_sort writes its rows, pairs and result into fresh
 * pages, as the native Sort does.  On a VM whose balloon device reports free
 * pages to the host (virtio-balloon free page reporting), free 2 MB blocks
 * go back to the host a few seconds after they are freed, and writing them
 * again costs a host fault per 4 kB on top of the guest's own.  Smaller free
 * pieces are not reported and stay backed.
 *
 * So the page size decides what fresh memory costs.  This maps `mib` MiB of
 * each kind of page, writes every byte once and unmaps it, `reps` times in
 * each of three situations:
 *   - back to back: the memory the last round freed is taken again;
 *   - after a pause of `pause` seconds: what was freed has been reported;
 *   - after a pause and a 4 kB workload: the pause, then 1.25 x `mib` MiB
 *     of 4 kB pages written and freed just before (what a sort finds after
 *     a native Sort ran for seconds).  This is where the kinds differ: the
 *     4 kB pages take what the workload freed, still backed, while a
 *     transparent huge page needs a whole free 2 MB block, and those are
 *     the reported ones.
 * The kinds are 4 kB pages, transparent huge pages (MADV_HUGEPAGE) and 2 MB
 * pages of the huge page pool (what bitonic_sort.huge_pages maps) when the
 * pool has room for them.  Pool pages go back to the pool, not to the
 * kernel's free lists, so the host keeps them backed.
 *
 * Last, what a prefault thread buys the writer of 4 kB pages: the mapping
 * is populated (MADV_POPULATE_WRITE, the kernel's zeroing) and then written
 * once, with and without another thread first reading one byte of each
 * page.  Under shadow paging (a host that keeps its own copy of the page
 * tables) the first user-mode access to each page faults once more after
 * the populate; the reading thread takes those faults off the writer.
 *
 *   first_touch_bench [mib] [reps] [pause]   (default 1024 3 5)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../unit/mono_clock.h"
#include <unistd.h>

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

/* The kinds of page compared. */
typedef enum PageKind
{
	PAGES_4K,
	PAGES_TRANSPARENT_HUGE,
	PAGES_POOL
} PageKind;

static const char *const kind_names[] = {
	"4 kB pages", "transparent huge pages", "huge page pool"
};

/* What happens before each round. */
typedef enum Situation
{
	BACK_TO_BACK,
	AFTER_PAUSE,
	AFTER_PAUSE_AND_4K_WORKLOAD
} Situation;

static const char *const situation_names[] = {
	"back to back", "after a pause", "after a pause and a 4 kB workload"
};

/*
 * Map `bytes` of the given kind, write them once and unmap them; the
 * milliseconds the writes took, or -1 when the mapping failed.
 */
static double
touch_fresh(size_t bytes, PageKind kind)
{
	int			flags = MAP_PRIVATE | MAP_ANONYMOUS |
		(kind == PAGES_POOL ? MAP_HUGETLB | (21 << MAP_HUGE_SHIFT) : 0);
	char	   *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
	double		t0;
	double		ms;

	if (p == MAP_FAILED)
		return -1;
	if (kind == PAGES_TRANSPARENT_HUGE)
		madvise(p, bytes, MADV_HUGEPAGE);
	else if (kind == PAGES_4K)
		madvise(p, bytes, MADV_NOHUGEPAGE);
	t0 = 1e3 * mono_seconds();
	memset(p, 1, bytes);
	ms = 1e3 * mono_seconds() - t0;
	munmap(p, bytes);
	return ms;
}

/* A range whose pages a thread reads once each. */
typedef struct PageRange
{
	const char *start;
	size_t		bytes;
	double		ms;				/* the reads' time */
} PageRange;

/* Thread body: read one byte of each 4 kB page of the range. */
static void *
read_pages(void *arg)
{
	PageRange  *range = (PageRange *) arg;
	const volatile char *p = (const volatile char *) range->start;
	double		t0 = 1e3 * mono_seconds();

	for (size_t off = 0; off < range->bytes; off += 4096)
		(void) p[off];
	range->ms = 1e3 * mono_seconds() - t0;
	return NULL;
}

/*
 * Map `bytes` of 4 kB pages, populate them and, when `read_first`, have a
 * thread read each page; then write them once.  The writes' milliseconds
 * (*read_ms: the thread's), or -1 when the mapping failed.
 */
static double
write_populated(size_t bytes, int read_first, double *read_ms)
{
	char	   *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	PageRange	range = {p, bytes, 0};
	pthread_t	reader;
	double		t0;
	double		ms;

	if (p == MAP_FAILED)
		return -1;
	madvise(p, bytes, MADV_NOHUGEPAGE);
#ifdef MADV_POPULATE_WRITE
	madvise(p, bytes, MADV_POPULATE_WRITE);
#endif
	if (read_first && pthread_create(&reader, NULL, read_pages, &range) == 0)
		pthread_join(reader, NULL);
	t0 = 1e3 * mono_seconds();
	memset(p, 1, bytes);
	ms = 1e3 * mono_seconds() - t0;
	munmap(p, bytes);
	*read_ms = range.ms;
	return ms;
}

/*
 * Write fresh memory of each page kind in each situation; 1 when a mapping
 * failed (other than the pool's, which is skipped when it has no room).
 */
static int
bench_page_kinds(size_t mib, int reps, int pause)
{
	for (int kind = PAGES_4K; kind <= PAGES_POOL; kind++)
		for (int situation = BACK_TO_BACK; situation <= AFTER_PAUSE_AND_4K_WORKLOAD; situation++)
			for (int r = 0; r < reps; r++)
			{
				double		ms;

				if (situation != BACK_TO_BACK)
					sleep((unsigned) pause);
				if (situation == AFTER_PAUSE_AND_4K_WORKLOAD &&
					touch_fresh((mib << 20) + (mib << 18), PAGES_4K) < 0)
				{
					perror("mmap");
					return 1;
				}
				ms = touch_fresh(mib << 20, kind);
				if (ms < 0 && kind == PAGES_POOL)
				{
					printf("huge page pool: no room for %zu MiB of 2 MB pages (vm.nr_hugepages)\n", mib);
					return 0;
				}
				if (ms < 0)
				{
					perror("mmap");
					return 1;
				}
				printf("%s, %s, round %d: %zu MiB written in %.0f ms (%.2f GB/s)\n",
					   kind_names[kind], situation_names[situation], r + 1, mib, ms,
					   (double) (mib << 20) / ms / 1e6);
				fflush(stdout);
			}
	return 0;
}

/* Write populated 4 kB pages, with and without a reading thread first; 1 when a mapping failed. */
static int
bench_populated_writes(size_t mib, int reps)
{
	for (int r = 0; r < reps; r++)
		for (int read_first = 0; read_first <= 1; read_first++)
		{
			double		read_ms;
			double		ms = write_populated(mib << 20, read_first, &read_ms);

			if (ms < 0)
			{
				perror("mmap");
				return 1;
			}
			if (read_first)
				printf("4 kB pages, populated, each page read by another thread (%.0f ms), round %d: %zu MiB written in %.0f ms\n",
					   read_ms, r + 1, mib, ms);
			else
				printf("4 kB pages, populated, round %d: %zu MiB written in %.0f ms\n", r + 1, mib, ms);
			fflush(stdout);
		}
	return 0;
}

int
main(int argc, char **argv)
{
	size_t		mib = argc > 1 ? (size_t) atol(argv[1]) : 1024;
	int			reps = argc > 2 ? atoi(argv[2]) : 3;
	int			pause = argc > 3 ? atoi(argv[3]) : 5;

	return bench_page_kinds(mib, reps, pause) || bench_populated_writes(mib, reps);
}
