/*
 * scan/explain.h — what EXPLAIN shows for a BitonicSort node (explain.c).
 */
#ifndef BITONIC_SCAN_EXPLAIN_H
#define BITONIC_SCAN_EXPLAIN_H

#include "scan/node.h"

extern void BitonicScanExplain(CustomScanState *node, List *ancestors,
							   ExplainState *es);

#endif							/* BITONIC_SCAN_EXPLAIN_H */
