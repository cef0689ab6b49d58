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
 *   first_touch_bench [mib] [reps] [pause]   (default 1024 3 5)
 */
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

int
main(int argc, char **argv)
{
	size_t		mib = argc > 1 ? (size_t) atol(argv[1]) : 1024;
	int			reps = argc > 2 ? atoi(argv[2]) : 3;
	int			pause = argc > 3 ? atoi(argv[3]) : 5;

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
