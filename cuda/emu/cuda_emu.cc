/*
 * cuda_emu.cc — the SIMT emulator's runtime: the per-block fibre scheduler,
 * host-memory "device" allocations, streams, events, errors and failure
 * injection.  See cuda_emu.h.
 *
 * Built with -U_FORTIFY_SOURCE: fortified longjmp refuses to jump to another
 * stack, which is exactly what a fibre switch does.
 */
#include "cuda_emu.h"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <set>
#include <unordered_map>
#include <vector>

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

thread_local dim3 bs_emu_threadIdx, bs_emu_blockIdx, bs_emu_blockDim, bs_emu_gridDim;

namespace
{

const size_t kStackBytes = 64 * 1024;	/* per fibre, reused by every launch */
const size_t kGuardBytes = 4096;		/* PROT_NONE below each stack */
const unsigned kMaxThreads = 1024;		/* threads per block, as on a GPU */
const size_t kDeviceBytes = (size_t) 4 << 30;	/* the emulated device's memory */

/* One thread of a block: its context, its stack and where it stopped. */
struct Fibre
{
	ucontext_t	uc;
	jmp_buf		jb;
	char	   *mapping = nullptr;
	bool		started = false;
	bool		done = false;
};

/* The scheduler of the grid that runs now on this OS thread. */
struct Scheduler
{
	jmp_buf		jb;
	std::vector<Fibre> fibres;
	const std::function<void()> *body = nullptr;
	unsigned	current = 0;
	bool		running = false;
};

thread_local Scheduler sched;

/* Emulator-wide state: counters, live objects, the sticky error. */
struct Runtime
{
	long		count[BS_EMU_OPS] = {0, 0, 0, 0};
	long		fail_at[BS_EMU_OPS] = {0, 0, 0, 0};
	std::unordered_map<void *, size_t> device;
	std::set<void *> pinned;
	std::set<void *> streams;
	std::set<void *> events;
	size_t		device_bytes = 0;
	size_t		device_peak = 0;
	cudaError_t last_error = cudaSuccess;
};

Runtime rt;

/* Count an operation; true when failure injection says it must fail. */
bool
inject(bs_emu_op op)
{
	rt.count[op]++;
	if (rt.fail_at[op] != 0 && rt.count[op] == rt.fail_at[op])
	{
		rt.fail_at[op] = 0;
		return true;
	}
	return false;
}

/* Remember an error for cudaGetLastError and return it. */
cudaError_t
fail(cudaError_t err)
{
	rt.last_error = err;
	return err;
}

/* A new stream or event handle, live until token_destroy. */
void *
token_create(std::set<void *> &live)
{
	void	   *t = malloc(1);

	live.insert(t);
	return t;
}

/* Whether a handle is live. */
cudaError_t
token_check(const std::set<void *> &live, const void *t)
{
	return live.count((void *) t) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

/* Destroy a handle; an unknown or destroyed one is an error. */
cudaError_t
token_destroy(std::set<void *> &live, void *t)
{
	if (live.erase(t) == 0)
		return fail(cudaErrorInvalidValue);
	free(t);
	return cudaSuccess;
}

/* Every fibre runs this: the launch's body once per block, forever. */
void
fibre_main()
{
	for (;;)
	{
		Fibre	   &f = sched.fibres[sched.current];

		(*sched.body) ();
		f.done = true;
		if (!_setjmp(f.jb))
			_longjmp(sched.jb, 1);
	}
}

/* Give fibre i a stack and a context on first use. */
bool
fibre_prepare(Fibre &f)
{
	if (f.mapping != nullptr)
		return true;
	void	   *m = mmap(nullptr, kStackBytes + kGuardBytes, PROT_READ | PROT_WRITE,
						 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);

	if (m == MAP_FAILED)
		return false;
	mprotect(m, kGuardBytes, PROT_NONE);
	f.mapping = (char *) m;
	getcontext(&f.uc);
	f.uc.uc_stack.ss_sp = f.mapping + kGuardBytes;
	f.uc.uc_stack.ss_size = kStackBytes;
	f.uc.uc_link = nullptr;
	makecontext(&f.uc, fibre_main, 0);
	return true;
}

/* Switch to fibre i until it reaches a barrier or its end. */
void
fibre_resume(unsigned i)
{
	sched.current = i;
	if (_setjmp(sched.jb))
		return;
	Fibre	   &f = sched.fibres[i];

	if (!f.started)
	{
		f.started = true;
		setcontext(&f.uc);
	}
	_longjmp(f.jb, 1);
}

/* Run every thread of the current block to completion, barrier by barrier. */
void
run_block(unsigned nthreads)
{
	const dim3	bd = bs_emu_blockDim;
	unsigned	live = nthreads;

	for (unsigned i = 0; i < nthreads; i++)
		sched.fibres[i].done = false;
	while (live > 0)
	{
		for (unsigned i = 0; i < nthreads; i++)
		{
			if (sched.fibres[i].done)
				continue;
			bs_emu_threadIdx = dim3(i % bd.x, (i / bd.x) % bd.y, i / (bd.x * bd.y));
			fibre_resume(i);
			if (sched.fibres[i].done)
				live--;
		}
	}
}

}								/* namespace */

/* Reach the block's barrier: switch back to the scheduler. */
void
__syncthreads(void)
{
	Fibre	   &f = sched.fibres[sched.current];

	if (!_setjmp(f.jb))
		_longjmp(sched.jb, 1);
}

/* Run body once per thread of every block of the grid. */
cudaError_t
bs_emu_run_grid(dim3 grid, dim3 block, std::function<void()> body)
{
	unsigned long nthreads = (unsigned long) block.x * block.y * block.z;

	if (inject(BS_EMU_LAUNCH))
		return fail(cudaErrorLaunchFailure);
	if (sched.running || nthreads == 0 || nthreads > kMaxThreads ||
		grid.x == 0 || grid.y == 0 || grid.z == 0)
		return fail(cudaErrorInvalidConfiguration);
	if (sched.fibres.size() < nthreads)
		sched.fibres.resize(nthreads);
	for (unsigned i = 0; i < nthreads; i++)
		if (!fibre_prepare(sched.fibres[i]))
			return fail(cudaErrorMemoryAllocation);
	sched.body = &body;
	sched.running = true;
	bs_emu_gridDim = grid;
	bs_emu_blockDim = block;
	for (unsigned z = 0; z < grid.z; z++)
		for (unsigned y = 0; y < grid.y; y++)
			for (unsigned x = 0; x < grid.x; x++)
			{
				bs_emu_blockIdx = dim3(x, y, z);
				run_block((unsigned) nthreads);
			}
	sched.running = false;
	sched.body = nullptr;
	return cudaSuccess;
}

static long device_calls_unmasked;	/* device calls made with a signal unblocked */

/*
 * Count a call that would start the driver's threads on a GPU (which
 * inherit the caller's signal mask) when some signal is not blocked.
 */
static void
note_signal_mask(void)
{
	sigset_t	mask;

	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	/* the standard signals: the C library keeps two of the real-time ones for itself */
	for (int sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && !sigismember(&mask, sig))
		{
			device_calls_unmasked++;
			return;
		}
}

/* Device calls (cudaGetDeviceCount, cudaSetDevice) made so far with a signal unblocked. */
long
bs_emu_device_calls_unmasked(void)
{
	return device_calls_unmasked;
}

/* The emulator is one device, unless told to act as a machine without a driver. */
cudaError_t
cudaGetDeviceCount(int *count)
{
	note_signal_mask();
	if (inject(BS_EMU_DEVICE))
	{
		*count = 0;
		return fail(cudaErrorInsufficientDriver);
	}
	*count = 1;
	return cudaSuccess;
}

/* Properties of the one emulated device. */
cudaError_t
cudaGetDeviceProperties(cudaDeviceProp *prop, int device)
{
	if (device != 0)
		return fail(cudaErrorInvalidDevice);
	memset(prop, 0, sizeof(*prop));
	snprintf(prop->name, sizeof(prop->name), "bitonic_sort SIMT emulator");
	prop->totalGlobalMem = kDeviceBytes;
	prop->sharedMemPerBlock = 48 * 1024;
	prop->maxThreadsPerBlock = (int) kMaxThreads;
	prop->multiProcessorCount = 1;
	prop->major = 7;
	prop->minor = 5;
	return cudaSuccess;
}

/* Select the device (only 0 exists). */
cudaError_t
cudaSetDevice(int device)
{
	note_signal_mask();
	return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice);
}

