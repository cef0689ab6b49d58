/*
 * cuda_sort_bench.cu — the CUDA sorters on a real GPU beside CUB's
 * cub::DeviceRadixSort::SortPairs on the same pairs (not a test; run by
 * `make bench-gpu`, built with nvcc only).
 *
 *   cuda_sort_bench [LOG2_MIN LOG2_MAX [REPS]]     (default 20 26 5)
 *
 * For each pair shape, and 64-bit keys spanning less than 2^32 (which the
 * sorters pack into 8-byte pairs), n = 2^LOG2_MIN .. 2^LOG2_MAX random
 * pairs, best of REPS runs:
 *   h2d, d2h    one cudaMemcpy of the pairs each way (pageable host memory),
 *               timed with CUDA events
 *   bitonic, adaptive   the device-side sorter alone (bs_gpu_sort: every
 *               kernel launch of one sort on a buffer already on the GPU),
 *               timed with CUDA events
 *   host        bs_cuda_sort_pairs32/64 end to end on the host clock:
 *               registration (or staging), transfers, kernels, chunk merge
 *               (the standard sorter)
 *   pinned      the same on pairs in the page-locked buffer (cuda/pinned.cu,
 *               as gpu_sort builds them): no registration
 *   cub         SortPairs on the same keys and pointers (keys and values in
 *               separate arrays, as CUB takes them), kernels only, events
 * Each sorter's keys are checked against CUB's.  Without a device it says
 * why and exits 0.
 */
#include "cuda/cuda_internal.cuh"
#include "pairs_gen.h"

#include <cub/device/device_radix_sort.cuh>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

/* Stop on a failed CUDA call, naming it. */
#define CK(call) ck((call), #call, __LINE__)

/* Whether a CUDA call succeeded; exits with its name and error text otherwise. */
static void
ck(cudaError_t err, const char *call, int line)
{
	if (err == cudaSuccess)
		return;
	fprintf(stderr, "cuda_sort_bench.cu:%d: %s failed: %s (%d)\n", line, call, cudaGetErrorString(err), (int) err);
	exit(1);
}

/* The key of a pair, as CUB sorts it. */
static inline uint32_t
key_of(bs_pair32 p)
{
	return (uint32_t) (p >> 32);
}

/* The key of a pair, as CUB sorts it. */
static inline uint64_t
key_of(const bs_pair64 &p)
{
	return p.key;
}

/* The pointer of a pair, CUB's value. */
static inline uint32_t
ptr_of(bs_pair32 p)
{
	return (uint32_t) p;
}

/* The pointer of a pair, CUB's value. */
static inline uint32_t
ptr_of(const bs_pair64 &p)
{
	return p.ptr;
}

/* Fill random pairs of a shape. */
static void
fill(std::vector<bs_pair32> &a)
{
	gen_pairs32(a.data(), a.size(), GEN_RANDOM, a.size());
}

/* Fill random pairs of a shape. */
static void
fill(std::vector<bs_pair64> &a)
{
	gen_pairs64(a.data(), a.size(), GEN_RANDOM, a.size());
}

/* The host entry point of a shape. */
static bs_status
host_sort(bs_pair32 *p, size_t n, const bs_options *opt)
{
	return bs_cuda_sort_pairs32(p, n, opt);
}

/* The host entry point of a shape. */
static bs_status
host_sort(bs_pair64 *p, size_t n, const bs_options *opt)
{
	return bs_cuda_sort_pairs64(p, n, opt);
}

/* Milliseconds between two recorded events. */
static float
elapsed(cudaEvent_t a, cudaEvent_t b)
{
	float		ms = 0;

	CK(cudaEventSynchronize(b));
	CK(cudaEventElapsedTime(&ms, a, b));
	return ms;
}

/* Best times of one shape and size, in ms. */
struct timings
{
	float		h2d = 1e30f,
				d2h = 1e30f,
				bitonic = 1e30f,
				adaptive = 1e30f,
				host = 1e30f,
				pinned = 1e30f,
				cub = 1e30f;
	bool		same = true;		/* every sorter's keys equal CUB's */
};

/* Keep the smaller of two times. */
static void
keep_min(float *best, float ms)
{
	if (ms < *best)
		*best = ms;
}

