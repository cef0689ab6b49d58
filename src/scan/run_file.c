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
 * read once, through two chunks of the reader's in turn: while the merge
 * reads the records of one, the other is read into, by a thread that reads
 * ahead (core/read_ahead.h) where one could start (the kernel's copies were
 * 17% of a 10M-row sort at 4 MB on the backend's thread), else by the
 * merge itself.  The records are read where they lie (only a record cut by
 * a chunk's end is moved, into the next chunk's head room, or, where it is
 * longer, gathered in a buffer of its own), so a row is copied once on the
 * way out and once on the way in, besides the kernel's copies.  Where the
 * run can be mapped (BitonicRunReaderMap), it is read where it lies in the
 * kernel's page cache instead: no read, no copy, no buffer of ours, and
 * its pages are unmapped as the merge passes them.
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

#include "bitonic_sort.h"

#include <sys/mman.h>

#include "commands/tablespace.h"
#include "pgstat.h"
#include "utils/memutils.h"

/*
 * Bytes of a mapped run read before its pages are unmapped: the pages stay
 * in the page cache, but no longer count in the backend's resident memory
 * (a merge of k runs keeps up to k times this mapped).  Each unmapping
 * costs the backend a system call and a TLB flush: 256 kB took 6% longer
 * than 1 MB on 10M rows at 4 MB, 512 kB as long within the noise.
 */
#define RUN_MAP_RELEASE ((size_t) 512 * 1024)

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

/*
 * ERROR for a write to a run's file that failed with errno err, or that
 * was short with none (the disk is full).
 */
void
BitonicRunReportWriteError(File file, int err)
{
	errno = err != 0 ? err : ENOSPC;
	ereport(ERROR,
			(errcode_for_file_access(),
			 errmsg("could not write to temporary file \"%s\": %m",
					FilePathName(file))));
}

/* Write n bytes at offset through fd.c (which counts temp_file_limit); ERROR where the file cannot take them. */
static void
write_at(BitonicRunWriter *writer, const char *bytes, size_t n, off_t offset)
{
	int			done;

	errno = 0;
	done = FileWrite(writer->file, unconstify(char *, bytes), (int) n, offset,
					 WAIT_EVENT_BUFFILE_WRITE);
	if (done != (int) n)
		BitonicRunReportWriteError(writer->file, errno);
}

/* Write what the buffer holds to the file; ERROR where the file cannot take it. */
static void
flush(BitonicRunWriter *writer)
{
	if (writer->used == 0)
		return;
	write_at(writer, writer->buf, writer->used, writer->offset);
	writer->offset += writer->used;
	disk_add(writer->disk, writer->used);
	writer->used = 0;
}

/*
 * The run just begun will be `bytes` long, written by other means
 * (run_ends.c): write its last bytes through fd.c, so that the file's
 * growth counts in temp_file_limit (an ERROR here, before any of the run is
 * written) and in the temp files' size, as the writer's own writes do.
 * Those bytes are written again with the run's last record.
 */
void
BitonicRunWriterReserve(BitonicRunWriter *writer, off_t bytes)
{
	static const char zeros[MAXIMUM_ALIGNOF] = {0};

	Assert(writer->offset == writer->start && writer->used == 0 && bytes >= MAXIMUM_ALIGNOF);
	write_at(writer, zeros, sizeof(zeros), writer->start + bytes - sizeof(zeros));
}

/* The run's `bytes` (reserved) are written: the writer goes on after them. */
void
BitonicRunWriterWritten(BitonicRunWriter *writer, off_t bytes)
{
	Assert(writer->offset == writer->start && writer->used == 0);
	writer->offset += bytes;
	disk_add(writer->disk, bytes);
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
	size_t		bytes = BitonicRunRecordBytes(tuple->t_len);

	if (bytes <= writer->size - writer->used)
	{
		BitonicRunRecordWrite(writer->buf + writer->used, key, isnull, tuple, bytes);
		writer->used += bytes;
		if (writer->used == writer->size)
			flush(writer);
	}
	else
	{
		char		head[BITONIC_RECORD_HEAD_BYTES];
		static const char zeros[MAXIMUM_ALIGNOF] = {0};

		BitonicRunRecordHead(head, key, isnull, tuple);
		write_bytes(writer, head, sizeof(head));
		write_bytes(writer, (const char *) tuple + MINIMAL_TUPLE_DATA_OFFSET,
					len - MINIMAL_TUPLE_DATA_OFFSET);
		write_bytes(writer, zeros, bytes - BITONIC_RECORD_KEY_BYTES - len);
	}
}

/* Append a key to a run of keys alone. */
void
BitonicRunWriterPutKey(BitonicRunWriter *writer, uint64 key)
{
	if (writer->size - writer->used >= BITONIC_RECORD_KEY_BYTES)
	{
		memcpy(writer->buf + writer->used, &key, BITONIC_RECORD_KEY_BYTES);
		writer->used += BITONIC_RECORD_KEY_BYTES;
		if (writer->used == writer->size)
			flush(writer);
	}
	else
		write_bytes(writer, (const char *) &key, BITONIC_RECORD_KEY_BYTES);
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

/* ERROR for a run that ends inside a record. */
static void
report_short_read(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("unexpected end of data in a bitonic_sort temporary file")));
}

