/*
 * device.cu — device selection, bitonic_sort_info()'s description of the
 * device, the memory bound, and the record of the last failed CUDA call.
 */
#include "cuda_internal.cuh"

#include <csignal>
#include <cstdio>
#include <pthread.h>

/* The oldest architecture the module is compiled for (sm_75). */
#define BS_MIN_CC 75

static char last_error[512];
static size_t memory_limit = BS_CUDA_DEFAULT_LIMIT;
static int	chosen_device = -1;
static int	device_count = 0;
static cudaDeviceProp chosen_prop;

/* True on success; otherwise records "call failed: text (code)" (the first failure of a sort) and returns false. */
bool
bs_cuda_check(cudaError_t err, const char *call)
{
	if (err == cudaSuccess)
		return true;
	if (last_error[0] == '\0')
		snprintf(last_error, sizeof(last_error), "%s failed: %s (%d)",
			 call, cudaGetErrorString(err), (int) err);
	(void) cudaGetLastError();	/* clear a non-sticky error for the next call */
	return false;
}

/* Clear the recorded error before a new sort. */
void
bs_cuda_clear_error(void)
{
	last_error[0] = '\0';
}

/* The failed CUDA call and its error text, after BS_ERR_DEVICE. */
const char *
bs_cuda_last_error(void)
{
	return last_error;
}

/* Bound the device memory one sort may use. */
void
bs_cuda_set_memory_limit(size_t bytes)
{
	memory_limit = bytes;
}

/* Pick the device with the most memory among those of sm_75 or newer (signals as they are). */
static bool
select_device(void)
{
	int			count = 0;

	if (!bs_cuda_check(cudaGetDeviceCount(&count), "cudaGetDeviceCount"))
		return false;
	device_count = count;
	if (chosen_device < 0)
	{
		for (int d = 0; d < count; d++)
		{
			cudaDeviceProp prop;

			if (!bs_cuda_check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties"))
				return false;
			if (prop.major * 10 + prop.minor < BS_MIN_CC)
				continue;
			if (chosen_device < 0 || prop.totalGlobalMem > chosen_prop.totalGlobalMem)
			{
				chosen_device = d;
				chosen_prop = prop;
			}
		}
	}
	if (chosen_device < 0)
	{
		if (last_error[0] == '\0')
			snprintf(last_error, sizeof(last_error),
				 count == 0 ? "no CUDA device found" :
				 "no CUDA device of compute capability 7.5 or newer among %d", count);
		return false;
	}
	return bs_cuda_check(cudaSetDevice(chosen_device), "cudaSetDevice");
}

/*
 * Pick the device with every signal blocked: the runtime's first calls
 * start the driver's threads, which inherit the caller's mask, and a
 * backend's SIGINT, SIGALRM or SIGUSR1 must never run PostgreSQL's handler
 * on one of them.  The caller's mask is restored (signals that arrived
 * meanwhile are delivered then).
 */
bool
bs_cuda_select_device(void)
{
	sigset_t	all,
				old;
	bool		ok;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ok = select_device();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}

/* Device bytes one sort may use now: the limit, within 90% of the free memory. */
bool
bs_cuda_memory_budget(size_t *bytes)
{
	size_t		free_bytes = 0,
				total_bytes = 0;

	if (!bs_cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"))
		return false;
	*bytes = free_bytes / 10 * 9 < memory_limit ? free_bytes / 10 * 9 : memory_limit;
	return true;
}

/* Whether a device can sort; writes its description or the reason into buf. */
int
bs_cuda_device_info(char *buf, size_t len)
{
	bs_cuda_clear_error();
	if (!bs_cuda_select_device())
	{
		snprintf(buf, len, "%s", last_error);
		return 0;
	}
	snprintf(buf, len, "devices=%d, using %d: %s, sm_%d%d, %zu MB, memory_limit=%zu MB, algorithms=bitonic,adaptive",
			 device_count, chosen_device, chosen_prop.name, chosen_prop.major, chosen_prop.minor,
			 chosen_prop.totalGlobalMem >> 20, memory_limit >> 20);
	return 1;
}

#ifdef BS_CUDA_EMU
#include <cstdlib>
#include <cstring>

static const char *const emu_op_names[BS_EMU_OPS] = {"alloc", "copy", "launch", "device", "register"};

/* Parse "op:n" and arm the emulator's failure injection; false when malformed. */
int
bs_cuda_emu_arm(const char *spec)
{
	for (int op = 0; op < BS_EMU_OPS; op++)
	{
		size_t		len = strlen(emu_op_names[op]);

		if (strncmp(spec, emu_op_names[op], len) == 0 && spec[len] == ':' && atol(spec + len + 1) > 0)
		{
			bs_emu_fail_nth((bs_emu_op) op, atol(spec + len + 1));
			return 1;
		}
	}
	return 0;
}

/* Disarm every kind of failure injection. */
void
bs_cuda_emu_disarm(void)
{
	for (int op = 0; op < BS_EMU_OPS; op++)
		bs_emu_fail_nth((bs_emu_op) op, 0);
}
#endif
