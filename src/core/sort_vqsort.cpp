/*
 * sort_vqsort.cpp — Highway's vqsort as a CPU sorter for both pair shapes
 * (built only with USE_HWY, see mk/hwy.mk).
 *
 * Packed 32-bit-key pairs are plain uint64 values.  A 64-bit-key pair is, in
 * memory, the 128-bit integer whose high half is the key and low half the
 * pointer (bs_sort.h lays it out so), so the unsigned 128-bit order is the
 * (key, ptr) order and the result equals every other sorter's.
 *
 * Large inputs are cut into chunks of at most 2^23 pairs, a multiple of
 * bitonic_sort.cpu_threads of them, sorted on that many threads, then merged
 * in rounds (each merge split
 * into independent output segments by a co-rank search), with an interrupt
 * check between batches, so the sort uses every core and stays cancellable.
 * vqsort loads 128-bit keys with aligned vector loads: a misaligned array is
 * sorted in an aligned copy.
 */
#include "hwy/contrib/sort/vqsort.h"

#include <cstddef>
#include <cstring>
#include <new>

#include "bs_sort.h"
#include "core_alloc.h"
#include "parallel.h"

/* Largest chunk vqsort sorts in one call (one uninterruptible stretch). */
static const size_t kMaxChunk = (size_t) 1 << 23;
/* Smallest chunk worth a thread of its own. */
static const size_t kMinChunk = (size_t) 1 << 16;
/* Output pairs per merge task (a power of two). */
static const size_t kMergeSegment = (size_t) 1 << 20;

/* One sort: the array, a scratch array, and the chunk layout. */
template <class T>
struct VqJob
{
	T		   *data;
	T		   *scratch;
	size_t		n;
	size_t		chunk;			/* pairs per chunk, a power of two */
	size_t		width;			/* run length being merged this round */
	bool		failed;			/* a chunk sort could not allocate */
};

/* Sort chunks [b, e) with vqsort. */
template <class T>
static void
vq_sort_chunks(void *vjob, size_t b, size_t e)
{
	VqJob<T>   *job = static_cast<VqJob<T> *>(vjob);

	try
	{
		hwy::Sorter sorter;

		for (size_t c = b; c < e; c++)
		{
			size_t		lo = c * job->chunk;
			size_t		len = job->n - lo < job->chunk ? job->n - lo : job->chunk;

			sorter(job->data + lo, len, hwy::SortAscending());
		}
	}
	catch (const std::bad_alloc &)
	{
		job->failed = true;
	}
}

/* How many of the first k outputs of merging a[0..m) and b[0..n) come from a (all distinct). */
template <class T>
static size_t
vq_corank(size_t k, const T *a, size_t m, const T *b, size_t n)
{
	size_t		lo = k > n ? k - n : 0;
	size_t		hi = k < m ? k : m;

	while (lo < hi)
	{
		size_t		i = lo + (hi - lo) / 2;
		size_t		j = k - i;

		if (j > 0 && i < m && a[i] < b[j - 1])
			lo = i + 1;
		else
			hi = i;
	}
	return lo;
}

/* Merge output segments [b, e) of this round from data into scratch. */
template <class T>
static void
vq_merge_segments(void *vjob, size_t b, size_t e)
{
	VqJob<T>   *job = static_cast<VqJob<T> *>(vjob);
	size_t		w = job->width;
	size_t		seg = 2 * w < kMergeSegment ? 2 * w : kMergeSegment;

	for (size_t s = b; s < e; s++)
	{
		size_t		o0 = s * seg;
		size_t		o1 = o0 + seg < job->n ? o0 + seg : job->n;
		size_t		base = o0 / (2 * w) * (2 * w);
		const T    *a = job->data + base;
		size_t		m = job->n - base < w ? job->n - base : w;
		const T    *bb = a + m;
		size_t		nb = job->n - base - m < w ? job->n - base - m : w;
		size_t		i = vq_corank(o0 - base, a, m, bb, nb);
		size_t		j = o0 - base - i;
		T		   *out = job->scratch + o0;

		for (size_t o = o0; o < o1; o++)
			*out++ = (j >= nb || (i < m && a[i] < bb[j])) ? a[i++] : bb[j++];
	}
}

/*
 * Pairs per chunk: a multiple of `threads` chunks of at most kMaxChunk,
 * sized so every merge segment lies within one merge (a multiple of half a
 * segment, or a power of two below that).
 */
