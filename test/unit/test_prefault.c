/*
 * test_prefault.c — the background prefaulter of the ORDER BY tuple store:
 * queued ranges become resident without being written (the caller's data
 * stays as it is), a full queue drops ranges instead of blocking, a range
 * forgotten may be unmapped at once (the thread reads the pages it
 * populates: a read of an unmapped page would kill the process), and stop
 * returns promptly with work still queued.
 */
#include "prefault.h"
#include "mono_clock.h"
#include "unit.h"

#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MB ((size_t) 1 << 20)

/* How many of the pages of [p, p + len) are resident. */
static size_t
resident_pages(char *p, size_t len)
{
	size_t		pages = len / 4096;
	unsigned char *vec = malloc(pages);
	size_t		resident = 0;

	if (vec == NULL || mincore(p, len, vec) != 0)
	{
		free(vec);
		return 0;
	}
	for (size_t i = 0; i < pages; i++)
		resident += vec[i] & 1;
	free(vec);
	return resident;
}

int
main(void)
{
	size_t		len = 64 * MB;
	char	   *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bs_prefaulter pf;
	double		t0;
	int			intact = 1;

	if (mem == MAP_FAILED)
	{
		unit_report(0, "mmap of the test range");
		return unit_exit_status();
	}
	unit_report(resident_pages(mem, len) == 0, "a fresh 64 MB range is not resident");
	unit_report(bs_prefaulter_start(&pf), "the prefaulter starts");

	/* the caller writes into the first page while the range is populated */
	memset(mem, 0x5a, 4096);
	bs_prefaulter_add(&pf, mem, len);
	t0 = mono_seconds();
	while (resident_pages(mem, len) < len / 4096 && mono_seconds() - t0 < 20)
		usleep(1000);
	unit_report(resident_pages(mem, len) == len / 4096, "the whole range becomes resident (%.3f s)", mono_seconds() - t0);
	for (size_t i = 0; i < 4096; i++)
		intact &= mem[i] == 0x5a;
	for (size_t i = 4096; i < len; i += 4096)
		intact &= mem[i] == 0;
	unit_report(intact, "populating writes nothing: the caller's bytes and zeroes are as they were");

	/* a forgotten range is unmapped at once, mid-populate or still queued */
	for (int i = 0; i < 200; i++)
	{
		size_t		flen = 8 * MB;
		char	   *a = mmap(NULL, flen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char	   *b = mmap(NULL, flen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (a == MAP_FAILED || b == MAP_FAILED)
			break;
		bs_prefaulter_add(&pf, a, flen);
		bs_prefaulter_add(&pf, b, flen);
		if (i % 2 == 1)
			usleep(50);			/* a step under way */
		/* a page in the middle, then the rest: each unmapped once forgotten */
		bs_prefaulter_forget(&pf, a + flen / 2, 4096);
		munmap(a + flen / 2, 4096);
		bs_prefaulter_forget(&pf, b, flen);
		munmap(b, flen);
		bs_prefaulter_forget(&pf, a, flen);
		munmap(a, flen);
	}
	unit_report(1, "200 ranges unmapped right after they were forgotten, queued or under way: no fault");
	/* forgetting one range leaves the others queued */
	madvise(mem, len, MADV_DONTNEED);
	{
		char	   *other = mmap(NULL, 4 * MB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		bs_prefaulter_add(&pf, other, 4 * MB);
		bs_prefaulter_add(&pf, mem, len);
		bs_prefaulter_forget(&pf, other, 4 * MB);
		munmap(other, 4 * MB);
	}
	t0 = mono_seconds();
	while (resident_pages(mem, len) < len / 4096 && mono_seconds() - t0 < 20)
		usleep(1000);
	unit_report(resident_pages(mem, len) == len / 4096, "a range queued beside a forgotten one is still faulted in");

	/* more ranges than the queue holds: adding never blocks, stop is prompt */
	madvise(mem, len, MADV_DONTNEED);
	t0 = mono_seconds();
	for (int i = 0; i < 4 * BS_PREFAULT_QUEUE; i++)
		bs_prefaulter_add(&pf, mem, len);
	unit_report(mono_seconds() - t0 < 1.0, "adding %d ranges to a queue of %d does not block", 4 * BS_PREFAULT_QUEUE, BS_PREFAULT_QUEUE);
	t0 = mono_seconds();
	bs_prefaulter_stop(&pf);
	unit_report(mono_seconds() - t0 < 1.0 && !pf.running, "stop with work queued returns within a step (%.3f s)", mono_seconds() - t0);
	bs_prefaulter_stop(&pf);
	unit_report(!pf.running, "a second stop leaves it stopped");
	madvise(mem, len, MADV_DONTNEED);
	bs_prefaulter_add(&pf, mem, len);
	usleep(20000);
	unit_report(resident_pages(mem, len) == 0, "adding to a stopped prefaulter faults nothing in");
	munmap(mem, len);
	return unit_exit_status();
}
