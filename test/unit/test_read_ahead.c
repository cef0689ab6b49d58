/*
 * test_read_ahead.c — the thread that reads files ahead of their reader:
 * reads queued in turn into buffers of their own each bring their bytes
 * (fewer at the file's end), seen by the owner after the wait; a read of a
 * bad descriptor reports its errno; a wait on a read queued while the
 * thread sleeps (fewer than a batch queued) still returns, the read done;
 * more reads queued than the ring holds wait for room; a cancel drops
 * what is queued and, once it returns, nothing more is written; a stop
 * joins the thread; without a thread, a read is done as it is queued.
 * A touch of mapped memory (BS_READ_TOUCH) counts its bytes and maps its
 * pages for the owner, who then reads them without a page fault; a read
 * that may be left undone (bs_read_ahead_try_submit) is not queued
 * without a thread.
 */
#define _GNU_SOURCE
#include "mono_clock.h"
#include "read_ahead.h"
#include "unit.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* The test file's bytes, and the pieces the reads take. */
#define FILE_BYTES (1024 * 1024 + 123)
#define PIECE 3000
#define PIECES ((FILE_BYTES + PIECE - 1) / PIECE)

/* Reads kept queued at once in check_reads (as a merge's chunks are). */
#define IN_FLIGHT 40

/* Reads check_ring_full queues at once: past the ring's room. */
#define RING_FILL (2 * BS_READ_AHEAD_RING + 100)

/* Reads queued before check_cancel cancels them: the thread is woken, and some are done. */
#define CANCEL_READS (2 * BS_READ_AHEAD_BATCH)

static unsigned char expected[FILE_BYTES];

/* Sleep for us microseconds. */
static void
sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

/* Make an unlinked temporary file of the expected bytes; its descriptor, or -1. */
static int
make_file(void)
{
	char		path[] = "/tmp/test_read_ahead_XXXXXX";
	int			fd = mkstemp(path);
	uint32_t	x = 12345;

	if (fd < 0)
		return -1;
	unlink(path);
	for (size_t i = 0; i < FILE_BYTES; i++)
	{
		x = x * 1103515245u + 12345u;
		expected[i] = (unsigned char) (x >> 16);
	}
	if (write(fd, expected, FILE_BYTES) != FILE_BYTES)
	{
		close(fd);
		return -1;
	}
	return fd;
}

/* Set up read r of piece p of fd into dst. */
static void
set_read(bs_read *r, int fd, char *dst, size_t p)
{
	r->fd = fd;
	r->dst = dst;
	r->len = PIECE;
	r->offset = (off_t) (p * PIECE);
	atomic_init(&r->state, BS_READ_IDLE);
}

/* Whether read r of piece p brought that piece's bytes (fewer at the end). */
static int
piece_right(const bs_read *r, size_t p)
{
	size_t		want = p * PIECE + PIECE <= FILE_BYTES ? PIECE : FILE_BYTES - p * PIECE;

	return r->got == (ssize_t) want && memcmp(r->dst, expected + p * PIECE, want) == 0;
}

/*
 * The file read piece by piece through a ring of IN_FLIGHT reads, each
 * queued again as soon as it is waited for: every piece right, in order.
 */
static void
check_reads(int fd, int thread)
{
	static bs_read_ahead ra;
	static bs_read reads[IN_FLIGHT];
	static char bufs[IN_FLIGHT][PIECE];
	size_t		queued = 0;
	int			ok = 1;
	double		t0 = mono_seconds();

	if (thread && !bs_read_ahead_start(&ra))
	{
		unit_report(0, "reads through the thread: it starts");
		return;
	}
	if (!thread)
		memset(&ra, 0, sizeof(ra));
	for (; queued < IN_FLIGHT; queued++)
	{
		set_read(&reads[queued], fd, bufs[queued], queued);
		bs_read_ahead_submit(&ra, &reads[queued]);
	}
	for (size_t p = 0; p < PIECES; p++)
	{
		bs_read    *r = &reads[p % IN_FLIGHT];

		bs_read_ahead_wait(&ra, r);
		ok &= piece_right(r, p);
		if (queued < PIECES)
		{
			set_read(r, fd, bufs[p % IN_FLIGHT], queued++);
			bs_read_ahead_submit(&ra, r);
		}
	}
	bs_read_ahead_stop(&ra);
	unit_note("%d pieces of %d bytes in %.2f ms", PIECES, PIECE, (mono_seconds() - t0) * 1e3);
	unit_report(ok && !ra.running, "%s: %d reads of %d bytes, %d in flight, each brings its piece (the last short)",
				thread ? "through the thread" : "without a thread", PIECES, PIECE, IN_FLIGHT);
}

