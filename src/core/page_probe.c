/*
 * page_probe.c — the cost of a fresh 4 kB page, measured on a mapping of
 * its own.
 *
 * The pages are refused transparent huge pages, so that each write below
 * is one fault.  After each round MADV_DONTNEED gives them back and the
 * next round faults them in again: those pages come from the kernel's
 * recently freed ones, which a balloon has not handed back to the host, so
 * the best round measures the fault itself, not the host's reclaim.
 */
#include "page_probe.h"
#include "monotonic.h"

#include <stddef.h>
#include <sys/mman.h>

#define PROBE_BYTES ((size_t) 2 << 20)
#define PROBE_PAGE_BYTES ((size_t) 4096)
#define PROBE_ROUNDS 3

/* Microseconds a round of first writes to each page of map took, per page. */
static double
write_each_page(volatile char *map)
{
	size_t		pages = PROBE_BYTES / PROBE_PAGE_BYTES;
	long long	start = bs_monotonic_ns();

	for (size_t i = 0; i < pages; i++)
		map[i * PROBE_PAGE_BYTES] = 1;
	return (double) (bs_monotonic_ns() - start) / 1e3 / (double) pages;
}

/* The best of PROBE_ROUNDS rounds of faulting a 2 MB mapping in 4 kB pages. */
double
bs_small_page_fault_us(void)
{
	void	   *map = mmap(NULL, PROBE_BYTES, PROT_READ | PROT_WRITE,
						   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double		best = -1;

	if (map == MAP_FAILED)
		return -1;
#ifdef MADV_NOHUGEPAGE
	(void) madvise(map, PROBE_BYTES, MADV_NOHUGEPAGE);	/* one fault per 4 kB */
#endif
	for (int round = 0; round < PROBE_ROUNDS; round++)
	{
		double		us = write_each_page((volatile char *) map);

		if (best < 0 || us < best)
			best = us;
		if (madvise(map, PROBE_BYTES, MADV_DONTNEED) != 0)
			break;
	}
	(void) munmap(map, PROBE_BYTES);
	return best;
}
