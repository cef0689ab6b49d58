/*
 * first_touch_bench.c — what it costs this machine to write memory the
 * process has never touched (not a test; `make bench-first-touch`).
 *
 * Every ORDER BY and gpu_sort writes its rows, pairs and result into fresh
 * pages, as the native Sort does.  On a VM whose balloon device reports free
 * pages to the host (virtio-balloon free page reporting), pages freed a few
 * seconds earlier go back to the host, and writing them again costs a host
 * fault per page on top of the guest's own.  This maps `mib` MiB, advises
 * huge pages, writes every byte once and unmaps it, `reps` times, first back
 * to back and then with `pause` seconds between rounds, and prints the rate;
 * then the same with 2 MB pages of the huge page pool (what
 * bitonic_sort.huge_pages maps) when the pool has room for them.  Pool pages
 * go back to the pool, not to the kernel's free lists, so the host keeps
 * them backed.
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

/*
 * Map (from the huge page pool when `pool`), write once and unmap `bytes`;
 * the milliseconds the writes took, or -1 when the mapping failed.
 */
static double
touch_fresh(size_t bytes, int pool)
{
	int			flags = MAP_PRIVATE | MAP_ANONYMOUS |
		(pool ? MAP_HUGETLB | (21 << MAP_HUGE_SHIFT) : 0);
	char	   *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
	double		t0;
	double		ms;

	if (p == MAP_FAILED)
		return -1;
	if (!pool)
		madvise(p, bytes, MADV_HUGEPAGE);
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

	for (int pool = 0; pool <= 1; pool++)
		for (int paused = 0; paused <= 1; paused++)
			for (int r = 0; r < reps; r++)
			{
				double		ms = touch_fresh(mib << 20, pool);

				if (ms < 0 && pool)
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
					   pool ? "huge page pool" : "ordinary memory",
					   paused ? "after a pause" : "back to back", r + 1, mib, ms,
					   (double) (mib << 20) / ms / 1e6);
				fflush(stdout);
				if (paused)
					sleep((unsigned) pause);
			}
	return 0;
}
