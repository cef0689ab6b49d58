/*
 * scan/ingest.h — rows placed by key range on a worker thread (ingest.c).
 * It calls nothing of the executor or of the spill: where memory runs out
 * it says so, and the executor spills.
 */
#ifndef BITONIC_SCAN_INGEST_H
#define BITONIC_SCAN_INGEST_H

#include "scan/node.h"

#include "access/htup.h"
#include "storage/buf.h"

extern void BitonicIngestStart(BitonicScanState *state);
extern bool BitonicIngestRow(BitonicScanState *state, TupleTableSlot *slot);
extern bool BitonicIngestStagesHeapRow(uint32 t_len);
extern bool BitonicIngestPageRow(BitonicScanState *state, HeapTuple row, Buffer page,
								 uint64 key, bool isnull);
extern bool BitonicIngestDrain(BitonicScanState *state);
extern void BitonicIngestHandOver(BitonicScanState *state, Tuplesortstate *ts);
extern void BitonicIngestStop(BitonicScanState *state);

#endif							/* BITONIC_SCAN_INGEST_H */
