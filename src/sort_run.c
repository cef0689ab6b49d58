/*
 * sort_run.c — runs the sorting core from a backend: picks the device per
 * bitonic_sort.device, hands the core PostgreSQL's allocator and interrupt
 * check, falls back from a failed GPU sort to the CPU under device = auto,
 * and turns a failure into an ERROR.
 */
#include "bitonic_sort.h"

#ifdef BS_HAVE_CUDA
#include "cuda/bs_cuda.h"
#endif

#include "miscadmin.h"
#include "utils/memutils.h"

/* Bytes the core holds through pg_core_alloc now, and the most since the last reset. */
static size_t core_bytes;
static size_t core_peak;

/* Allocation hook: huge allocations in the current memory context. */
static void *
pg_core_alloc(size_t size, void *arg)
{
	void	   *ptr = MemoryContextAllocHuge(CurrentMemoryContext, size);

	core_bytes += GetMemoryChunkSpace(ptr);
	core_peak = Max(core_peak, core_bytes);
	return ptr;
}

/* Free hook matching pg_core_alloc. */
static void
pg_core_free(void *ptr, void *arg)
{
	core_bytes -= Min(core_bytes, GetMemoryChunkSpace(ptr));
	pfree(ptr);
}

/*
 * Start measuring the core's scratch memory afresh (between sorts nothing is
 * held; what an ERROR left behind went with its memory context).
 */
void
BitonicCoreResetPeak(void)
{
	core_bytes = 0;
	core_peak = 0;
}

/* The most scratch memory the core has held since BitonicCoreResetPeak. */
size_t
BitonicCorePeak(void)
{
	return core_peak;
}

/* Interrupt hook: lets a long sort be cancelled. */
static void
pg_core_check(void *arg)
{
	CHECK_FOR_INTERRUPTS();
}

/*
 * Interrupt probe of the core's parallel loops: whether CHECK_FOR_INTERRUPTS
 * would act now.  It only reads the flags, so it is asked while threads run.
 */
static bool
pg_core_pending(void *arg)
{
	return INTERRUPTS_PENDING_CONDITION() && INTERRUPTS_CAN_BE_PROCESSED();
}

static const bs_hooks pg_hooks = {pg_core_alloc, pg_core_free, pg_core_check, pg_core_pending, NULL};

/*
 * The core's hooks: PostgreSQL memory and interrupt checks, and the probe
 * with which a cancel stops a sort's threads after the chunk each runs.
 */
const bs_hooks *
BitonicCoreHooks(void)
{
	return &pg_hooks;
}

/* Under device = auto, smaller inputs stay on the CPU: a GPU round trip costs more. */
#define GPU_AUTO_MIN_PAIRS ((size_t) 1 << 16)

/* Whether a GPU backend can sort now; its description, otherwise why not. */
bool
BitonicGpuUsable(const char **reason)
{
#ifdef BS_HAVE_CUDA
	static char details[512];
	char		why[400];

	bs_cuda_set_memory_limit((size_t) bitonic_sort_gpu_memory_limit << 20);
	if (bs_cuda_device_info(why, sizeof(why)))
	{
		snprintf(details, sizeof(details), "%s", why);
		*reason = details;
		return true;
	}
	snprintf(details, sizeof(details), "No usable CUDA device: %s", why);
	*reason = details;
	return false;
#else
	*reason = "This module was built without CUDA (USE_CUDA=0 or no nvcc)";
	return false;
#endif
}

/* The failed CUDA call and its error text, after BS_ERR_DEVICE. */
static const char *
gpu_error(void)
{
#ifdef BS_HAVE_CUDA
	return bs_cuda_last_error();
#else
	return "no CUDA backend";
#endif
}

/*
 * The backend a sort of n pairs (wide: 64-bit pairs) runs on, per
 * bitonic_sort.device; under auto, the GPU from the size it measured
 * faster (gpu_auto.c); never an ERROR.
 */
static bs_backend
choose_backend(size_t n, bool wide)
{
	const char *reason;

	if (bitonic_sort_device == BITONIC_DEVICE_GPU ||
		(bitonic_sort_device == BITONIC_DEVICE_AUTO && n >= GPU_AUTO_MIN_PAIRS &&
		 BitonicGpuUsable(&reason) && n >= BitonicGpuAutoFrom(wide)))
		return BS_BACKEND_CUDA;
	return BS_BACKEND_CPU;
}

