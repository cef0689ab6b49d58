/*
 * cuda_emu.h — a small SIMT emulator: with it g++ compiles the same .cu
 * files nvcc compiles, runs their kernels on the CPU, and checks them for
 * what a GPU would expose (as compute-sanitizer's racecheck, memcheck and
 * synccheck do).
 *
 * A launch runs the grid one block at a time, the blocks in a seeded random
 * order; each thread of a block is a cooperative fibre, and the threads run
 * in a seeded random order between barriers (emu_sched.cc).
 * __syncthreads() switches back to the block's scheduler, which checks that
 * every live thread waits at the same barrier (a barrier error otherwise).
 * Shared arrays are declared with BS_SHARED_ARRAY (a plain __shared__ array
 * under nvcc): here a function-static with red zones that the checks know.
 * Device and pinned memory are host pages fenced by red zones and guard
 * pages (emu_memory.cc).  Code compiled with -fsanitize=thread calls the
 * emulator's __tsan_* hooks on every load and store (emu_check.cc): shared
 * memory races between two barriers, accesses outside every allocation and
 * shared array, and random thread switches at accesses.  What the checks
 * find is reported (emu_report.cc) with kernel, block, threads and source
 * lines, and fails the launch.  Streams and events live in host memory;
 * copies are synchronous.  Failure injection makes the Nth allocation, copy
 * or launch fail, and the runtime counts live objects so tests can prove
 * that every path frees what it took.
 */
#ifndef BS_CUDA_EMU_H
#define BS_CUDA_EMU_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
/* Shared memory must be declared with BS_SHARED_ARRAY, which the checks see. */
#define __shared__ use_BS_SHARED_ARRAY_for_shared_memory

/* Grid and block extents, as CUDA's dim3. */
struct dim3
{
	unsigned int x, y, z;
	/* Extents default to 1 in every dimension, as in CUDA. */
	constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};

/* Coordinates, as CUDA's uint3 (no constructor, so the thread-local below needs no initialiser call). */
struct bs_emu_uint3
{
	unsigned int x, y, z;

	/* Take a dim3's extents. */
	bs_emu_uint3 &operator=(const dim3 &d)
	{
		x = d.x;
		y = d.y;
		z = d.z;
		return *this;
	}

	/* Extents as a dim3. */
	operator dim3() const
	{
		return dim3(x, y, z);
	}
};

/* The running thread's coordinates, set by the scheduler before each switch. */
struct bs_emu_coords
{
	bs_emu_uint3 thread, block, block_dim, grid_dim;
};
extern thread_local bs_emu_coords bs_emu_at;
#define threadIdx bs_emu_at.thread
#define blockIdx bs_emu_at.block
#define blockDim bs_emu_at.block_dim
#define gridDim bs_emu_at.grid_dim

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
	cudaErrorIllegalAddress = 700,
	cudaErrorHostMemoryAlreadyRegistered = 712,
	cudaErrorHostMemoryNotRegistered = 713,
	cudaErrorLaunchFailure = 719,
	cudaErrorNotSupported = 801
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
#define cudaHostRegisterDefault 0
extern cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
extern cudaError_t cudaHostUnregister(void *ptr);
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

/* Reach the block's barrier (file and line name it in reports). */
extern void bs_emu_syncthreads(const char *file, int line);
#define __syncthreads() bs_emu_syncthreads(__FILE__, __LINE__)

/* Threads of a warp. */
#define warpSize 32

/* A warp shuffle of up to 8 bytes (the emulator's rendezvous: emu_sched.cc). */
extern uint64_t bs_emu_shfl_xor(unsigned mask, uint64_t value, int lane_mask, int width, const char *file, int line);

/*
 * __shfl_xor_sync: lane (lane ^ lane_mask)'s var, every lane of mask
 * meeting there; integers of up to 8 bytes, as the kernels use it, and a
 * width of 32 only (another is reported as out of bounds).  A shuffle is
 * counted per lane: lanes that meet at different call sites, or disjoint
 * masks shuffling at once, are not told apart.
 */
template<typename T>
static inline T
__shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize,
				const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
	static_assert(std::is_integral<T>::value && sizeof(T) <= sizeof(uint64_t), "a shuffle of an integer of up to 8 bytes");
	return (T) bs_emu_shfl_xor(mask, (uint64_t) var, lane_mask, width, file, line);
}

/* Bytes of red zone on either side of a shared array. */
#define BS_EMU_SHARED_REDZONE 256

/* Tell the checks where a shared array and its red zones are; its elements have elem bytes. */
extern void bs_emu_shared_register(const void *lo, const void *data, size_t bytes, size_t elem, const void *hi,
								   const char *name, const char *function);

/*
 * A shared array: a function-static (one block runs at a time, so it is the
 * block's shared memory) between two red zones, zero-initialised and with
 * no constructor, so no guard variable is read at each use.
 * BS_SHARED_ARRAY names a pointer to its data, which the kernel uses as it
 * would the array.
 */
template<typename T, size_t N>
struct bs_emu_shared
{
	char		front[BS_EMU_SHARED_REDZONE];
	T			data[N];
	char		back[BS_EMU_SHARED_REDZONE];
	bool		registered;
};

