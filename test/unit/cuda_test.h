/*
 * cuda_test.h — what the CUDA unit tests share: the pair generators and the
 * qsort reference of pairs_gen.h as overloads over the pair shape, so every
 * test is written once as a template and run for both shapes; device
 * buffers; the schedule seeds; and the end of a test, which fails it when
 * the emulator's checks found what no test expected.  The tests compile
 * with g++ against the emulator (BS_CUDA_EMU) and, for a real GPU, with nvcc.
 */
#ifndef BS_CUDA_TEST_H
#define BS_CUDA_TEST_H

#include "cuda/bs_cuda.h"
#include "cuda/cuda_compat.cuh"
#include "cuda/pair_store.cuh"
#include "pairs_gen.h"
#include "unit.h"

#include <cstring>
#include <ctime>
#include <vector>

/* Fill packed 32-bit-key pairs. */
static inline void
gen_pairs(bs_pair32 *p, size_t n, gen_dist dist, uint64_t seed)
{
	gen_pairs32(p, n, dist, seed);
}

/* Fill 64-bit-key pairs. */
static inline void
gen_pairs(bs_pair64 *p, size_t n, gen_dist dist, uint64_t seed)
{
	gen_pairs64(p, n, dist, seed);
}

/* qsort reference of packed pairs. */
static inline void
ref_sort(bs_pair32 *p, size_t n)
{
	qsort(p, n, sizeof(*p), ref_cmp32);
}

/* qsort reference of 64-bit-key pairs. */
static inline void
ref_sort(bs_pair64 *p, size_t n)
{
	qsort(p, n, sizeof(*p), ref_cmp64);
}

/* The CUDA entry point of a shape. */
static inline bs_status
cuda_sort(bs_pair32 *p, size_t n, const bs_options *opt)
{
	return bs_cuda_sort_pairs32(p, n, opt);
}

/* The CUDA entry point of a shape. */
static inline bs_status
cuda_sort(bs_pair64 *p, size_t n, const bs_options *opt)
{
	return bs_cuda_sort_pairs64(p, n, opt);
}

/* The core's dispatching entry point of a shape. */
static inline bs_status
core_sort(bs_pair32 *p, size_t n, const bs_options *opt)
{
	return bs_sort_pairs32(p, n, opt);
}

/* The core's dispatching entry point of a shape. */
static inline bs_status
core_sort(bs_pair64 *p, size_t n, const bs_options *opt)
{
	return bs_sort_pairs64(p, n, opt);
}

/* Name of a shape for test names. */
static inline const char *
shape_name(const bs_pair32 *)
{
	return "pairs32";
}

/* Name of a shape for test names. */
static inline const char *
shape_name(const bs_pair64 *)
{
	return "pairs64";
}

/* Whether two pair arrays are identical. */
template<typename P>
static bool
same_pairs(const std::vector<P> &a, const std::vector<P> &b)
{
	return a.size() == b.size() && (a.empty() || memcmp(a.data(), b.data(), a.size() * sizeof(P)) == 0);
}

/* Whether a is b sorted (the reference sort orders by key, then pointer). */
template<typename P>
static bool
sorted_same(const std::vector<P> &a, std::vector<P> b)
{
	ref_sort(b.data(), b.size());
	return same_pairs(a, b);
}

/* Seconds on the monotonic clock. */
static inline double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A device copy of a host vector, read back with get(), freed with the object. */
template<typename T>
struct dev_buffer
{
	T		   *p = nullptr;
	size_t		n;

	/* Allocate n elements and copy v's first n in (all of v by default). */
	explicit dev_buffer(const std::vector<T> &v) : n(v.size())
	{
		if (cudaMalloc((void **) &p, n * sizeof(T)) == cudaSuccess)
			cudaMemcpy(p, v.data(), n * sizeof(T), cudaMemcpyHostToDevice);
	}
	dev_buffer(const dev_buffer &) = delete;
	dev_buffer &operator=(const dev_buffer &) = delete;

	/* Free the device memory. */
	~dev_buffer()
	{
		cudaFree(p);
	}

