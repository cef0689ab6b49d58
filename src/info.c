/*
 * info.c — bitonic_sort_info(): one row per backend, whether it is usable
 * and the details a DBA needs to know why.
 */
#include "bitonic_sort.h"

#include "core/threads.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(bitonic_sort_info);

/* Append one (backend, usable, details) row. */
static void
add_row(ReturnSetInfo *rsinfo, const char *backend, bool usable, const char *details)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	values[0] = CStringGetTextDatum(backend);
	values[1] = BoolGetDatum(usable);
	values[2] = CStringGetTextDatum(details);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* Which large buffers ask for transparent huge pages, why, and what a fresh 4 kB page costs here. */
static const char *
huge_page_details(void)
{
	double		small_page_us = BitonicSmallPageFaultUs();

	return psprintf("transparent_huge_pages=%s (%s; a fresh 4 kB page: %s)",
					BitonicHugePageAdviceName(BitonicHugePageAdviceInEffect()),
					bitonic_sort_transparent_huge_pages == BITONIC_THP_AUTO ? "auto" : "set",
					small_page_us < 0 ? "unmeasured" : psprintf("%.1f us", small_page_us));
}

/* bitonic_sort_info() RETURNS TABLE (backend text, usable bool, details text) */
Datum
bitonic_sort_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *gpu_reason;
	bool		gpu_usable;

	InitMaterializedSRF(fcinfo, 0);

	add_row(rsinfo, "cpu", true,
			psprintf("simd=%s, threads=%d, cores=%d, %s, %s, %s",
					 bs_cpu_simd_level(), bitonic_sort_cpu_threads, bs_cpu_core_count(),
					 bs_cpu_has_vqsort() ?
					 "algorithms=bitonic,adaptive,vqsort, auto=vqsort" :
					 psprintf("algorithms=bitonic,adaptive, auto=adaptive below %zu pairs, else bitonic",
							  bs_auto_threshold(BS_BACKEND_CPU)),
					 BitonicThreadBudgetShared() ?
					 psprintf("max_threads=%d of all backends (%u alive)", bitonic_sort_max_threads,
							  bs_threads_shared_alive()) :
					 "max_threads=this backend's (not preloaded)",
					 huge_page_details()));

	gpu_usable = BitonicGpuUsable(&gpu_reason);
	add_row(rsinfo, "cuda", gpu_usable,
			gpu_usable ? psprintf("%s; %s", gpu_reason, BitonicGpuAutoDescribe()) : gpu_reason);

	PG_RETURN_VOID();
}
