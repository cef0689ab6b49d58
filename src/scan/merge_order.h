/*
 * scan/merge_order.h — a thread that decides the order of the external
 * sort's final merge ahead of the backend: it plays a loser tree of its own
 * over the runs, read where they lie mapped, and hands the winners'
 * records (and the end of each run) to the backend through a ring, so that
 * the backend only hands each row out (merge_order.c).  Only where the
 * first sort column's keys decide alone, or its ties are decided by
 * arithmetic on the records (merge_tie.h), and every run is mapped: the
 * thread calls nothing of PostgreSQL's.
 */
#ifndef BITONIC_SCAN_MERGE_ORDER_H
#define BITONIC_SCAN_MERGE_ORDER_H

#include "postgres.h"

#include <pthread.h>
#include <stdatomic.h>

#include "scan/merge_tie.h"
#include "scan/merge_tree.h"
#include "scan/run_file.h"

/* Winners the ring holds (a power of two). */
#define BITONIC_MERGE_ORDER_RING 4096

/* What BitonicMergeOrderNext gives besides a reader's index. */
#define BITONIC_MERGE_ORDER_END (-1)	/* every run is read */
#define BITONIC_MERGE_ORDER_WAITED (-2)	/* none yet: check for interrupts, then ask again */

/* The record of a run's end where the run ends inside a record (records are 8-byte aligned). */
#define BITONIC_MERGE_ORDER_CUT ((const char *) 1)

/* A run as the thread reads it: its current row, and its bytes after it. */
typedef struct BitonicMergeCursor
{
	const char *record;			/* the current row's record (a key's) */
	const char *next;			/* the record after the current one */
	const char *end;			/* the byte after the run's last */
	uint64		key;
	bool		isnull;
	bool		ended;
	bool		cut;			/* it ended inside a record */
	bool		second_known;	/* second_key is the current row's */
	BitonicTieKey second_key;	/* its second sort column, where a tie asked for it */
} BitonicMergeCursor;

typedef struct BitonicMergeOrder
{
	pthread_t	thread;
	pthread_mutex_t lock;		/* taken only to sleep and to wake */
	pthread_cond_t wake;		/* room in the ring, or the stop, for the thread */
	pthread_cond_t done;		/* winners handed out, or the end, for the backend */
	BitonicMergeCursor *cursors;	/* one per reader */
	uint64	   *keys;			/* the thread's loser tree */
	uint64	   *tags;
	int			n;
	bool		nulls_first;
	const BitonicMergeTieSpec *tie;	/* how ties are decided, or NULL where keys decide alone */
	bool		key_exact;		/* equal keys are equal first columns */
	uint64		ring[BITONIC_MERGE_ORDER_RING];	/* reader << 48 | its record (0: ended) */
	/* the thread's (each side's on cache lines of its own) */
	atomic_ullong put pg_attribute_aligned(64); /* winners handed out, told a batch at a time */
	unsigned long long taken_seen_by_thread;	/* the thread's last look at taken */
	/* the backend's */
	atomic_ullong taken pg_attribute_aligned(64);	/* winners taken, told a batch at a time */
	unsigned long long put_seen;	/* the backend's last look at put */
	unsigned long long taken_own;	/* winners taken: the backend's own count */
	atomic_bool ended pg_attribute_aligned(64);	/* the thread handed out the last winner */
	atomic_bool stop;
	atomic_bool thread_sleeping;	/* the thread sleeps on wake, or is about to */
	atomic_bool owner_sleeping; /* the backend sleeps on done, or is about to */
	bool		running;
} BitonicMergeOrder;

extern bool BitonicMergeOrderStart(BitonicMergeOrder *mo, const BitonicRunReader *readers,
								   bool nulls_first, const BitonicMergeTieSpec *tie,
								   bool key_exact);
extern int	BitonicMergeOrderNext(BitonicMergeOrder *mo, const char **record);
extern void BitonicMergeOrderStop(BitonicMergeOrder *mo);

#endif							/* BITONIC_SCAN_MERGE_ORDER_H */