/* ERROR for a read of the run's file that failed with errno err. */
static void
report_read_error(const BitonicRunReader *reader, int err)
{
	errno = err;
	ereport(ERROR,
			(errcode_for_file_access(),
			 errmsg("could not read from temporary file \"%s\": %m",
					FilePathName(reader->file))));
}

/*
 * Ask for the run's next bytes in chunk c: of the thread that reads ahead,
 * or read here, through fd.c, where there is none.
 */
static void
request(BitonicRunReader *reader, int c)
{
	BitonicRunChunk *chunk = &reader->chunks[c];
	bs_read    *r = &chunk->read;

	Assert(!chunk->pending && reader->offset < reader->end);
	r->dst = chunk->mem + reader->head;
	r->len = Min(reader->chunk_bytes, (size_t) (reader->end - reader->offset));
	r->offset = reader->offset;
	reader->offset += r->len;
	chunk->pending = true;
	if (reader->ahead != NULL)
	{
		r->fd = reader->fd;
#ifdef BITONIC_TEST_BUILD
		/* the thread's read fails (EBADF), as an I/O error would */
		if (bitonic_sort_test_fault == BITONIC_FAULT_READ_AHEAD)
			r->fd = -1;
#endif
		bs_read_ahead_submit(reader->ahead, r);
		return;
	}
	r->got = FileRead(reader->file, r->dst, (int) r->len, r->offset, WAIT_EVENT_BUFFILE_READ);
	r->err = errno;
}

/* Ask for the next bytes in each chunk not being read nor asked for, chunk 0 first. */
static void
request_free(BitonicRunReader *reader, int current)
{
	for (int i = 0; i < 2 && reader->offset < reader->end; i++)
	{
		int			c = current >= 0 ? 1 - current : i;

		if (c != current && !reader->chunks[c].pending)
		{
			request(reader, c);
			if (reader->next < 0)
				reader->next = c;
		}
	}
}

/* The bytes chunk c's read brought, after it is done; ERROR where it failed or came short. */
static size_t
take(BitonicRunReader *reader, int c)
{
	BitonicRunChunk *chunk = &reader->chunks[c];

	Assert(chunk->pending);
	if (reader->ahead != NULL)
		bs_read_ahead_wait(reader->ahead, &chunk->read);
	chunk->pending = false;
	if (chunk->read.got < 0)
		report_read_error(reader, chunk->read.err);
	if ((size_t) chunk->read.got != chunk->read.len)
		report_short_read();
	return chunk->read.len;
}

/*
 * Start a reader on file's run whose bytes end at `end` (BitonicRunReaderOpen,
 * BitonicRunReaderMap): data and len are the opener's; no record read yet,
 * rows (not keys alone), nothing stitched or mapped.
 */
static void
begin_reader(BitonicRunReader *reader, File file, off_t end)
{
	reader->file = file;
	reader->end = end;
	reader->map = NULL;
	reader->stitch = NULL;
	reader->stitch_size = 0;
	reader->pos = 0;
	reader->next = -1;
	reader->tuple = NULL;
	reader->keys_only = false;
	reader->nulls_left = 0;
}

/*
 * Read a written run from its start: its file, first byte and size, the
 * bytes of its buffers (allocated here, in cxt, and freed at the run's end),
 * and the thread that reads ahead with the file's descriptor for it (NULL
 * and -1: read here).  BitonicRunReaderNext reads its first row.
 */