/* Fill the core's options from the settings, after the device check. */
static void
prepare_options(bs_options *opt, size_t n, bool wide)
{
	const char *reason;

	if (bitonic_sort_device == BITONIC_DEVICE_GPU && !BitonicGpuUsable(&reason))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("no usable GPU for bitonic_sort.device = gpu"),
				 errdetail("%s.", reason),
				 errhint("Set bitonic_sort.device to \"auto\" or \"cpu\" to sort on the CPU.")));
	opt->backend = choose_backend(n, wide);
	opt->algorithm = (bs_algorithm) bitonic_sort_algorithm;
	opt->threads = bitonic_sort_cpu_threads;
	opt->hooks = &pg_hooks;
	opt->comparisons = NULL;
}

/* bitonic_sort.algorithm for a sort of n pairs on backend, auto resolved. */
static bs_algorithm
algorithm_on(bs_backend backend, size_t n)
{
	bs_algorithm algorithm = (bs_algorithm) bitonic_sort_algorithm;

	return algorithm == BS_ALGO_AUTO ? bs_choose_algorithm(backend, n) : algorithm;
}

/*
 * The backend and algorithm a sort of about n pairs uses, for the planner
 * and EXPLAIN; never an ERROR (a plan must work whatever the device setting).
 */
void
BitonicSortChoice(double n, bool wide, bs_backend *backend, bs_algorithm *algorithm)
{
	size_t		pairs = n < 0 ? 0 : (size_t) n;

	*backend = choose_backend(pairs, wide);
	*algorithm = algorithm_on(*backend, pairs);
}

/*
 * BitonicSortChoice as the names EXPLAIN prints, and, under device = auto
 * with a usable GPU, why (else NULL).
 */
void
BitonicSortDescribe(double n, bool wide, const char **backend, const char **algorithm, const char **why)
{
	bs_backend	be;
	bs_algorithm algo;
	const char *reason;

	BitonicSortChoice(n, wide, &be, &algo);
	*backend = be == BS_BACKEND_CUDA ? "gpu" : "cpu";
	*algorithm = bs_algorithm_name(algo);
	*why = NULL;
	if (bitonic_sort_device == BITONIC_DEVICE_AUTO && BitonicGpuUsable(&reason))
		*why = (size_t) Max(n, 0) < GPU_AUTO_MIN_PAIRS ?
			psprintf("cpu: fewer than %zu pairs", GPU_AUTO_MIN_PAIRS) :
			BitonicGpuAutoWhy((size_t) n, wide);
}

/* Raise an ERROR for a failed sort. */
static void
report_status(bs_status status, const bs_options *opt)
{
	if (status == BS_OK)
		return;
	if (status == BS_ERR_NOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory while sorting")));
	if (status == BS_ERR_UNSUPPORTED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("sorting algorithm \"%s\" is not available on the %s backend",
						bs_algorithm_name(opt->algorithm),
						opt->backend == BS_BACKEND_CUDA ? "GPU" : "CPU"),
				 errhint("Set bitonic_sort.algorithm to \"auto\", \"bitonic\" or \"adaptive\".")));
	if (status == BS_ERR_DEVICE_LOST)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not sort on the GPU"),
				 errdetail("%s; the pairs it was writing back could not be restored, so the CPU cannot sort them instead.",
						   gpu_error()),
				 errhint("Run the statement again, or set bitonic_sort.device to \"cpu\".")));
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("bitonic sort failed: %s", bs_status_message(status))));
}

/* Sort either pair shape with the given options. */
static bs_status
sort_pairs(bool wide, void *pairs, size_t n, const bs_options *opt)
{
	bs_status	status;

#ifdef BS_CUDA_EMU
	/* emulated builds: bitonic_sort.emu_fail makes one CUDA call of a GPU sort fail */
	if (opt->backend == BS_BACKEND_CUDA && bitonic_sort_emu_fail[0] != '\0' &&
		!bs_cuda_emu_arm(bitonic_sort_emu_fail))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"bitonic_sort.emu_fail\": \"%s\"",
						bitonic_sort_emu_fail)));
