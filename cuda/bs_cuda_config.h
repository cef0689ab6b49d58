/*
 * bs_cuda_config.h — the sizes the CUDA sorters are built around.  The host
 * code, the kernels and the cost model (cost_model.h) all read them here.
 */
#ifndef BS_CUDA_CONFIG_H
#define BS_CUDA_CONFIG_H

/* Pairs per shared-memory tile (32 KiB for either shape; the standard sorter pads it to 36 or 40 KiB). */
#define BS_CUDA_TILE_PAIRS32 4096
#define BS_CUDA_TILE_PAIRS64 2048

/*
 * Pairs one block of the standard sorter's block merge finishes a stage in
 * (4 tiles: each of its 512 threads holds 32 packed or 16 64-bit pairs).
 */
#define BS_CUDA_BLOCK_PAIRS32 16384
#define BS_CUDA_BLOCK_PAIRS64 8192

/* Threads of a block of the tile kernels and of the global step kernel. */
#define BS_CUDA_TILE_THREADS 512
#define BS_CUDA_STEP_THREADS 256

/*
 * Network steps one global pass of the standard sorter takes at most: the
 * 2^steps pairs a thread compares stay in its registers (32 packed or 16
 * 64-bit pairs, 256 bytes; 32 64-bit pairs spill on sm_100 and later).
 */
#define BS_CUDA_PASS_STEPS32 5
#define BS_CUDA_PASS_STEPS64 4

/* Most blocks of one global-step launch; a grid-stride loop covers the rest. */
#define BS_CUDA_MAX_BLOCKS 65535

/* Bytes of each of the two pinned staging buffers. */
#ifndef BS_CUDA_STAGE_BYTES			/* the unit tests shrink it to exercise the pipeline */
#define BS_CUDA_STAGE_BYTES (4u << 20)
#endif

/* Default device-memory bound of one sort (bitonic_sort.gpu_memory_limit). */
#define BS_CUDA_DEFAULT_LIMIT ((size_t) 1 << 30)

#endif							/* BS_CUDA_CONFIG_H */
