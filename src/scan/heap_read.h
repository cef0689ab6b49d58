/*
 * scan/heap_read.h — a BitonicSort node over a plain sequential scan of a
 * heap table reads the table's pages itself (heap_read.c).
 */
#ifndef BITONIC_SCAN_HEAP_READ_H
#define BITONIC_SCAN_HEAP_READ_H

#include "scan/node.h"

#include "access/htup.h"

/* A table the node reads (heap_read.c). */
typedef struct BitonicHeapRead BitonicHeapRead;

/* The visible rows of one page, as the node reads them (heap_read.c). */
typedef struct BitonicHeapPage
{
	Buffer		buffer;			/* pinned while the page's rows are taken */
	int			nrows;
	HeapTupleData rows[MaxHeapTuplesPerPage];	/* those that pass the scan's quals */
} BitonicHeapPage;

extern BitonicHeapRead *BitonicHeapReadInit(PlanState *child, AttrNumber key_column);
extern bool BitonicHeapReadBegin(BitonicHeapRead *heap);
extern BitonicHeapPage *BitonicHeapReadPage(BitonicHeapRead *heap);
extern void BitonicHeapReadEnd(BitonicHeapRead *heap);
extern TupleTableSlot *BitonicHeapReadSlot(BitonicHeapRead *heap, HeapTuple row,
										   Buffer buffer);
extern bool BitonicHeapReadRowsAsIs(const BitonicHeapRead *heap);
extern AttrNumber BitonicHeapReadKeyAttno(const BitonicHeapRead *heap);
extern TupleDesc BitonicHeapReadTupleDesc(const BitonicHeapRead *heap);
extern uint64 BitonicHeapReadPages(const BitonicHeapRead *heap);

#endif							/* BITONIC_SCAN_HEAP_READ_H */
