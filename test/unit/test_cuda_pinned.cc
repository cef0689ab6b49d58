/*
 * test_cuda_pinned.cc — the persistent page-locked buffer (cuda/pinned.cu)
 * through the SIMT emulator: pairs sorted there are not registered and come
 * out as the CPU sorts them; the buffer is lent to one sort at a time,
 * never above the limit, grown by replacement, freed when the limit falls
 * below it; a failed allocation lends nothing and holds nothing; a sort
 * that fails in the buffer leaves its pairs unchanged and frees everything
 * but the buffer.
 */
#include "cuda/cuda_internal.cuh"
#include "cuda_test.h"

#include <cstring>

/* Pairs sorted in the lent buffer: no registration, one allocation fewer, the CPU's order. */
template<typename P>
static void
test_sort_in_buffer(size_t n, bs_algorithm algo)
{
	bs_options	opt = {BS_BACKEND_CUDA, algo, 1, NULL, NULL};
	std::vector<P> input(n), out(n);
	P		   *pairs = (P *) bs_cuda_pinned_lend(n * sizeof(P));
	long		regs = bs_emu_op_count(BS_EMU_REGISTER);
	bool		ok = pairs != NULL;

	gen_pairs(input.data(), n, GEN_RANDOM, 5);
	if (ok)
	{
		memcpy(pairs, input.data(), n * sizeof(P));
		ok = cuda_sort(pairs, n, &opt) == BS_OK;
		memcpy(out.data(), pairs, n * sizeof(P));
		bs_cuda_pinned_return(pairs);
	}
	unit_report(ok && sorted_same(out, input) && bs_emu_op_count(BS_EMU_REGISTER) == regs &&
				bs_emu_live_objects() == 1,
				"cuda %s %s n=%zu in the lent buffer: sorted as the CPU sorts, nothing registered, "
				"only the buffer left held", bs_algorithm_name(algo), shape_name((P *) 0), n);
}

/* One sort at a time, never above the limit, grown when needed, kept or freed as the limit says. */
static void
test_lending_rules(void)
{
	size_t		mb = (size_t) 1 << 20;
	void	   *a,
			   *b;

	bs_cuda_set_pinned_limit(0);
	unit_report(bs_cuda_pinned_lend(100) == NULL && bs_cuda_pinned_bytes() == 0,
				"limit 0: nothing lent, nothing held");
	bs_cuda_set_pinned_limit(8 * mb);
	a = bs_cuda_pinned_lend(100);
	b = bs_cuda_pinned_lend(100);
	unit_report(a != NULL && b == NULL && bs_cuda_pinned_bytes() == 2 * mb,
				"lent once at a time, in 2 MB grains (held %zu bytes)", bs_cuda_pinned_bytes());
	bs_cuda_pinned_return(a);
	b = bs_cuda_pinned_lend(2 * mb);
	unit_report(b == a && bs_cuda_pinned_bytes() == 2 * mb, "lent again after its return: the same buffer");
	bs_cuda_pinned_return(b);
	a = bs_cuda_pinned_lend(5 * mb);
	unit_report(a != NULL && bs_cuda_pinned_bytes() == 6 * mb && bs_emu_live_objects() == 1,
				"a larger sort replaces it by a larger buffer (6 MB, one allocation held)");
	bs_cuda_set_pinned_limit(4 * mb);
	unit_report(bs_cuda_pinned_bytes() == 6 * mb, "a lower limit while lent: the buffer stays with its sort");
	bs_cuda_pinned_return(a);
	unit_report(bs_cuda_pinned_bytes() == 0 && bs_emu_live_objects() == 0,
				"... and is freed when it comes back above the limit");
	unit_report(bs_cuda_pinned_lend(5 * mb) == NULL && bs_cuda_pinned_bytes() == 0,
				"more than the limit: nothing lent");
	a = bs_cuda_pinned_lend(3 * mb + 1);
	unit_report(a != NULL && bs_cuda_pinned_bytes() == 4 * mb, "rounded up to the limit at most (4 MB)");
	bs_cuda_pinned_return((char *) a + 16);
	unit_report(bs_cuda_pinned_lend(10) == NULL, "a pointer it did not lend is not taken back");
	bs_cuda_pinned_return(a);
	bs_cuda_set_pinned_limit(0);
	unit_report(bs_cuda_pinned_bytes() == 0 && bs_emu_live_objects() == 0, "limit 0 frees what is held");
}

/* A failed allocation lends nothing; a sort failing in the buffer leaves its pairs and frees the rest. */
template<typename P>
static void
test_failures(size_t n)
{
	bs_options	opt = {BS_BACKEND_CUDA, BS_ALGO_BITONIC, 1, NULL, NULL};
	std::vector<P> input(n), out(n);
	P		   *pairs;
	bool		ok = true;
	long		launches = bs_emu_op_count(BS_EMU_LAUNCH);

	bs_cuda_set_pinned_limit((size_t) 64 << 20);
	bs_emu_fail_nth(BS_EMU_ALLOC, 1);
	pairs = (P *) bs_cuda_pinned_lend(n * sizeof(P));
	bs_emu_fail_nth(BS_EMU_ALLOC, 0);
	unit_report(pairs == NULL && bs_cuda_pinned_bytes() == 0 && bs_emu_live_objects() == 0,
				"cudaMallocHost failing: nothing lent, nothing held");

	gen_pairs(input.data(), n, GEN_RANDOM, 9);
	pairs = (P *) bs_cuda_pinned_lend(n * sizeof(P));
	memcpy(pairs, input.data(), n * sizeof(P));
	(void) cuda_sort(pairs, n, &opt);
	launches = bs_emu_op_count(BS_EMU_LAUNCH) - launches;
	for (long nth = 1; nth <= launches && ok; nth++)
	{
		memcpy(pairs, input.data(), n * sizeof(P));
		bs_emu_fail_nth(BS_EMU_LAUNCH, nth);
		ok = cuda_sort(pairs, n, &opt) == BS_ERR_DEVICE &&
			memcmp(pairs, input.data(), n * sizeof(P)) == 0 &&
			bs_emu_live_objects() == 1 && bs_emu_device_bytes() == 0;
		bs_emu_fail_nth(BS_EMU_LAUNCH, 0);
	}
	memcpy(pairs, input.data(), n * sizeof(P));
	ok = ok && cuda_sort(pairs, n, &opt) == BS_OK;
	memcpy(out.data(), pairs, n * sizeof(P));
	bs_cuda_pinned_return(pairs);
	bs_cuda_set_pinned_limit(0);
	unit_report(ok && launches > 0 && sorted_same(out, input) && bs_emu_live_objects() == 0,
				"cuda %s n=%zu in the lent buffer: each of %ld launches failed in turn -> BS_ERR_DEVICE, "
				"pairs unchanged, only the buffer held; then sorted; limit 0 frees it",
				shape_name((P *) 0), n, launches);
}

int
main(void)
{
	bs_cuda_set_pinned_limit((size_t) 64 << 20);
	for (int a = BS_ALGO_BITONIC; a <= BS_ALGO_ADAPTIVE; a++)
	{
		test_sort_in_buffer<bs_pair32>(3 * 4096 + 17, (bs_algorithm) a);
		test_sort_in_buffer<bs_pair64>(3 * 2048 + 33, (bs_algorithm) a);
	}
	bs_cuda_set_pinned_limit(0);
	test_lending_rules();
	test_failures<bs_pair32>(2 * 4096 + 3);
	test_failures<bs_pair64>(2 * 2048 + 3);
	return cuda_test_exit();
}
