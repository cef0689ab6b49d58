/*
 * scan/run_file.h — the runs of the external sort in temporary files, one
 * after another: each written front to back through one buffer, read back
 * through a buffer of each run's reader, each row with the normalized key
 * of its first sort column (run_file.c).
 */
#ifndef BITONIC_SCAN_RUN_FILE_H
#define BITONIC_SCAN_RUN_FILE_H

#include "postgres.h"

#include "access/htup_details.h"
#include "executor/tuptable.h"
#include "storage/fd.h"

/* No file: a reader at its run's end, a writer between runs. */
#define RUN_FILE_NONE ((File) -1)

/* Bytes of temporary files the runs of one sort hold now, and at most. */
typedef struct BitonicRunDisk
{
	int64		now;
	int64		peak;
} BitonicRunDisk;

/* The run being written: its file, and the buffer its rows go through. */
typedef struct BitonicRunWriter
{
	File		file;			/* RUN_FILE_NONE between runs */
	off_t		start;			/* the run's first byte in the file */
	off_t		offset;			/* the file's next byte to write */
	char	   *buf;
	size_t		size;
	size_t		used;
	BitonicRunDisk *disk;
} BitonicRunWriter;

/*
 * A run being read: its current record, and the slot that shows it.  A run
 * of keys alone holds no rows: its records are keys, and its NULLs (all
 * equal) are a count, handed out before or after the keys.
 */
typedef struct BitonicRunReader
{
	File		file;			/* RUN_FILE_NONE once read to its end */
	bool		keys_only;		/* records are keys alone */
	bool		nulls_first;	/* where its NULLs go (keys alone) */
	uint64		nulls_left;		/* NULLs still to hand out (keys alone) */
	off_t		offset;			/* the file's next byte to read */
	off_t		end;			/* the byte after the run's last */
	char	   *buf;			/* records read, the current one at tuple */
	size_t		buf_size;
	size_t		pos;			/* the next record's first byte in buf */
	size_t		len;			/* bytes read into buf */
	uint64		key;
	bool		isnull;
	MinimalTuple tuple;			/* the current record's row, in buf */
	TupleTableSlot *slot;		/* the row, for the comparators */
	bool		compare_rows;	/* the merge compares rows: keep the slot showing it */
} BitonicRunReader;

extern void BitonicRunWriterInit(BitonicRunWriter *writer, size_t size, BitonicRunDisk *disk);
extern File BitonicRunFileCreate(void);
extern void BitonicRunWriterBegin(BitonicRunWriter *writer, File file, off_t start);
extern void BitonicRunWriterPut(BitonicRunWriter *writer, uint64 key, bool isnull,
								MinimalTuple tuple);
extern void BitonicRunWriterPutKey(BitonicRunWriter *writer, uint64 key);
extern off_t BitonicRunWriterEnd(BitonicRunWriter *writer);
extern void BitonicRunReaderOpen(BitonicRunReader *reader, File file, off_t start, off_t bytes,
								 size_t buf_size, MemoryContext cxt);
extern void BitonicRunReaderKeysOnly(BitonicRunReader *reader, uint64 nnulls, bool nulls_first);
extern bool BitonicRunReaderNext(BitonicRunReader *reader);
extern void BitonicRunFileDrop(File file, off_t bytes, BitonicRunDisk *disk);

#endif							/* BITONIC_SCAN_RUN_FILE_H */
