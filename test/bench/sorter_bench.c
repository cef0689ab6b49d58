/*
 * sorter_bench.c — micro-benchmark of the CPU sorters on random pairs:
 * standard bitonic, adaptive bitonic and the C library's qsort, timed in
 * the same run, with comparisons per element (counted for the adaptive
 * sort and qsort; n log n (log n + 1) / 4 for the network at n = 2^k).
 * Usage: sorter_bench [min_log2 max_log2 threads]
 */
#include "bs_sort.h"
#include "pairs_gen.h"

#include <stdio.h>
#include <time.h>

static uint64_t qsort_comparisons;

/* Wall-clock seconds. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* qsort comparator that counts. */
static int
counting_cmp64(const void *a, const void *b)
{
	qsort_comparisons++;
	return ref_cmp64(a, b);
}

/* Best of `reps` runs of one sorter on fresh copies of `input`; seconds. */
static double
time_sorter(int which, const bs_pair64 *input, bs_pair64 *work, size_t n,
			int threads, uint64_t *comps, int reps)
{
	double		best = 1e30;

	for (int r = 0; r < reps; r++)
	{
		bs_options	opt = {BS_BACKEND_CPU, which == 0 ? BS_ALGO_BITONIC : BS_ALGO_ADAPTIVE,
		threads, NULL, comps};
		double		t;

		memcpy(work, input, n * sizeof(bs_pair64));
		qsort_comparisons = 0;
		t = now();
		if (which == 2)
			qsort(work, n, sizeof(bs_pair64), counting_cmp64);
		else
			bs_sort_pairs64(work, n, &opt);
		t = now() - t;
		if (which == 2)
			*comps = qsort_comparisons;
		if (t < best)
			best = t;
	}
	return best;
}

int
main(int argc, char **argv)
{
	int			lo = argc > 1 ? atoi(argv[1]) : 10;
	int			hi = argc > 2 ? atoi(argv[2]) : 24;
	int			threads = argc > 3 ? atoi(argv[3]) : 1;

	printf("64-bit-key pairs, random keys, threads=%d; time in ms (best of 3 below 2^20, else 1)\n", threads);
	printf("%6s | %12s %12s %12s | %9s %9s %9s | %8s %8s\n", "n", "bitonic ms", "adaptive ms",
		   "qsort ms", "cmp/el bit", "cmp/el ada", "cmp/el qs", "ada/qs", "bit/qs");
	for (int k = lo; k <= hi; k++)
	{
		size_t		n = (size_t) 1 << k;
		bs_pair64  *input = malloc(n * sizeof(bs_pair64));
		bs_pair64  *work = malloc(n * sizeof(bs_pair64));
		uint64_t	ca = 0,
					cq = 0,
					unused = 0;
		int			reps = k < 20 ? 3 : 1;
		double		tb,
					ta,
					tq;

		gen_pairs64(input, n, GEN_RANDOM, (uint64_t) k * 77);
		tb = time_sorter(0, input, work, n, threads, &unused, reps);
		ta = time_sorter(1, input, work, n, threads, &ca, reps);
		tq = time_sorter(2, input, work, n, threads, &cq, reps);
		printf("2^%-4d | %12.2f %12.2f %12.2f | %9.1f %9.1f %9.1f | %8.2f %8.2f\n", k,
			   tb * 1e3, ta * 1e3, tq * 1e3, k * (k + 1) / 4.0, (double) ca / n,
			   (double) cq / n, ta / tq, tb / tq);
		fflush(stdout);
		free(input);
		free(work);
	}
	return 0;
}
