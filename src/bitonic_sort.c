/*
 * bitonic_sort.c — module entry point.
 */
#include "bitonic_sort.h"
#include "scan/plan.h"

#include "fmgr.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Load-time initialisation: each subsystem registers itself. */
void
_PG_init(void)
{
	BitonicGucInit();
	BitonicThreadBudgetInit();
	BitonicScanPlannerInit();
	/* before any thread of ours faults pages; where preloaded, every backend inherits it */
	(void) BitonicSmallPageFaultUs();
}
