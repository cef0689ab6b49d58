/*
 * scan/heap_read.h — a BitonicSort node over a plain sequential scan of a
 * heap table reads the table's pages itself (heap_read.c).
 */
#ifndef BITONIC_SCAN_HEAP_READ_H
#define BITONIC_SCAN_HEAP_READ_H

#include "scan/node.h"

#include "access/htup.h"
#include "access/htup_details.h"

/* A table the node reads (heap_read.c). */
typedef struct BitonicHeapRead BitonicHeapRead;

/* Words of a bitmap of a heap page's line pointers. */
#define BITONIC_PAGE_WORDS ((MaxHeapTuplesPerPage + 63) / 64)

/*
 * The next line pointer whose bit is set in taken (offset number - 1) from
 * offset number `from` on, or 0 past the last.
 */
static inline int
BitonicPageNextTaken(const uint64 *taken, int from)
{
	for (int word = (from - 1) / 64; word < BITONIC_PAGE_WORDS; word++)
	{
		uint64		bits = taken[word];

		if (word == (from - 1) / 64)
			bits &= ~(uint64) 0 << ((from - 1) % 64);
		if (bits != 0)
			return word * 64 + __builtin_ctzll(bits) + 1;
	}
	return 0;
}

/* The visible rows of one page, as the node reads them (heap_read.c). */
typedef struct BitonicHeapPage
{
	TupleDesc	tupdesc;		/* the table's row type */
	AttrNumber	key_attno;		/* the table's column that is the first sort key, or 0 */
	bool		rows_as_is;		/* the scan returns the table's rows unprojected */
	Buffer		buffer;			/* pinned while the page's rows are taken */
	int			nrows;
	/*
	 * whole: every normal line pointer of the page is a row that is taken
	 * (an all-visible page, no quals) and rows[] is not filled: taken has
	 * the bit of each such line pointer (offset number - 1), set under the
	 * page's lock (a line pointer unused then may hold another transaction's
	 * row by the time the page is read).  The caller asked for that, and
	 * fills rows[] with BitonicHeapPageRows where it needs them after all.
	 */
	bool		whole;
	uint64		taken[BITONIC_PAGE_WORDS];
	HeapTupleData rows[MaxHeapTuplesPerPage];	/* those that pass the scan's quals */
} BitonicHeapPage;

extern BitonicHeapRead *BitonicHeapReadInit(PlanState *child, AttrNumber key_column);
extern bool BitonicHeapReadBegin(BitonicHeapRead *heap);
extern BitonicHeapPage *BitonicHeapReadPage(BitonicHeapRead *heap, bool whole_ok);
extern void BitonicHeapPageRows(BitonicHeapRead *heap);
extern void BitonicHeapReadEnd(BitonicHeapRead *heap);
extern TupleTableSlot *BitonicHeapReadSlot(BitonicHeapRead *heap, HeapTuple row,
										   Buffer buffer);
extern const BitonicHeapPage *BitonicHeapReadLayout(const BitonicHeapRead *heap);
extern uint64 BitonicHeapReadPages(const BitonicHeapRead *heap);

#endif							/* BITONIC_SCAN_HEAP_READ_H */
