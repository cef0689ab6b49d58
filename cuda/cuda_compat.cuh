/*
 * cuda_compat.cuh — the CUDA runtime under nvcc, the SIMT emulator under
 * g++ (BS_CUDA_EMU), and what the kernels write the same way for both:
 *   BS_LAUNCH(kernel, grid, block, shmem, stream)(args...)   a launch
 *   BS_SHARED_ARRAY(T, name, n);   a shared array: under nvcc exactly
 *       __shared__ T name[n]; in the emulator one its checks know
 *       (races, bounds)
 *   BS_UNROLL   before a loop with a constant trip count: unrolled, so
 *       that an array it indexes stays in registers
 */
#ifndef BS_CUDA_COMPAT_CUH
#define BS_CUDA_COMPAT_CUH

#ifdef BS_CUDA_EMU
#include "emu/cuda_emu.h"
#define BS_UNROLL _Pragma("GCC unroll 32")
#else
#include <cuda_runtime.h>
#define BS_LAUNCH(kernel, grid, block, shmem, stream) kernel<<<(grid), (block), (shmem), (stream)>>>
#define BS_SHARED_ARRAY(T, name, n) __shared__ T name[n]
#define BS_UNROLL _Pragma("unroll")
#endif

#endif							/* BS_CUDA_COMPAT_CUH */
