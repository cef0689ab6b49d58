/*
 * scan/spill.h — a BitonicSort node whose rows outgrow work_mem hands them
 * to tuplesort, by way of a stage on disk (spill.c).
 */
#ifndef BITONIC_SCAN_SPILL_H
#define BITONIC_SCAN_SPILL_H

#include "scan/node.h"
#include "utils/tuplestore.h"

extern Tuplestorestate *BitonicSpillStage(BitonicScanState *state);
extern Tuplesortstate *BitonicSpillSort(BitonicScanState *state, Tuplestorestate *stage);
extern void BitonicSpillPerform(BitonicScanState *state);
extern TupleTableSlot *BitonicSpillNext(BitonicScanState *state, bool forward);

#endif							/* BITONIC_SCAN_SPILL_H */
