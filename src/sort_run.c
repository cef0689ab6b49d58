/*
 * sort_run.c — runs the sorting core from a backend: picks the device per
 * bitonic_sort.device, hands the core PostgreSQL's allocator and interrupt
 * check, and turns a failure into an ERROR.
 */
#include "bitonic_sort.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/* Allocation hook: huge allocations in the current memory context. */
static void *
pg_core_alloc(size_t size, void *arg)
{
	return MemoryContextAllocHuge(CurrentMemoryContext, size);
}

/* Free hook matching pg_core_alloc. */
static void
pg_core_free(void *ptr, void *arg)
{
	pfree(ptr);
}

/* Interrupt hook: lets a long sort be cancelled. */
static void
pg_core_check(void *arg)
{
	CHECK_FOR_INTERRUPTS();
}

static const bs_hooks pg_hooks = {pg_core_alloc, pg_core_free, pg_core_check, NULL};

/* Whether a GPU backend can sort now; otherwise why not. */
bool
BitonicGpuUsable(const char **reason)
{
	*reason = "This version of bitonic_sort has no CUDA backend";
	return false;
}

/* Fill the core's options from the settings, after the device check. */
static void
prepare_options(bs_options *opt)
{
	const char *reason;

	if (bitonic_sort_device == BITONIC_DEVICE_GPU && !BitonicGpuUsable(&reason))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("no usable GPU for bitonic_sort.device = gpu"),
				 errdetail("%s.", reason),
				 errhint("Set bitonic_sort.device to \"auto\" or \"cpu\" to sort on the CPU.")));
	opt->backend = BS_BACKEND_CPU;
	opt->algorithm = BS_ALGO_AUTO;
	opt->threads = bitonic_sort_cpu_threads;
	opt->hooks = &pg_hooks;
}

/*
 * The backend and algorithm the next sort would use, for EXPLAIN; never an
 * ERROR (EXPLAIN of a plan must work whatever the device setting).  On the
 * CPU, "auto" runs the standard bitonic network (sort_dispatch.c).
 */
void
BitonicSortDescribe(const char **backend, const char **algorithm)
{
	const char *reason;

	if (bitonic_sort_device != BITONIC_DEVICE_CPU && BitonicGpuUsable(&reason))
		*backend = "gpu";
	else
		*backend = "cpu";
	*algorithm = bs_algorithm_name(BS_ALGO_BITONIC);
}

/* Raise an ERROR for a failed sort. */
static void
report_status(bs_status status)
{
	if (status == BS_OK)
		return;
	if (status == BS_ERR_NOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory while sorting")));
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("bitonic sort failed: %s", bs_status_message(status))));
}

/* Sort packed 32-bit-key pairs with the configured device. */
void
BitonicSortPairs32(bs_pair32 *pairs, size_t n)
{
	bs_options	opt;

	prepare_options(&opt);
	report_status(bs_sort_pairs32(pairs, n, &opt));
}

/* Sort 64-bit-key pairs with the configured device. */
void
BitonicSortPairs64(bs_pair64 *pairs, size_t n)
{
	bs_options	opt;

	prepare_options(&opt);
	report_status(bs_sort_pairs64(pairs, n, &opt));
}
