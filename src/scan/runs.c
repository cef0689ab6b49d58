/*
 * runs.c — the external sort of a BitonicSort node.
 *
 * Where the rows outgrow work_mem, the node sorts what it holds with the
 * sorter it uses in memory, and hands the rows here in order: each becomes
 * a record of a run in a temporary file of PostgreSQL's (run_file.c: as
 * for tuplesort's runs, temp_tablespaces, temp_file_limit, log_temp_files,
 * the temp file statistics and the clean-up at an error apply), with the
 * normalized key of its first sort column.  The node then frees its memory
 * and goes on with the next run.  Runs of one level share a file, `order`
 * of them at most, which is deleted once they are all read: one file for a
 * sort merged in one pass (a file each cost ext4 0.4 ms to create, 7% of a
 * 10M-row sort at 4 MB).  A merge of a level's `order` runs frees their
 * file when it ends; where runs hardly overlap (presorted input), a run
 * read early no longer frees its space before the others.
 *
 * The runs are merged by a loser tree that compares the keys, and calls the
 * full comparators only where two keys are equal and the key is not exact
 * (or there are more sort columns); equal rows come from the earlier run,
 * so ties keep their input order, as in memory.  As many runs are merged
 * at once as work_mem has read buffers for ("order"): runs are kept in a
 * stack by level, and `order` runs of one level are merged into one of the
 * next as soon as they are there, so the runs never outgrow the memory that
 * names them, and each row is merged once per level (a 4 MB sort of 1 GB:
 * one merge).  From the second run on, where it may, a thread writes each
 * run while the node reads the next (BitonicRunsPutRowsBehind), each run
 * in half the memory.  The final merge hands rows out as the node's
 * consumer asks; where it may go backwards, mark or rewind, it goes to a
 * tuplestore on disk instead, which serves those.
 */
#include "scan/runs.h"

#include "core/parallel.h"

#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/memutils.h"

/* Largest read buffer of a run in a merge, and the largest write buffer. */
#define RUNS_MAX_BUFFER ((size_t) 256 * 1024)

/* Share of the memory a run's write buffer takes (1/32: 128 kB of 4 MB). */
#define RUNS_WRITE_SHARE 32

/*
 * Share of work_mem a run's rows take, for the merge's plan; and a run's
 * written behind the input, which has half the memory, and pays its fixed
 * costs (the sort's scratch, a block's slack) from that half (measured at
 * 1MB, 40,000 rows of 186 bytes: 0.75 of work_mem in rows' blocks written
 * in place, 0.32 behind; the planner's estimate of the rows' bytes is
 * lower than the blocks they fill).
 */
#define RUNS_ROWS_SHARE 0.6
#define RUNS_BEHIND_ROWS_SHARE 0.2

/* Most runs merged at once. */
#define RUNS_MAX_ORDER 2048

/*
 * Least read buffer of a run: a merge of runs planned to be mapped takes
 * buffers so small where the runs cannot be mapped after all.
 */
#define RUNS_MAPPED_MIN_BUFFER ((size_t) 2048)

/*
 * Runs are read mapped only where work_mem is this or more, and their
 * readers (kept between merges) take at most this share's inverse of it:
 * below, they would leave the runs' rows too little (at 64kB, 18 readers
 * left each run a few rows).
 */
#define RUNS_MAPPED_MIN_MEMORY ((size_t) 1024 * 1024)
#define RUNS_MAPPED_READERS_SHARE 4

/* Bytes of all runs read mapped that are touched ahead of the merge, at most. */
#define RUNS_TOUCH_AHEAD_BYTES ((size_t) 8 * 1024 * 1024)

/* Memory of the runs' state besides their buffers and the merge's readers. */
#define RUNS_FIXED_BYTES ((size_t) 1024)

/* Memory of the tuplestore of a merge that may go backwards, before it goes to disk. */
#define RUNS_MERGED_KB 64

/*
 * Least work_mem whose runs are written behind the input: below it runs
 * are many and short, and each hand-over wakes the thread and waits for it.
 */
#define RUNS_BEHIND_MIN_MEMORY ((size_t) 1024 * 1024)

/* Rows between interrupt checks. */
#define RUNS_CHECK_EVERY 1024

static void release_threads(void *arg);

/* The least bytes of rows of a run written from both ends. */
static inline size_t
both_ends_min_bytes(void)
{
	return (size_t) bitonic_sort_both_ends_run_size * 1024;
}

/* Memory of a reader besides its buffer: its slot, a row cut by the buffer's end, the tree. */
static size_t
reader_bytes(TupleDesc tupdesc, double row_bytes)
{
	return sizeof(BitonicRunReader) + sizeof(BitonicMergeEntry) + sizeof(int) +
		sizeof(BitonicRun) + sizeof(BitonicRunsFile) +
		MAXALIGN(sizeof(MinimalTupleTableSlot)) +
		MAXALIGN(tupdesc->natts * (sizeof(Datum) + sizeof(bool))) +
		MAXALIGN((size_t) row_bytes) + 256;
}

/* The write buffer for a sort of mem_limit bytes: a share of it, in blocks. */
static size_t
write_buffer_size(size_t mem_limit)
{
	size_t		size = TYPEALIGN_DOWN(BLCKSZ, Min(mem_limit / RUNS_WRITE_SHARE, RUNS_MAX_BUFFER));

	return Max(size, BLCKSZ);
}

/* Whether the settings let a thread decide a final merge's order: merge_thread, a second thread. */
static bool
merge_thread_set(void)
{
	return bitonic_sort_merge_thread && bitonic_sort_cpu_threads > 1;
}

/*
 * Whether a thread may decide the final merge's order (start_merge_order):
 * the settings, keys that decide alone or ties the thread can decide
 * (merge_tie.h), and no merge to a tuplestore.
 */
