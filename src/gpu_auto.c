/*
 * gpu_auto.c — what bitonic_sort.device = auto goes by: from how many pairs
 * of each shape (8-byte packed pairs, 16-byte 64-bit pairs) the GPU sorted
 * faster than the CPU, measured once per backend the first time a sort
 * could go to the GPU, unless bitonic_sort.gpu_min_pairs sets it.
 *
 * The measurement sorts the same random pairs (64-bit keys over the whole
 * range, the slower, wide way) on the CPU (the configured threads, the best
 * CPU sorter) and on the GPU (end to end, transfers included), best of two
 * each, at 2^16, 2^18, 2^20 and 2^22 pairs (those whose input and copy fit
 * in work_mem), after one small GPU sort that pays for the device's start.
 * The GPU is taken from the smallest size at which it was faster there and
 * at every larger size measured; where it was more than ten times slower
 * the larger sizes are not measured (they count as the CPU's), so an
 * emulated or weak device costs one round.  A parallel worker is a backend
 * of its own and measures for itself.
 */
#include "bitonic_sort.h"

#include <math.h>
#include <time.h>

#include "common/pg_prng.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/memutils.h"

/* Sizes measured: 2^16 .. 2^22, by fours. */
#define AUTO_SIZES 4
#define AUTO_FIRST_LOG2 16
#define AUTO_STEP_LOG2 2

/* What was measured for one pair shape. */
typedef struct GpuCrossover
{
	bool		measured;
	size_t		from;			/* the GPU from this many pairs on; SIZE_MAX: never */
	int			nsizes;			/* sizes measured */
	double		cpu_ms[AUTO_SIZES];
	double		gpu_ms[AUTO_SIZES];
} GpuCrossover;

/* [0]: 8-byte pairs, [1]: 64-bit pairs. */
static GpuCrossover crossovers[2];

/* Milliseconds on a monotonic clock. */
static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Best of two sorts of a copy of input on backend, in ms; INFINITY if one failed. */
static double
time_sort(bool wide, void *work, const void *input, size_t n, bs_backend backend)
{
	bs_options	opt = {backend, BS_ALGO_AUTO, bitonic_sort_cpu_threads, BitonicCoreHooks(), NULL};
	double		best = INFINITY;

	if (backend == BS_BACKEND_CUDA && bitonic_sort_algorithm != BS_ALGO_VQSORT)
		opt.algorithm = (bs_algorithm) bitonic_sort_algorithm;
	for (int rep = 0; rep < 2; rep++)
	{
		double		t0;
		bs_status	status;

		memcpy(work, input, n * (wide ? sizeof(bs_pair64) : sizeof(bs_pair32)));
		t0 = now_ms();
		status = wide ? bs_sort_pairs64(work, n, &opt) : bs_sort_pairs32(work, n, &opt);
		if (status != BS_OK)
			return INFINITY;
		best = Min(best, now_ms() - t0);
		CHECK_FOR_INTERRUPTS();
	}
	return best;
}

/* Random pairs of a shape: keys over their whole range, pointers 0 .. n-1. */
static void *
random_pairs(bool wide, size_t n)
{
	pg_prng_state state;
	void	   *pairs = MemoryContextAllocHuge(CurrentMemoryContext,
											   n * (wide ? sizeof(bs_pair64) : sizeof(bs_pair32)));

	pg_prng_seed(&state, 1);
	for (size_t i = 0; i < n; i++)
	{
		uint64		key = pg_prng_uint64(&state);

		if (wide)
		{
			((bs_pair64 *) pairs)[i].key = key;
			((bs_pair64 *) pairs)[i].ptr = (uint32) i;
			((bs_pair64 *) pairs)[i].pad = 0;
		}
		else
			((bs_pair32 *) pairs)[i] = bs_pack32((uint32) (key >> 32), (uint32) i);
	}
	return pairs;
}

/*
 * Measure one shape (see the file's comment).  The input and its copy stay
 * within work_mem: larger sizes are not measured, and the largest measured
 * speaks for them.
 */