static size_t
vq_chunk_size(size_t n, int threads)
{
	size_t		per = threads > 1 ? (size_t) threads : 1;
	size_t		nchunks = per * ((n + per * kMaxChunk - 1) / (per * kMaxChunk));
	size_t		chunk = (n + nchunks - 1) / nchunks;
	size_t		unit = kMergeSegment / 2;
	size_t		pow2 = kMinChunk;

	if (n <= kMinChunk)
		return n > 0 ? n : 1;
	if (chunk >= unit)
		return (chunk + unit - 1) / unit * unit;
	while (pow2 < chunk)
		pow2 *= 2;
	return pow2;
}

/* Sort n values of T: chunks in parallel, then merge rounds. */
template <class T>
static bs_status
vq_sort(T *data, size_t n, const bs_options *opt)
{
	const bs_hooks *hooks = opt ? opt->hooks : NULL;
	int			threads = opt && opt->threads > 1 ? opt->threads : 1;
	VqJob<T>	job = {data, NULL, n, 1, 0, false};
	size_t		nchunks;
	void	   *raw = NULL;

	job.chunk = vq_chunk_size(n, threads);
	nchunks = (n + job.chunk - 1) / job.chunk;
	if (nchunks > 1)
	{
		raw = bs_core_alloc(hooks, (n + 1) * sizeof(T));
		if (raw == NULL)
			return BS_ERR_NOMEM;
		job.scratch = reinterpret_cast<T *>(((uintptr_t) raw + alignof(T) - 1) &
											~(uintptr_t) (alignof(T) - 1));
	}

	bs_parallel_for_checked(threads, nchunks, 1, threads, vq_sort_chunks<T>, &job, hooks);
	for (job.width = job.chunk; job.width < n && !job.failed; job.width *= 2)
	{
		size_t		seg = 2 * job.width < kMergeSegment ? 2 * job.width : kMergeSegment;

		bs_parallel_for_checked(threads, (n + seg - 1) / seg, 1, 4 * threads,
								vq_merge_segments<T>, &job, hooks);
		std::swap(job.data, job.scratch);
	}
	if (job.data != data)
		memcpy(data, job.data, n * sizeof(T));
	bs_core_free(hooks, raw);
	return job.failed ? BS_ERR_NOMEM : BS_OK;
}

/* vqsort of packed 32-bit-key pairs. */
extern "C" bs_status
bs_cpu_vqsort_pairs32(bs_pair32 *pairs, size_t n, const bs_options *opt)
{
	if (n > BS_MAX_PAIRS)
		return BS_ERR_TOO_MANY;
	return vq_sort<uint64_t>(pairs, n, opt);
}

/* vqsort of 64-bit-key pairs, as 128-bit integers. */
extern "C" bs_status
bs_cpu_vqsort_pairs64(bs_pair64 *pairs, size_t n, const bs_options *opt)
{
	const bs_hooks *hooks = opt ? opt->hooks : NULL;
	bool		aligned = ((uintptr_t) pairs % alignof(hwy::uint128_t)) == 0;
	void	   *copy = NULL;
	hwy::uint128_t *wide;
	bs_status	status;

	static_assert(sizeof(bs_pair64) == sizeof(hwy::uint128_t), "pair64 is 16 bytes");
	static_assert(offsetof(bs_pair64, ptr) == 0 && offsetof(bs_pair64, key) == 8,
				  "pair64 is the little-endian 128-bit integer key << 64 | ptr");
	if (n > BS_MAX_PAIRS)
		return BS_ERR_TOO_MANY;
	if (aligned)
		wide = reinterpret_cast<hwy::uint128_t *>(pairs);
	else
	{
		copy = bs_core_alloc(hooks, (n + 1) * sizeof(hwy::uint128_t));
		if (copy == NULL)
			return BS_ERR_NOMEM;
		wide = reinterpret_cast<hwy::uint128_t *>(
			((uintptr_t) copy + alignof(hwy::uint128_t) - 1) &
			~(uintptr_t) (alignof(hwy::uint128_t) - 1));
	}

	if (!aligned)
		memcpy(wide, pairs, n * sizeof(hwy::uint128_t));
	status = vq_sort<hwy::uint128_t>(wide, n, opt);
	if (!aligned)
		memcpy(pairs, wide, n * sizeof(hwy::uint128_t));
	bs_core_free(hooks, copy);
	return status;
}
