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
 * The adaptive sorter: one tile sort; per merge stage beyond the tile T,
 * the co-rank search (its few reads are left out) and one tile merge from
 * one buffer into the other: a pass.  With an odd number of stages the
 * first is one block merge in place (a pass, one launch), so that the last
 * ends in the pairs' own buffer.
 */
static inline bs_cuda_cost
bs_cost_adaptive(size_t n, size_t T)
{
	bs_cuda_cost c = {0, 0.0};
	long		stages = bs_stage_count(n, T);

	if (n < 2)
		return c;
	c.launches = 1 + 2 * stages - stages % 2;
	c.passes = 1.0 + (double) stages;
	return c;
}

/*
 * 64-bit pairs whose keys span less than 2^32, in passes over their 16
 * bytes: the tile sort as 64-bit pairs (a pass; its tiles' spans reduced
 * in one more, tiny launch), the packing (read 16, write 8 bytes a pair),
 * the packed sort (each of its passes half of one here) and the unpacking.
 * Wider keys cost what the 64-bit sorter does, plus the span's reduction
 * launch.
 */
static inline bs_cuda_cost
bs_cost_packed64(bs_cuda_cost packed_sort)
{
	bs_cuda_cost c = packed_sort;

	if (c.launches > 0)
	{
		c.launches += 4;
		c.passes = 1.0 + 0.75 + packed_sort.passes / 2 + 0.75;
	}
	return c;
}

/* See bs_cost_packed64. */
static inline bs_cuda_cost
bs_cost_wide64(bs_cuda_cost sort)
{
	if (sort.launches > 0)
		sort.launches += 1;
	return sort;
}

#endif							/* BS_CUDA_COST_MODEL_H */
