/*
 * scan/exec.h — the BitonicSort node's executor (exec.c): the state the
 * plan's methods create; everything else is reached through its methods.
 */
#ifndef BITONIC_SCAN_EXEC_H
#define BITONIC_SCAN_EXEC_H

#include "postgres.h"

#include "nodes/extensible.h"

extern Node *BitonicScanCreateState(CustomScan *cscan);

#endif							/* BITONIC_SCAN_EXEC_H */
