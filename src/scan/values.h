/*
 * scan/values.h — a BitonicSort node over one column whose key is its
 * value sorts the keys alone and stores no rows (values.c).
 */
#ifndef BITONIC_SCAN_VALUES_H
#define BITONIC_SCAN_VALUES_H

#include "scan/node.h"
#include "utils/tuplestore.h"

extern bool BitonicValuesStart(BitonicScanState *state, EState *estate);
extern void BitonicValuesForget(BitonicScanState *state);
extern size_t BitonicValuesBytes(BitonicScanState *state);
extern uint64 BitonicValuesXor(BitonicScanState *state);
extern bool BitonicValuesAdd(BitonicScanState *state, TupleTableSlot *slot);
extern bool BitonicValuesAddValue(BitonicScanState *state, Datum value, bool isnull);
extern void BitonicValuesSort(BitonicScanState *state);
extern TupleTableSlot *BitonicValuesGet(BitonicScanState *state, size_t pos);
extern TupleTableSlot *BitonicValuesNextDistinct(BitonicScanState *state);

#endif							/* BITONIC_SCAN_VALUES_H */
