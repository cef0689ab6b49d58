/*
 * bitonic_sort.c — module entry point.
 */
#include "bitonic_sort.h"
#include "scan/plan.h"

#include "miscadmin.h"

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
	/* measured once for every backend, which inherits it; elsewhere at a backend's first large buffer */
	if (process_shared_preload_libraries_in_progress)
		(void) BitonicSmallPageFaultUs();
}
