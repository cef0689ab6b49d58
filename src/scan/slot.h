/*
 * scan/slot.h — the slot a BitonicSort node returns when its output columns
 * are its stored columns in another order or repeated (slot.c).
 */
#ifndef BITONIC_SCAN_SLOT_H
#define BITONIC_SCAN_SLOT_H

#include "bitonic_sort.h"

#include "nodes/execnodes.h"

extern PGDLLIMPORT const TupleTableSlotOps BitonicMappedSlotOps;
extern AttrNumber *BitonicOutputColumnMap(List *targetlist);
extern TupleTableSlot *BitonicMappedSlotCreate(EState *estate, TupleDesc desc,
											   TupleTableSlot *row,
											   const AttrNumber *map);
extern TupleTableSlot *BitonicMappedSlotShow(TupleTableSlot *slot, TupleTableSlot *row);

#endif							/* BITONIC_SCAN_SLOT_H */
