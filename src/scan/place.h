/*
 * scan/place.h — where a BitonicSort node stores each row: key ranges cut
 * from a sample of the first keys, one stream of the store each (place.c).
 */
#ifndef BITONIC_SCAN_PLACE_H
#define BITONIC_SCAN_PLACE_H

#include "scan/node.h"

extern void BitonicPlacePlan(BitonicScanState *state, double expected_bytes);
extern void BitonicPlaceCut(BitonicScanState *state);
extern int	BitonicPlaceStream(BitonicScanState *state, TupleTableSlot *slot);

#endif							/* BITONIC_SCAN_PLACE_H */
