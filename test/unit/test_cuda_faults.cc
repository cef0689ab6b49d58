/*
 * test_cuda_faults.cc — failure injection through the SIMT emulator: every
 * allocation, copy and kernel launch of a sort made to fail in turn, for a
 * sort in place (the caller's pairs registered) and one in chunks through
 * the staging buffers.  Each time the sort must return BS_ERR_DEVICE, name
 * the failed call and the runtime's error text, leave the pairs unchanged
 * (so the caller can fall back to the CPU; a failed copy writes half its
 * destination first), and free every device allocation, pinned buffer,
 * registration, stream and event.  A device lost while the pairs are copied
 * back is BS_ERR_DEVICE_LOST; pairs the driver will not register are staged.
 * A missing driver must be reported as on a machine without one, and each
 * reason for no device (no driver, a driver too old, no GPU) in its words.
 */
#include "cuda/cuda_internal.cuh"
#include "cuda_test.h"

#include <pthread.h>
#include <signal.h>

/* What the error text must name when an operation of this kind fails. */
static const char *const expected_call[BS_EMU_OPS] = {
	"cudaMalloc", "cudaMemcpyAsync failed: unspecified launch failure (719)",
	"<<<>>> failed: unspecified launch failure (719)",
	"no NVIDIA driver found (install the NVIDIA driver, e.g. Debian's nvidia-driver package, then restart PostgreSQL)",
	"cudaHostRegister"
};
static const char *const op_names[BS_EMU_OPS] = {"allocations", "copies", "launches", "device queries", "registrations"};

/* Make each operation of one kind fail in turn during a sort of n pairs, in chunks or in place. */
template<typename P>
static void
test_inject(bs_emu_op op, size_t n, bs_algorithm algo, bool chunked)
{
	bs_options	opt = {BS_BACKEND_CUDA, algo, 1, NULL, NULL};
	std::vector<P> input(n), a;
	long		ops,
				before;
	bool		ok = true;
	long		failed_at = 0;

	gen_pairs(input.data(), n, GEN_RANDOM, 42);
	if (chunked)
		bs_cuda_set_memory_limit(3 * bs_pair_ops<P>::tile * sizeof(P));
	a = input;
	before = bs_emu_op_count(op);
	ok = cuda_sort(a.data(), n, &opt) == BS_OK;
	ops = bs_emu_op_count(op) - before;
	for (long nth = 1; nth <= ops && ok; nth++)
	{
		a = input;
		bs_emu_fail_nth(op, nth);
		ok = cuda_sort(a.data(), n, &opt) == BS_ERR_DEVICE &&
			strstr(bs_cuda_last_error(), expected_call[op]) != NULL &&
			same_pairs(a, input) &&
			bs_emu_live_objects() == 0 && bs_emu_device_bytes() == 0;
		if (!ok)
			failed_at = nth;
		bs_emu_fail_nth(op, 0);
	}
	/* and the next sort works again */
	a = input;
	ok = ok && cuda_sort(a.data(), n, &opt) == BS_OK && !same_pairs(a, input);
	unit_report(ok && ops > 0, "cuda %s %s n=%zu %s: each of %ld %s failed in turn -> BS_ERR_DEVICE, "
				"call named, pairs unchanged, nothing leaked%s",
				bs_algorithm_name(algo), shape_name((P *) 0), n, chunked ? "in chunks" : "in place",
				ops, op_names[op], ok ? "" : " (see below)");
	if (!ok)
		unit_note("failed at injection %ld: error \"%s\", live objects %ld",
				  failed_at, bs_cuda_last_error(), bs_emu_live_objects());
	bs_cuda_set_memory_limit(BS_CUDA_DEFAULT_LIMIT);
}

/*
 * A device lost during the copy back of a sort in place: that copy and the
 * one that would restore the pairs both fail, so the pairs cannot be
 * trusted and the sort says so (BS_ERR_DEVICE_LOST), having freed
 * everything.  The copy back is a clean sort's last copy.
 */
template<typename P>
static void
test_lost_device(size_t n)
{
	bs_options	opt = {BS_BACKEND_CUDA, BS_ALGO_BITONIC, 1, NULL, NULL};
	std::vector<P> input(n), a;
	bs_status	st;
	long		copies = bs_emu_op_count(BS_EMU_COPY);

	gen_pairs(input.data(), n, GEN_RANDOM, 7);
	a = input;
	(void) cuda_sort(a.data(), n, &opt);
	copies = bs_emu_op_count(BS_EMU_COPY) - copies;
	a = input;
	bs_emu_fail_from(BS_EMU_COPY, copies);
	st = cuda_sort(a.data(), n, &opt);
	bs_emu_fail_from(BS_EMU_COPY, 0);
	unit_report(st == BS_ERR_DEVICE_LOST &&
				strstr(bs_cuda_last_error(), expected_call[BS_EMU_COPY]) != NULL &&
				bs_emu_live_objects() == 0 && bs_emu_device_bytes() == 0,
				"cuda %s n=%zu in place, the device lost during the copy back -> BS_ERR_DEVICE_LOST, "
				"call named, nothing leaked (error \"%s\")", shape_name((P *) 0), n, bs_cuda_last_error());
	a = input;
	unit_report(cuda_sort(a.data(), n, &opt) == BS_OK && sorted_same(a, input),
				"cuda %s n=%zu: the next sort works again", shape_name((P *) 0), n);
}

