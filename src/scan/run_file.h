/*
 * scan/run_file.h — the runs of the external sort in temporary files, one
 * after another: each written front to back through one buffer, read back
 * through two buffers of each run's reader, each row with the normalized
 * key of its first sort column (run_file.c).
 */
#ifndef BITONIC_SCAN_RUN_FILE_H
#define BITONIC_SCAN_RUN_FILE_H

#include "postgres.h"

#include "access/htup_details.h"
#include "executor/tuptable.h"
#include "storage/fd.h"

#include "bitonic_sort.h"
#include "core/read_ahead.h"

/* Bytes of a record's key, and where in a record its tuple's NULL flag lies. */
#define BITONIC_RECORD_KEY_BYTES sizeof(uint64)
#define BITONIC_RECORD_NULL_FLAG (BITONIC_RECORD_KEY_BYTES + offsetof(MinimalTupleData, mt_padding))

/*
 * A record's key: its first sort column's (BitonicMultiSortKeyOf), or 0
 * for a NULL (whose flag the record carries) or a column without one.
 */
static inline uint64
BitonicRunRecordKey(const BitonicMultiSort *ms, Datum value, bool isnull)
{
	return isnull || ms->key_of == NULL ? 0 : BitonicMultiSortKeyOf(ms, value);
}

/* A record's bytes, from its tuple's length. */
static inline size_t
BitonicRunRecordBytes(uint32 t_len)
{
	return BITONIC_RECORD_KEY_BYTES + MAXALIGN(t_len);
}

/* Write a record (key, tuple with its NULL flag, zero padding) of `bytes` bytes at p. */
static inline void
BitonicRunRecordWrite(char *p, uint64 key, bool isnull, MinimalTuple tuple, size_t bytes)
{
	size_t		len = tuple->t_len;

	memcpy(p, &key, BITONIC_RECORD_KEY_BYTES);
	memcpy(p + BITONIC_RECORD_KEY_BYTES, tuple, len);
	p[BITONIC_RECORD_NULL_FLAG] = isnull;
	memset(p + BITONIC_RECORD_KEY_BYTES + len, 0, bytes - BITONIC_RECORD_KEY_BYTES - len);
}

/* A record's first bytes: its key, then its tuple's header with the NULL flag. */
#define BITONIC_RECORD_HEAD_BYTES (BITONIC_RECORD_KEY_BYTES + MINIMAL_TUPLE_DATA_OFFSET)

/* Write a record's first BITONIC_RECORD_HEAD_BYTES at head (for a record written in pieces). */
static inline void
BitonicRunRecordHead(char *head, uint64 key, bool isnull, MinimalTuple tuple)
{
	memcpy(head, &key, BITONIC_RECORD_KEY_BYTES);
	memcpy(head + BITONIC_RECORD_KEY_BYTES, tuple, MINIMAL_TUPLE_DATA_OFFSET);
	head[BITONIC_RECORD_NULL_FLAG] = isnull;
}

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
 * One of a reader's two buffers: head room, where the end of a record cut
 * by the other buffer's end is copied, then the bytes of one read.
 */
typedef struct BitonicRunChunk
{
	char	   *mem;			/* head room, then the read's bytes */
	bs_read		read;			/* the read into it */
	bool		pending;		/* the read is asked for and its bytes not taken */
} BitonicRunChunk;

/*
 * A run being read: its current record, and the slot that shows it.  A run
 * of keys alone holds no rows: its records are keys, and its NULLs (all
 * equal) are a count, handed out before or after the keys.  Its bytes come
 * through two chunks in turn: while the merge reads one, the thread that
 * reads ahead (where there is one) fills the other; or, mapped, they are
 * read where they lie in the kernel's page cache, with no copy.
 */
typedef struct BitonicRunReader
{
	File		file;			/* RUN_FILE_NONE once read to its end */
	bool		keys_only;		/* records are keys alone */
	bool		nulls_first;	/* where its NULLs go (keys alone) */
	uint64		nulls_left;		/* NULLs still to hand out (keys alone) */
	bs_read_ahead *ahead;		/* the thread that reads ahead, or NULL: reads here */
	int			fd;				/* the file's descriptor for that thread */
	off_t		offset;			/* the file's next byte not asked for yet */
	off_t		end;			/* the byte after the run's last */
	BitonicRunChunk chunks[2];
	size_t		head;			/* bytes of a chunk's head room */
	size_t		chunk_bytes;	/* bytes a chunk's read asks for */
	int			next;			/* the chunk whose read follows data's bytes, or -1 */
	char	   *map;			/* the run's bytes mapped, from a page's start, or NULL */
	size_t		map_len;		/* bytes of the mapping left (its read pages unmapped) */
	char	   *touched;		/* mapped: the end of the bytes asked to be touched */
	int			touch_next;		/* mapped: the chunk whose read touches next */
	char	   *stitch;			/* a record cut where head room cannot take it */
	size_t		stitch_size;
	MemoryContext cxt;			/* where its buffers are */
	char	   *data;			/* the bytes being read (in a chunk or stitch) */
	size_t		pos;			/* the next record's first byte in data */
	size_t		len;			/* bytes in data */
	uint64		key;
	bool		isnull;
	MinimalTuple tuple;			/* the current record's row, in data */
	TupleTableSlot *slot;		/* the row, for the comparators */
	bool		slot_current;	/* slot shows the current row */
} BitonicRunReader;

extern void BitonicRunWriterInit(BitonicRunWriter *writer, size_t size, BitonicRunDisk *disk);
extern File BitonicRunFileCreate(void);
extern void BitonicRunWriterBegin(BitonicRunWriter *writer, File file, off_t start);
extern void BitonicRunWriterPut(BitonicRunWriter *writer, uint64 key, bool isnull,
								MinimalTuple tuple);
extern void BitonicRunWriterPutKey(BitonicRunWriter *writer, uint64 key);
extern off_t BitonicRunWriterEnd(BitonicRunWriter *writer);
extern void BitonicRunWriterReserve(BitonicRunWriter *writer, off_t bytes);
extern void BitonicRunWriterWritten(BitonicRunWriter *writer, off_t bytes);
extern void BitonicRunReportWriteError(File file, int err);
extern void BitonicRunReaderOpen(BitonicRunReader *reader, File file, off_t start, off_t bytes,
								 size_t buf_size, MemoryContext cxt, bs_read_ahead *ahead, int fd);
extern bool BitonicRunReaderMap(BitonicRunReader *reader, File file, off_t start, off_t bytes,
								bs_read_ahead *ahead, size_t touch_bytes);
extern void BitonicRunReaderUnmap(BitonicRunReader *reader);
extern void BitonicRunReaderPassTo(BitonicRunReader *reader, const char *record);
extern void BitonicRunReaderEnd(BitonicRunReader *reader, bool cut);
extern void BitonicRunReaderKeysOnly(BitonicRunReader *reader, uint64 nnulls, bool nulls_first);
extern bool BitonicRunReaderNext(BitonicRunReader *reader);
extern TupleTableSlot *BitonicRunReaderSlot(BitonicRunReader *reader);
extern void BitonicRunFileDrop(File file, off_t bytes, BitonicRunDisk *disk);

#endif							/* BITONIC_SCAN_RUN_FILE_H */