	/* The buffer's contents, copied back. */
	std::vector<T> get() const
	{
		std::vector<T> v(n);

		cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
		return v;
	}
};

/*
 * Pairs on the device as a kernel's store (cuda/pair_store.cuh): one array
 * (SPLIT false), or 64-bit pairs as an array of keys and one of pointers.
 */
template<typename P, bool SPLIT> struct dev_pairs;

template<typename P>
struct dev_pairs<P, false>
{
	dev_buffer<P> d;

	/* A device copy of a. */
	explicit dev_pairs(const std::vector<P> &a) : d(a) {}

	/* The store the kernels take. */
	P		   *store() const
	{
		return d.p;
	}

	/* The pairs, copied back. */
	std::vector<P> get() const
	{
		return d.get();
	}
};

/* The keys (key true) or the pointers of 64-bit pairs. */
template<typename T>
static std::vector<T>
pair_fields(const std::vector<bs_pair64> &a, bool key)
{
	std::vector<T> v(a.size());

	for (size_t i = 0; i < a.size(); i++)
		v[i] = key ? (T) a[i].key : (T) a[i].ptr;
	return v;
}

template<>
struct dev_pairs<bs_pair64, true>
{
	dev_buffer<uint64_t> key;
	dev_buffer<uint32_t> ptr;

	/* A device copy of a, split. */
	explicit dev_pairs(const std::vector<bs_pair64> &a)
	:			key(pair_fields<uint64_t>(a, true)), ptr(pair_fields<uint32_t>(a, false)) {}

	/* The store the kernels take. */
	bs_split64	store() const
	{
		bs_split64	s = {key.p, ptr.p};

		return s;
	}

	/* The pairs, copied back and joined. */
	std::vector<bs_pair64> get() const
	{
		std::vector<uint64_t> k = key.get();
		std::vector<uint32_t> q = ptr.get();
		std::vector<bs_pair64> a(k.size());

		for (size_t i = 0; i < a.size(); i++)
		{
			a[i].key = k[i];
			a[i].ptr = q[i];
			a[i].pad = 0;
		}
		return a;
	}
};

/* The schedule seeds each kernel test runs under (in the emulator; BS_EMU_SEED=s replays s). */
static const uint64_t test_seeds[] = {1, 2, 3};

/* Run the next launches under this seed (the emulator's schedule; nothing on a GPU). */
static inline void
use_seed(uint64_t seed)
{
#ifdef BS_CUDA_EMU
	bs_emu_set_seed(seed);
#else
	(void) seed;
#endif
}

/*
 * Sort one input with sorter algo on the GPU (directly, or through the
 * core's dispatch) and by qsort; true when identical and (emulator)
 * nothing leaked.
 */
template<typename P>
static bool
check_sort(bs_algorithm algo, size_t n, gen_dist dist, bool via_core)
{
	bs_options	opt = {BS_BACKEND_CUDA, algo, 1, NULL, NULL};
	std::vector<P> a(n), ref;

	gen_pairs(a.data(), n, dist, n * 7919 + dist);
	ref = a;
	ref_sort(ref.data(), n);
	use_seed(n * 7919 + dist + algo);
	if ((via_core ? core_sort(a.data(), n, &opt) : cuda_sort(a.data(), n, &opt)) != BS_OK)
		return false;
#ifdef BS_CUDA_EMU
	if (bs_emu_live_objects() != 0)
		return false;
#endif
	return same_pairs(a, ref);
}

/* The exit status of a CUDA test; in the emulator, findings of its checks no test took fail it. */
static inline int
cuda_test_exit(void)
{
#ifdef BS_CUDA_EMU
	std::vector<bs_emu_report> r = bs_emu_take_reports();

	unit_report(r.empty(), "SIMT emulator checks: no race, out-of-bounds access or barrier error%s%s",
				r.empty() ? "" : " -- the first of them: ", r.empty() ? "" : r[0].text.c_str());
#endif
	return unit_exit_status();
}

#endif							/* BS_CUDA_TEST_H */
