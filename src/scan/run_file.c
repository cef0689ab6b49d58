/*
 * run_file.c — the record format and the files of the external sort's runs.
 *
 * The runs lie in temporary files made by PostgreSQL's fd.c as a BufFile's
 * are: temp_tablespaces choose where, temp_file_limit is checked at each
 * write, log_temp_files and the temp file statistics count a file when it
 * is closed, and an error or a cancel closes and deletes it with the
 * query's resource owner.  A file holds runs one after another (runs.c
 * says which, and deletes a file once its runs are read).  A run is
 * written once, front to back, in writes of the writer's whole buffer, and
 * read once, in reads that fill a reader's buffer.  The records are read where
 * they lie in the buffer (only a record cut by the buffer's end is moved,
 * to the buffer's front), so a row is copied once on the way out and once
 * on the way in, besides the kernel's copies.
 *
 * A record is the first sort column's normalized key (8 bytes), then the
 * minimal tuple whole, padded to MAXALIGN: records stay aligned in the file
 * and in the buffer, and a tuple is used where it was read.  The tuple's
 * padding bytes after its length (mt_padding, which PostgreSQL never reads)
 * carry the first sort column's NULL flag.  A run of keys alone (one
 * column whose key is its value) is its keys alone, 8 bytes a row; its
 * NULLs are counted by the caller.
 */
#include "scan/run_file.h"

#include "commands/tablespace.h"
#include "pgstat.h"
#include "utils/memutils.h"

#define RECORD_KEY_BYTES sizeof(uint64)

/* Where in a record its tuple's NULL flag lies. */
#define RECORD_NULL_FLAG (RECORD_KEY_BYTES + offsetof(MinimalTupleData, mt_padding))

/* A record's bytes, from its tuple's length. */
static inline size_t
record_bytes(uint32 t_len)
{
	return RECORD_KEY_BYTES + MAXALIGN(t_len);
}

/* Count bytes of temporary files made (or, negative, deleted). */
static void
disk_add(BitonicRunDisk *disk, int64 bytes)
{
	disk->now += bytes;
	disk->peak = Max(disk->peak, disk->now);
}

/* Give the writer its buffer (in the current memory context) and the sort's disk count. */
void
BitonicRunWriterInit(BitonicRunWriter *writer, size_t size, BitonicRunDisk *disk)
{
	Assert(size >= BLCKSZ && size % MAXIMUM_ALIGNOF == 0);
	writer->file = RUN_FILE_NONE;
	writer->start = writer->offset = 0;
	writer->buf = palloc(size);
	writer->size = size;
	writer->used = 0;
	writer->disk = disk;
}

/* A new temporary file for runs, in temp_tablespaces. */
File
BitonicRunFileCreate(void)
{
	PrepareTempTablespaces();
	return OpenTemporaryFile(false);
}

/* Start a run in file, from byte start on (the file's end). */
void
BitonicRunWriterBegin(BitonicRunWriter *writer, File file, off_t start)
{
	Assert(writer->file == RUN_FILE_NONE);
	writer->file = file;
	writer->start = writer->offset = start;
	writer->used = 0;
}

/* Write what the buffer holds to the file; ERROR where the file cannot take it. */
static void
flush(BitonicRunWriter *writer)
{
	int			done;

	if (writer->used == 0)
		return;
	errno = 0;
	done = FileWrite(writer->file, writer->buf, (int) writer->used, writer->offset,
					 WAIT_EVENT_BUFFILE_WRITE);
	if (done != (int) writer->used)
	{
		/* a short write that set no errno: the disk is full */
		if (done >= 0 && errno == 0)
			errno = ENOSPC;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write to temporary file \"%s\": %m",
						FilePathName(writer->file))));
	}
	writer->offset += done;
	disk_add(writer->disk, done);
	writer->used = 0;
}

/* Append bytes to the run, writing the buffer out each time it fills. */
static void
write_bytes(BitonicRunWriter *writer, const char *bytes, size_t n)
{
	while (n > 0)
	{
		size_t		take = Min(n, writer->size - writer->used);

		memcpy(writer->buf + writer->used, bytes, take);
		writer->used += take;
		bytes += take;
		n -= take;
		if (writer->used == writer->size)
			flush(writer);
	}
}