/* Free and total emulated device memory. */
cudaError_t
cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
	*free_bytes = kDeviceBytes - rt.device_bytes;
	*total_bytes = kDeviceBytes;
	return cudaSuccess;
}

/* Device memory: host memory that is counted and bounded. */
cudaError_t
cudaMalloc(void **ptr, size_t size)
{
	*ptr = nullptr;
	if (inject(BS_EMU_ALLOC) || size > kDeviceBytes - rt.device_bytes)
		return fail(cudaErrorMemoryAllocation);
	void	   *p = malloc(size ? size : 1);

	if (p == nullptr)
		return fail(cudaErrorMemoryAllocation);
	rt.device[p] = size;
	rt.device_bytes += size;
	if (rt.device_bytes > rt.device_peak)
		rt.device_peak = rt.device_bytes;
	*ptr = p;
	return cudaSuccess;
}

/* Free device memory; a pointer cudaMalloc did not return is an error. */
cudaError_t
cudaFree(void *ptr)
{
	if (ptr == nullptr)
		return cudaSuccess;
	auto		it = rt.device.find(ptr);

	if (it == rt.device.end())
		return fail(cudaErrorInvalidValue);
	rt.device_bytes -= it->second;
	rt.device.erase(it);
	free(ptr);
	return cudaSuccess;
}