/*
 * More reads queued than the ring holds, none waited for meanwhile (the
 * whole file, and some pieces again): the owner waits for room, each read
 * brings its piece.
 */
static void
check_ring_full(int fd)
{
	static bs_read_ahead ra;
	static bs_read reads[RING_FILL];
	static char bufs[RING_FILL][PIECE];
	int			ok = 1;

	bs_read_ahead_start(&ra);
	for (size_t i = 0; i < RING_FILL; i++)
	{
		set_read(&reads[i], fd, bufs[i], i % PIECES);
		bs_read_ahead_submit(&ra, &reads[i]);
	}
	for (size_t i = 0; i < RING_FILL; i++)
	{
		bs_read_ahead_wait(&ra, &reads[i]);
		ok &= piece_right(&reads[i], i % PIECES);
	}
	bs_read_ahead_stop(&ra);
	unit_report(ok, "%d reads queued at once into a ring of %d: the owner waits for room, each "
				"brings its piece", RING_FILL, BS_READ_AHEAD_RING);
}

/* A read of a descriptor that is not open reports EBADF. */
static void
check_bad_descriptor(void)
{
	static bs_read_ahead ra;
	static bs_read r;
	static char buf[PIECE];

	bs_read_ahead_start(&ra);
	set_read(&r, -1, buf, 0);
	bs_read_ahead_submit(&ra, &r);
	bs_read_ahead_wait(&ra, &r);
	bs_read_ahead_stop(&ra);
	unit_report(r.got == -1 && r.err == EBADF, "a read of a bad descriptor: got -1, errno EBADF");
}

/*
 * One read queued to a thread asleep (below the batch that wakes it) and
 * waited for at once: the wait returns with the read done (by the owner,
 * where the thread has not begun it).
 */
static void
check_wait_wakes(int fd)
{
	static bs_read_ahead ra;
	static bs_read r;
	static char buf[PIECE];
	int			ok = 1;

	bs_read_ahead_start(&ra);
	for (size_t p = 0; p < 5; p++)
	{
		sleep_us(5000);			/* the thread has gone to sleep */
		set_read(&r, fd, buf, p);
		bs_read_ahead_submit(&ra, &r);
		bs_read_ahead_wait(&ra, &r);
		ok &= piece_right(&r, p);
	}
	bs_read_ahead_stop(&ra);
	unit_report(ok, "a wait on a read queued to the sleeping thread returns with the read done");
}

/*
 * Reads queued, then cancelled: once the cancel returns, no read writes
 * (the buffers, filled after it, stay as filled), the dropped reads are
 * done with ECANCELED, and the thread takes new reads after it.
 */
static void
check_cancel(int fd)
{
	static bs_read_ahead ra;
	static bs_read reads[CANCEL_READS];
	static char bufs[CANCEL_READS][PIECE];
	int			untouched = 1;
	int			idle = 0;
	int			after;

	bs_read_ahead_start(&ra);
	for (size_t i = 0; i < CANCEL_READS; i++)
	{
		set_read(&reads[i], fd, bufs[i], i);
		bs_read_ahead_submit(&ra, &reads[i]);
		/* the thread is at work on the queue when the cancel comes */
		if (i == BS_READ_AHEAD_BATCH)
			bs_read_ahead_wait(&ra, &reads[0]);
	}
	bs_read_ahead_cancel(&ra);
	memset(bufs, 0x5a, sizeof(bufs));
	sleep_us(20000);
	for (size_t i = 0; i < CANCEL_READS; i++)
	{
		idle += reads[i].got == -1 && reads[i].err == ECANCELED;
		for (size_t j = 0; j < PIECE; j++)
			untouched &= bufs[i][j] == 0x5a;
	}
	set_read(&reads[0], fd, bufs[0], 7);
	bs_read_ahead_submit(&ra, &reads[0]);
	bs_read_ahead_wait(&ra, &reads[0]);
	after = piece_right(&reads[0], 7);
	bs_read_ahead_stop(&ra);
	unit_note("%d of %d reads dropped unread", idle, CANCEL_READS);
	unit_report(untouched && idle > 0 && after,
				"a cancel: nothing written after it returns, the dropped reads done with ECANCELED, "
				"and reads go on after it");
}