void
BitonicRunReaderOpen(BitonicRunReader *reader, File file, off_t start, off_t bytes,
					 size_t buf_size, MemoryContext cxt, bs_read_ahead *ahead, int fd)
{
	size_t		chunk_size = TYPEALIGN_DOWN(MAXIMUM_ALIGNOF, buf_size / 2);

	Assert(reader->data == NULL && chunk_size >= 1024);
	begin_reader(reader, file, start + bytes);
	reader->ahead = fd >= 0 ? ahead : NULL;
	reader->fd = fd;
	reader->offset = start;
	reader->head = MAXALIGN(chunk_size / 8);
	reader->chunk_bytes = chunk_size - reader->head;
	reader->cxt = cxt;
	for (int c = 0; c < 2; c++)
	{
		reader->chunks[c].mem = MemoryContextAlloc(cxt, chunk_size);
		reader->chunks[c].pending = false;
		atomic_init(&reader->chunks[c].read.state, BS_READ_IDLE);
	}
	reader->data = reader->chunks[0].mem;	/* empty until the first record */
	reader->len = 0;
	request_free(reader, -1);
}

/* The opened run is of keys alone, with nnulls NULLs first or last. */
void
BitonicRunReaderKeysOnly(BitonicRunReader *reader, uint64 nnulls, bool nulls_first)
{
	reader->keys_only = true;
	reader->nulls_left = nnulls;
	reader->nulls_first = nulls_first;
}

/*
 * Read a written run from its start where it lies in the page cache: map
 * its bytes (read only, so that no write to them costs memory) through
 * fd.c's descriptor; false, and the reader untouched, where they cannot be
 * mapped (BitonicRunReaderOpen then reads them through buffers).  The
 * mapping outlives fd.c's descriptor, which fd.c may close to make room,
 * and holds the file's space until BitonicRunReaderUnmap, which the run's
 * end calls, and the caller where the run is left unread (after
 * bs_read_ahead_cancel).  Where a thread reads ahead (ahead running), it
 * touches the run's next touch_bytes as the merge enters the ones before,
 * so that the merge finds them in the caches and their pages mapped.
 */
bool
BitonicRunReaderMap(BitonicRunReader *reader, File file, off_t start, off_t bytes,
					bs_read_ahead *ahead, size_t touch_bytes)
{
	off_t		page = (off_t) sysconf(_SC_PAGESIZE);
	off_t		base = start - start % page;
	size_t		len = (size_t) (start + bytes - base);
	void	   *map;

	Assert(reader->data == NULL && bytes > 0);
#ifdef BITONIC_TEST_BUILD
	if (bitonic_sort_test_fault == BITONIC_FAULT_RUN_MAP)
		return false;
#endif
	/* FileSize opens fd.c's descriptor where fd.c closed it */
	if (FileSize(file) < start + bytes)
		return false;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, FileGetRawDesc(file), base);
	if (map == MAP_FAILED)
		return false;
	memset(reader->chunks, 0, sizeof(reader->chunks));
	begin_reader(reader, file, start + bytes);
	reader->ahead = ahead != NULL && ahead->running && touch_bytes > 0 ? ahead : NULL;
	reader->fd = -1;
	reader->offset = start + bytes;
	reader->head = 0;
	reader->chunk_bytes = touch_bytes;
	reader->map = map;
	reader->map_len = len;
	reader->data = (char *) map + (start - base);
	reader->len = (size_t) bytes;
	reader->touched = reader->data;
	reader->touch_next = 0;
	return true;
}

/*
 * Wait for the touches asked for of a mapped run's bytes before `below`
 * (all of them: NULL), so that none is under way where they are unmapped.
 */
static void
settle_touches(BitonicRunReader *reader, const char *below)
{
	for (int c = 0; c < 2 && reader->ahead != NULL; c++)
	{
		bs_read    *r = &reader->chunks[c].read;

		if (atomic_load_explicit(&r->state, memory_order_relaxed) != BS_READ_IDLE &&
			(below == NULL || r->dst < below))
			bs_read_ahead_wait(reader->ahead, r);
	}
}

/*
 * Ask the thread to touch a mapped run's next touch bytes once the merge
 * reaches the last ones asked for (`record` on): through the chunk whose
 * turn it is, where its last touch is done; else those bytes are left to
 * the merge.
 */
