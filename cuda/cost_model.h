/*
 * cost_model.h — kernel launches and full global-memory passes (a pass
 * reads and writes every pair once) of one sort by the CUDA sorters, from
 * the launch sequence of bitonic.cu and the sizes of bs_cuda_config.h.
 * The host code groups its network steps with bs_pass_steps below; the
 * unit tests hold the emulator's measured traffic to these counts, and
 * `make cuda-cost-model` prints them (test/bench/cuda_cost_model.cc).
 */
#ifndef BS_CUDA_COST_MODEL_H
#define BS_CUDA_COST_MODEL_H

#include "../src/core/bs_sort.h"
#include "bs_cuda_config.h"

/*
 * Steps the next standard global pass of a merge stage takes, its highest
 * stride h (the stage's mirror step counts as stride k/2): as many as
 * max_steps allows without a stride below the block B, where the block
 * merge takes over.
 */
static inline unsigned
bs_pass_steps(size_t h, size_t B, unsigned max_steps)
{
	unsigned	ns = 1;

	while (ns < max_steps && (h >> ns) >= B)
		ns++;
	return ns;
}

/* Merge stages beyond the tile T for n pairs (blocks of 2T, 4T, .. up to the network's size). */
static inline long
bs_stage_count(size_t n, size_t T)
{
	long		stages = 0;

	for (size_t k = 2 * T; k <= bs_pow2_ceil(n); k *= 2)
		stages++;
	return stages;
}

/* Launches and passes of one sort. */
typedef struct bs_cuda_cost
{
	long		launches;
	double		passes;
} bs_cuda_cost;

/*
 * The standard sorter: one tile sort; per merge stage beyond the tile T,
 * its global steps of stride >= the block B max_steps to a pass, then one
 * block merge.  Every launch reads and writes every pair: passes =
 * launches.
 */
static inline bs_cuda_cost
bs_cost_standard(size_t n, size_t T, size_t B, unsigned max_steps)
{
	bs_cuda_cost c = {0, 0.0};

	if (n < 2)
		return c;
	c.launches = 1;
	for (size_t k = 2 * T; k <= bs_pow2_ceil(n); k *= 2)
	{
		for (size_t h = k / 2; h >= B; h >>= bs_pass_steps(h, B, max_steps))
			c.launches++;
		c.launches++;
	}
	c.passes = (double) c.launches;
	return c;
}

/*
 * Whether the adaptive sorter, with `stages` merge stages to go, does the
 * first (of 2T) as one block merge in place, so that the last stage reads
 * the first buffer (out_over_other: it writes over the second one's
 * memory) or the second (it writes into the first).  The stages alternate
 * buffers, the first stage reading the first.
 */
static inline bool
bs_adaptive_block_first(long stages, bool out_over_other)
{
	return stages > 0 && ((stages - 1) % 2 == 0) != out_over_other;
}

/*
 * The adaptive sorter: one tile sort; per merge stage beyond the tile T,
 * the co-rank search (its few reads are left out) and one tile merge from
 * one buffer into the other: a pass.  Where bs_adaptive_block_first says
 * so, the first stage is one block merge in place (a pass, one launch).
 */
static inline bs_cuda_cost
bs_cost_adaptive(size_t n, size_t T, bool out_over_other)
{
	bs_cuda_cost c = {0, 0.0};
	long		stages = bs_stage_count(n, T);

	if (n < 2)
		return c;
	c.launches = 1 + 2 * stages - (bs_adaptive_block_first(stages, out_over_other) ? 1 : 0);
	c.passes = 1.0 + (double) stages;
	return c;
}

/* One sort of n packed pairs (bitonic.cu's bs_gpu_sort<bs_pair32>): in place. */
static inline bs_cuda_cost
bs_cost_sort32(size_t n, bool adaptive)
{
	return adaptive ? bs_cost_adaptive(n, BS_CUDA_TILE_PAIRS32, false) :
		bs_cost_standard(n, BS_CUDA_TILE_PAIRS32, BS_CUDA_BLOCK_PAIRS32, BS_CUDA_PASS_STEPS32);
}

/*
 * One sort of n 64-bit pairs (bs_gpu_sort<bs_pair64>), in passes over their
 * 16 bytes.  One tile: the tile sort in place.  More: the tile sort into
 * the split store (read 16, write 12 bytes a pair), its tiles' spans
 * reduced in one more, tiny launch; then, for keys spanning less than 2^32
 * (narrow), the packing over the split keys (read 12, write 8), the packed
 * sort (each of its passes half of one here) and the unpacking (read 8,
 * write 16); for wider keys the 64-bit sorter's passes over the split
 * store (12 + 12 bytes, three quarters of one), the last one writing 16.
 */
static inline bs_cuda_cost
bs_cost_sort64(size_t n, bool adaptive, bool narrow)
{
	bs_cuda_cost c = {n < 2 ? 0 : 1, n < 2 ? 0.0 : 1.0};

	if (n <= BS_CUDA_TILE_PAIRS64)
		return c;
	if (narrow)
	{
		c = bs_cost_sort32(n, adaptive);
		c.launches += 4;
		c.passes = 28.0 / 32 + 20.0 / 32 + c.passes / 2 + 24.0 / 32;
		return c;
	}
	c = adaptive ? bs_cost_adaptive(n, BS_CUDA_TILE_PAIRS64, true) :
		bs_cost_standard(n, BS_CUDA_TILE_PAIRS64, BS_CUDA_BLOCK_PAIRS64, BS_CUDA_PASS_STEPS64);
	c.launches += 1;
	c.passes = 0.75 * c.passes + 2 * (4.0 / 32);
	return c;
}

#endif							/* BS_CUDA_COST_MODEL_H */