/* A stop with reads queued drops them and joins the thread at once. */
static void
check_stop(int fd)
{
	static bs_read_ahead ra;
	static bs_read reads[IN_FLIGHT];
	static char bufs[IN_FLIGHT][PIECE];
	double		t0;

	bs_read_ahead_start(&ra);
	for (size_t i = 0; i < IN_FLIGHT; i++)
	{
		set_read(&reads[i], fd, bufs[i], i);
		bs_read_ahead_submit(&ra, &reads[i]);
	}
	t0 = mono_seconds();
	bs_read_ahead_stop(&ra);
	unit_report(!ra.running && mono_seconds() - t0 < 0.05, "a stop with reads queued joins the thread");
}

/* Minor page faults the calling thread has taken so far. */
static long
thread_minor_faults(void)
{
	struct rusage usage;

	return getrusage(RUSAGE_THREAD, &usage) == 0 ? usage.ru_minflt : -1;
}

/* Sum of one byte a page of len mapped bytes at p, read here. */
static unsigned
read_pages(const volatile unsigned char *p, size_t len)
{
	unsigned	sum = 0;

	for (size_t i = 0; i < len; i += 4096)
		sum += p[i];
	return sum;
}

/*
 * The file mapped twice: the pages of one mapping touched by the thread a
 * piece at a time, then read here without a page fault, where reading the
 * other's costs faults; each touch counts its bytes; without a thread, a
 * touch that may be left undone is not queued.
 */
static void
check_touch(int fd)
{
	static bs_read_ahead ra;
	static bs_read reads[PIECES];
	const unsigned char *touched = mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	const unsigned char *untouched = mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	int			counted = 1;
	long		faults;
	long		touched_faults;
	unsigned	sums[2];

	if (touched == MAP_FAILED || untouched == MAP_FAILED)
	{
		unit_report(0, "the test file is mapped");
		return;
	}
	bs_read_ahead_start(&ra);
	for (size_t p = 0; p < PIECES; p++)
	{
		size_t		len = p * PIECE + PIECE <= FILE_BYTES ? PIECE : FILE_BYTES - p * PIECE;

		reads[p].fd = BS_READ_TOUCH;
		reads[p].dst = (char *) touched + p * PIECE;
		reads[p].len = len;
		reads[p].offset = 0;
		atomic_init(&reads[p].state, BS_READ_IDLE);
		bs_read_ahead_submit(&ra, &reads[p]);
	}
	for (size_t p = 0; p < PIECES; p++)
	{
		bs_read_ahead_wait(&ra, &reads[p]);
		counted &= reads[p].got == (ssize_t) reads[p].len;
	}
	unit_report(counted, "each touch counts its bytes");
	faults = thread_minor_faults();
	sums[0] = read_pages(touched, FILE_BYTES);
	touched_faults = thread_minor_faults() - faults;
	faults = thread_minor_faults();
	sums[1] = read_pages(untouched, FILE_BYTES);
	faults = thread_minor_faults() - faults;
	unit_report(sums[0] == sums[1] && touched_faults == 0 && faults > 0,
				"pages the thread touched are read without a fault (%ld, against %ld untouched)",
				touched_faults, faults);
	bs_read_ahead_stop(&ra);
	atomic_init(&reads[0].state, BS_READ_IDLE);
	unit_report(!bs_read_ahead_try_submit(&ra, &reads[0]) &&
				atomic_load(&reads[0].state) == BS_READ_IDLE,
				"without a thread, a touch that may be left undone is not queued");
	munmap((void *) touched, FILE_BYTES);
	munmap((void *) untouched, FILE_BYTES);
}

int
main(void)
{
	int			fd = make_file();

	if (fd < 0)
	{
		unit_report(0, "the test file is made");
		return unit_exit_status();
	}
	check_reads(fd, 1);
	check_reads(fd, 0);
	check_ring_full(fd);
	check_bad_descriptor();
	check_wait_wakes(fd);
	check_cancel(fd);
	check_stop(fd);
	check_touch(fd);
	close(fd);
	return unit_exit_status();
}