static inline void
touch_ahead(BitonicRunReader *reader, const char *record)
{
	char	   *end = reader->data + reader->len;
	bs_read    *r;

	if (reader->ahead == NULL)
		return;
	/* a record longer than a touch passes what was touched, unmapped below it */
	if (reader->touched < record)
		reader->touched = (char *) record;
	if (reader->touched >= end || record + reader->chunk_bytes < reader->touched)
		return;
	r = &reader->chunks[reader->touch_next].read;
	if (atomic_load_explicit(&r->state, memory_order_acquire) == BS_READ_DONE)
		bs_read_ahead_wait(reader->ahead, r);
	if (atomic_load_explicit(&r->state, memory_order_relaxed) == BS_READ_IDLE)
	{
		r->fd = BS_READ_TOUCH;
		r->dst = reader->touched;
		r->len = Min(reader->chunk_bytes, (size_t) (end - reader->touched));
		r->offset = 0;
		if (bs_read_ahead_try_submit(reader->ahead, r))
			reader->touch_next = 1 - reader->touch_next;
	}
	reader->touched += Min(reader->chunk_bytes, (size_t) (end - reader->touched));
}

/* Unmap what is left of a mapped run (its end, or the merge's after bs_read_ahead_cancel). */
void
BitonicRunReaderUnmap(BitonicRunReader *reader)
{
	Assert(reader->map != NULL);
	settle_touches(reader, NULL);
	(void) munmap(reader->map, reader->map_len);
	reader->map = NULL;
	reader->map_len = 0;
	reader->data = NULL;
}

/* Unmap the whole pages of a mapped run before `record`, once they are RUN_MAP_RELEASE. */
static inline void
release_read_pages(BitonicRunReader *reader, const char *record)
{
	size_t		read = record - reader->map;

	if (read >= RUN_MAP_RELEASE)
	{
		size_t		pages = TYPEALIGN_DOWN(sysconf(_SC_PAGESIZE), read);

		settle_touches(reader, reader->map + pages);
		(void) munmap(reader->map, pages);
		reader->map += pages;
		reader->map_len -= pages;
	}
}

/* A mapped reader reaches `record`: unmap the pages before it, touch ahead of it. */
static inline void
map_reach(BitonicRunReader *reader, const char *record)
{
	if (reader->map == NULL)
		return;
	release_read_pages(reader, record);
	touch_ahead(reader, record);
}

/*
 * Have the next n bytes from data's pos on where head room cannot take
 * what is left of data, or one chunk cannot complete it (a long record):
 * gather what is left, the chunks read and (here) what more the record
 * needs in the stitch buffer, and ask for the bytes after them.
 */
static bool
stitch(BitonicRunReader *reader, size_t n, size_t left, int c, size_t got)
{
	int			other = 1 - c;
	size_t		more = reader->chunks[other].pending ? reader->chunks[other].read.len : 0;
	size_t		size = Max(n, left + got + more);
	size_t		have;

	if (size > reader->stitch_size)
	{
		char	   *grown = MemoryContextAllocHuge(reader->cxt, TYPEALIGN(BLCKSZ, size));

		memcpy(grown, reader->data + reader->pos, left);
		if (reader->stitch != NULL)
			pfree(reader->stitch);
		reader->stitch = grown;
		reader->stitch_size = TYPEALIGN(BLCKSZ, size);
	}
	else
		memmove(reader->stitch, reader->data + reader->pos, left);
	memcpy(reader->stitch + left, reader->chunks[c].mem + reader->head, got);
	have = left + got;
	if (more > 0)
	{
		(void) take(reader, other);
		memcpy(reader->stitch + have, reader->chunks[other].mem + reader->head, more);
		have += more;
	}
	/* one read: it brings the record's rest, or the run ends first */
	if (have < n && reader->offset < reader->end)
	{
		size_t		want = Min(n - have, (size_t) (reader->end - reader->offset));
		int			done = FileRead(reader->file, reader->stitch + have, (int) want,
									reader->offset, WAIT_EVENT_BUFFILE_READ);

		if (done < 0)
			report_read_error(reader, errno);
		if ((size_t) done != want)
			report_short_read();
		reader->offset += done;
		have += done;
	}
	reader->data = reader->stitch;
	reader->pos = 0;
	reader->len = have;
	reader->next = -1;
	request_free(reader, -1);
	return have >= n;
}

/*
 * Have the next n bytes of the run in data from pos on: where the chunk
 * that follows can take what is left of the current one in its head room,
 * that chunk becomes current and the one left is asked to read on; else
 * stitch.  False where the run has fewer.
 */
static bool
ensure(BitonicRunReader *reader, size_t n)
{
	size_t		left = reader->len - reader->pos;
	int			c = reader->next;
	size_t		got;
	char	   *start;

	if (left >= n)
		return true;
	if (c < 0)
		return false;
	/* the slot shows a record of the chunk that is asked to read on */
	if (reader->slot != NULL)
		ExecClearTuple(reader->slot);
	got = take(reader, c);
	if (left > reader->head || left + got < n)
		return stitch(reader, n, left, c, got);
	start = reader->chunks[c].mem + reader->head - left;
	memcpy(start, reader->data + reader->pos, left);
	reader->data = start;
	reader->pos = 0;
	reader->len = left + got;
	reader->next = reader->chunks[1 - c].pending ? 1 - c : -1;
	request_free(reader, c);
	return true;
}

