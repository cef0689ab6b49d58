/*
 * guc.c — the module's settings (bitonic_sort.*).
 */
#include "bitonic_sort.h"

#include <limits.h>

#include "utils/guc.h"

int			bitonic_sort_device = BITONIC_DEVICE_AUTO;
int			bitonic_sort_cpu_threads = 1;
bool		bitonic_sort_enable = true;
int			bitonic_sort_min_rows = 10000;

static const struct config_enum_entry device_options[] = {
	{"auto", BITONIC_DEVICE_AUTO, false},
	{"cpu", BITONIC_DEVICE_CPU, false},
	{"gpu", BITONIC_DEVICE_GPU, false},
	{NULL, 0, false}
};

/* Register the settings and reserve the prefix. */
void
BitonicGucInit(void)
{
	int			cores = bs_cpu_core_count();

	DefineCustomEnumVariable("bitonic_sort.device",
							 "Sets the device that sorts.",
							 "auto uses the GPU when one is usable and the CPU otherwise; "
							 "cpu always uses the CPU; gpu requires the GPU and raises an error without one.",
							 &bitonic_sort_device,
							 BITONIC_DEVICE_AUTO,
							 device_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("bitonic_sort.cpu_threads",
							"Sets the number of threads a CPU sort may use.",
							"Valid range is 1 to 64; the default is the number of CPU cores.",
							&bitonic_sort_cpu_threads,
							Min(cores, 64),
							1, 64,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("bitonic_sort.enable",
							 "Enables the planner's use of the BitonicSort custom scan for ORDER BY.",
							 "When off, ORDER BY always uses PostgreSQL's own Sort node.",
							 &bitonic_sort_enable,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("bitonic_sort.min_rows",
							"Sets the estimated row count from which ORDER BY may use BitonicSort.",
							"Valid range is 0 to 2147483647; below it the planner keeps the native Sort.",
							&bitonic_sort_min_rows,
							10000,
							0, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved("bitonic_sort");
}
