/*
 * key_span_kernels.cuh — 64-bit keys that span less than 2^32 sorted on
 * the 8-byte path: the keys' least and greatest value (a reduction), then,
 * where greatest - least < 2^32, every pair packed as (key - least,
 * pointer) into a packed pair, sorted as one, and unpacked.  The packing
 * keeps the order: (key, pointer) and ((key - least) << 32 | pointer)
 * compare alike.
 *
 *   bs_span_reduce       the least and greatest of the tiles' spans
 *   bs_pack_span         64-bit pairs -> packed pairs, less the least key
 *   bs_unpack_span       packed pairs -> 64-bit pairs
 */
#ifndef BS_KEY_SPAN_KERNELS_CUH
#define BS_KEY_SPAN_KERNELS_CUH

#include "pair_store.cuh"

/*
 * The least and greatest of ntiles tiles' spans (span[2t], span[2t + 1],
 * as the tile sort notes them), into span[0] and span[1]: one block.
 */
__global__ void
__launch_bounds__(BS_CUDA_STEP_THREADS)
bs_span_reduce(uint64_t *span, size_t ntiles)
{
	BS_SHARED_ARRAY(uint64_t, lo, BS_CUDA_STEP_THREADS);
	BS_SHARED_ARRAY(uint64_t, hi, BS_CUDA_STEP_THREADS);
	uint64_t	least = ~(uint64_t) 0,
				greatest = 0;
	unsigned	t = threadIdx.x;

	for (size_t i = t; i < ntiles; i += blockDim.x)
	{
		least = span[2 * i] < least ? span[2 * i] : least;
		greatest = span[2 * i + 1] > greatest ? span[2 * i + 1] : greatest;
	}
	lo[t] = least;
	hi[t] = greatest;
	__syncthreads();
	for (unsigned half = blockDim.x / 2; half > 0; half /= 2)
	{
		if (t < half)
		{
			lo[t] = lo[t + half] < lo[t] ? lo[t + half] : lo[t];
			hi[t] = hi[t + half] > hi[t] ? hi[t + half] : hi[t];
		}
		__syncthreads();
	}
	if (t == 0)
	{
		span[0] = lo[0];
		span[1] = hi[0];
	}
}

/*
 * Pack each pair of the store src as ((key - least) << 32) | pointer.  dst
 * may be src's keys: pair i is read and written by one thread.
 */
template<typename S>
__global__ void
__launch_bounds__(BS_CUDA_STEP_THREADS)
bs_pack_span(S src, bs_pair32 *dst, size_t n, uint64_t least)
{
	for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
	{
		bs_pair64	p = src[i];

		dst[i] = ((p.key - least) << 32) | p.ptr;
	}
}

/* Unpack each packed pair: key = least + its high half, pointer its low half. */
__global__ void
__launch_bounds__(BS_CUDA_STEP_THREADS)
bs_unpack_span(const bs_pair32 *src, bs_pair64 *dst, size_t n, uint64_t least)
{
	for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
	{
		bs_pair64	p;

		p.key = least + (src[i] >> 32);
		p.ptr = (uint32_t) src[i];
		p.pad = 0;
		dst[i] = p;
	}
}

#endif							/* BS_KEY_SPAN_KERNELS_CUH */