/* The run is read (no read is asked for): free its buffers (its file is the caller's). */
static void
close_reader(BitonicRunReader *reader)
{
	Assert(!reader->chunks[0].pending && !reader->chunks[1].pending);
	reader->file = RUN_FILE_NONE;
	if (reader->slot != NULL)
		ExecClearTuple(reader->slot);
	if (reader->map != NULL)
		BitonicRunReaderUnmap(reader);
	else
		for (int c = 0; c < 2; c++)
			pfree(reader->chunks[c].mem);
	if (reader->stitch != NULL)
		pfree(reader->stitch);
	reader->stitch = NULL;
	reader->data = NULL;
	reader->tuple = NULL;
}

/*
 * A mapped run's record at `record` is handed out without the reader (a
 * thread decided the merge's order, merge_order.c): unmap the pages
 * before it, as the reader's own reads do (the thread, ahead, brings the
 * records into the caches itself: touches of the pages it had read cost
 * a third thread on two cores).
 */
void
BitonicRunReaderPassTo(BitonicRunReader *reader, const char *record)
{
	Assert(reader->map != NULL);
	release_read_pages(reader, record);
}

/*
 * A run handed out without the reader (BitonicRunReaderPassTo) is read:
 * close it; ERROR where it ended inside a record (cut).
 */
void
BitonicRunReaderEnd(BitonicRunReader *reader, bool cut)
{
	if (cut)
		report_short_read();
	close_reader(reader);
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
	if (ensure(reader, BITONIC_RECORD_KEY_BYTES))
	{
		map_reach(reader, reader->data + reader->pos);
		memcpy(&reader->key, reader->data + reader->pos, BITONIC_RECORD_KEY_BYTES);
		reader->isnull = false;
		reader->pos += BITONIC_RECORD_KEY_BYTES;
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
 * Read the reader's next record (BitonicRunReaderSlot shows it in a slot);
 * false at the end of the run, its buffers freed.
 */
bool
BitonicRunReaderNext(BitonicRunReader *reader)
{
	uint32		t_len;
	char	   *record;

	if (reader->keys_only)
		return next_key(reader);
	if (!ensure(reader, BITONIC_RECORD_KEY_BYTES + sizeof(uint32)))
	{
		if (reader->len > reader->pos)
			report_short_read();
		close_reader(reader);
		return false;
	}
	memcpy(&t_len, reader->data + reader->pos + BITONIC_RECORD_KEY_BYTES, sizeof(uint32));
	if (t_len < MINIMAL_TUPLE_DATA_OFFSET || !ensure(reader, BitonicRunRecordBytes(t_len)))
		report_short_read();
	record = reader->data + reader->pos;
	map_reach(reader, record);
	memcpy(&reader->key, record, BITONIC_RECORD_KEY_BYTES);
	reader->isnull = record[BITONIC_RECORD_NULL_FLAG] != 0;
	reader->tuple = (MinimalTuple) (record + BITONIC_RECORD_KEY_BYTES);
	reader->pos += BitonicRunRecordBytes(t_len);
	/*
	 * Ask for the next record now: a merge of k runs reads it about k rows
	 * later, and the copy into the chunk (the kernel's, on this core or the
	 * reading thread's) did not leave it in this core's cache.  Written here, not in a helper: GCC's IPA dropped the helper's
	 * prefetches (a function with no effect), as the object code showed.
	 */
	if (reader->pos < reader->len)
	{
		__builtin_prefetch(reader->data + reader->pos);
		__builtin_prefetch(reader->data + reader->pos + 64);
	}
	reader->slot_current = false;
	return true;
}

/*
 * The reader's slot, showing its current row: stored there at the first
 * call since the reader moved on (the merge compares rows only where keys
 * tie: 10M rows by text "C" at 4 MB, 2.31 s to 2.25 s, medians of five).
 */
TupleTableSlot *
BitonicRunReaderSlot(BitonicRunReader *reader)
{
	if (!reader->slot_current)
	{
		ExecStoreMinimalTuple(reader->tuple, reader->slot, false);
		reader->slot_current = true;
	}
	return reader->slot;
}