static void
measure(bool wide)
{
	GpuCrossover *c = &crossovers[wide];
	size_t		pair = wide ? sizeof(bs_pair64) : sizeof(bs_pair32);
	size_t		largest = (size_t) 1 << (AUTO_FIRST_LOG2 + AUTO_STEP_LOG2 * (AUTO_SIZES - 1));
	size_t		within = (size_t) work_mem * 1024 / (2 * pair);
	bool		gave_up = false;
	MemoryContext cxt,
				old;
	void	   *input,
			   *work;

	/* measured only once done: a cancel or an error on the way measures again next time */
	c->measured = false;
	c->nsizes = 0;
	c->from = SIZE_MAX;
	largest = Min(largest, within);
	if (largest < ((size_t) 1 << AUTO_FIRST_LOG2))
	{
		c->measured = true;
		return;
	}
	cxt = AllocSetContextCreate(CurrentMemoryContext, "bitonic_sort auto measurement", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	input = random_pairs(wide, largest);
	work = MemoryContextAllocHuge(cxt, largest * pair);
	(void) time_sort(wide, work, input, 1024, BS_BACKEND_CUDA);
	for (int i = 0; i < AUTO_SIZES && !gave_up; i++)
	{
		size_t		n = (size_t) 1 << (AUTO_FIRST_LOG2 + AUTO_STEP_LOG2 * i);

		if (n > largest)
			break;
		c->cpu_ms[i] = time_sort(wide, work, input, n, BS_BACKEND_CPU);
		c->gpu_ms[i] = time_sort(wide, work, input, n, BS_BACKEND_CUDA);
		c->nsizes++;
		gave_up = c->gpu_ms[i] > 10 * c->cpu_ms[i];
	}
	if (!gave_up)
		for (int i = c->nsizes - 1; i >= 0 && c->gpu_ms[i] < c->cpu_ms[i]; i--)
			c->from = (size_t) 1 << (AUTO_FIRST_LOG2 + AUTO_STEP_LOG2 * i);
	c->measured = true;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/*
 * From how many pairs of a shape device = auto sorts on the GPU (SIZE_MAX:
 * never): bitonic_sort.gpu_min_pairs, or what was measured (now, the first
 * time).  Call only with a usable GPU.
 */
size_t
BitonicGpuAutoFrom(bool wide)
{
	if (bitonic_sort_gpu_min_pairs >= 0)
		return (size_t) bitonic_sort_gpu_min_pairs;
	if (!crossovers[wide].measured)
		measure(wide);
	return crossovers[wide].from;
}

/* "from 2^N pairs" or "never" for a crossover. */
static const char *
from_words(size_t from)
{
	return from == SIZE_MAX ? "never" : psprintf("from %zu pairs", from);
}

/*
 * EXPLAIN's words for why device = auto sorts n pairs of a shape where it
 * does (call only with a usable GPU).
 */
const char *
BitonicGpuAutoWhy(size_t n, bool wide)
{
	size_t		from = BitonicGpuAutoFrom(wide);
	const char *shape = wide ? "64-bit pairs" : "packed pairs";

	if (bitonic_sort_gpu_min_pairs >= 0)
		return psprintf("%s: bitonic_sort.gpu_min_pairs = %d", n >= from ? "gpu" : "cpu",
						bitonic_sort_gpu_min_pairs);
	if (from == SIZE_MAX)
		return psprintf("cpu: the GPU measured slower for %s at every size", shape);
	return psprintf("%s: the GPU measured faster for %s from %zu on", n >= from ? "gpu" : "cpu", shape, from);
}

/* One shape's measurement for bitonic_sort_info(). */
static void
describe_shape(StringInfo buf, bool wide)
{
	const GpuCrossover *c = &crossovers[wide];

	if (c->nsizes == 0)
	{
		appendStringInfo(buf, "%s: GPU never (work_mem holds no 2^%d pairs to measure)",
						 wide ? "64-bit pairs" : "packed pairs", AUTO_FIRST_LOG2);
		return;
	}
	appendStringInfo(buf, "%s: GPU %s (ms cpu/gpu:", wide ? "64-bit pairs" : "packed pairs", from_words(c->from));
	for (int i = 0; i < c->nsizes; i++)
		appendStringInfo(buf, " 2^%d %.2f/%.2f", AUTO_FIRST_LOG2 + AUTO_STEP_LOG2 * i, c->cpu_ms[i], c->gpu_ms[i]);
	appendStringInfoChar(buf, ')');
}

/* bitonic_sort_info()'s words on device = auto: the setting, or what was measured so far. */
char *
BitonicGpuAutoDescribe(void)
{
	StringInfoData buf;

	initStringInfo(&buf);
	if (bitonic_sort_gpu_min_pairs >= 0)
		appendStringInfo(&buf, "auto: the GPU from %d pairs (bitonic_sort.gpu_min_pairs)",
						 bitonic_sort_gpu_min_pairs);
	else if (!crossovers[0].measured && !crossovers[1].measured)
		appendStringInfoString(&buf, "auto: not measured yet (at the first sort that could go to the GPU)");
	else
	{
		appendStringInfoString(&buf, "auto: ");
		for (int wide = 0; wide <= 1; wide++)
			if (crossovers[wide].measured)
			{
				if (buf.data[buf.len - 1] != ' ')
					appendStringInfoString(&buf, "; ");
				describe_shape(&buf, wide);
			}
	}
	return buf.data;
}