static bool
merge_thread_allowed(const BitonicRuns *runs)
{
	return merge_thread_set() && (runs->keys_decide || runs->thread_tie != NULL) &&
		!runs->keys_only && !runs->random_access;
}

/*
 * Whether the settings let a thread decide the final merge's order of an
 * external sort in mem_limit bytes whose keys allow it (for the planner:
 * merge_thread_allowed, where the runs are mapped).
 */
bool
BitonicRunsMergeThreadExpected(size_t mem_limit)
{
	return merge_thread_set() && bitonic_sort_map_runs != BITONIC_MAP_RUNS_OFF &&
		mem_limit >= RUNS_MAPPED_MIN_MEMORY;
}

/*
 * Plan the merges: a read buffer that lets the runs the planner's estimate
 * comes to be merged at once, within the memory the merge has besides the
 * write buffer, from one block to RUNS_MAX_BUFFER, and as many runs at once
 * as such buffers fit.  Where more runs are expected than that, or a
 * thread may decide the final merge's order (which reads mapped runs:
 * 10M rows at 64 MB, 12% less time than buffers), or bitonic_sort.map_runs
 * is on, and work_mem allows, the runs are read mapped, which needs no
 * buffer: as many are merged at once as fit with buffers of
 * RUNS_MAPPED_MIN_BUFFER, which a merge takes where a run cannot be mapped
 * after all, and whose readers take a quarter of the budget.  (Mapped
 * runs the backend merges itself took 2% longer than buffers that the
 * thread reading ahead fills, where those can take the runs at once.)  A
 * run's rows take run_share of mem_limit (0.6, less for runs written
 * behind).  Returns the runs expected.
 */
static double
plan_merge(const BitonicRuns *runs, size_t mem_limit, double expected_bytes, double row_bytes,
		   double run_share, BitonicMergePlan *plan)
{
	size_t		fixed = RUNS_FIXED_BYTES + runs->writer.size +
		(runs->random_access ? RUNS_MERGED_KB * 1024 : 0);
	size_t		budget = mem_limit > fixed ? mem_limit - fixed : 0;
	size_t		per_reader = reader_bytes(runs->tupdesc, row_bytes);
	double		expected_runs = Max(2.0, ceil(expected_bytes / Max(mem_limit * run_share, 1.0)) + 1);
	double		share = budget / expected_runs;
	size_t		buffer = share > per_reader ? (size_t) share - per_reader : 0;
	bool		may_map = mem_limit >= RUNS_MAPPED_MIN_MEMORY &&
		bitonic_sort_map_runs != BITONIC_MAP_RUNS_OFF;
	int			buffered;
	int			mapped;

	buffer = TYPEALIGN_DOWN(BLCKSZ, Min(buffer, RUNS_MAX_BUFFER));
	plan->buffer_size = Max(buffer, BLCKSZ);
	plan->budget = budget;
	plan->per_reader = per_reader;
	buffered = (int) Min(budget / (plan->buffer_size + per_reader), RUNS_MAX_ORDER);
	mapped = (int) Min(Min(budget / (RUNS_MAPPED_MIN_BUFFER + per_reader),
						   budget / (RUNS_MAPPED_READERS_SHARE * per_reader)),
					   RUNS_MAX_ORDER);
	/* for the thread only where no merge pass more comes of it (wide rows: fewer readers fit) */
	plan->mapped = may_map &&
		(bitonic_sort_map_runs == BITONIC_MAP_RUNS_ON ||
		 (expected_runs <= Min(buffered, mapped) && merge_thread_allowed(runs)) ||
		 (expected_runs > buffered && mapped > buffered));
	plan->order = Max(plan->mapped ? mapped : buffered, 2);
	return expected_runs;
}

/*
 * The read buffer of each of n runs merged through buffers: the plan's, or
 * less where more runs than it expected share the budget (runs planned to
 * be mapped), down to RUNS_MAPPED_MIN_BUFFER.
 */
static size_t
read_buffer_size(const BitonicRuns *runs, int n)
{
	const BitonicMergePlan *plan = &runs->plan;
	size_t		share = plan->budget / n;
	size_t		buffer = share > plan->per_reader ? share - plan->per_reader : 0;

	buffer = TYPEALIGN_DOWN(MAXIMUM_ALIGNOF, Min(buffer, plan->buffer_size));
	return Max(buffer, RUNS_MAPPED_MIN_BUFFER);
}

/*
 * The runs are to be written behind the input from now on (the first is
 * written), each half as large: plan the merge for twice as many runs
 * (the arguments as BitonicRunsBegin's).  False, the plan kept, where the
 * runs may not be written so, or where that many would pass the merge's
 * order: a merge pass more costs more than the thread saves.
 */
bool
BitonicRunsWriteBehind(BitonicRuns *runs, size_t mem_limit, double expected_bytes, double row_bytes)
{
	BitonicMergePlan plan;
	double		expected_runs;

	Assert(runs->nruns <= 1);
	if (runs->behind == NULL)
		return false;
	expected_runs = plan_merge(runs, mem_limit, expected_bytes, row_bytes,
							   RUNS_BEHIND_ROWS_SHARE, &plan);
	if (expected_runs > plan.order)
		return false;
	runs->plan = plan;
	return true;
}

/*
 * Whether the next run, once ended, makes `order` runs of the first level,
 * which are then merged (BitonicRunsEndRun): the node writes such a run
 * itself, its memory freed before the merge takes its buffers.
 */
bool
BitonicRunsNextEndMerges(const BitonicRuns *runs)
{
	int			same = 0;

	while (same < runs->nruns && runs->runs[runs->nruns - 1 - same].level == 0)
		same++;
	return same + 1 >= runs->plan.order;
}

