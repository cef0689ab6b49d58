/*
 * bitonic.cu — which kernels to launch, in which order, for a buffer of n
 * pairs already on the GPU.  The standard and the adaptive sorter share the
 * launch sequence (tile sort; per merge stage beyond the tile, its steps of
 * span >= T in global memory, then one shared-memory launch for the rest)
 * and differ in their global kernels: the standard sorter does up to
 * pass_steps network steps in one pass (bs_global_pass), an adaptive global
 * phase is two launches (splits, then exchanges).
 */
#include "tile_kernels.cuh"
#include "cost_model.h"
#include "cuda_internal.cuh"

/* Blocks for a global phase of ncmp comparators (a grid-stride loop does the rest). */
static unsigned
step_blocks(size_t ncmp)
{
	size_t		b = (ncmp + BS_CUDA_STEP_THREADS - 1) / BS_CUDA_STEP_THREADS;

	return (unsigned) (b < BS_CUDA_MAX_BLOCKS ? b : BS_CUDA_MAX_BLOCKS);
}

/*
 * One pass of ns steps of the standard sorter over ngroups groups: the
 * kernel instantiated for ns (NS counts down from the shape's most).
 */
template<typename P, unsigned NS = bs_pair_ops<P>::pass_steps>
static bool
standard_pass(P *d, size_t n, size_t h, unsigned ns, bool mirror, size_t ngroups, cudaStream_t stream)
{
	if constexpr (NS > 1)
	{
		if (ns < NS)
			return standard_pass<P, NS - 1>(d, n, h, ns, mirror, ngroups, stream);
	}
	BS_LAUNCH((bs_global_pass<P, NS>), dim3(step_blocks(ngroups)), dim3(BS_CUDA_STEP_THREADS), 0, stream)(d, n, h, mirror ? 1 : 0, ngroups);
	return bs_cuda_check(cudaGetLastError(), "bs_global_pass<<<>>>");
}

/*
 * The global steps of merge stage k of the standard sorter (the mirror step
 * of span k, then the plain strides k/4 .. T), bs_pair_ops<P>::pass_steps
 * to a pass.
 */
template<typename P>
static bool
standard_stage(P *d, size_t n, size_t k, size_t *scratch, cudaStream_t stream)
{
	const size_t T = bs_pair_ops<P>::tile;
	size_t		full = bs_pow2_ceil(n);

	(void) scratch;
	for (size_t h = k / 2; h >= T;)
	{
		unsigned	ns = bs_pass_steps(h, T, bs_pair_ops<P>::pass_steps);

		if (!standard_pass<P>(d, n, h, ns, h == k / 2, full >> ns, stream))
			return false;
		h >>= ns;
	}
	return true;
}

/* One global phase of the adaptive sorter: the splits, then the exchanges. */
template<typename P>
static bool
adaptive_step(P *d, size_t n, size_t span, bool mirror, size_t ncmp, size_t *scratch, cudaStream_t stream)
{
	size_t		nseq = ncmp / (mirror ? span / 2 : span);

	BS_LAUNCH(bs_adaptive_split_kernel<P>, dim3(step_blocks(nseq)), dim3(BS_CUDA_STEP_THREADS), 0, stream)(d, n, span, mirror ? 1 : 0, nseq, scratch);
	if (!bs_cuda_check(cudaGetLastError(), "bs_adaptive_split_kernel<<<>>>"))
		return false;
	BS_LAUNCH(bs_adaptive_step<P>, dim3(step_blocks(ncmp)), dim3(BS_CUDA_STEP_THREADS), 0, stream)(d, span, mirror ? 1 : 0, ncmp, scratch);
	return bs_cuda_check(cudaGetLastError(), "bs_adaptive_step<<<>>>");
}

/* The global phases of merge stage k of the adaptive sorter: the mirror phase, then strides k/4 .. T. */
template<typename P>
static bool
adaptive_stage(P *d, size_t n, size_t k, size_t *scratch, cudaStream_t stream)
{
	size_t		ncmp = bs_pow2_ceil(n) / 2;

	if (!adaptive_step(d, n, k, true, ncmp, scratch, stream))
		return false;
	for (size_t j = k / 4; j >= bs_pair_ops<P>::tile; j /= 2)
		if (!adaptive_step(d, n, j, false, ncmp, scratch, stream))
			return false;
	return true;
}