/* One rep of our device sorter: upload, sort (timed), download; its keys against CUB's. */
template<typename P, typename K>
static void
time_ours(const std::vector<P> &a, P *d, void *scratch, bs_algorithm algo, const std::vector<K> &cub_keys,
		  cudaEvent_t ev[4], timings *t)
{
	size_t		n = a.size();
	std::vector<P> out(n);

	CK(cudaEventRecord(ev[0]));
	CK(cudaMemcpy(d, a.data(), n * sizeof(P), cudaMemcpyHostToDevice));
	CK(cudaEventRecord(ev[1]));
	if (!bs_gpu_sort(d, n, algo, scratch, (cudaStream_t) 0))
	{
		fprintf(stderr, "bs_gpu_sort failed: %s\n", bs_cuda_last_error());
		exit(1);
	}
	CK(cudaEventRecord(ev[2]));
	CK(cudaMemcpy(out.data(), d, n * sizeof(P), cudaMemcpyDeviceToHost));
	CK(cudaEventRecord(ev[3]));
	keep_min(&t->h2d, elapsed(ev[0], ev[1]));
	keep_min(algo == BS_ALGO_ADAPTIVE ? &t->adaptive : &t->bitonic, elapsed(ev[1], ev[2]));
	keep_min(&t->d2h, elapsed(ev[2], ev[3]));
	for (size_t i = 0; i < n; i++)
		t->same &= key_of(out[i]) == cub_keys[i];
}

/* One rep of bs_cuda_sort end to end on a copy of a at p (host memory of n pairs); its keys against CUB's. */
template<typename P, typename K>
static void
time_host(const std::vector<P> &a, P *p, const std::vector<K> &cub_keys, float *best, timings *t)
{
	size_t		n = a.size();
	bs_options	opt = {BS_BACKEND_CUDA, BS_ALGO_BITONIC, 1, NULL, NULL};

	memcpy(p, a.data(), n * sizeof(P));
	auto		t0 = std::chrono::steady_clock::now();

	if (host_sort(p, n, &opt) != BS_OK)
	{
		fprintf(stderr, "bs_cuda_sort failed: %s\n", bs_cuda_last_error());
		exit(1);
	}
	keep_min(best, std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count());
	for (size_t i = 0; i < n; i++)
		t->same &= key_of(p[i]) == cub_keys[i];
}

/* One rep of CUB's SortPairs on the same keys and pointers (kernels timed); returns its sorted keys. */
template<typename P, typename K>
static std::vector<K>
time_cub(const std::vector<P> &a, cudaEvent_t ev[4], timings *t)
{
	size_t		n = a.size();
	std::vector<K> keys(n);
	std::vector<uint32_t> vals(n);
	K		   *dk[2];
	uint32_t   *dv[2];
	void	   *temp = nullptr;
	size_t		temp_bytes = 0;

	for (size_t i = 0; i < n; i++)
	{
		keys[i] = key_of(a[i]);
		vals[i] = ptr_of(a[i]);
	}
	for (int i = 0; i < 2; i++)
	{
		CK(cudaMalloc((void **) &dk[i], n * sizeof(K)));
		CK(cudaMalloc((void **) &dv[i], n * sizeof(uint32_t)));
	}
	CK(cudaMemcpy(dk[0], keys.data(), n * sizeof(K), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dv[0], vals.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
	CK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, dk[0], dk[1], dv[0], dv[1], n));
	CK(cudaMalloc(&temp, temp_bytes));
	CK(cudaEventRecord(ev[0]));
	CK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, dk[0], dk[1], dv[0], dv[1], n));
	CK(cudaEventRecord(ev[1]));
	keep_min(&t->cub, elapsed(ev[0], ev[1]));
	CK(cudaMemcpy(keys.data(), dk[1], n * sizeof(K), cudaMemcpyDeviceToHost));
	for (int i = 0; i < 2; i++)
	{
		CK(cudaFree(dk[i]));
		CK(cudaFree(dv[i]));
	}
	CK(cudaFree(temp));
	return keys;
}

/* Keep 64-bit keys within 2^32 of 10^15 (the sorters then take the packed way; CUB sorts all 64 bits). */
static void
narrow_keys(std::vector<bs_pair64> &a)
{
	for (bs_pair64 &p : a)
		p.key = 1000000000000000ull + (p.key >> 32);
}

