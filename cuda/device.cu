/*
 * device.cu — device selection, bitonic_sort_info()'s description of the
 * device or of why there is none (no driver, a driver too old, no GPU), the
 * memory bound, and the record of the last failed CUDA call.
 */
#include "cuda_internal.cuh"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <pthread.h>

/* The oldest architecture the module is compiled for (mk/cuda.mk passes it; sm_75 by default). */
#ifndef BS_MIN_CC
#define BS_MIN_CC 75
#endif

/* The CUDA version the module's runtime is (the emulator stands for CUDA 13). */
#ifdef CUDART_VERSION
#define BS_RUNTIME_VERSION CUDART_VERSION
#else
#define BS_RUNTIME_VERSION 13000
#endif

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

/*
 * The oldest NVIDIA driver a CUDA major version needs (NVIDIA's minor
 * version compatibility table: 13.x >= 580, 12.x >= 525, 11.x >= 450);
 * NULL for one the table does not know.
 */
static const char *
min_driver_for(int runtime_version)
{
	switch (runtime_version / 1000)
	{
		case 11:
			return "450";
		case 12:
			return "525";
		case 13:
			return "580";
	}
	return NULL;
}

/*
 * Why cudaGetDeviceCount's error leaves no device, in words that say what
 * to do: err is its error, driver_version cudaDriverGetVersion's (a CUDA
 * version such as 12040; 0 when no driver library is found), release the
 * loaded kernel module's version ("550.54.14"; "" when none is loaded),
 * runtime_version the module's CUDA runtime (13000).  The CUDA runtime
 * answers cudaErrorInsufficientDriver (35) both where there is no driver
 * at all and where the driver is too old; only the driver's version tells
 * them apart.
 */
void
bs_cuda_explain_no_device(cudaError_t err, int driver_version, const char *release,
						  int runtime_version, char *buf, size_t len)
{
	const char *min_driver = min_driver_for(runtime_version);
	char		driver[64];

	if (err == cudaErrorNoDevice)
	{
		snprintf(buf, len, "no NVIDIA GPU found");
		return;
	}
	if (err == cudaErrorInsufficientDriver && driver_version == 0)
	{
		if (release[0] == '\0')
			snprintf(buf, len, "no NVIDIA driver found (install the NVIDIA driver, e.g. Debian's nvidia-driver package, then restart PostgreSQL)");
		else
			snprintf(buf, len, "the NVIDIA kernel module %s is loaded but not its CUDA library, libcuda.so.1 "
					 "(install the driver's user-space part, e.g. Debian's libcuda1 package, then restart PostgreSQL)",
					 release);
		return;
	}
	if (err == cudaErrorInsufficientDriver && driver_version < runtime_version)
	{
		if (release[0] != '\0')
			snprintf(driver, sizeof(driver), "%s", release);
		else
			snprintf(driver, sizeof(driver), "for CUDA %d.%d", driver_version / 1000, driver_version % 1000 / 10);
		if (min_driver != NULL)
			snprintf(buf, len, "the NVIDIA driver %s is older than CUDA %d needs (%s or newer)",
					 driver, runtime_version / 1000, min_driver);
		else
			snprintf(buf, len, "the NVIDIA driver %s is older than CUDA %d.%d needs",
					 driver, runtime_version / 1000, runtime_version % 1000 / 10);
		return;
	}
	snprintf(buf, len, "cudaGetDeviceCount failed: %s (%d)", cudaGetErrorString(err), (int) err);
}

/*
 * The version of the NVIDIA kernel module loaded ("550.54.14"), from
 * /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64 Kernel
 * Module  550.54.14  ..."); "" when none is.  The emulator has none.
 */
static void
driver_release(char *buf, size_t len)
{
	buf[0] = '\0';
#ifndef BS_CUDA_EMU
	FILE	   *f = fopen("/proc/driver/nvidia/version", "r");
	char		line[256];
	char		word[64];
	int			pos = 0,
				used;

	if (f == NULL)
		return;
	if (fgets(line, sizeof(line), f) != NULL)
		/* the first word that starts with a digit and holds a dot */
		while (sscanf(line + pos, "%63s%n", word, &used) == 1)
		{
			pos += used;
			if (word[0] >= '0' && word[0] <= '9' && strchr(word, '.') != NULL)
			{
				snprintf(buf, len, "%s", word);
				break;
			}
		}
	fclose(f);
#else
	(void) len;
#endif
}

/* Record why cudaGetDeviceCount found no device (the first failure of a sort). */
static void
record_no_device(cudaError_t err)
{
	int			driver_version = 0;
	char		release[64];

	(void) cudaGetLastError();
	/* the emulator fails cudaGetDeviceCount only to stand for a machine without a driver (version 0) */
#ifndef BS_CUDA_EMU
	if (cudaDriverGetVersion(&driver_version) != cudaSuccess)
		driver_version = 0;
	(void) cudaGetLastError();
#endif
	driver_release(release, sizeof(release));
	if (last_error[0] == '\0')
		bs_cuda_explain_no_device(err, driver_version, release, BS_RUNTIME_VERSION,
								  last_error, sizeof(last_error));
}

/* Pick the device with the most memory among those the module is built for (signals as they are). */
static bool
select_device(void)
{
	int			count = 0;
	cudaError_t err = cudaGetDeviceCount(&count);

	if (err != cudaSuccess)
	{
		record_no_device(err);
		return false;
	}
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
		if (last_error[0] == '\0' && count == 0)
			snprintf(last_error, sizeof(last_error), "no NVIDIA GPU found");
		else if (last_error[0] == '\0')
			snprintf(last_error, sizeof(last_error),
					 "no NVIDIA GPU of compute capability %d.%d or newer (the oldest this module is built for) among %d%s",
					 BS_MIN_CC / 10, BS_MIN_CC % 10, count,
					 BS_MIN_CC > 75 ? ": build it with CUDA_ARCHS=all for every GPU from 7.5 up" : "");
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
	snprintf(buf, len, "devices=%d, using %d: %s, sm_%d%d, %zu MB, memory_limit=%zu MB, pinned=%zu MB held%s, "
			 "algorithms=bitonic,adaptive",
			 device_count, chosen_device, chosen_prop.name, chosen_prop.major, chosen_prop.minor,
			 chosen_prop.totalGlobalMem >> 20, memory_limit >> 20, bs_cuda_pinned_bytes() >> 20,
			 bs_cuda_pinned_is_lent() ? " (lent)" : "");
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