/* Pinned host memory: plain host memory that is counted. */
cudaError_t
cudaMallocHost(void **ptr, size_t size)
{
	*ptr = nullptr;
	if (inject(BS_EMU_ALLOC))
		return fail(cudaErrorMemoryAllocation);
	void	   *p = malloc(size ? size : 1);

	if (p == nullptr)
		return fail(cudaErrorMemoryAllocation);
	rt.pinned.insert(p);
	*ptr = p;
	return cudaSuccess;
}

/* Free pinned memory. */
cudaError_t
cudaFreeHost(void *ptr)
{
	if (ptr == nullptr)
		return cudaSuccess;
	if (rt.pinned.erase(ptr) == 0)
		return fail(cudaErrorInvalidValue);
	free(ptr);
	return cudaSuccess;
}

/* A copy in any direction is a memmove here. */
cudaError_t
cudaMemcpy(void *dst, const void *src, size_t size, cudaMemcpyKind kind)
{
	(void) kind;
	if (inject(BS_EMU_COPY))
		return fail(cudaErrorLaunchFailure);
	if (size > 0)
		memmove(dst, src, size);
	return cudaSuccess;
}

/* Asynchronous copies complete at once. */
cudaError_t
cudaMemcpyAsync(void *dst, const void *src, size_t size, cudaMemcpyKind kind, cudaStream_t stream)
{
	(void) stream;
	return cudaMemcpy(dst, src, size, kind);
}

/* Streams are tokens: work on them is done when issued, so they only order nothing. */
cudaError_t
cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
	(void) flags;
	*stream = (cudaStream_t) token_create(rt.streams);
	return cudaSuccess;
}

/* Destroy a stream; an unknown or destroyed one is an error. */
cudaError_t
cudaStreamDestroy(cudaStream_t stream)
{
	return token_destroy(rt.streams, stream);
}

/* Work on a stream (or the default stream, null) is done when it is issued. */
cudaError_t
cudaStreamSynchronize(cudaStream_t stream)
{
	return stream == nullptr ? cudaSuccess : token_check(rt.streams, stream);
}

/* Events are tokens too. */
cudaError_t
cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	(void) flags;
	*event = (cudaEvent_t) token_create(rt.events);
	return cudaSuccess;
}

/* Destroy an event; an unknown or destroyed one is an error. */
cudaError_t
cudaEventDestroy(cudaEvent_t event)
{
	return token_destroy(rt.events, event);
}

/* Recording an event: everything before it is already done. */
cudaError_t
cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	(void) stream;
	return token_check(rt.events, event);
}

/* Waiting for an event returns at once. */
cudaError_t
cudaEventSynchronize(cudaEvent_t event)
{
	return token_check(rt.events, event);
}

/* Return and clear the last error. */
cudaError_t
cudaGetLastError(void)
{
	cudaError_t err = rt.last_error;

	rt.last_error = cudaSuccess;
	return err;
}

/* Return the last error without clearing it. */
cudaError_t
cudaPeekAtLastError(void)
{
	return rt.last_error;
}

/* The CUDA runtime's text for the codes the emulator returns. */
const char *
cudaGetErrorString(cudaError_t error)
{
	switch (error)
	{
		case cudaSuccess:
			return "no error";
		case cudaErrorInvalidValue:
			return "invalid argument";
		case cudaErrorMemoryAllocation:
			return "out of memory";
		case cudaErrorInvalidConfiguration:
			return "invalid configuration argument";
		case cudaErrorInsufficientDriver:
			return "CUDA driver version is insufficient for CUDA runtime version";
		case cudaErrorNoDevice:
			return "no CUDA-capable device is detected";
		case cudaErrorInvalidDevice:
			return "invalid device ordinal";
		case cudaErrorLaunchFailure:
			return "unspecified launch failure";
	}
	return "unrecognized error code";
}

/* Make the nth future operation of this kind fail (1 = the next); 0 disarms. */
void
bs_emu_fail_nth(bs_emu_op op, long nth)
{
	rt.fail_at[op] = nth > 0 ? rt.count[op] + nth : 0;
}

/* Operations of a kind done so far. */
long
bs_emu_op_count(bs_emu_op op)
{
	return rt.count[op];
}

/* Device allocations, pinned allocations, streams and events not yet freed. */
long
bs_emu_live_objects(void)
{
	return (long) (rt.device.size() + rt.pinned.size() + rt.streams.size() + rt.events.size());
}

/* Bytes of emulated device memory in use now. */
size_t
bs_emu_device_bytes(void)
{
	return rt.device_bytes;
}

/* The most emulated device memory ever in use at once. */
size_t
bs_emu_device_bytes_peak(void)
{
	return rt.device_peak;
}

/* Reset the peak of device bytes to the current use. */
void
bs_emu_reset_peak(void)
{
	rt.device_peak = rt.device_bytes;
}