/*
 * Begin the external sort of a node: its comparators and key function (the
 * node's multisort), the sort columns, the rows' descriptor, the memory the
 * merge may take, what the planner expects the input to take, whether
 * the sorted rows are read backwards, marked or rewound, and whether the
 * runs hold one column whose key is its value (the node's keys alone,
 * values.c: each run is its keys alone, flipped by key_xor, and a count of
 * its NULLs, and the merge hands values out in a virtual slot).
 */
BitonicRuns *
BitonicRunsBegin(const BitonicMultiSort *ms, int nkeys, const AttrNumber *attnos,
				 TupleDesc tupdesc, size_t mem_limit, double expected_bytes,
				 double row_bytes, bool random_access, bool keys_only, uint64 key_xor,
				 MemoryContext parent)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "bitonic_sort runs",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	BitonicRuns *runs = palloc0(sizeof(BitonicRuns));

	runs->cxt = cxt;
	/*
	 * the readers' buffers, emptied after each merge: chunks freed into a
	 * context stay counted in it (on PostgreSQL 18 even with small blocks),
	 * and a run written next would take what work_mem leaves them
	 */
	runs->read_cxt = AllocSetContextCreate(cxt, "bitonic_sort run buffers",
										   ALLOCSET_SMALL_SIZES);
	runs->ms = ms;
	runs->nkeys = nkeys;
	runs->attnos = attnos;
	runs->key_exact = BitonicKeyKindExact(ms->kind);
	runs->keys_decide = runs->key_exact && nkeys == 1;
	runs->text_plain = true;
	if (!runs->keys_decide && !keys_only)
	{
		runs->thread_tie = palloc(sizeof(BitonicMergeTieSpec));
		if (!BitonicMergeTieInit(runs->thread_tie, ms, nkeys, attnos, tupdesc))
		{
			pfree(runs->thread_tie);
			runs->thread_tie = NULL;
		}
	}
	runs->tupdesc = tupdesc;
	runs->random_access = random_access;
	runs->keys_only = keys_only;
	runs->key_xor = key_xor;
	Assert(!keys_only || (nkeys == 1 && runs->keys_decide && tupdesc->natts == 1));
	if (keys_only)
		runs->key_slot = MakeSingleTupleTableSlot(tupdesc, &TTSOpsVirtual);
	BitonicRunWriterInit(&runs->writer, write_buffer_size(mem_limit), &runs->disk);
	/*
	 * runs written from both ends (run_ends.c) need a second thread, keys
	 * a thread may compute (exact keys, pure arithmetic, or none; text in
	 * byte order where none of a run's values needs a detoast, which the
	 * node checks for each run: its key is then its first bytes), and
	 * memory for runs of bitonic_sort.both_ends_run_size; runs of keys
	 * alone are written by the backend
	 */
	if (!keys_only && bitonic_sort_cpu_threads > 1 &&
		(ms->key_of == NULL || runs->key_exact || ms->text_prefix))
	{
		runs->both_ends = mem_limit >= both_ends_min_bytes();
		/* and runs written behind the input, by a thread of their own (the same keys) */
		if (bitonic_sort_write_runs_behind && mem_limit >= RUNS_BEHIND_MIN_MEMORY)
			runs->behind = BitonicRunBehindCreate(cxt);
		for (int i = 0; i < 2 && (runs->both_ends || runs->behind != NULL); i++)
			runs->end_tupdescs[i] = CreateTupleDescCopyConstr(tupdesc);
	}
	(void) plan_merge(runs, mem_limit, expected_bytes, row_bytes, RUNS_ROWS_SHARE, &runs->plan);
	runs->runs_cap = 16;
	runs->runs = palloc(sizeof(BitonicRun) * runs->runs_cap);
	runs->files_cap = 4;
	runs->files = palloc(sizeof(BitonicRunsFile) * runs->files_cap);
	runs->writing_file = -1;
	runs->release_guard.func = release_threads;
	runs->release_guard.arg = runs;
	MemoryContextRegisterResetCallback(cxt, &runs->release_guard);
	/*
	 * each run is sorted by two or three parallel-fors: their helpers wait
	 * for the next run's (295 runs of 10M rows at 4 MB started 590 threads,
	 * 0.1 ms each in the kernel on the test VM)
	 */
	bs_parallel_keep_helpers();
	MemoryContextSwitchTo(old);
	return runs;
}

/*
 * Memory the runs take now: buffers, readers, the merge's tuplestore; not
 * the rows of a run written behind, which the node counts as its own.
 */
static size_t
runs_bytes(BitonicRuns *runs)
{
	size_t		bytes = MemoryContextMemAllocated(runs->cxt, true);

	if (runs->behind_cxt != NULL)
		bytes -= MemoryContextMemAllocated(runs->behind_cxt, true);
	return bytes;
}

/* Count the memory the runs take now in its peak (the files count their own). */
static void
note_peak(BitonicRuns *runs)
{
	runs->peak_bytes = Max(runs->peak_bytes, runs_bytes(runs));
}

/* A new file for runs of the given level; its index in files. */
static int
new_file(BitonicRuns *runs, int level)
{
	BitonicRunsFile *f;

	if (runs->nfiles == runs->files_cap)
	{
		runs->files_cap *= 2;
		runs->files = repalloc(runs->files, sizeof(BitonicRunsFile) * runs->files_cap);
	}
	f = &runs->files[runs->nfiles];
	f->file = BitonicRunFileCreate();
	f->fd = -1;
	f->size = 0;
	f->level = level;
	f->runs = 0;
	f->unread = 0;
	return runs->nfiles++;
}

/*
 * Begin writing a run of the given level at the end of the last file of
 * that level, or of a new file where that one is deleted or full.
 */
