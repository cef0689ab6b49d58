/*
 * cuda_emu.h — a small SIMT emulator: with it g++ compiles the same .cu
 * files nvcc compiles, and runs their kernels on the CPU.
 *
 * A launch runs the grid one block at a time; each thread of a block is a
 * cooperative fibre (ucontext for the first entry, _setjmp/_longjmp for the
 * switches), and __syncthreads() switches back to the block's scheduler, so
 * every thread reaches the barrier before any passes it.  __shared__
 * variables are function-statics: one block runs at a time, so they are the
 * block's shared memory.  Device memory, pinned memory, streams and events
 * live in host memory; copies are synchronous.  Failure injection makes the
 * Nth allocation, copy or launch fail, and the runtime counts live objects so
 * tests can prove that every path frees what it took.
 */
#ifndef BS_CUDA_EMU_H
#define BS_CUDA_EMU_H

#include <cstddef>
#include <cstdint>
#include <functional>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static thread_local

/* Grid and block extents, as CUDA's dim3. */
struct dim3
{
	unsigned int x, y, z;
	/* Extents default to 1 in every dimension, as in CUDA. */
	constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};

/* The running thread's coordinates, set by the scheduler before each switch. */
extern thread_local dim3 bs_emu_threadIdx, bs_emu_blockIdx, bs_emu_blockDim, bs_emu_gridDim;
#define threadIdx bs_emu_threadIdx
#define blockIdx bs_emu_blockIdx
#define blockDim bs_emu_blockDim
#define gridDim bs_emu_gridDim

/* The CUDA runtime's error codes that the emulator can return (same values). */
typedef enum cudaError
{
	cudaSuccess = 0,
	cudaErrorInvalidValue = 1,
	cudaErrorMemoryAllocation = 2,
	cudaErrorInvalidConfiguration = 9,
	cudaErrorInsufficientDriver = 35,
	cudaErrorNoDevice = 100,
	cudaErrorInvalidDevice = 101,
	cudaErrorLaunchFailure = 719
} cudaError_t;

typedef enum cudaMemcpyKind
{
	cudaMemcpyHostToHost = 0,
	cudaMemcpyHostToDevice = 1,
	cudaMemcpyDeviceToHost = 2,
	cudaMemcpyDeviceToDevice = 3,
	cudaMemcpyDefault = 4
} cudaMemcpyKind;

/* The fields of cudaDeviceProp the project reads. */
struct cudaDeviceProp
{
	char		name[256];
	size_t		totalGlobalMem;
	size_t		sharedMemPerBlock;
	int			maxThreadsPerBlock;
	int			multiProcessorCount;
	int			major;
	int			minor;
};

typedef struct bs_emu_stream *cudaStream_t;
typedef struct bs_emu_event *cudaEvent_t;

#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02

extern cudaError_t cudaGetDeviceCount(int *count);
extern cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
extern cudaError_t cudaSetDevice(int device);
extern cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
extern cudaError_t cudaMalloc(void **ptr, size_t size);
extern cudaError_t cudaFree(void *ptr);
extern cudaError_t cudaMallocHost(void **ptr, size_t size);
extern cudaError_t cudaFreeHost(void *ptr);
extern cudaError_t cudaMemcpy(void *dst, const void *src, size_t size, cudaMemcpyKind kind);
extern cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t size, cudaMemcpyKind kind, cudaStream_t stream);
extern cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
extern cudaError_t cudaStreamDestroy(cudaStream_t stream);
extern cudaError_t cudaStreamSynchronize(cudaStream_t stream);
extern cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
extern cudaError_t cudaEventDestroy(cudaEvent_t event);
extern cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
extern cudaError_t cudaEventSynchronize(cudaEvent_t event);
extern cudaError_t cudaGetLastError(void);
extern cudaError_t cudaPeekAtLastError(void);
extern const char *cudaGetErrorString(cudaError_t error);

/* Reach the block's barrier: switch back to the scheduler. */
extern void __syncthreads(void);

/* What failure injection can make fail. */
typedef enum bs_emu_op
{
	BS_EMU_ALLOC = 0,			/* cudaMalloc, cudaMallocHost */
	BS_EMU_COPY,				/* cudaMemcpy[Async] */
	BS_EMU_LAUNCH,				/* kernel launches */
	BS_EMU_DEVICE,				/* cudaGetDeviceCount: no driver */
	BS_EMU_OPS
} bs_emu_op;

/* Make the nth future operation of this kind fail (1 = the next); 0 disarms. */
extern void bs_emu_fail_nth(bs_emu_op op, long nth);
/* Operations of a kind done so far (launches, allocations, ...). */
extern long bs_emu_op_count(bs_emu_op op);
/* Device allocations, pinned allocations, streams and events not yet freed. */
extern long bs_emu_live_objects(void);
/* Bytes of emulated device memory in use now, and the most ever in use. */
extern size_t bs_emu_device_bytes(void);
extern size_t bs_emu_device_bytes_peak(void);
/* Reset the peak of device bytes to the current use. */
extern void bs_emu_reset_peak(void);
/*
 * Device calls (cudaGetDeviceCount, cudaSetDevice) made so far while some
 * signal was unblocked: on a GPU the driver's threads started then would
 * inherit that mask and could run the backend's signal handlers.
 */
extern long bs_emu_device_calls_unmasked(void);

/* Run body once per thread of every block of the grid. */
extern cudaError_t bs_emu_run_grid(dim3 grid, dim3 block, std::function<void()> body);

/* One launch: captures the configuration, then the kernel's arguments. */
template<typename K>
struct bs_emu_launch
{
	K		   *kernel;
	dim3		grid, block;

	/* Run the kernel with these arguments over the whole grid. */
	template<typename... A>
	void operator()(A... args) const
	{
		K		   *k = kernel;

		bs_emu_run_grid(grid, block, [=]() { k(args...); });
	}
};

/* Build a launch; shared-memory size and stream have no meaning here. */
template<typename K>
static inline bs_emu_launch<K>
bs_emu_make_launch(K *kernel, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream)
{
	(void) shmem;
	(void) stream;
	return bs_emu_launch<K> {kernel, grid, block};
}

#define BS_LAUNCH(kernel, grid, block, shmem, stream) \
	bs_emu_make_launch(kernel, (grid), (block), (shmem), (stream))

#endif							/* BS_CUDA_EMU_H */
