/*
 * scan/run_tape.h — rows of a sorted run on a logical tape, each with the
 * normalized key of its first sort column (run_tape.c).
 */
#ifndef BITONIC_SCAN_RUN_TAPE_H
#define BITONIC_SCAN_RUN_TAPE_H

#include "postgres.h"

#include "access/htup_details.h"
#include "executor/tuptable.h"
#include "utils/logtape.h"

/*
 * One record on a tape: the key, the row's length with the NULL flag in
 * its top bit (RUN_RECORD_HEADER bytes), then the minimal tuple's bytes
 * from its infomask on.
 */
#define RUN_RECORD_NULL ((uint32) 1 << 31)
#define RUN_RECORD_HEADER (sizeof(uint64) + sizeof(uint32))

/* A run being read: its current record, and the slot that shows it. */
typedef struct BitonicRunReader
{
	LogicalTape *tape;			/* NULL once read to its end */
	uint64		key;
	bool		isnull;
	MinimalTuple tuple;			/* the record's row, in buf */
	char	   *buf;
	size_t		buf_size;
	TupleTableSlot *slot;		/* the row, for the comparators */
	bool		compare_rows;	/* the merge compares rows: keep the slot showing it */
	uint32		rank;			/* the merge's class of the row: NULLs first, key, NULLs last, ended */
} BitonicRunReader;

extern void BitonicRunTapePut(LogicalTape *tape, uint64 key, bool isnull, MinimalTuple tuple);
extern bool BitonicRunTapeNext(BitonicRunReader *reader);

#endif							/* BITONIC_SCAN_RUN_TAPE_H */