/*
 * Append a row with its key (or the first sort column's NULL) to the run:
 * straight into the buffer where the record fits, else in pieces.
 */
void
BitonicRunWriterPut(BitonicRunWriter *writer, uint64 key, bool isnull, MinimalTuple tuple)
{
	size_t		len = tuple->t_len;
	size_t		bytes = record_bytes(tuple->t_len);

	if (bytes <= writer->size - writer->used)
	{
		char	   *p = writer->buf + writer->used;

		memcpy(p, &key, RECORD_KEY_BYTES);
		memcpy(p + RECORD_KEY_BYTES, tuple, len);
		p[RECORD_NULL_FLAG] = isnull;
		memset(p + RECORD_KEY_BYTES + len, 0, bytes - RECORD_KEY_BYTES - len);
		writer->used += bytes;
		if (writer->used == writer->size)
			flush(writer);
	}
	else
	{
		char		head[RECORD_KEY_BYTES + MINIMAL_TUPLE_DATA_OFFSET];
		static const char zeros[MAXIMUM_ALIGNOF] = {0};

		memcpy(head, &key, RECORD_KEY_BYTES);
		memcpy(head + RECORD_KEY_BYTES, tuple, MINIMAL_TUPLE_DATA_OFFSET);
		head[RECORD_NULL_FLAG] = isnull;
		write_bytes(writer, head, sizeof(head));
		write_bytes(writer, (const char *) tuple + MINIMAL_TUPLE_DATA_OFFSET,
					len - MINIMAL_TUPLE_DATA_OFFSET);
		write_bytes(writer, zeros, bytes - RECORD_KEY_BYTES - len);
	}
}

/* Append a key to a run of keys alone. */
void
BitonicRunWriterPutKey(BitonicRunWriter *writer, uint64 key)
{
	if (writer->size - writer->used >= RECORD_KEY_BYTES)
	{
		memcpy(writer->buf + writer->used, &key, RECORD_KEY_BYTES);
		writer->used += RECORD_KEY_BYTES;
		if (writer->used == writer->size)
			flush(writer);
	}
	else
		write_bytes(writer, (const char *) &key, RECORD_KEY_BYTES);
}

/* End the run: write out the buffer; the run's bytes. */
off_t
BitonicRunWriterEnd(BitonicRunWriter *writer)
{
	flush(writer);
	writer->file = RUN_FILE_NONE;
	return writer->offset - writer->start;
}

/*
 * Close and delete a file of runs of so many bytes (log_temp_files and the
 * statistics count it here).
 */
void
BitonicRunFileDrop(File file, off_t bytes, BitonicRunDisk *disk)
{
	FileClose(file);
	disk_add(disk, -(int64) bytes);
}

/*
 * Read a written run from its start: its file, first byte and size, and
 * the size of the buffer it is read through (allocated here, in cxt, and
 * freed at the run's end; BitonicRunReaderNext reads its first row).
 */
void
BitonicRunReaderOpen(BitonicRunReader *reader, File file, off_t start, off_t bytes,
					 size_t buf_size, MemoryContext cxt)
{
	Assert(reader->buf == NULL);
	reader->file = file;
	reader->offset = start;
	reader->end = start + bytes;
	reader->buf = MemoryContextAlloc(cxt, buf_size);
	reader->buf_size = buf_size;
	reader->pos = 0;
	reader->len = 0;
	reader->tuple = NULL;
	reader->keys_only = false;
	reader->nulls_left = 0;
}

/* The opened run is of keys alone, with nnulls NULLs first or last. */
void
BitonicRunReaderKeysOnly(BitonicRunReader *reader, uint64 nnulls, bool nulls_first)
{
	reader->keys_only = true;
	reader->nulls_left = nnulls;
	reader->nulls_first = nulls_first;
}

/* ERROR for a run that ends inside a record. */
static void
report_short_read(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("unexpected end of data in a bitonic_sort temporary file")));
}

/*
 * Have the next n bytes of the run in the buffer from pos on: move what is
 * left to the buffer's front (growing it where n is more than it holds)
 * and fill the rest from the file.  False where the run has fewer.
 */
