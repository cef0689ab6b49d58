/*
 * sorter_bench.c — micro-benchmark of the CPU sorters on random pairs:
 * standard bitonic, adaptive bitonic, Highway's vqsort (when built in) and
 * the C library's qsort, timed in the same run, with comparisons per element
 * (counted for the adaptive sort and qsort; n log n (log n + 1) / 4 for the
 * network at n = 2^k).  Both pair shapes.
 * Usage: sorter_bench [min_log2 max_log2 threads]
 */
#include "bs_sort.h"
#include "mono_clock.h"
#include "pairs_gen.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

static uint64_t qsort_comparisons;

/* qsort comparator that counts. */
static int
counting_cmp64(const void *a, const void *b)
{
	qsort_comparisons++;
	return ref_cmp64(a, b);
}

/* A sorter under test: a core algorithm, or qsort when algorithm is AUTO. */
typedef struct bench_sorter
{
	const char *name;
	bs_algorithm algorithm;
} bench_sorter;

static const bench_sorter sorters[] = {
	{"bitonic", BS_ALGO_BITONIC},
	{"adaptive", BS_ALGO_ADAPTIVE},
	{"vqsort", BS_ALGO_VQSORT},
	{"qsort", BS_ALGO_AUTO},
};
#define NSORTERS (sizeof(sorters) / sizeof(sorters[0]))

/* qsort comparator of packed pairs that counts. */
static int
counting_cmp32(const void *a, const void *b)
{
	qsort_comparisons++;
	return ref_cmp32(a, b);
}

/* Best of `reps` runs of one sorter on fresh copies of `input` (shape 32 or 64); seconds. */
static double
time_sorter(const bench_sorter *sorter, int shape, const void *input, void *work,
			size_t n, int threads, uint64_t *comps, int reps)
{
	size_t		size = shape == 32 ? sizeof(bs_pair32) : sizeof(bs_pair64);
	double		best = 1e30;

	for (int r = 0; r < reps; r++)
	{
		bs_options	opt = {BS_BACKEND_CPU, sorter->algorithm, threads, NULL, comps};
		double		t;
		bs_status	status = BS_OK;

		memcpy(work, input, n * size);
		qsort_comparisons = 0;
		t = mono_seconds();
		if (sorter->algorithm == BS_ALGO_AUTO)
			qsort(work, n, size, shape == 32 ? counting_cmp32 : counting_cmp64);
		else if (shape == 32)
			status = bs_sort_pairs32(work, n, &opt);
		else
			status = bs_sort_pairs64(work, n, &opt);
		t = mono_seconds() - t;
		if (status != BS_OK)
			return -1;
		if (sorter->algorithm == BS_ALGO_AUTO)
			*comps = qsort_comparisons;
		if (t < best)
			best = t;
	}
	return best;
}

/* One row of a table: every sorter on n random pairs of one shape. */
static void
bench_row(int shape, size_t n, const char *label, int threads, uint64_t seed, int reps)
{
	size_t		size = shape == 32 ? sizeof(bs_pair32) : sizeof(bs_pair64);
	void	   *input = malloc(n * size);
	void	   *work = malloc(n * size);
	double		t[NSORTERS];
	uint64_t	c[NSORTERS];
	double		log2n = log2((double) n);

	if (shape == 32)
		gen_pairs32(input, n, GEN_RANDOM, seed);
	else
		gen_pairs64(input, n, GEN_RANDOM, seed);
	for (size_t s = 0; s < NSORTERS; s++)
	{
		c[s] = 0;
		t[s] = time_sorter(&sorters[s], shape, input, work, n, threads, &c[s], reps);
	}
	/* the network's n log n (log n + 1) / 4, exact at n = 2^k */
	c[0] = (uint64_t) ((double) n * log2n * (log2n + 1) / 4);
	printf("%-6s", label);
	for (size_t s = 0; s < NSORTERS; s++)
	{
		if (t[s] < 0)
			printf(" | %-24s", "not built");
		else if (sorters[s].algorithm == BS_ALGO_VQSORT)
			printf(" | %9.2f %6s %6.2fx", t[s] * 1e3, "-", t[s] / t[NSORTERS - 1]);
		else
			printf(" | %9.2f %6.1f %6.2fx", t[s] * 1e3, (double) c[s] / n, t[s] / t[NSORTERS - 1]);
	}
	printf("\n");
	fflush(stdout);
	free(input);
	free(work);
}

/* One table: every sorter on n = 2^lo .. 2^hi random pairs of one shape, and 10M within that range. */
static void
bench_shape(int shape, int lo, int hi, int threads)
{
	const size_t ten_million = 10000000;

	printf("\n%s pairs, random keys, threads=%d: ms (best of 3 below 2^20, else 1); "
		   "comparisons per element; time / qsort time\n",
		   shape == 32 ? "packed 32-bit-key" : "64-bit-key", threads);
	printf("%6s", "n");
	for (size_t s = 0; s < NSORTERS; s++)
		printf(" | %-24s", sorters[s].name);
	printf("\n");
	for (int k = lo; k <= hi; k++)
	{
		char		label[16];

		snprintf(label, sizeof(label), "2^%d", k);
		bench_row(shape, (size_t) 1 << k, label, threads, (uint64_t) k * 77, k < 20 ? 3 : 1);
	}
	if (ten_million >= ((size_t) 1 << lo) && ten_million <= ((size_t) 1 << hi))
		bench_row(shape, ten_million, "10M", threads, 1077, 1);
}

int
main(int argc, char **argv)
{
	int			lo = argc > 1 ? atoi(argv[1]) : 10;
	int			hi = argc > 2 ? atoi(argv[2]) : 24;
	int			threads = argc > 3 ? atoi(argv[3]) : 1;

	bench_shape(64, lo, hi, threads);
	bench_shape(32, lo, hi, threads);
	return 0;
}
