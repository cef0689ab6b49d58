/*
 * scan/ingest.h — rows placed by key range on a worker thread (ingest.c).
 * It calls nothing of the executor or of the spill: where memory runs out
 * it says so, and the executor spills.
 */
#ifndef BITONIC_SCAN_INGEST_H
#define BITONIC_SCAN_INGEST_H

#include "scan/node.h"

#include "access/htup_details.h"
#include "storage/buf.h"

/* Bytes of a staged row's header, and the largest row staged (ingest.c). */
#define BITONIC_STAGED_ROW_HEADER 24
#define BITONIC_STAGE_ROW_MAX (BITONIC_STAGE_BYTES / 4)

/*
 * Whether a heap row of t_len bytes is staged by its address
 * (BitonicIngestPageRow); a larger one goes through BitonicIngestRow.
 */
static inline bool
BitonicIngestStagesHeapRow(uint32 t_len)
{
	return BITONIC_STAGED_ROW_HEADER + MAXALIGN(t_len - MINIMAL_TUPLE_OFFSET) <= BITONIC_STAGE_ROW_MAX;
}

extern void BitonicIngestStart(BitonicScanState *state);
extern bool BitonicIngestRow(BitonicScanState *state, TupleTableSlot *slot);
extern bool BitonicIngestPageRow(BitonicScanState *state, HeapTuple row, Buffer page,
								 uint64 key, bool isnull);
extern bool BitonicIngestDrain(BitonicScanState *state);
extern void BitonicIngestHandOver(BitonicScanState *state, Tuplesortstate *ts);
extern void BitonicIngestStop(BitonicScanState *state);

#endif							/* BITONIC_SCAN_INGEST_H */