static bool
ensure(BitonicRunReader *reader, size_t n)
{
	size_t		left = reader->len - reader->pos;
	size_t		want;
	int			got;

	if (left >= n)
		return true;
	if (reader->offset >= reader->end)
		return false;
	/* the slot shows the record the move overwrites */
	if (reader->slot != NULL)
		ExecClearTuple(reader->slot);
	memmove(reader->buf, reader->buf + reader->pos, left);
	reader->pos = 0;
	reader->len = left;
	if (n > reader->buf_size)
	{
		reader->buf_size = TYPEALIGN(BLCKSZ, n);
		reader->buf = repalloc_huge(reader->buf, reader->buf_size);
	}
	want = Min(reader->buf_size - left, (size_t) (reader->end - reader->offset));
	got = FileRead(reader->file, reader->buf + left, (int) want, reader->offset,
				   WAIT_EVENT_BUFFILE_READ);
	if (got < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from temporary file \"%s\": %m",
						FilePathName(reader->file))));
	if ((size_t) got != want)
		report_short_read();
	reader->offset += got;
	reader->len += got;
	return reader->len >= n;
}

/* The run is read: free its buffer (its file is the caller's). */
static void
close_reader(BitonicRunReader *reader)
{
	reader->file = RUN_FILE_NONE;
	if (reader->slot != NULL)
		ExecClearTuple(reader->slot);
	pfree(reader->buf);
	reader->buf = NULL;
	reader->buf_size = 0;
	reader->tuple = NULL;
}

/* Hand out one of the run's NULLs (keys alone). */
static bool
take_null(BitonicRunReader *reader)
{
	reader->nulls_left--;
	reader->isnull = true;
	return true;
}

/*
 * The next row of a run of keys alone: its NULLs before its keys where
 * NULLs go first, else after them; as BitonicRunReaderNext.
 */
static bool
next_key(BitonicRunReader *reader)
{
	if (reader->nulls_first && reader->nulls_left > 0)
		return take_null(reader);
	if (ensure(reader, RECORD_KEY_BYTES))
	{
		memcpy(&reader->key, reader->buf + reader->pos, RECORD_KEY_BYTES);
		reader->isnull = false;
		reader->pos += RECORD_KEY_BYTES;
		return true;
	}
	if (reader->len > reader->pos)
		report_short_read();
	if (reader->nulls_left > 0)
		return take_null(reader);
	close_reader(reader);
	return false;
}

/*
 * Read the reader's next record, shown in its slot where the merge compares
 * rows; false at the end of the run, its buffer freed.
 */
bool
BitonicRunReaderNext(BitonicRunReader *reader)
{
	uint32		t_len;
	char	   *record;

	if (reader->keys_only)
		return next_key(reader);
	if (!ensure(reader, RECORD_KEY_BYTES + sizeof(uint32)))
	{
		if (reader->len > reader->pos)
			report_short_read();
		close_reader(reader);
		return false;
	}
	memcpy(&t_len, reader->buf + reader->pos + RECORD_KEY_BYTES, sizeof(uint32));
	if (t_len < MINIMAL_TUPLE_DATA_OFFSET || !ensure(reader, record_bytes(t_len)))
		report_short_read();
	record = reader->buf + reader->pos;
	memcpy(&reader->key, record, RECORD_KEY_BYTES);
	reader->isnull = record[RECORD_NULL_FLAG] != 0;
	reader->tuple = (MinimalTuple) (record + RECORD_KEY_BYTES);
	reader->pos += record_bytes(t_len);
	/*
	 * Ask for the next record now: a merge of k runs reads it about k rows
	 * later, and the kernel's copy into the buffer did not leave it in the
	 * cache.  Written here, not in a helper: GCC's IPA dropped the helper's
	 * prefetches (a function with no effect), as the object code showed.
	 */
	if (reader->pos < reader->len)
	{
		__builtin_prefetch(reader->buf + reader->pos);
		__builtin_prefetch(reader->buf + reader->pos + 64);
	}
	if (reader->compare_rows)
		ExecStoreMinimalTuple(reader->tuple, reader->slot, false);
	return true;
}
