/*
 * scan/spill.h — a BitonicSort node whose rows outgrow work_mem hands them
 * to tuplesort (spill.c).
 */
#ifndef BITONIC_SCAN_SPILL_H
#define BITONIC_SCAN_SPILL_H

#include "scan/node.h"

extern Tuplesortstate *BitonicSpillRows(BitonicScanState *state);
extern TupleTableSlot *BitonicSpillNext(BitonicScanState *state, bool forward);

#endif							/* BITONIC_SCAN_SPILL_H */
