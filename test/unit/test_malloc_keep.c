/*
 * test_malloc_keep.c — bs_malloc_keep_freed: after it, a run's buffers
 * under 2 MB, freed and taken again run after run (as an external sort's
 * are), fault nothing in; with a request past glibc's limit too; and
 * bs_malloc_release_freed gives what was kept back.  Each case runs in a
 * child of its own, whose malloc starts as a backend's does.
 */
#include "malloc_keep.h"
#include "page_faults.h"
#include "unit.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A run's buffers: tuple blocks doubling from 64 kB, then its pairs. */
static const size_t run_buffers[] = {
	64 << 10, 128 << 10, 256 << 10, 512 << 10, 1024 << 10, 800 << 10
};

#define NBUFFERS (sizeof(run_buffers) / sizeof(run_buffers[0]))
#define ROUNDS 8

/*
 * Take, fill and free a run's buffers ROUNDS times (the newest freed
 * first, as a context's reset frees them); the page faults of the rounds
 * after the first, per page they write.
 */
static double
refaults_per_page(void)
{
	void	   *buf[NBUFFERS];
	size_t		page = (size_t) sysconf(_SC_PAGESIZE);
	size_t		pages = 0;
	long		faults = 0;

	for (int round = 0; round < ROUNDS; round++)
	{
		long		before = minor_faults();

		for (size_t i = 0; i < NBUFFERS; i++)
		{
			buf[i] = malloc(run_buffers[i]);
			if (buf[i] == NULL)
				return -1;
			memset(buf[i], round + 1, run_buffers[i]);
			if (round > 0)
				pages += run_buffers[i] / page;
		}
		for (size_t i = NBUFFERS; i-- > 0;)
			free(buf[i]);
		if (round > 0)
			faults += minor_faults() - before;
	}
	return (double) faults / (double) pages;
}

/*
 * bs_malloc_keep_freed(keep) where keep > 0, then the runs' faults per
 * hundred pages written after the first (-1: failed).
 */
static long
refaults_after_keep(long keep)
{
	double		per_page;

	if (keep > 0)
		bs_malloc_keep_freed((size_t) keep);
	per_page = refaults_per_page();
	return per_page < 0 ? -1 : (long) (per_page * 100);
}

/*
 * Keep 4 MB, take, fill and free the runs' buffers, then (where release)
 * bs_malloc_release_freed: the resident memory that went back, in 100 kB
 * (-1: failed).
 */
static long
released_after_runs(long release)
{
	long		before;
	long		after;

	bs_malloc_keep_freed((size_t) 4 << 20);
	if (refaults_per_page() < 0 || (before = resident_bytes()) < 0)
		return -1;
	if (release)
		bs_malloc_release_freed();
	if ((after = resident_bytes()) < 0)
		return -1;
	return before <= after ? 0 : (before - after) / 102400;
}

/*
 * fn(arg) in a child of its own, whose malloc starts afresh: its result,
 * 0 to 254 (larger ones are 254), or 255 where it failed.
 */
static int
in_child(long (*fn) (long), long arg)
{
	pid_t		pid = fork();
	int			status;

	if (pid == 0)
	{
		long		result = fn(arg);

		_exit(result < 0 ? 255 : result > 254 ? 254 : (int) result);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 255;
	return WEXITSTATUS(status);
}

int
main(void)
{
	int			none = in_child(refaults_after_keep, 0);
	int			kept = in_child(refaults_after_keep, 4L << 20);
	int			past_limit = in_child(refaults_after_keep, 1L << 30);
	int			released;

	/* glibc 2.36: most pages of every round fault in again (81) */
	unit_note("without it: %d page faults per 100 pages written after the first run", none);
	unit_report(kept < 2,
				"keep 4 MB: %d page faults per 100 pages written after the first run (under 2)", kept);
	unit_report(past_limit < 2,
				"keep 1 GB (past glibc's 32 MB): %d page faults per 100 pages written after the first run (under 2)",
				past_limit);
	/* the buffers take 2.8 MB: most of it goes back, none without the release */
	unit_note("kept and not released: %d kB of resident memory went back", in_child(released_after_runs, 0) * 100);
	released = in_child(released_after_runs, 1);
	unit_report(released >= 20 && released < 255,
				"released: %d kB of the 2.8 MB kept went back to the kernel (2 MB at least)", released * 100);
	return unit_exit_status();
}
