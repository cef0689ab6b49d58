/*
 * run_ends.c — a run of the external sort written from both ends at once.
 *
 * Writing a run from memory gathers its rows in sorted order: each row is
 * a cache miss (a run of 60 MB at work_mem 64 MB is far larger than the
 * caches), and the gather and the writes were a quarter of the backend's
 * time in a 10M-row sort at 64 MB, with the second core idle.  Here two
 * ends share the work: the front gathers rows from the run's first place
 * on and writes them from the run's first byte, the back from its last
 * place down and from its last byte back, each claiming the next rows at
 * its end until the claims meet.  The run's length is known beforehand
 * (the rows' bytes, which the store counts, and a key each), so the back
 * knows where its bytes go, and the two ends' writes meet exactly; a run
 * whose ends do not meet is an ERROR.
 *
 * The ends run on any thread (the backend's parallel-for hands each to a
 * thread): they call nothing of PostgreSQL's but pure functions, deform the
 * first sort column with a copy of the rows' descriptor each (deforming
 * caches offsets in the descriptor), take the keys only of columns whose
 * key function is pure arithmetic (the caller sees to that), and write
 * with pwrite on a duplicate of fd.c's descriptor.  So fd.c counts the
 * run's bytes before any is written (BitonicRunWriterReserve), where
 * temp_file_limit gives its ERROR; a failed write (a full disk) is the same
 * ERROR as the writer's own, raised on the backend once both ends stop.
 * Each end asks the interrupt probe after each claim, and the backend
 * checks for interrupts between rounds.
 *
 * Runs.c writes so only runs of bitonic_sort.both_ends_run_size or more
 * (runs the caches hold go faster from one core, whose cache holds the
 * rows it stored), and the node sorts them whole, not in parts
 * (sort_parts.c), whose last part the back would wait for: the order is
 * final when the run is written.
 *
 * A run written behind the input (BitonicRunBehind) is the same job with
 * one end: the front claims every row, on a worker thread of its own,
 * while the backend reads the next run's rows; it runs to the run's end
 * (no interrupt probe: the backend checks for interrupts as it reads) or
 * until it is told to stop, and the backend raises a failed write when it
 * waits for the run.
 */
#include "scan/run_ends.h"

#include "core/parallel.h"
#include "core/worker.h"
#include "scan/store.h"

#include <unistd.h>

#include "access/htup_details.h"
#include "miscadmin.h"
#include "port/atomics.h"

/* Places an end claims at a time (the interrupt probe is asked after each claim). */
#define CLAIM_ROWS 512

/*
 * One end of a run being written: its buffer and where its next bytes go.
 * Each end has cache lines of its own: the two ends' counts, on one line,
 * made each record a miss for the other thread.
 */
typedef struct pg_attribute_aligned(2 * PG_CACHE_LINE_SIZE) RunEnd
{
	bool		back;			/* the back: rows from the last place down */
	char	   *buf;
	size_t		used;			/* bytes in buf: its first (front) or last (back) */
	off_t		offset;			/* front: the next byte to write; back: the byte after it */
	int			fd;
	TupleDesc	tupdesc;
	int			err;			/* errno of a failed write, or 0 */
	bool		finished;		/* no place left to claim, and the buffer written */
} RunEnd;

/* Both ends of one run, and the places neither has claimed yet. */
typedef struct RunEnds
{
	const BitonicRunEndsTarget *target;
	const BitonicRunRows *rows;
	const bs_hooks *hooks;		/* NULL: the front runs to its end (a run written behind) */
	RunEnd		ends[2];
	/* on lines of their own, written by both ends */
	pg_atomic_uint64 claims pg_attribute_aligned(2 * PG_CACHE_LINE_SIZE);	/* first unclaimed place << 32 | the place after the last */
	pg_atomic_uint32 failed;	/* an end's write failed: both stop */
	char		pad[2 * PG_CACHE_LINE_SIZE];
} RunEnds;

