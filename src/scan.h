/*
 * scan.h — the BitonicSort custom scan that replaces the Sort node of an
 * ORDER BY: shared by its planner hook, executor and EXPLAIN output.
 */
#ifndef BITONIC_SCAN_H
#define BITONIC_SCAN_H

#include "bitonic_sort.h"

#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "utils/tuplesort.h"

/* Name of the node in EXPLAIN and of its registered methods. */
#define BITONIC_SCAN_NAME "BitonicSort"

/*
 * The plan's sort columns, kept in CustomScan.custom_private as four lists
 * of equal length: attribute numbers in the child's output (IntList), sort
 * operators and collations (OidList), NULLS FIRST flags (IntList).
 */
typedef struct BitonicScanKeys
{
	int			nkeys;
	AttrNumber *attnos;
	Oid		   *sortops;
	Oid		   *collations;
	bool	   *nulls_first;
} BitonicScanKeys;

/* Where the rows of the node are. */
typedef enum BitonicScanPhase
{
	BITONIC_PHASE_EMPTY,		/* nothing read yet */
	BITONIC_PHASE_SORTED,		/* sorted in memory by key/pointer pairs */
	BITONIC_PHASE_SPILLED		/* handed to tuplesort, which sorted them */
} BitonicScanPhase;

/* Executor state of one BitonicSort node. */
typedef struct BitonicScanState
{
	CustomScanState css;
	BitonicScanKeys keys;
	bool		random_access;	/* backward scan, mark/restore or rewind asked for */
	TupleTableSlot *slot;		/* minimal-tuple slot the node returns */
	MemoryContext cxt;			/* tuples, pairs and order of the current sort */
	BitonicScanPhase phase;

	/* in-memory sort */
	BitonicMultiSort ms;
	MinimalTuple *tuples;		/* input order, later ORDER BY order */
	size_t		ntuples;
	size_t		tuples_cap;
	char	   *block;			/* bump allocator for the tuples */
	size_t		block_used;
	size_t		block_size;
	size_t		block_bytes;	/* bytes of all blocks so far */
	int64		pos;			/* index of the last row returned; -1 before the first */
	int64		mark;

	/* spill */
	Tuplesortstate *tuplesort;

	/* for EXPLAIN ANALYZE */
	size_t		peak_bytes;
	double		key_ms;
	double		sort_ms;
	double		tie_ms;
	double		emit_ms;
	bool		spilled;		/* any run of this node spilled */
} BitonicScanState;

/* scan_planner.c */
extern void BitonicScanPlannerInit(void);
extern void BitonicScanKeysFromPrivate(List *custom_private, BitonicScanKeys *keys);

/* scan_exec.c */
extern Node *BitonicScanCreateState(CustomScan *cscan);

/* scan_spill.c */
extern void BitonicScanSpill(BitonicScanState *state);
extern void BitonicScanForgetRows(BitonicScanState *state);
extern TupleTableSlot *BitonicScanSpillNext(BitonicScanState *state, bool forward);

/* scan_explain.c */
extern void BitonicScanExplain(CustomScanState *node, List *ancestors,
							   ExplainState *es);

#endif							/* BITONIC_SCAN_H */
