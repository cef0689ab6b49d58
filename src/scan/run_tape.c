/*
 * run_tape.c — the record format of the external sort's runs.
 *
 * A run is written once, front to back, and read once (the tape set frees
 * its blocks behind the read).  Each row carries its first sort column's
 * normalized key, so the merge compares 64-bit keys and deforms a row only
 * where the keys are equal and not exact.
 */
#include "scan/run_tape.h"

#include "utils/memutils.h"

/* A record's first RUN_RECORD_HEADER bytes: the key, then the length with the NULL flag. */
typedef struct RunRecordHeader
{
	uint64		key;
	uint32		len;
} RunRecordHeader;

/*
 * Append a row and its key (or the first column's NULL) to a tape being
 * written: the key, the row's length with the NULL flag, and the row from
 * its infomask on (its length word and padding are not written).
 */
void
BitonicRunTapePut(LogicalTape *tape, uint64 key, bool isnull, MinimalTuple tuple)
{
	RunRecordHeader header;

	StaticAssertStmt(sizeof(tuple->t_len) == sizeof(uint32), "a minimal tuple's length is 32 bits");
	Assert(tuple->t_len < RUN_RECORD_NULL);
	header.key = key;
	header.len = tuple->t_len | (isnull ? RUN_RECORD_NULL : 0);
	LogicalTapeWrite(tape, &header, RUN_RECORD_HEADER);
	LogicalTapeWrite(tape, (char *) tuple + MINIMAL_TUPLE_DATA_OFFSET,
					 tuple->t_len - MINIMAL_TUPLE_DATA_OFFSET);
}

/* ERROR for a tape that ends inside a record. */
static void
report_short_read(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("unexpected end of data in a bitonic_sort temporary file")));
}

/*
 * Read the reader's next record into its buffer (grown as needed, in the
 * current memory context), shown in its slot where the merge compares
 * rows; false at the end of the run, the tape closed and the buffer freed.
 */
bool
BitonicRunTapeNext(BitonicRunReader *reader)
{
	RunRecordHeader header;
	size_t		got;
	uint32		len;

	got = LogicalTapeRead(reader->tape, &header, RUN_RECORD_HEADER);
	if (got == 0)
	{
		LogicalTapeClose(reader->tape);
		reader->tape = NULL;
		ExecClearTuple(reader->slot);
		if (reader->buf != NULL)
			pfree(reader->buf);
		reader->buf = NULL;
		reader->buf_size = 0;
		reader->tuple = NULL;
		return false;
	}
	if (got != RUN_RECORD_HEADER)
		report_short_read();
	reader->key = header.key;
	reader->isnull = (header.len & RUN_RECORD_NULL) != 0;
	len = header.len & ~RUN_RECORD_NULL;
	if (len > reader->buf_size)
	{
		size_t		size = Max(len, Max(reader->buf_size * 2, 256));

		ExecClearTuple(reader->slot);
		if (reader->buf != NULL)
			pfree(reader->buf);
		reader->buf = MemoryContextAllocHuge(CurrentMemoryContext, size);
		reader->buf_size = size;
	}
	reader->tuple = (MinimalTuple) reader->buf;
	reader->tuple->t_len = len;
	if (LogicalTapeRead(reader->tape, reader->buf + MINIMAL_TUPLE_DATA_OFFSET,
						len - MINIMAL_TUPLE_DATA_OFFSET) != len - MINIMAL_TUPLE_DATA_OFFSET)
		report_short_read();
	if (reader->compare_rows)
		ExecStoreMinimalTuple(reader->tuple, reader->slot, false);
	return true;
}