#endif
	status = wide ? bs_sort_pairs64((bs_pair64 *) pairs, n, opt) :
		bs_sort_pairs32((bs_pair32 *) pairs, n, opt);
#ifdef BS_CUDA_EMU
	bs_cuda_emu_disarm();
#endif
	return status;
}

/* The core's options for a sort of n on the CPU, whatever bitonic_sort.device says. */
static void
cpu_options(bs_options *opt, size_t n)
{
	opt->backend = BS_BACKEND_CPU;
	opt->algorithm = algorithm_on(BS_BACKEND_CPU, n);
	opt->threads = bitonic_sort_cpu_threads;
	opt->hooks = &pg_hooks;
	opt->comparisons = NULL;
}

/* Sort on the configured device; a failed GPU sort is an ERROR or a WARNING and a CPU sort. */
static void
run_sort(bool wide, void *pairs, size_t n)
{
	bs_options	opt;
	bs_status	status;

	prepare_options(&opt, n, wide);
	status = sort_pairs(wide, pairs, n, &opt);
	if (status == BS_ERR_UNSUPPORTED && opt.backend == BS_BACKEND_CUDA &&
		bitonic_sort_device == BITONIC_DEVICE_AUTO)
	{
		/* an algorithm the GPU backend lacks: auto means the CPU has it */
		opt.backend = BS_BACKEND_CPU;
		status = sort_pairs(wide, pairs, n, &opt);
	}
	else if (status == BS_ERR_DEVICE)
	{
		if (bitonic_sort_device == BITONIC_DEVICE_GPU)
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("could not sort on the GPU"),
					 errdetail("%s.", gpu_error()),
					 errhint("Set bitonic_sort.device to \"auto\" to fall back to the CPU.")));
		ereport(WARNING,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not sort on the GPU, sorting on the CPU instead"),
				 errdetail("%s.", gpu_error())));
		opt.backend = BS_BACKEND_CPU;
		status = sort_pairs(wide, pairs, n, &opt);
	}
	report_status(status, &opt);
}

/*
 * Whether 64-bit keys alone (no pointers) of a sort of n are sorted
 * (BitonicSortKeys64): where the GPU takes 8-byte elements (a key alone is
 * one: the packed pairs' kernels compare all 64 bits), half the bytes of
 * 64-bit pairs each way; otherwise where the CPU would run vqsort, under
 * device = auto also when the GPU would take 64-bit pairs (on an H100 with
 * 16 cores, keys alone on the CPU took 545 ms against 846 ms for those
 * pairs on the GPU for SELECT a … ORDER BY a of 10M int8).
 */
bool
BitonicSortsKeysAlone(size_t n)
{
	/* under device = gpu the GPU always takes them */
	return choose_backend(n, false) == BS_BACKEND_CUDA ||
		algorithm_on(BS_BACKEND_CPU, n) == BS_ALGO_VQSORT;
}

/*
 * Sort 64-bit keys alone, ascending, where BitonicSortsKeysAlone(n): on the
 * GPU as 8-byte elements (a failure falls back as for pairs), else by vqsort.
 */
void
BitonicSortKeys64(uint64 *keys, size_t n)
{
	bs_options	opt;

	Assert(BitonicSortsKeysAlone(n));
	if (choose_backend(n, false) == BS_BACKEND_CUDA)
	{
		run_sort(false, (bs_pair32 *) keys, n);
		return;
	}
	cpu_options(&opt, n);
	report_status(bs_cpu_vqsort_keys64((uint64_t *) keys, n, &opt), &opt);
}

/*
 * Sort pairs of either shape on the CPU whatever bitonic_sort.device says:
 * the tie pass's runs, many and mostly small, are not worth a trip to a GPU.
 */
void
BitonicSortPairsOnCpu(bool wide, void *pairs, size_t n)
{
	bs_options	opt;

	cpu_options(&opt, n);
	report_status(sort_pairs(wide, pairs, n, &opt), &opt);
}

/* Sort packed 32-bit-key pairs with the configured device. */
void
BitonicSortPairs32(bs_pair32 *pairs, size_t n)
{
	run_sort(false, pairs, n);
}

/* Sort 64-bit-key pairs with the configured device. */
void
BitonicSortPairs64(bs_pair64 *pairs, size_t n)
{
	run_sort(true, pairs, n);
}
