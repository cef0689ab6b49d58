/*
 * scan/ingest.h — rows placed by key range on a worker thread (ingest.c).
 * It calls nothing of the executor or of the spill: where memory runs out
 * it says so, and the executor spills.
 */
#ifndef BITONIC_SCAN_INGEST_H
#define BITONIC_SCAN_INGEST_H

#include "scan/heap_read.h"
#include "scan/node.h"
#include "utils/tuplestore.h"

#include "access/htup_details.h"
#include "storage/buf.h"

/* Bytes of a staged row's header (ingest.c), and the most a staged row may take. */
#define BITONIC_STAGED_ROW_HEADER 24
#define BITONIC_STAGE_ROW_MAX (BITONIC_STAGE_BYTES / 4)

/*
 * Whether a row whose minimal tuple takes len bytes is staged; a larger one
 * is placed at once by the backend (BitonicIngestRow), and a heap row read
 * by the node (BitonicIngestPageRow) goes through BitonicIngestRow instead.
 */
static inline bool
BitonicIngestStages(size_t len)
{
	return BITONIC_STAGED_ROW_HEADER + MAXALIGN(len) <= BITONIC_STAGE_ROW_MAX;
}

extern void BitonicIngestStart(BitonicScanState *state);
extern bool BitonicIngestRow(BitonicScanState *state, TupleTableSlot *slot);
extern bool BitonicIngestPageRow(BitonicScanState *state, HeapTuple row, Buffer page,
								 uint64 key, bool isnull);
extern bool BitonicIngestPage(BitonicScanState *state, const BitonicHeapPage *page);
extern bool BitonicIngestDrain(BitonicScanState *state);
extern void BitonicIngestHandOver(BitonicScanState *state, Tuplestorestate *stage);
extern void BitonicIngestStop(BitonicScanState *state);

#endif							/* BITONIC_SCAN_INGEST_H */
