/*
 * scan/window.h — row_number(), rank() and dense_rank() numbered by the
 * node as it hands its rows out (window_exec.c; planned by window.c).
 */
#ifndef BITONIC_SCAN_WINDOW_H
#define BITONIC_SCAN_WINDOW_H

#include "nodes/execnodes.h"

struct BitonicWindow;

extern struct BitonicWindow *BitonicWindowBegin(List *spec, TupleDesc rows,
												TupleTableSlot *out, PlanState *parent);
extern TupleTableSlot *BitonicWindowNext(struct BitonicWindow *window,
										 TupleTableSlot *row, bool row_stays);
extern void BitonicWindowRestart(struct BitonicWindow *window);
extern List *BitonicWindowFuncNames(struct BitonicWindow *window);

#endif							/* BITONIC_SCAN_WINDOW_H */
