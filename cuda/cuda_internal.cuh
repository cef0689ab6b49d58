/*
 * cuda_internal.cuh — what the CUDA backend's .cu files share: error
 * recording, device selection, and the device-side sorters that the host
 * pipeline (sort_host.cu) runs on a buffer already on the GPU.
 */
#ifndef BS_CUDA_INTERNAL_CUH
#define BS_CUDA_INTERNAL_CUH

#include "pair_ops.cuh"

/* device.cu */
/* True on success; otherwise records "call: error text (code)" and returns false. */
extern bool bs_cuda_check(cudaError_t err, const char *call);
/* Clear the recorded error before a new sort. */
extern void bs_cuda_clear_error(void);
/* Select the best device; false (error recorded) when none can sort. */
extern bool bs_cuda_select_device(void);
/* Device bytes one sort may use now: the limit, within the free memory. */
extern bool bs_cuda_memory_budget(size_t *bytes);
/* Why cudaGetDeviceCount's err leaves no device, in words that say what to do (device.cu). */
extern void bs_cuda_explain_no_device(cudaError_t err, int driver_version, const char *release,
									  int runtime_version, char *buf, size_t len);

/* pinned.cu */
/* Whether [p, p + bytes) lies in the lent page-locked buffer (copied as it is, not registered). */
extern bool bs_cuda_pinned_holds(const void *p, size_t bytes);
/* Whether the buffer is lent now. */
extern bool bs_cuda_pinned_is_lent(void);

/* bitonic.cu */
/* Device scratch bytes the algorithm needs to sort n pairs. */
template<typename P> size_t bs_gpu_scratch_bytes(size_t n, bs_algorithm algo);

/* Sort n pairs in device memory, on one stream: standard (auto) or adaptive bitonic. */
template<typename P> bool bs_gpu_sort(P *d, size_t n, bs_algorithm algo, void *scratch, cudaStream_t stream);
/* The most pairs one device sort takes within budget bytes, its scratch included. */
template<typename P> size_t bs_gpu_chunk_pairs(size_t budget, bs_algorithm algo);
/* Each shape has its own (bitonic.cu: 64-bit keys of a narrow span go the packed way). */
template<> size_t bs_gpu_scratch_bytes<bs_pair32>(size_t n, bs_algorithm algo);
template<> size_t bs_gpu_scratch_bytes<bs_pair64>(size_t n, bs_algorithm algo);
template<> bool bs_gpu_sort<bs_pair32>(bs_pair32 *d, size_t n, bs_algorithm algo, void *scratch, cudaStream_t stream);
template<> bool bs_gpu_sort<bs_pair64>(bs_pair64 *d, size_t n, bs_algorithm algo, void *scratch, cudaStream_t stream);

#endif							/* BS_CUDA_INTERNAL_CUH */