/* Write n bytes at offset, as many writes as it takes; false (end->err set) on a failure. */
static bool
write_all(RunEnds *job, RunEnd *end, const char *bytes, size_t n, off_t offset)
{
	while (n > 0 && end->err == 0)
	{
		ssize_t		done = pwrite(end->fd, bytes, n, offset);

		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0)
		{
			/* a write that wrote nothing and set no errno: the disk is full */
			end->err = done < 0 ? errno : ENOSPC;
			pg_atomic_write_u32(&job->failed, 1);
			break;
		}
		bytes += done;
		n -= (size_t) done;
		offset += done;
	}
	return end->err == 0;
}

/* Write out what the end's buffer holds, where it goes in the run. */
static void
flush_end(RunEnds *job, RunEnd *end)
{
	size_t		size = job->target->buf_size;

	if (end->used == 0)
		return;
	if (end->back)
	{
		write_all(job, end, end->buf + size - end->used, end->used, end->offset - end->used);
		end->offset -= end->used;
	}
	else
	{
		write_all(job, end, end->buf, end->used, end->offset);
		end->offset += end->used;
	}
	end->used = 0;
}

/*
 * Add a record to the end: into its buffer (after the front's bytes, or
 * before the back's), written out first where the record does not fit; a
 * record longer than the buffer is written in pieces where it goes.
 */
static void
put_record(RunEnds *job, RunEnd *end, uint64 key, bool isnull, MinimalTuple tuple)
{
	static const char zeros[MAXIMUM_ALIGNOF] = {0};
	size_t		size = job->target->buf_size;
	size_t		bytes = BitonicRunRecordBytes(tuple->t_len);
	size_t		len = tuple->t_len;
	char		head[BITONIC_RECORD_HEAD_BYTES];
	off_t		at;

	if (bytes > size - end->used)
		flush_end(job, end);
	if (bytes <= size)
	{
		char	   *p = end->back ? end->buf + size - end->used - bytes : end->buf + end->used;

		BitonicRunRecordWrite(p, key, isnull, tuple, bytes);
		end->used += bytes;
		return;
	}
	at = end->back ? end->offset - (off_t) bytes : end->offset;
	BitonicRunRecordHead(head, key, isnull, tuple);
	(void) (write_all(job, end, head, sizeof(head), at) &&
			write_all(job, end, (const char *) tuple + MINIMAL_TUPLE_DATA_OFFSET,
					  len - MINIMAL_TUPLE_DATA_OFFSET, at + sizeof(head)) &&
			write_all(job, end, zeros, bytes - BITONIC_RECORD_KEY_BYTES - len,
					  at + BITONIC_RECORD_KEY_BYTES + len));
	end->offset = end->back ? at : at + (off_t) bytes;
}

/*
 * The key of a row's first sort column: pure arithmetic, or the prefix of
 * text in byte order, which the caller has seen is neither compressed nor
 * stored apart in any row (run_file.h's BitonicRunRecordKey).
 */
static inline uint64
row_key(const BitonicMultiSort *ms, Datum value, bool isnull)
{
	if (!isnull && ms->text_prefix)
		return BitonicTextPrefixKeyPlain((const struct varlena *) DatumGetPointer(value)) ^
			ms->key_flip;
	return BitonicRunRecordKey(ms, value, isnull);
}

/* Add the row to the end's records, with its first sort column's key (or NULL). */
static void
put_row(RunEnds *job, RunEnd *end, MinimalTuple tuple)
{
	bool		isnull;
	Datum		value = BitonicStoredAttr(tuple, job->target->attno, end->tupdesc, &isnull);

	put_record(job, end, row_key(job->target->ms, value, isnull), isnull, tuple);
}

/*
 * Write the rows of places [from, to) at the end: the front in ascending
 * order, the back descending.
 */
