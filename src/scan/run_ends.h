/*
 * scan/run_ends.h — a run written from both ends at once: the backend and
 * a helper thread each gather rows in sorted order and write them, one
 * from the run's first row on, the other from its last row back, until
 * they meet; or by a thread alone while the backend reads the next run's
 * rows (run_ends.c).
 */
#ifndef BITONIC_SCAN_RUN_ENDS_H
#define BITONIC_SCAN_RUN_ENDS_H

#include "bitonic_sort.h"
#include "scan/run_file.h"

/* The rows of a run, by their place in its sorted order (final, all of it). */
typedef struct BitonicRunRows
{
	size_t		nrows;
	size_t		row_bytes;		/* the rows' bytes, each MAXALIGNed */
	/* the row at a place; on any thread, so it calls nothing of PostgreSQL's */
	MinimalTuple (*row) (void *arg, size_t pos);
	void	   *arg;
} BitonicRunRows;

/* Where and how a run is written from both ends. */
typedef struct BitonicRunEndsTarget
{
	File		file;			/* fd.c's file, for messages */
	int			fd;				/* a descriptor of it that any thread may use */
	off_t		start;			/* the run's first byte in the file */
	off_t		bytes;			/* the run's records' bytes, reserved in the file */
	char	   *bufs[2];		/* the front's write buffer, and the back's */
	size_t		buf_size;
	TupleDesc	tupdescs[2];	/* the rows' descriptor, a copy for each end */
	const BitonicMultiSort *ms; /* the first sort column's key */
	AttrNumber	attno;			/* that column */
	int			threads;		/* at most this many threads (two are used) */
} BitonicRunEndsTarget;

/* Rows a run needs for both its ends to be written at once. */
#define BITONIC_RUN_ENDS_MIN_ROWS 4096

extern void BitonicRunEndsWrite(const BitonicRunEndsTarget *target, const BitonicRunRows *rows);

/* A run written by a thread of its own while the backend reads on (run_ends.c). */
typedef struct BitonicRunBehind BitonicRunBehind;

extern BitonicRunBehind *BitonicRunBehindCreate(MemoryContext cxt);
extern bool BitonicRunBehindReady(BitonicRunBehind *behind);
extern void BitonicRunBehindStart(BitonicRunBehind *behind, const BitonicRunEndsTarget *target,
								  const BitonicRunRows *rows);
extern bool BitonicRunBehindWriting(const BitonicRunBehind *behind);
extern void BitonicRunBehindFinish(BitonicRunBehind *behind);
extern void BitonicRunBehindStop(BitonicRunBehind *behind);

#endif							/* BITONIC_SCAN_RUN_ENDS_H */