static void
start_writing(BitonicRuns *runs, int level)
{
	int			f = runs->nfiles - 1;

	while (f >= 0 && runs->files[f].level != level)
		f--;
	if (f < 0 || runs->files[f].file == RUN_FILE_NONE || runs->files[f].runs >= runs->plan.order)
		f = new_file(runs, level);
	runs->files[f].runs++;
	runs->files[f].unread++;
	runs->writing_file = f;
	BitonicRunWriterBegin(&runs->writer, runs->files[f].file, runs->files[f].size);
}

/* Close file f's descriptor for the reading thread, if it has one. */
static void
close_thread_fd(BitonicRunsFile *file)
{
	if (file->fd < 0)
		return;
	close(file->fd);
	ReleaseExternalFD();
	file->fd = -1;
}

/* Close and delete file f (no read of it is asked for). */
static void
drop_file(BitonicRuns *runs, int f)
{
	BitonicRunsFile *file = &runs->files[f];

	close_thread_fd(file);
	BitonicRunFileDrop(file->file, file->size, &runs->disk);
	file->file = RUN_FILE_NONE;
}

/* A run of file f is read to its end: delete the file once all its runs are. */
static void
run_read(BitonicRuns *runs, int f)
{
	BitonicRunsFile *file = &runs->files[f];

	Assert(file->unread > 0);
	if (--file->unread > 0)
		return;
	drop_file(runs, f);
}

/*
 * A duplicate of file f's descriptor for the runs' threads (the reading
 * thread, the ends of a run written from both): counted as an external
 * descriptor, so that fd.c, which may close its own to make room for
 * others, never closes this one; -1 where no descriptor is left.
 */
