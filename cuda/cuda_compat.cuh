/*
 * cuda_compat.cuh — the CUDA runtime under nvcc, the SIMT emulator under
 * g++ (BS_CUDA_EMU), and one launch macro for both:
 * BS_LAUNCH(kernel, grid, block, shmem, stream)(args...).
 */
#ifndef BS_CUDA_COMPAT_CUH
#define BS_CUDA_COMPAT_CUH

#ifdef BS_CUDA_EMU
#include "emu/cuda_emu.h"
#else
#include <cuda_runtime.h>
#define BS_LAUNCH(kernel, grid, block, shmem, stream) kernel<<<(grid), (block), (shmem), (stream)>>>
#endif

#endif							/* BS_CUDA_COMPAT_CUH */