/* Pairs the driver will not register are sorted through the staging buffers, registered otherwise. */
template<typename P>
static void
test_register_refused(size_t n)
{
	bs_options	opt = {BS_BACKEND_CUDA, BS_ALGO_BITONIC, 1, NULL, NULL};
	std::vector<P> input(n), a;
	long		regs = bs_emu_op_count(BS_EMU_REGISTER),
				allocs = bs_emu_op_count(BS_EMU_ALLOC);
	/* the sorter's scratch, where it has one (64-bit pairs: the tiles' key spans) */
	long		scratch = bs_gpu_scratch_bytes<P>(n, BS_ALGO_BITONIC) > 0 ? 1 : 0;
	bool		in_place;

	gen_pairs(input.data(), n, GEN_RANDOM, 11);
	a = input;
	in_place = cuda_sort(a.data(), n, &opt) == BS_OK && sorted_same(a, input) &&
		bs_emu_op_count(BS_EMU_REGISTER) == regs + 1 && bs_emu_op_count(BS_EMU_ALLOC) == allocs + 2 + scratch;
	a = input;
	allocs = bs_emu_op_count(BS_EMU_ALLOC);
	bs_emu_fail_nth(BS_EMU_REGISTER, 1);
	unit_report(in_place && cuda_sort(a.data(), n, &opt) == BS_OK && sorted_same(a, input) &&
				bs_emu_op_count(BS_EMU_ALLOC) == allocs + 3 + scratch && bs_cuda_last_error()[0] == '\0' &&
				bs_emu_live_objects() == 0,
				"cuda %s n=%zu: registered and sorted in place (%ld device allocations); "
				"not registrable -> staged (%ld device + 2 pinned), sorted, no error", shape_name((P *) 0), n,
				2 + scratch, 1 + scratch);
}

/* The emulator's registrations: overlaps and ranges holding an allocation refused, as on a GPU. */
static void
test_register_rules(void)
{
	std::vector<char> host(1 << 16);
	void	   *pinned;
	char	   *p = host.data();
	bool		ok;

	ok = cudaHostRegister(p, 4096, cudaHostRegisterDefault) == cudaSuccess &&
		cudaHostRegister(p + 2048, 4096, cudaHostRegisterDefault) == cudaErrorHostMemoryAlreadyRegistered &&
		cudaHostRegister(p + 4096, 4096, cudaHostRegisterDefault) == cudaSuccess &&
		cudaHostUnregister(p + 8) == cudaErrorHostMemoryNotRegistered &&
		cudaHostUnregister(p) == cudaSuccess && cudaHostUnregister(p + 4096) == cudaSuccess;
	(void) cudaGetLastError();
	ok = ok && cudaMallocHost(&pinned, 256) == cudaSuccess;
	ok = ok && cudaHostRegister((char *) pinned - 8192, 16384, cudaHostRegisterDefault) == cudaErrorInvalidValue &&
		cudaHostRegister(pinned, 64, cudaHostRegisterDefault) == cudaErrorInvalidValue &&
		cudaFreeHost(pinned) == cudaSuccess;
	(void) cudaGetLastError();
	unit_report(ok && bs_emu_live_objects() == 0,
				"emulated cudaHostRegister: an overlap, a range holding or inside an allocation refused; "
				"unregistering an unregistered pointer refused; nothing left registered");
}

/* No driver: the device query fails, and both the info and a sort say why. */
static void
test_no_driver(void)
{
	bs_options	opt = {BS_BACKEND_CUDA, BS_ALGO_AUTO, 1, NULL, NULL};
	bs_pair32	p[3] = {3, 2, 1};
	char		info[400];
	int			usable;
	bs_status	st;

	bs_emu_fail_nth(BS_EMU_DEVICE, 1);
	usable = bs_cuda_device_info(info, sizeof(info));
	unit_report(usable == 0 && strcmp(info, expected_call[BS_EMU_DEVICE]) == 0,
				"bs_cuda_device_info without a driver: \"%s\"", info);
	bs_emu_fail_nth(BS_EMU_DEVICE, 1);
	st = bs_sort_pairs32(p, 3, &opt);
	unit_report(st == BS_ERR_DEVICE && p[0] == 3 && bs_emu_live_objects() == 0 &&
				strcmp(bs_cuda_last_error(), expected_call[BS_EMU_DEVICE]) == 0,
				"sort without a driver: BS_ERR_DEVICE, pairs unchanged");
}