/* The array's data; registers it the first time (not instrumented: only the kernel's accesses are checked). */
template<typename T, size_t N>
__attribute__((no_sanitize_thread, noinline))
T *
bs_emu_shared_data(bs_emu_shared<T, N> &a, const char *name, const char *function)
{
	if (!a.registered)
	{
		a.registered = true;
		bs_emu_shared_register(a.front, a.data, sizeof(a.data), sizeof(T), a.back + sizeof(a.back), name, function);
	}
	return a.data;
}

#define BS_SHARED_ARRAY(T, name, n) \
	static thread_local bs_emu_shared<T, (n)> name##_shared_; \
	T *const name = bs_emu_shared_data(name##_shared_, #name, __func__)

/* What failure injection can make fail. */
typedef enum bs_emu_op
{
	BS_EMU_ALLOC = 0,			/* cudaMalloc, cudaMallocHost */
	BS_EMU_COPY,				/* cudaMemcpy[Async] */
	BS_EMU_LAUNCH,				/* kernel launches */
	BS_EMU_DEVICE,				/* cudaGetDeviceCount: no driver */
	BS_EMU_REGISTER,			/* cudaHostRegister */
	BS_EMU_OPS
} bs_emu_op;

/* Make the nth future operation of this kind fail (1 = the next); 0 disarms. */
extern void bs_emu_fail_nth(bs_emu_op op, long nth);
/* Make the nth future operation of this kind and every later one fail (a lost device); 0 disarms. */
extern void bs_emu_fail_from(bs_emu_op op, long nth);
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

/*
 * Global-memory traffic of the instrumented launches so far (the unit
 * tests' builds): the distinct 32-byte sectors of device memory each launch
 * read and wrote, in bytes, as a GPU moves them between DRAM and its caches
 * when every sector a launch touches is fetched and written back once.
 */
typedef struct bs_emu_traffic
{
	unsigned long long read_bytes;
	unsigned long long written_bytes;
} bs_emu_traffic;
extern bs_emu_traffic bs_emu_traffic_total(void);
/* Bytes of a sector of global memory, the traffic's unit. */
#define BS_EMU_SECTOR_BYTES 32

/*
 * Block-wide barriers passed so far (a __syncthreads() that every live
 * thread of a block reached counts once for the block), over every block
 * of every launch: the unit tests hold a kernel's barriers to its design.
 */
extern unsigned long long bs_emu_barriers_total(void);

/* What the checks report. */
typedef enum bs_emu_check
{
	BS_EMU_RACE = 0,			/* shared memory: two threads, one location, no barrier between */
	BS_EMU_OUT_OF_BOUNDS,		/* outside every allocation and shared array */
	BS_EMU_BARRIER,				/* a barrier that not every live thread of the block reached */
	BS_EMU_CHECKS
} bs_emu_check;

extern const char *const bs_emu_check_names[BS_EMU_CHECKS];

/* One finding of the checks. */
struct bs_emu_report
{
	bs_emu_check kind;
	std::string text;			/* kernel, block, threads, offsets, source lines, seed */
};

/* The findings not yet taken, oldest first; a test that expects them takes them. */
extern std::vector<bs_emu_report> bs_emu_take_reports(void);
/* How many findings are waiting (a test that ends with some fails). */
extern long bs_emu_pending_reports(void);
/* Print each finding to stderr as it is made (the default), or not: a test that expects them. */
extern void bs_emu_print_reports(bool on);

/*
 * The schedule's seed: blocks, and threads between barriers, run in an order
 * drawn from it (and, in instrumented code, threads switch at accesses).
 * Seed 0 is the fixed order: blocks and threads in index order, no switches.
 * Each bs_emu_set_seed restarts the sequence of launches it seeds; the
 * environment variable BS_EMU_SEED, when set, overrides every seed a test
 * asks for, to replay a reported failure.
 */
extern void bs_emu_set_seed(uint64_t seed);
extern uint64_t bs_emu_seed(void);

/* Run body(ctx) once per thread of every block of the grid; kernel and label name it. */
extern cudaError_t bs_emu_run_grid(dim3 grid, dim3 block, void (*body) (const void *), const void *ctx,
								   const void *kernel, const char *label);

/* Call the kernel with the captured arguments (not instrumented: only the kernel is). */
template<typename L>
__attribute__((no_sanitize_thread))
static void
bs_emu_call(const void *ctx)
{
	(*(const L *) ctx) ();
}

/* One launch: captures the configuration, then the kernel's arguments. */
template<typename K>
struct bs_emu_launch
{
	K		   *kernel;
	dim3		grid, block;
	const char *label;

	/* Run the kernel with these arguments over the whole grid. */
	template<typename... A>
	void operator()(A... args) const
	{
		K		   *k = kernel;
		auto		body = [=]() __attribute__((no_sanitize_thread)) { k(args...); };

		bs_emu_run_grid(grid, block, bs_emu_call<decltype(body)>, &body, (const void *) k, label);
	}
};

/* Build a launch; shared-memory size and stream have no meaning here. */
template<typename K>
static inline bs_emu_launch<K>
bs_emu_make_launch(K *kernel, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, const char *label)
{
	(void) shmem;
	(void) stream;
	return bs_emu_launch<K> {kernel, grid, block, label};
}

#define BS_LAUNCH(kernel, grid, block, shmem, stream) \
	bs_emu_make_launch(kernel, (grid), (block), (shmem), (stream), #kernel)

#endif							/* BS_CUDA_EMU_H */
