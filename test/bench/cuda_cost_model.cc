/*
 * cuda_cost_model.cc — what `make cuda-cost-model` prints: kernel launches
 * and full global-memory passes of one sort by the CUDA sorters
 * (cuda/cost_model.h, the launch sequence of cuda/bitonic.cu with the
 * sizes of cuda/bs_cuda_config.h) for n = 2^16 .. 2^28, beside the naive
 * network (one launch per step), and the time they imply at a memory
 * bandwidth (default: an H100's 3.35 TB/s).  test_cuda_sort holds the
 * emulator's measured traffic to the same counts at 2^16 .. 2^20.  Memory
 * traffic only: launch gaps and the co-rank searches are not in it.
 *   cuda_cost_model [bandwidth in TB/s]
 */
#include "cuda/cost_model.h"

#include <cstdio>
#include <cstdlib>

/* One table: a pair shape of `bytes` bytes (8: packed, 16: 64-bit keys), its tile, block and steps per pass. */
static void
table(const char *shape, size_t bytes, size_t tile, size_t block, unsigned pass_steps, double bandwidth)
{
	bool		wide = bytes == 16;

	printf("\n%s, tile T = %zu, block B = %zu, up to %u network steps per standard global pass\n\n", shape,
		   tile, block, pass_steps);
	printf("| n | naive launches = passes | standard launches | standard passes | standard / naive | standard ms "
		   "| adaptive launches | adaptive passes | adaptive ms |%s\n",
		   wide ? " keys spanning < 2^32: standard passes, adaptive passes |" : "");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|%s\n", wide ? "---:|---:|" : "");
	for (unsigned e = 16; e <= 28; e++)
	{
		size_t		n = (size_t) 1 << e;
		long		naive = (long) e * (e + 1) / 2;
		bs_cuda_cost s = wide ? bs_cost_sort64(n, false, false) : bs_cost_sort32(n, false);
		bs_cuda_cost a = wide ? bs_cost_sort64(n, true, false) : bs_cost_sort32(n, true);
		double		pass_ms = 2.0 * (double) n * (double) bytes / bandwidth * 1e3;

		printf("| 2^%u | %ld | %ld | %.2f | %.0f%% | %.2f | %ld | %.2f | %.2f |", e, naive, s.launches, s.passes,
			   100.0 * s.passes / (double) naive, s.passes * pass_ms, a.launches, a.passes, a.passes * pass_ms);
		if (wide)
			printf(" %.2f | %.2f |", bs_cost_sort64(n, false, true).passes, bs_cost_sort64(n, true, true).passes);
		printf("\n");
	}
}

int
main(int argc, char **argv)
{
	double		bandwidth = (argc > 1 ? atof(argv[1]) : 3.35) * 1e12;
	size_t		n24 = (size_t) 1 << 24;

	printf("Global-memory passes of one sort (a pass reads and writes every pair once) at %.2f TB/s.\n",
		   bandwidth / 1e12);
	table("32-bit keys (8-byte packed pairs)", 8, BS_CUDA_TILE_PAIRS32, BS_CUDA_BLOCK_PAIRS32, BS_CUDA_PASS_STEPS32, bandwidth);
	table("64-bit keys (16-byte pairs; merged as 12-byte split pairs)", 16, BS_CUDA_TILE_PAIRS64, BS_CUDA_BLOCK_PAIRS64,
		  BS_CUDA_PASS_STEPS64, bandwidth);
	printf("\nAt 2^24 (targets: standard <= 30 passes, adaptive <= 14): standard %.2f (32-bit keys), %.2f (64-bit);"
		   " adaptive %.2f, %.2f; 64-bit keys spanning less than 2^32: standard %.2f, adaptive %.2f\n",
		   bs_cost_sort32(n24, false).passes, bs_cost_sort64(n24, false, false).passes,
		   bs_cost_sort32(n24, true).passes, bs_cost_sort64(n24, true, false).passes,
		   bs_cost_sort64(n24, false, true).passes, bs_cost_sort64(n24, true, true).passes);
	return 0;
}
