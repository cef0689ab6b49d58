/*
 * bs_cuda.h — the CUDA backend's plain C API, seen by gcc (the glue in src/)
 * and by nvcc or g++ (the .cu files, real or emulated).
 *
 * Same semantics as the CPU sorters in src/core/bs_sort.h: pairs sorted
 * ascending by (key, ptr), so every backend returns the same array.  On
 * BS_ERR_DEVICE the pairs are unchanged and bs_cuda_last_error() names the
 * CUDA call that failed and the runtime's text for the error.
 */
#ifndef BS_CUDA_H
#define BS_CUDA_H

#include "../src/core/bs_sort.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a device can sort; writes its description or the reason into buf. */
extern int	bs_cuda_device_info(char *buf, size_t len);

/* Sort packed 32-bit-key pairs on the GPU (opt->algorithm: auto, bitonic, adaptive). */
extern bs_status bs_cuda_sort_pairs32(bs_pair32 *pairs, size_t n, const bs_options *opt);

/* Sort 64-bit-key pairs on the GPU. */
extern bs_status bs_cuda_sort_pairs64(bs_pair64 *pairs, size_t n, const bs_options *opt);

/* Bound the device memory one sort may use; larger inputs are sorted in chunks. */
extern void bs_cuda_set_memory_limit(size_t bytes);

/* Keep at most `bytes` of page-locked host memory for pairs (0: none); more held now is freed. */
extern void bs_cuda_set_pinned_limit(size_t bytes);

/*
 * The page-locked buffer, of at least `bytes`, lent to one sort until
 * bs_cuda_pinned_return; NULL while it is lent, above the limit, or where
 * no device can have it.  Pairs sorted there are not registered.
 */
extern void *bs_cuda_pinned_lend(size_t bytes);

/* Take back what bs_cuda_pinned_lend lent. */
extern void bs_cuda_pinned_return(void *p);

/* Bytes of page-locked memory held now (lent or not). */
extern size_t bs_cuda_pinned_bytes(void);

/* The failed CUDA call and its error text, after BS_ERR_DEVICE ("" otherwise). */
extern const char *bs_cuda_last_error(void);

#ifdef BS_CUDA_EMU
/* Emulated builds only: make the next sort's nth "alloc", "copy", "launch" or "device" call fail. */
extern int	bs_cuda_emu_arm(const char *spec);
/* Emulated builds only: disarm what bs_cuda_emu_arm armed. */
extern void bs_cuda_emu_disarm(void);
#endif

#ifdef __cplusplus
}
#endif

#endif							/* BS_CUDA_H */
