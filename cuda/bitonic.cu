/*
 * bitonic.cu — the standard bitonic sorter on the device: which kernels to
 * launch, in which order, for a buffer of n pairs already on the GPU.
 */
#include "bitonic_kernels.cuh"
#include "cuda_internal.cuh"

/* Smallest power of two >= n. */
static size_t
pow2_ceil(size_t n)
{
	size_t		p = 1;

	while (p < n)
		p *= 2;
	return p;
}

/* Blocks for a global step of ncmp comparators (a grid-stride loop does the rest). */
static unsigned
step_blocks(size_t ncmp)
{
	size_t		b = (ncmp + BS_CUDA_STEP_THREADS - 1) / BS_CUDA_STEP_THREADS;

	return (unsigned) (b < BS_CUDA_MAX_BLOCKS ? b : BS_CUDA_MAX_BLOCKS);
}

/*
 * Tiles sorted in shared memory, then each merge stage beyond the tile: one
 * global launch per stride >= T and one shared-memory launch for the rest.
 */
template<typename P>
bool
bs_gpu_bitonic(P *d, size_t n, cudaStream_t stream)
{
	const size_t T = bs_pair_ops<P>::tile;
	size_t		full = pow2_ceil(n);
	unsigned	ntiles = (unsigned) ((n + T - 1) / T);
	size_t		ncmp = full / 2;

	if (n < 2)
		return true;
	BS_LAUNCH(bs_tile_sort<P>, dim3(ntiles), dim3(BS_CUDA_TILE_THREADS), 0, stream)(d, n);
	if (!bs_cuda_check(cudaGetLastError(), "bs_tile_sort<<<>>>"))
		return false;
	for (size_t k = 2 * T; k <= full; k *= 2)
	{
		BS_LAUNCH(bs_global_step<P>, dim3(step_blocks(ncmp)), dim3(BS_CUDA_STEP_THREADS), 0, stream)(d, n, k, 1, ncmp);
		if (!bs_cuda_check(cudaGetLastError(), "bs_global_step<<<>>>"))
			return false;
		for (size_t j = k / 4; j >= T; j /= 2)
		{
			BS_LAUNCH(bs_global_step<P>, dim3(step_blocks(ncmp)), dim3(BS_CUDA_STEP_THREADS), 0, stream)(d, n, j, 0, ncmp);
			if (!bs_cuda_check(cudaGetLastError(), "bs_global_step<<<>>>"))
				return false;
		}
		BS_LAUNCH(bs_tile_merge<P>, dim3(ntiles), dim3(BS_CUDA_TILE_THREADS), 0, stream)(d, n);
		if (!bs_cuda_check(cudaGetLastError(), "bs_tile_merge<<<>>>"))
			return false;
	}
	return true;
}

template bool bs_gpu_bitonic<bs_pair32>(bs_pair32 *, size_t, cudaStream_t);
template bool bs_gpu_bitonic<bs_pair64>(bs_pair64 *, size_t, cudaStream_t);