static void
put_places(RunEnds *job, RunEnd *end, size_t from, size_t to)
{
	const BitonicRunRows *rows = job->rows;

	if (!end->back)
	{
		for (size_t pos = from; pos < to && end->err == 0; pos++)
		{
			if (pos + BITONIC_ROW_PREFETCH < rows->nrows)
				BitonicStorePrefetch(rows->row(rows->arg, pos + BITONIC_ROW_PREFETCH));
			put_row(job, end, rows->row(rows->arg, pos));
		}
		return;
	}
	for (size_t pos = to; pos-- > from && end->err == 0;)
	{
		if (pos >= BITONIC_ROW_PREFETCH)
			BitonicStorePrefetch(rows->row(rows->arg, pos - BITONIC_ROW_PREFETCH));
		put_row(job, end, rows->row(rows->arg, pos));
	}
}

/* Claim the next CLAIM_ROWS places (or fewer) at the end: false when none is left. */
static bool
claim(RunEnds *job, bool back, size_t *from, size_t *to)
{
	uint64		cur = pg_atomic_read_u64(&job->claims);

	for (;;)
	{
		uint64		front = cur >> 32;
		uint64		rear = cur & UINT64CONST(0xFFFFFFFF);
		uint64		take;
		uint64		next;

		if (front >= rear)
			return false;
		take = Min((uint64) CLAIM_ROWS, rear - front);
		next = back ? (front << 32) | (rear - take) : ((front + take) << 32) | rear;
		if (pg_atomic_compare_exchange_u64(&job->claims, &cur, next))
		{
			*from = back ? rear - take : front;
			*to = back ? rear : front + take;
			return true;
		}
	}
}

/*
 * Write at the end until no place is left (its buffer then written out),
 * a write fails, or an interrupt waits (the end goes on at the next round).
 */
static void
run_end(RunEnds *job, RunEnd *end)
{
	size_t		from;
	size_t		to;

	while (!end->finished)
	{
		if (pg_atomic_read_u32(&job->failed) != 0 || !claim(job, end->back, &from, &to))
		{
			flush_end(job, end);
			end->finished = true;
			return;
		}
		put_places(job, end, from, to);
		if (job->hooks != NULL && job->hooks->pending(job->hooks->arg))
			return;
	}
}

/* Parallel-for task: items are the ends (0 the front, 1 the back). */
static void
ends_task(void *ctx, size_t begin, size_t end)
{
	RunEnds    *job = (RunEnds *) ctx;

	for (size_t i = begin; i < end; i++)
		run_end(job, &job->ends[i]);
}

/* Set up the job of writing rows at target, its ends' buffers and offsets. */
static void
init_job(RunEnds *job, const BitonicRunEndsTarget *target, const BitonicRunRows *rows,
		 const bs_hooks *hooks)
{
	Assert(rows->nrows < UINT64CONST(0xFFFFFFFF) && target->bytes >= MAXIMUM_ALIGNOF);
	memset(job, 0, sizeof(RunEnds));
	job->target = target;
	job->rows = rows;
	job->hooks = hooks;
	pg_atomic_init_u64(&job->claims, (uint64) rows->nrows);
	pg_atomic_init_u32(&job->failed, 0);
	for (int i = 0; i < 2; i++)
	{
		RunEnd	   *end = &job->ends[i];

		end->back = i == 1;
		end->buf = target->bufs[i];
		end->offset = end->back ? target->start + target->bytes : target->start;
		end->fd = target->fd;
		end->tupdesc = target->tupdescs[i];
	}
#ifdef BITONIC_TEST_BUILD
	/*
	 * the ends' writes fail (EBADF), as an I/O error would: both, since a
	 * helper slow to start leaves every row to the front
	 */
	if (bitonic_sort_test_fault == BITONIC_FAULT_RUN_WRITE)
		job->ends[0].fd = job->ends[1].fd = -1;
#endif
}

/* The job's write errors as ERRORs, then ends that did not meet. */
static void
report_job(const RunEnds *job)
{
	for (int i = 0; i < 2; i++)
		if (job->ends[i].err != 0)
			BitonicRunReportWriteError(job->target->file, job->ends[i].err);
	if (job->ends[0].offset != job->ends[1].offset)
		elog(ERROR, "the ends of a bitonic_sort run do not meet: byte %lld against %lld",
			 (long long) job->ends[0].offset, (long long) job->ends[1].offset);
}