/* Packed pairs have no wider keys to narrow. */
static void
narrow_keys(std::vector<bs_pair32> &a)
{
	(void) a;
}

/* Every measurement of one shape and size (narrow: 64-bit keys spanning less than 2^32). */
template<typename P, typename K>
static timings
bench(size_t n, int reps, bool narrow)
{
	std::vector<P> a(n),
				host(n);
	timings		t;
	cudaEvent_t ev[4];
	P		   *d;
	void	   *scratch = nullptr;

	fill(a);
	if (narrow)
		narrow_keys(a);
	for (int i = 0; i < 4; i++)
		CK(cudaEventCreate(&ev[i]));
	CK(cudaMalloc((void **) &d, n * sizeof(P)));
	CK(cudaMalloc(&scratch, bs_gpu_scratch_bytes<P>(n, BS_ALGO_ADAPTIVE)));
	for (int r = 0; r < reps; r++)
	{
		std::vector<K> cub_keys = time_cub<P, K>(a, ev, &t);

		time_ours(a, d, scratch, BS_ALGO_BITONIC, cub_keys, ev, &t);
		time_ours(a, d, scratch, BS_ALGO_ADAPTIVE, cub_keys, ev, &t);
		P		   *pinned = (P *) bs_cuda_pinned_lend(n * sizeof(P));

		time_host(a, host.data(), cub_keys, &t.host, &t);
		if (pinned == nullptr)
		{
			fprintf(stderr, "no page-locked buffer of %zu bytes\n", n * sizeof(P));
			exit(1);
		}
		time_host(a, pinned, cub_keys, &t.pinned, &t);
		bs_cuda_pinned_return(pinned);
	}
	CK(cudaFree(d));
	CK(cudaFree(scratch));
	for (int i = 0; i < 4; i++)
		CK(cudaEventDestroy(ev[i]));
	return t;
}

/* One table row: times, and what the cost model's figures are compared with. */
static void
print_row(const char *shape, size_t n, const timings &t)
{
	printf("| %s | 2^%d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2fx | %s |\n", shape,
		   __builtin_ctzll(n), t.h2d, t.bitonic, t.adaptive, t.d2h, t.host, t.pinned, t.cub, t.bitonic / t.cub,
		   t.same ? "yes" : "NO");
}

int
main(int argc, char **argv)
{
	int			lo = argc > 2 ? atoi(argv[1]) : 20;
	int			hi = argc > 2 ? atoi(argv[2]) : 26;
	int			reps = argc > 3 ? atoi(argv[3]) : 5;
	int			count = 0;
	bool		same = true;
	cudaError_t err = cudaGetDeviceCount(&count);
	char		info[400];

	if (err != cudaSuccess || count == 0)
	{
		printf("cuda_sort_bench: no CUDA device (%s): nothing to measure\n",
			   err != cudaSuccess ? cudaGetErrorString(err) : "none found");
		return 0;
	}
	bs_cuda_device_info(info, sizeof(info));
	/* the largest sort's pairs fit the page-locked buffer */
	bs_cuda_set_pinned_limit(((size_t) 1 << hi) * sizeof(bs_pair64));
	printf("%s\n\nms, best of %d; sorts on the device timed with CUDA events; host = bs_cuda_sort end to end "
		   "(pairs registered for it), pinned = the same on pairs in the page-locked buffer\n\n", info, reps);
	printf("| pairs | n | h2d | bitonic | adaptive | d2h | host | pinned | cub SortPairs | bitonic / cub | keys = cub's |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int k = lo; k <= hi; k++)
	{
		timings		t32 = bench<bs_pair32, uint32_t>((size_t) 1 << k, reps, false);
		timings		t64 = bench<bs_pair64, uint64_t>((size_t) 1 << k, reps, false);
		timings		t64n = bench<bs_pair64, uint64_t>((size_t) 1 << k, reps, true);

		print_row("32-bit key", (size_t) 1 << k, t32);
		print_row("64-bit key", (size_t) 1 << k, t64);
		print_row("64-bit key spanning < 2^32", (size_t) 1 << k, t64n);
		same &= t32.same && t64.same && t64n.same;
	}
	return same ? 0 : 1;
}