/* The kernels of one sorter: shared-memory tile sort and merge, and the global phase. */
template<typename P>
struct bs_kernel_set
{
	void		(*tile_sort) (P *, size_t);
	void		(*tile_merge) (P *, size_t);
	bool		(*stage) (P *, size_t, size_t, size_t *, cudaStream_t);
	const char *tile_sort_name;
	const char *tile_merge_name;
};

/* Standard bitonic (bitonic_kernels.cuh, tile_kernels.cuh). */
template<typename P>
static const bs_kernel_set<P> standard_kernels = {
	bs_tile_sort<P, false>, bs_tile_merge<P, false>, standard_stage<P>,
	"bs_tile_sort<<<>>>", "bs_tile_merge<<<>>>"
};

/* Adaptive bitonic (adaptive_kernels.cuh, tile_kernels.cuh). */
template<typename P>
static const bs_kernel_set<P> adaptive_kernels = {
	bs_tile_sort<P, true>, bs_tile_merge<P, true>, adaptive_stage<P>,
	"bs_tile_sort<adaptive><<<>>>", "bs_tile_merge<adaptive><<<>>>"
};

/* One shared-memory launch over every tile. */
template<typename P>
static bool
launch_tiles(void (*kernel) (P *, size_t), const char *name, P *d, size_t n, cudaStream_t stream)
{
	const size_t T = bs_pair_ops<P>::tile;
	unsigned	ntiles = (unsigned) ((n + T - 1) / T);
	/* a single small tile needs no more threads than comparators per step (at least a warp) */
	size_t		threads = bs_pow2_ceil(n < T ? n : T) / 2;

	threads = threads < 32 ? 32 : threads > BS_CUDA_TILE_THREADS ? BS_CUDA_TILE_THREADS : threads;
	BS_LAUNCH(kernel, dim3(ntiles), dim3((unsigned) threads), 0, stream)(d, n);
	return bs_cuda_check(cudaGetLastError(), name);
}

/* Sort n pairs in device memory with the kernels of one sorter. */
template<typename P>
static bool
run_network(const bs_kernel_set<P> &ks, P *d, size_t n, size_t *scratch, cudaStream_t stream)
{
	const size_t T = bs_pair_ops<P>::tile;
	size_t		full = bs_pow2_ceil(n);

	if (n < 2)
		return true;
	if (!launch_tiles(ks.tile_sort, ks.tile_sort_name, d, n, stream))
		return false;
	for (size_t k = 2 * T; k <= full; k *= 2)
	{
		if (!ks.stage(d, n, k, scratch, stream))
			return false;
		if (!launch_tiles(ks.tile_merge, ks.tile_merge_name, d, n, stream))
			return false;
	}
	return true;
}

/* Device scratch bytes the algorithm needs for n pairs: the adaptive splits of a phase. */
template<typename P>
size_t
bs_gpu_scratch_bytes(size_t n, bs_algorithm algo)
{
	size_t		nseq = bs_pow2_ceil(n) / (2 * bs_pair_ops<P>::tile);

	return algo == BS_ALGO_ADAPTIVE ? 2 * sizeof(size_t) * (nseq ? nseq : 1) : 0;
}

/* Sort n pairs in device memory with the chosen algorithm (auto: standard). */
template<typename P>
bool
bs_gpu_sort(P *d, size_t n, bs_algorithm algo, void *scratch, cudaStream_t stream)
{
	return run_network(algo == BS_ALGO_ADAPTIVE ? adaptive_kernels<P> : standard_kernels<P>,
					   d, n, (size_t *) scratch, stream);
}

template size_t bs_gpu_scratch_bytes<bs_pair32>(size_t, bs_algorithm);
template size_t bs_gpu_scratch_bytes<bs_pair64>(size_t, bs_algorithm);
template bool bs_gpu_sort<bs_pair32>(bs_pair32 *, size_t, bs_algorithm, void *, cudaStream_t);
template bool bs_gpu_sort<bs_pair64>(bs_pair64 *, size_t, bs_algorithm, void *, cudaStream_t);