/*
 * Write the rows of the run begun at target->start, target->bytes long
 * (the caller has reserved them), from both ends at once: see the top of
 * the file.  ERROR where a write fails, or where the ends do not meet.
 */
void
BitonicRunEndsWrite(const BitonicRunEndsTarget *target, const BitonicRunRows *rows)
{
	RunEnds		job;

	init_job(&job, target, rows, BitonicCoreHooks());
	while (!job.ends[0].finished || !job.ends[1].finished)
		bs_parallel_for_checked(Min(target->threads, 2), 2, 1, 2, ends_task, &job, job.hooks);
	report_job(&job);
}

/*
 * A run written behind the input: its front alone, on a worker thread of
 * its own, while the backend reads the next run's rows.  The job must stay
 * where it is while the worker runs: the owner's memory holds it aligned.
 */
struct BitonicRunBehind
{
	RunEnds		job;
	BitonicRunEndsTarget target;
	BitonicRunRows rows;
	bs_worker	worker;
	bool		started;		/* the worker was asked for (it may have failed to start) */
	bool		writing;		/* a run is handed over and not finished */
};

/* Worker job: the front claims and writes every row, or stops once told to. */
static void
behind_job(void *arg)
{
	BitonicRunBehind *behind = (BitonicRunBehind *) arg;
	RunEnd	   *front = &behind->job.ends[0];

	while (!front->finished)
		run_end(&behind->job, front);
}

/* A writer of runs behind the input, in cxt; its thread starts with its first run. */
BitonicRunBehind *
BitonicRunBehindCreate(MemoryContext cxt)
{
	void	   *allocated = MemoryContextAllocZero(cxt, sizeof(BitonicRunBehind) +
												  2 * PG_CACHE_LINE_SIZE);

	return (BitonicRunBehind *) TYPEALIGN(2 * PG_CACHE_LINE_SIZE, allocated);
}

/* Whether the worker runs, started on the first call; false where no thread can be had. */
bool
BitonicRunBehindReady(BitonicRunBehind *behind)
{
	if (!behind->started)
	{
		behind->started = true;
		(void) bs_worker_start(&behind->worker);
	}
	return behind->worker.running;
}

/*
 * Hand the run begun at target->start (its bytes reserved by the caller)
 * to the worker, which must be ready: it writes the rows from the run's
 * first byte on through the front's buffer while the caller goes on; the
 * rows and the buffer must stay until BitonicRunBehindFinish.
 */
void
BitonicRunBehindStart(BitonicRunBehind *behind, const BitonicRunEndsTarget *target,
					  const BitonicRunRows *rows)
{
	Assert(!behind->writing && behind->worker.running);
	behind->target = *target;
	behind->rows = *rows;
	init_job(&behind->job, &behind->target, &behind->rows, NULL);
	/* the front alone: it claims every place, and must reach the back's offset */
	behind->job.ends[1].finished = true;
	behind->writing = true;
	bs_worker_run(&behind->worker, behind_job, behind);
}

/* Whether a run is being written behind. */
bool
BitonicRunBehindWriting(const BitonicRunBehind *behind)
{
	return behind != NULL && behind->writing;
}

/*
 * Wait for the run handed over to be written: ERROR where a write failed
 * or the run came out short.
 */
void
BitonicRunBehindFinish(BitonicRunBehind *behind)
{
	if (!behind->writing)
		return;
	bs_worker_wait(&behind->worker);
	behind->writing = false;
	report_job(&behind->job);
}

/*
 * Stop the worker at once, the run left unwritten (an ERROR or the sort's
 * end: the run's file goes too), and join it; safe in a reset callback.
 */
void
BitonicRunBehindStop(BitonicRunBehind *behind)
{
	if (behind == NULL)
		return;
	pg_atomic_write_u32(&behind->job.failed, 1);
	bs_worker_stop(&behind->worker);
	behind->writing = false;
	behind->started = false;
}
