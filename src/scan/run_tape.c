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

/* Append a row and its key (or the first column's NULL) to a tape being written. */
void
BitonicRunTapePut(LogicalTape *tape, uint64 key, bool isnull, MinimalTuple tuple)
{
	struct
	{
		uint64		key;
		uint32		len;
	}			header;

	StaticAssertStmt(sizeof(tuple->t_len) == sizeof(uint32), "a minimal tuple's length is 32 bits");
	Assert(tuple->t_len < RUN_RECORD_NULL);
	header.key = key;
	header.len = tuple->t_len | (isnull ? RUN_RECORD_NULL : 0);
	LogicalTapeWrite(tape, &header, sizeof(uint64) + sizeof(uint32));
	LogicalTapeWrite(tape, (char *) tuple + sizeof(uint32), tuple->t_len - sizeof(uint32));
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
 * current memory context) and show it in its slot; false at the end of
 * the run, the tape closed and the buffer freed.
 */
bool
BitonicRunTapeNext(BitonicRunReader *reader)
{
	uint64		key;
	uint32		len;
	size_t		got;

	got = LogicalTapeRead(reader->tape, &key, sizeof(key));
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
	if (got != sizeof(key) ||
		LogicalTapeRead(reader->tape, &len, sizeof(len)) != sizeof(len))
		report_short_read();
	reader->key = key;
	reader->isnull = (len & RUN_RECORD_NULL) != 0;
	len &= ~RUN_RECORD_NULL;
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
	if (LogicalTapeRead(reader->tape, reader->buf + sizeof(uint32), len - sizeof(uint32)) !=
		len - sizeof(uint32))
		report_short_read();
	ExecStoreMinimalTuple(reader->tuple, reader->slot, false);
	reader->rows++;
	return true;
}
