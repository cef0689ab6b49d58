/*
 * cuda_emu.cc — the SIMT emulator's CUDA runtime calls other than memory
 * and launches: the device, streams, events, errors, and failure injection.
 * See cuda_emu.h; memory is in emu_memory.cc, launches in emu_sched.cc.
 */
#include "emu_internal.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include <pthread.h>
#include <signal.h>

namespace bs_emu
{

namespace
{

/* Emulator-wide state: counters, live streams and events, the last error. */
struct Runtime
{
	long		count[BS_EMU_OPS] = {0, 0, 0, 0, 0};
	long		fail_at[BS_EMU_OPS] = {0, 0, 0, 0, 0};
	bool		fail_on[BS_EMU_OPS] = {false, false, false, false, false};	/* fail_at and after */
	std::set<void *> streams;
	std::set<void *> events;
	cudaError_t last_error = cudaSuccess;
};

Runtime		rt;

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

}								/* namespace */

/* Count an operation; true when failure injection says it must fail. */
bool
inject(bs_emu_op op)
{
	rt.count[op]++;
	if (rt.fail_at[op] != 0 && rt.count[op] >= rt.fail_at[op])
	{
		if (!rt.fail_on[op])
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

}								/* namespace bs_emu */

using namespace bs_emu;

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
	prop->maxThreadsPerBlock = 1024;
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
		case cudaErrorHostMemoryAlreadyRegistered:
			return "part or all of the requested memory range is already mapped";
		case cudaErrorHostMemoryNotRegistered:
			return "pointer does not correspond to a registered memory region";
		case cudaErrorNotSupported:
			return "operation not supported";
		case cudaErrorInsufficientDriver:
			return "CUDA driver version is insufficient for CUDA runtime version";
		case cudaErrorNoDevice:
			return "no CUDA-capable device is detected";
		case cudaErrorInvalidDevice:
			return "invalid device ordinal";
		case cudaErrorIllegalAddress:
			return "an illegal memory access was encountered";
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
	rt.fail_on[op] = false;
}

/* Make the nth future operation of this kind and every later one fail; 0 disarms. */
void
bs_emu_fail_from(bs_emu_op op, long nth)
{
	bs_emu_fail_nth(op, nth);
	rt.fail_on[op] = nth > 0;
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
	return live_allocations() + (long) (rt.streams.size() + rt.events.size());
}