/* What bitonic_sort_info() says for each reason cudaGetDeviceCount gives for no device. */
static void
test_no_device_texts(void)
{
	static const struct
	{
		cudaError_t err;
		int			driver_version;
		const char *release;
		int			runtime_version;
		const char *text;
	}			cases[] = {
		{cudaErrorInsufficientDriver, 0, "", 13000,
		"no NVIDIA driver found (install the NVIDIA driver, e.g. Debian's nvidia-driver package, then restart PostgreSQL)"},
		{cudaErrorInsufficientDriver, 0, "580.65.06", 13000,
		"the NVIDIA kernel module 580.65.06 is loaded but not its CUDA library, libcuda.so.1 "
		"(install the driver's user-space part, e.g. Debian's libcuda1 package, then restart PostgreSQL)"},
		{cudaErrorInsufficientDriver, 12040, "550.54.14", 13000,
		"the NVIDIA driver 550.54.14 is older than CUDA 13 needs (580 or newer)"},
		{cudaErrorInsufficientDriver, 12040, "", 13000,
		"the NVIDIA driver for CUDA 12.4 is older than CUDA 13 needs (580 or newer)"},
		{cudaErrorInsufficientDriver, 11080, "", 12000,
		"the NVIDIA driver for CUDA 11.8 is older than CUDA 12 needs (525 or newer)"},
		{cudaErrorInsufficientDriver, 13000, "", 14010,
		"the NVIDIA driver for CUDA 13.0 is older than CUDA 14.1 needs"},
		{cudaErrorNoDevice, 13000, "580.65.06", 13000, "no NVIDIA GPU found"},
		{cudaErrorInsufficientDriver, 13000, "580.65.06", 13000,
		"cudaGetDeviceCount failed: CUDA driver version is insufficient for CUDA runtime version (35)"},
		{cudaErrorInvalidValue, 13000, "", 13000, "cudaGetDeviceCount failed: invalid argument (1)"},
	};
	char		buf[400];

	for (const auto &c : cases)
	{
		bs_cuda_explain_no_device(c.err, c.driver_version, c.release, c.runtime_version, buf, sizeof(buf));
		unit_report(strcmp(buf, c.text) == 0, "no device: error %d, driver %d \"%s\", runtime %d: \"%s\"",
					(int) c.err, c.driver_version, c.release, c.runtime_version, buf);
	}
}

/*
 * The device is chosen with every signal blocked (the driver's threads
 * inherit the mask) and the caller's mask is restored; a call made with
 * signals open is counted, so the check can fail.
 */
static void
test_signal_mask(void)
{
	bs_options	opt = {BS_BACKEND_CUDA, BS_ALGO_AUTO, 1, NULL, NULL};
	bs_pair32	p[3] = {3, 2, 1};
	char		info[400];
	int			count;
	long		before = bs_emu_device_calls_unmasked();
	sigset_t	mask_before,
				mask_after;
	int			same_mask = 1;

	pthread_sigmask(SIG_SETMASK, NULL, &mask_before);
	(void) bs_cuda_device_info(info, sizeof(info));
	(void) bs_sort_pairs32(p, 3, &opt);
	pthread_sigmask(SIG_SETMASK, NULL, &mask_after);
	for (int sig = 1; sig < 32; sig++)
		same_mask &= sigismember(&mask_before, sig) == sigismember(&mask_after, sig);
	unit_report(bs_emu_device_calls_unmasked() == before && same_mask && p[0] == 1,
				"the device is chosen with every signal blocked, the caller's mask restored");
	before = bs_emu_device_calls_unmasked();
	(void) cudaGetDeviceCount(&count);
	unit_report(bs_emu_device_calls_unmasked() == before + 1,
				"a device call with signals unblocked is counted (the check can fail)");
}

int
main(void)
{
	for (int chunked = 0; chunked <= 1; chunked++)
		for (int op = BS_EMU_ALLOC; op <= BS_EMU_LAUNCH; op++)
			for (int a = BS_ALGO_BITONIC; a <= BS_ALGO_ADAPTIVE; a++)
			{
				test_inject<bs_pair32>((bs_emu_op) op, 5 * 4096 + 123, (bs_algorithm) a, chunked);
				test_inject<bs_pair64>((bs_emu_op) op, 5 * 2048 + 77, (bs_algorithm) a, chunked);
			}
	test_lost_device<bs_pair32>(3 * 4096 + 5);
	test_lost_device<bs_pair64>(3 * 2048 + 5);
	test_register_refused<bs_pair32>(2 * 4096 + 9);
	test_register_refused<bs_pair64>(2 * 2048 + 9);
	test_register_rules();
	test_no_driver();
	test_no_device_texts();
	test_signal_mask();
	return cuda_test_exit();
}