static int
dup_fd(BitonicRuns *runs, int f)
{
	BitonicRunsFile *file = &runs->files[f];
	int			fd;

	if (file->fd >= 0 || !AcquireExternalFD())
		return file->fd;
	/* FileSize opens fd.c's descriptor where fd.c closed it */
	fd = FileSize(file->file) < 0 ? -1 :
		fcntl(FileGetRawDesc(file->file), F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		ReleaseExternalFD();
	file->fd = fd;
	return fd;
}

/*
 * File f's descriptor for the thread that reads ahead; -1 (the merge reads
 * the file itself) where there is no thread or no descriptor left.
 */
static int
thread_fd(BitonicRuns *runs, int f)
{
	return runs->ahead.running ? dup_fd(runs, f) : runs->files[f].fd;
}

/* Stop the thread deciding the final merge's order, if it runs. */
static void
stop_merge_order(BitonicRuns *runs)
{
	if (runs->merge_order != NULL)
		BitonicMergeOrderStop(runs->merge_order);
}

/*
 * read_cxt goes (reset after a merge, or deleted with the runs at an error):
 * stop the thread that reads the runs for the merge's order, drop the
 * reads still asked for into it and wait for the one under way, and unmap
 * the runs left unread (a mapping holds its file's space).
 */
static void
cancel_reads(void *arg)
{
	BitonicRuns *runs = (BitonicRuns *) arg;

	stop_merge_order(runs);
	bs_read_ahead_cancel(&runs->ahead);
	for (int i = 0; runs->readers != NULL && i < runs->plan.order; i++)
		if (runs->readers[i].map != NULL)
			BitonicRunReaderUnmap(&runs->readers[i]);
	runs->reads_guarded = false;
}

/*
 * The runs go (their end, or an error): stop the reading thread, then
 * close its descriptors (fd.c closes and deletes the files themselves), and
 * join the helpers kept for the runs' sorts.
 */
static void
release_threads(void *arg)
{
	BitonicRuns *runs = (BitonicRuns *) arg;

	stop_merge_order(runs);
	BitonicRunBehindStop(runs->behind);
	bs_read_ahead_stop(&runs->ahead);
	for (int f = 0; f < runs->nfiles; f++)
		close_thread_fd(&runs->files[f]);
	bs_parallel_release_helpers();
}

/*
 * Start the thread that reads the merges' runs ahead, where
 * bitonic_sort.cpu_threads allows a second thread and the budget has one;
 * tried again at each merge where it could not start (a merge while the
 * runs' sorts keep their helpers may find the budget full, the final one
 * not).
 */
static void
start_reading_thread(BitonicRuns *runs)
{
	if (runs->ahead.running || bitonic_sort_cpu_threads <= 1)
		return;
	(void) bs_read_ahead_start(&runs->ahead);
}

/*
 * Start a run; its rows follow in order (BitonicRunsPut).  text_plain: no
 * first-column value of it needs a detoast (BitonicMultiSortTextPlain),
 * which a thread deciding the merge's ties from the records needs of
 * every run.
 */
void
BitonicRunsStartRun(BitonicRuns *runs, bool text_plain)
{
	MemoryContext old = MemoryContextSwitchTo(runs->cxt);

	runs->text_plain &= text_plain;
	start_writing(runs, 0);
	MemoryContextSwitchTo(old);
}

/*
 * Whether a run whose rows take row_bytes will be written from both ends
 * at once (BitonicRunsPutRows): where the runs may be, and the run is as
 * large as bitonic_sort.both_ends_run_size (measured on a 2-core VM, 10M
 * rows: runs of 4 MB took 13% longer from both ends, of 16 MB as long,
 * of 32 MB 13% less time, of 64 MB 17% less: a second core gathering rows
 * that the first core's cache holds reads them from it).
 */
bool
BitonicRunsBothEnds(const BitonicRuns *runs, size_t row_bytes)
{
	return runs->both_ends && row_bytes >= both_ends_min_bytes();
}

/*
 * Where threads write the rows of the run just started, in file f, by
 * `ends` ends (1 or 2) that share the writer's buffer (no memory more than
 * a run written by the backend); the run's bytes are reserved in the file
 * first, where temp_file_limit gives its ERROR before any row is written.
 */
static void
reserve_target(BitonicRuns *runs, int f, const BitonicRunRows *rows, int ends,
			   BitonicRunEndsTarget *target)
{
	memset(target, 0, sizeof(BitonicRunEndsTarget));
	target->file = runs->files[f].file;
	target->fd = runs->files[f].fd;
	target->start = runs->writer.start;
	target->bytes = (off_t) (rows->row_bytes + rows->nrows * BITONIC_RECORD_KEY_BYTES);
	target->buf_size = TYPEALIGN_DOWN(MAXIMUM_ALIGNOF, runs->writer.size / ends);
	for (int i = 0; i < ends; i++)
	{
		target->bufs[i] = runs->writer.buf + i * target->buf_size;
		target->tupdescs[i] = runs->end_tupdescs[i];
	}
	target->ms = runs->ms;
	target->attno = runs->attnos[0];
	target->threads = ends == 1 ? 1 : bitonic_sort_cpu_threads;
	BitonicRunWriterReserve(&runs->writer, target->bytes);
}

/*
 * Write the run just started, all its rows, from both ends at once
 * (run_ends.c): where the keys allow it (BitonicRunsBegin), the run is
 * large enough to pay for a second thread, and a descriptor is left for
 * it.  False, with nothing written, otherwise: the caller puts the rows
 * one by one.
 */
bool
BitonicRunsPutRows(BitonicRuns *runs, const BitonicRunRows *rows)
{
	BitonicRunEndsTarget target;
	int			f = runs->writing_file;

	Assert(f >= 0 && runs->writer.offset == runs->writer.start);
	if (!BitonicRunsBothEnds(runs, rows->row_bytes) || rows->nrows < BITONIC_RUN_ENDS_MIN_ROWS ||
		rows->nrows >= UINT32_MAX || dup_fd(runs, f) < 0)
		return false;
	reserve_target(runs, f, rows, 2, &target);
	BitonicRunEndsWrite(&target, rows);
	BitonicRunWriterWritten(&runs->writer, target.bytes);
	runs->both_ends_runs++;
	return true;
}

/*
 * Reset callback of the rows of a run written behind: the thread stops
 * before they go (at an ERROR, the runs' context deletes them first).
 */
static void
stop_behind(void *arg)
{
	BitonicRunBehind *behind = (BitonicRunBehind *) arg;

	if (BitonicRunBehindWriting(behind))
		BitonicRunBehindStop(behind);
}

/*
 * Write the run just started, all its rows, behind the input: the runs'
 * thread writes them while the caller reads the next run's rows (whose
 * first sort column the thread can key: BitonicMultiSortTextPlain).  Their
 * memory, rows_cxt (the rows, and the order behind rows->row), goes under
 * the runs' context until BitonicRunsFinishBehind, so that an ERROR stops
 * the thread before the rows or its descriptor go.  False, with nothing
 * written, where the runs are not written so (BitonicRunsBegin), or no
 * thread or descriptor is to be had: the caller writes the rows itself.
 */
bool
BitonicRunsPutRowsBehind(BitonicRuns *runs, const BitonicRunRows *rows, MemoryContext rows_cxt)
{
	BitonicRunEndsTarget target;
	MemoryContextCallback *guard;
	int			f = runs->writing_file;

	Assert(f >= 0 && runs->writer.offset == runs->writer.start && runs->behind_cxt == NULL);
	if (runs->behind == NULL || rows->nrows == 0 || rows->nrows >= UINT32_MAX ||
		dup_fd(runs, f) < 0 || !BitonicRunBehindReady(runs->behind))
		return false;
	/* temp_file_limit's ERROR comes here, before the thread has the rows */
	reserve_target(runs, f, rows, 1, &target);
	MemoryContextSetParent(rows_cxt, runs->cxt);
	guard = MemoryContextAlloc(rows_cxt, sizeof(MemoryContextCallback));
	guard->func = stop_behind;
	guard->arg = runs->behind;
	MemoryContextRegisterResetCallback(rows_cxt, guard);
	runs->behind_cxt = rows_cxt;
	runs->behind_bytes = target.bytes;
	BitonicRunBehindStart(runs->behind, &target, rows);
	return true;
}

/*
 * Wait for the run being written behind, if any (ERROR where a write
 * failed), end it (BitonicRunsEndRun), and give its rows' context back,
 * emptied, under parent; NULL where no run is behind.
 */
MemoryContext
BitonicRunsFinishBehind(BitonicRuns *runs, MemoryContext parent)
{
	MemoryContext cxt = runs->behind_cxt;

	if (cxt == NULL)
		return NULL;
	BitonicRunBehindFinish(runs->behind);
	MemoryContextReset(cxt);
	MemoryContextSetParent(cxt, parent);
	runs->behind_cxt = NULL;
	BitonicRunWriterWritten(&runs->writer, runs->behind_bytes);
	runs->behind_runs++;
	BitonicRunsEndRun(runs);
	return cxt;
}

/*
 * Write the next row of the run, with the key of its first sort column's
 * value (or its NULL).
 */
void
BitonicRunsPut(BitonicRuns *runs, MinimalTuple tuple, Datum value, bool isnull)
{
	BitonicRunWriterPut(&runs->writer, BitonicRunRecordKey(runs->ms, value, isnull), isnull, tuple);
}

/* Write the next value of a run of keys alone: its key, or a NULL counted. */
void
BitonicRunsPutValue(BitonicRuns *runs, Datum value, bool isnull)
{
	Assert(runs->keys_only);
	if (isnull)
		runs->writing_nulls++;
	else
		BitonicRunWriterPutKey(&runs->writer, (uint64) DatumGetInt64(value) ^ runs->key_xor);
}

/* Write a reader's current row to the run being written. */
static void
put_reader_row(BitonicRuns *runs, const BitonicRunReader *reader)
{
	if (!runs->keys_only)
		BitonicRunWriterPut(&runs->writer, reader->key, reader->isnull, reader->tuple);
	else if (reader->isnull)
		runs->writing_nulls++;
	else
		BitonicRunWriterPutKey(&runs->writer, reader->key);
}

/*
 * A slot showing a reader's current row: its tuple in slot, or a value of
 * keys alone in the runs' virtual slot.
 */
static TupleTableSlot *
show_row(BitonicRuns *runs, const BitonicRunReader *reader, TupleTableSlot *slot)
{
	if (!runs->keys_only)
		return ExecStoreMinimalTuple(reader->tuple, slot, false);
	slot = runs->key_slot;
	ExecClearTuple(slot);
	slot->tts_values[0] = reader->isnull ? (Datum) 0 : Int64GetDatum((int64) (reader->key ^ runs->key_xor));
	slot->tts_isnull[0] = reader->isnull;
	return ExecStoreVirtualTuple(slot);
}

/* End the run being written: its file, place, size and (keys alone) NULLs. */
static void
end_writing(BitonicRuns *runs, BitonicRun *run)
{
	BitonicRunsFile *file = &runs->files[runs->writing_file];

	Assert(runs->writer.start == file->size);
	run->bytes = BitonicRunWriterEnd(&runs->writer);
	run->file = runs->writing_file;
	run->start = file->size;
	file->size += run->bytes;
	runs->writing_file = -1;
	run->nnulls = runs->writing_nulls;
	runs->writing_nulls = 0;
}

/* Reader i's current row as the loser tree holds it (after each read). */
static inline BitonicMergeEntry
entry_of(const BitonicRuns *runs, int i)
{
	const BitonicRunReader *reader = &runs->readers[i];

	return BitonicMergeEntryOf(i, reader->file == RUN_FILE_NONE, reader->isnull, reader->key,
							   runs->ms->nulls_first);
}

/*
 * Whether entry a's row goes before entry b's where their classes and keys
 * cannot tell (the tree's tie, for runs): the comparators from the first
 * column the keys left open, then the earlier run (readers are in input
 * order).
 */
static bool
rows_before(void *arg, const BitonicMergeEntry *ea, const BitonicMergeEntry *eb)
{
	const BitonicRuns *runs = (const BitonicRuns *) arg;
	int			a = TAG_READER(ea->tag);
	int			b = TAG_READER(eb->tag);
	BitonicRunReader *x = &runs->readers[a];
	BitonicRunReader *y = &runs->readers[b];
	/* both NULL, or equal exact keys: the first column is equal */
	int			first = (x->isnull || runs->key_exact) ? 1 : 0;

	for (int c = first; c < runs->nkeys; c++)
	{
		bool		nx,
					ny;
		Datum		vx = slot_getattr(BitonicRunReaderSlot(x), runs->attnos[c], &nx);
		Datum		vy = slot_getattr(BitonicRunReaderSlot(y), runs->attnos[c], &ny);
		int			r = ApplySortComparator(vx, nx, vy, ny, &runs->ms->ssup[c]);

		if (r != 0)
			return r < 0;
	}
	return a < b;
}

/* The merge's tie for equal keys: none where keys decide alone. */
static inline BitonicMergeTie
tie_of(const BitonicRuns *runs)
{
	return runs->keys_decide ? NULL : rows_before;
}

/* Reader w has a new row (or ended): play it up the tree to the root. */
static void
replay(BitonicRuns *runs, int w)
{
	bs_merge_tree_replay(runs->tree_keys, runs->tree_tags, runs->nreaders, w, entry_of(runs, w),
						 tie_of(runs), runs);
}

/* The merge's current row's reader, or NULL once every run is read. */
static BitonicRunReader *
winner(BitonicRuns *runs)
{
	uint64		tag = runs->tree_tags[0];

	if (TAG_RANK(tag) == RANK_ENDED)
		return NULL;
	return &runs->readers[TAG_READER(tag)];
}

/* Read reader i's next row; at its run's end, tell the run's file. */
static void
read_next(BitonicRuns *runs, int i)
{
	if (!BitonicRunReaderNext(&runs->readers[i]))
		run_read(runs, runs->reader_file[i]);
}

/* Read the winner's next row and play it up the tree. */
static void
advance(BitonicRuns *runs)
{
	int			w = TAG_READER(runs->tree_tags[0]);

	read_next(runs, w);
	replay(runs, w);
}

/*
 * Bytes of each of n mapped runs that the thread reading ahead touches at
 * a time, a step or two ahead of the merge: what the caches hold of all of
 * them stays within RUNS_TOUCH_AHEAD_BYTES, a page to RUNS_MAX_BUFFER each.
 */
static size_t
touch_bytes(int n)
{
	size_t		page = (size_t) sysconf(_SC_PAGESIZE);
	size_t		bytes = TYPEALIGN_DOWN(page, RUNS_TOUCH_AHEAD_BYTES / (2 * (size_t) Max(n, 1)));

	return Min(Max(bytes, page), RUNS_MAX_BUFFER);
}

/*
 * Read run `run` with reader i: mapped where the runs are and the file can
 * be (touched ahead by the thread), else through a buffer of its own (read
 * ahead by the thread).
 */
static void
open_reader(BitonicRuns *runs, int i, BitonicRun *run, int n)
{
	BitonicRunReader *reader = &runs->readers[i];
	File		file = runs->files[run->file].file;

	if (reader->slot == NULL)
		reader->slot = MakeSingleTupleTableSlot(runs->tupdesc, &TTSOpsMinimalTuple);
	runs->reader_file[i] = run->file;
	start_reading_thread(runs);
	if (runs->plan.mapped && run->bytes > 0 &&
		BitonicRunReaderMap(reader, file, run->start, run->bytes, &runs->ahead,
							touch_bytes(n)))
		runs->mapped_runs++;
	else
	{
		BitonicRunReaderOpen(reader, file, run->start, run->bytes,
							 read_buffer_size(runs, n), runs->read_cxt, &runs->ahead,
							 thread_fd(runs, run->file));
	}
	if (runs->keys_only)
		BitonicRunReaderKeysOnly(reader, run->nnulls, runs->ms->nulls_first);
	read_next(runs, i);
}

/* Read runs [first, first + n), each with a reader of its own, and play the loser tree. */
static void
open_readers(BitonicRuns *runs, int first, int n)
{
	BitonicMergeEntry *entries;

	if (runs->readers == NULL)
	{
		runs->readers = palloc0(sizeof(BitonicRunReader) * runs->plan.order);
		runs->tree_keys = palloc0(sizeof(uint64) * runs->plan.order);
		runs->tree_tags = palloc0(sizeof(uint64) * runs->plan.order);
		runs->reader_file = palloc0(sizeof(int) * runs->plan.order);
	}
	if (!runs->reads_guarded)
	{
		runs->reads_guard.func = cancel_reads;
		runs->reads_guard.arg = runs;
		MemoryContextRegisterResetCallback(runs->read_cxt, &runs->reads_guard);
		runs->reads_guarded = true;
	}
	/*
	 * each run read through buffers has about one read asked for: the
	 * thread is woken by a quarter of them, long before the merge needs the
	 * first (22 runs at 64 MB would not have reached a batch of 64, and left
	 * every read to the merge's wait)
	 */
	bs_read_ahead_batch(&runs->ahead, n / 4);
	for (int i = 0; i < n; i++)
		open_reader(runs, i, &runs->runs[first + i], n);
	runs->nreaders = n;
	entries = palloc(sizeof(BitonicMergeEntry) * n);
	for (int i = 0; i < n; i++)
		entries[i] = entry_of(runs, i);
	bs_merge_tree_build(runs->tree_keys, runs->tree_tags, n, entries, tie_of(runs), runs);
	pfree(entries);
	runs->advance = false;
	note_peak(runs);
}

/*
 * Merge the last n runs into one run in a new file, a level above the
 * highest of them.
 */
static void
merge_tail(BitonicRuns *runs, int n)
{
	int			first = runs->nruns - n;
	int			level = 0;
	BitonicRunReader *reader;
	uint64		i = 0;

	for (int r = first; r < runs->nruns; r++)
		level = Max(level, runs->runs[r].level + 1);
	open_readers(runs, first, n);
	start_writing(runs, level);
	while ((reader = winner(runs)) != NULL)
	{
		put_reader_row(runs, reader);
		advance(runs);
		if ((++i % RUNS_CHECK_EVERY) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	note_peak(runs);
	/* every reader is at its end: give back their buffers' blocks too */
	MemoryContextReset(runs->read_cxt);
	end_writing(runs, &runs->runs[first]);
	runs->runs[first].level = level;
	runs->nruns = first + 1;
}

/*
 * The run is written: keep its file for its merge, and merge the last
 * `order` runs where they are all of one level.
 */
void
BitonicRunsEndRun(BitonicRuns *runs)
{
	MemoryContext old = MemoryContextSwitchTo(runs->cxt);

	note_peak(runs);
	if (runs->nruns == runs->runs_cap)
	{
		runs->runs_cap *= 2;
		runs->runs = repalloc(runs->runs, sizeof(BitonicRun) * runs->runs_cap);
	}
	end_writing(runs, &runs->runs[runs->nruns]);
	runs->runs[runs->nruns].level = 0;
	runs->nruns++;
	runs->initial_runs++;
	for (;;)
	{
		int			level = runs->runs[runs->nruns - 1].level;
		int			same = 0;

		while (same < runs->nruns && runs->runs[runs->nruns - 1 - same].level == level)
			same++;
		if (same < runs->plan.order)
			break;
		merge_tail(runs, runs->plan.order);
	}
	MemoryContextSwitchTo(old);
}

/*
 * Have a thread decide the final merge's order ahead of the backend
 * (merge_order.c), where bitonic_sort.merge_thread allows, the first sort
 * column's keys decide alone (no comparator to call; not keys alone, whose
 * rows are their keys) or the thread can decide their ties (every run's
 * text needing no detoast), every run is mapped and a second thread is
 * allowed: the backend then only hands each winner's row out.  (Text found
 * to need a detoast only as its runs were written leaves runs mapped for a
 * thread that does not start: the backend merges them where they lie.)
 */
static void
start_merge_order(BitonicRuns *runs)
{
	int			n = runs->nreaders;
	BitonicMergeOrder *mo;

	if (!merge_thread_allowed(runs) || !runs->text_plain || n < 2)
		return;
	for (int i = 0; i < n; i++)
		if (runs->readers[i].file != RUN_FILE_NONE && runs->readers[i].map == NULL)
			return;
	/* on cache lines of its own: the ring's counts are apart (merge_order.h) */
	mo = (BitonicMergeOrder *) TYPEALIGN(PG_CACHE_LINE_SIZE,
										 palloc0(sizeof(BitonicMergeOrder) + PG_CACHE_LINE_SIZE));
	mo->n = n;
	mo->cursors = palloc(sizeof(BitonicMergeCursor) * n);
	mo->keys = palloc(sizeof(uint64) * n);
	mo->tags = palloc(sizeof(uint64) * n);
	if (!BitonicMergeOrderStart(mo, runs->readers, runs->ms->nulls_first, runs->thread_tie,
								runs->key_exact))
		return;
	runs->merge_order = mo;
	note_peak(runs);
}

/*
 * Every run is written: merge the smallest (last) runs until `order` are
 * left, then start the final merge, or run it into a tuplestore where the
 * rows may be read backwards, marked or rewound.
 */
void
BitonicRunsFinish(BitonicRuns *runs)
{
	MemoryContext old = MemoryContextSwitchTo(runs->cxt);
	int			top = 0;

	while (runs->nruns > runs->plan.order)
		merge_tail(runs, Min(runs->plan.order, runs->nruns - runs->plan.order + 1));
	for (int r = 0; r < runs->nruns; r++)
		top = Max(top, runs->runs[r].level);
	runs->passes = top + (runs->nruns > 1 ? 1 : 0);
	/* no run is sorted from here on: a cursor's merge holds no helper */
	bs_parallel_release_helpers();
	open_readers(runs, 0, runs->nruns);
	start_merge_order(runs);
	if (runs->random_access)
	{
		BitonicRunReader *reader;
		uint64		i = 0;

		runs->merged = tuplestore_begin_heap(true, false, RUNS_MERGED_KB);
		/* read pointer 1 keeps the mark */
		(void) tuplestore_alloc_read_pointer(runs->merged, 0);
		while ((reader = winner(runs)) != NULL)
		{
			tuplestore_puttupleslot(runs->merged, show_row(runs, reader, reader->slot));
			advance(runs);
			if ((++i % RUNS_CHECK_EVERY) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		note_peak(runs);
	}
	MemoryContextSwitchTo(old);
}

/*
 * The next row of the final merge, from the thread that decides its order
 * (waiting for it, and checking for interrupts meanwhile): its record, its
 * pages before unmapped; NULL at the merge's end, the thread joined.  A
 * run's end closes its reader; a run cut short is an ERROR.
 */
static const char *
next_ordered_record(BitonicRuns *runs)
{
	for (;;)
	{
		const char *record;
		int			w = BitonicMergeOrderNext(runs->merge_order, &record);

		if (w >= 0 && record != NULL && record != BITONIC_MERGE_ORDER_CUT)
		{
			BitonicRunReaderPassTo(&runs->readers[w], record);
			return record;
		}
		if (w >= 0)
		{
			BitonicRunReaderEnd(&runs->readers[w], record == BITONIC_MERGE_ORDER_CUT);
			run_read(runs, runs->reader_file[w]);
		}
		else if (w == BITONIC_MERGE_ORDER_END)
		{
			BitonicMergeOrderStop(runs->merge_order);
			return NULL;
		}
		else
			CHECK_FOR_INTERRUPTS();
	}
}

/*
 * The next row of the sort, in slot (a minimal-tuple slot), or the slot
 * emptied at the end; backwards only where the merge went to a tuplestore.
 */
TupleTableSlot *
BitonicRunsNext(BitonicRuns *runs, bool forward, TupleTableSlot *slot)
{
	MemoryContext old;
	BitonicRunReader *reader;

	if (runs->merged != NULL)
	{
		if (!tuplestore_gettupleslot(runs->merged, forward, false, slot))
			return ExecClearTuple(slot);
		return slot;
	}
	Assert(forward);
	if (runs->advance)
	{
		/* the slot shows the winner's record, which its next one overwrites */
		ExecClearTuple(slot);
		old = MemoryContextSwitchTo(runs->cxt);
		advance(runs);
		MemoryContextSwitchTo(old);
		runs->advance = false;
	}
	if (runs->merge_order != NULL)
	{
		const char *record;

		ExecClearTuple(slot);
		old = MemoryContextSwitchTo(runs->cxt);
		record = next_ordered_record(runs);
		MemoryContextSwitchTo(old);
		if (record == NULL)
			return slot;
		return ExecStoreMinimalTuple((MinimalTuple) (record + BITONIC_RECORD_KEY_BYTES), slot, false);
	}
	reader = winner(runs);
	if (reader == NULL)
		return ExecClearTuple(slot);
	runs->advance = true;
	return show_row(runs, reader, slot);
}

/* Rewind the sorted rows (a merge into a tuplestore only). */
void
BitonicRunsRescan(BitonicRuns *runs)
{
	Assert(runs->merged != NULL);
	tuplestore_rescan(runs->merged);
}

/* Remember the position (a merge into a tuplestore only). */
void
BitonicRunsMark(BitonicRuns *runs)
{
	Assert(runs->merged != NULL);
	tuplestore_copy_read_pointer(runs->merged, 0, 1);
}

/* Go back to the remembered position (a merge into a tuplestore only). */
void
BitonicRunsRestore(BitonicRuns *runs)
{
	Assert(runs->merged != NULL);
	tuplestore_copy_read_pointer(runs->merged, 1, 0);
}

/* Memory the runs take now: buffers, readers, the merge's tuplestore. */
size_t
BitonicRunsBytes(BitonicRuns *runs)
{
	return runs_bytes(runs);
}

/* Free the runs: their slots, tuplestore, temporary files and memory. */
void
BitonicRunsEnd(BitonicRuns *runs)
{
	/* no read or write may go on into buffers or files about to go */
	stop_merge_order(runs);
	BitonicRunBehindStop(runs->behind);
	bs_read_ahead_stop(&runs->ahead);
	if (runs->readers != NULL)
	{
		for (int i = 0; i < runs->plan.order; i++)
		{
			if (runs->readers[i].slot != NULL)
				ExecDropSingleTupleTableSlot(runs->readers[i].slot);
		}
	}
	/* a run still being written (none on the usual paths): its bytes count too */
	if (runs->writer.file != RUN_FILE_NONE)
		runs->files[runs->writing_file].size += runs->writer.offset - runs->writer.start;
	for (int f = 0; f < runs->nfiles; f++)
	{
		if (runs->files[f].file != RUN_FILE_NONE)
			drop_file(runs, f);
	}
	if (runs->merged != NULL)
		tuplestore_end(runs->merged);
	if (runs->key_slot != NULL)
		ExecDropSingleTupleTableSlot(runs->key_slot);
	MemoryContextDelete(runs->cxt);
}
