/*
 * scan/runs.h — the external sort of a BitonicSort node whose rows outgrow
 * work_mem: runs sorted in memory, written to temporary files with their
 * keys, and merged on those keys (runs.c).
 */
#ifndef BITONIC_SCAN_RUNS_H
#define BITONIC_SCAN_RUNS_H

#include "bitonic_sort.h"
#include "scan/run_ends.h"
#include "scan/merge_order.h"
#include "scan/merge_tree.h"
#include "scan/run_file.h"

#include "utils/tuplestore.h"

/* One run in a file of runs; level: how many merges its rows have been through. */
typedef struct BitonicRun
{
	int			file;			/* its file, in the runs' files */
	off_t		start;			/* its first byte there */
	off_t		bytes;
	uint64		nnulls;			/* its NULLs, where it holds keys alone */
	int			level;
} BitonicRun;

/*
 * A temporary file of runs: runs of one level, one after another, at most
 * as many as a merge reads at once (so that a merge of a full level reads
 * it whole), deleted once each of its runs is read to its end.
 */
/*
 * How the merges read: as many runs at once as `order`, each mapped or
 * through a read buffer of buffer_size, within the memory the merges have
 * (budget), where a reader takes per_reader besides its buffer.
 */
typedef struct BitonicMergePlan
{
	bool		mapped;			/* runs are read where they lie in the page cache */
	size_t		buffer_size;
	int			order;
	size_t		budget;
	size_t		per_reader;
} BitonicMergePlan;

typedef struct BitonicRunsFile
{
	File		file;			/* RUN_FILE_NONE once deleted */
	int			fd;				/* its descriptor for the reading thread, or -1 */
	off_t		size;
	int			level;
	int			runs;			/* runs begun in it */
	int			unread;			/* of those, the runs not read to their end yet */
} BitonicRunsFile;


/* The runs of one sort, and their merge. */
typedef struct BitonicRuns
{
	MemoryContext cxt;			/* buffers, readers and the merge's state */
	MemoryContext read_cxt;		/* the readers' buffers, emptied after each merge */
	const BitonicMultiSort *ms; /* the node's: comparators, key function, NULL order */
	int			nkeys;
	const AttrNumber *attnos;
	bool		key_exact;		/* equal keys are equal first columns */
	bool		keys_decide;	/* and there is no other column: keys alone order the rows */
	BitonicMergeTieSpec *thread_tie;	/* else how a thread decides ties (merge_tie.h), or NULL */
	bool		text_plain;		/* no first-column value of a run needs a detoast (so far) */
	TupleDesc	tupdesc;
	bool		keys_only;		/* one column whose key is its value: runs of keys */
	uint64		key_xor;		/* key = value XOR this, and back (keys alone) */
	uint64		writing_nulls;	/* NULLs of the run being written (keys alone) */
	TupleTableSlot *key_slot;	/* virtual: a value of keys alone handed out */

	BitonicRun *runs;			/* in input order (ties go to the earlier run) */
	int			nruns;
	int			runs_cap;
	BitonicRunsFile *files;		/* the files the runs lie in, deleted ones too */
	int			nfiles;
	int			files_cap;
	BitonicRunWriter writer;	/* the run being written, if any */
	int			writing_file;	/* its file, in files */
	BitonicRunDisk disk;		/* bytes of the runs' files */
	bool		both_ends;		/* runs may be written from both ends at once (run_ends.c) */
	TupleDesc	end_tupdescs[2];	/* the rows' descriptor for each end */
	BitonicRunBehind *behind;	/* writes runs behind the input, or NULL where it may not */
	MemoryContext behind_cxt;	/* the rows of the run written behind, under cxt; or NULL */
	off_t		behind_bytes;	/* that run's bytes */

	BitonicMergePlan plan;		/* the merges' read buffers and order */

	bs_read_ahead ahead;		/* the thread that reads the merge's runs ahead */
	MemoryContextCallback reads_guard;	/* on read_cxt: no read into it once it goes */
	bool		reads_guarded;	/* reads_guard is registered */
	MemoryContextCallback release_guard;	/* on cxt: the thread and descriptors go */
	BitonicRunReader *readers;	/* one per run of the merge, slots made once */
	int		   *reader_file;	/* each reader's run's file, in files */
	int			nreaders;
	/* loser tree: node 0 the winner, nodes 1.. the losers; keys and tags apart */
	uint64	   *tree_keys;
	uint64	   *tree_tags;
	bool		advance;		/* the winner's row was handed out: read its next first */
	BitonicMergeOrder *merge_order; /* the thread deciding the final merge's order (kept
									 * once joined), or NULL */

	bool		random_access;	/* the final merge goes to a tuplestore */
	Tuplestorestate *merged;	/* that tuplestore, or NULL */

	/* for EXPLAIN ANALYZE */
	int			initial_runs;	/* runs written from memory */
	int			mapped_runs;	/* runs the merges read mapped */
	int			both_ends_runs; /* of those, runs written from both ends */
	int			behind_runs;	/* of those, runs written behind the input */
	int			passes;			/* most merges a row goes through, the final one included */
	size_t		peak_bytes;		/* memory of cxt, at most */
} BitonicRuns;

extern bool BitonicRunsBothEnds(const BitonicRuns *runs, size_t row_bytes);
extern bool BitonicRunsPutRows(BitonicRuns *runs, const BitonicRunRows *rows);
extern bool BitonicRunsPutRowsBehind(BitonicRuns *runs, const BitonicRunRows *rows,
									 MemoryContext rows_cxt);
extern MemoryContext BitonicRunsFinishBehind(BitonicRuns *runs, MemoryContext parent);
extern bool BitonicRunsWriteBehind(BitonicRuns *runs, size_t mem_limit, double expected_bytes,
								   double row_bytes);
extern bool BitonicRunsNextEndMerges(const BitonicRuns *runs);
extern bool BitonicRunsMergeThreadExpected(size_t mem_limit);
extern BitonicRuns *BitonicRunsBegin(const BitonicMultiSort *ms, int nkeys,
									 const AttrNumber *attnos, TupleDesc tupdesc,
									 size_t mem_limit, double expected_bytes,
									 double row_bytes, bool random_access, bool keys_only,
									 uint64 key_xor, MemoryContext parent);
extern void BitonicRunsStartRun(BitonicRuns *runs, bool text_plain);
extern void BitonicRunsPut(BitonicRuns *runs, MinimalTuple tuple, Datum value, bool isnull);
extern void BitonicRunsPutValue(BitonicRuns *runs, Datum value, bool isnull);
extern void BitonicRunsEndRun(BitonicRuns *runs);
extern void BitonicRunsFinish(BitonicRuns *runs);
extern TupleTableSlot *BitonicRunsNext(BitonicRuns *runs, bool forward, TupleTableSlot *slot);
extern void BitonicRunsRescan(BitonicRuns *runs);
extern void BitonicRunsMark(BitonicRuns *runs);
extern void BitonicRunsRestore(BitonicRuns *runs);
extern size_t BitonicRunsBytes(BitonicRuns *runs);
extern void BitonicRunsEnd(BitonicRuns *runs);

#endif							/* BITONIC_SCAN_RUNS_H */
