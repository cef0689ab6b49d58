/*
 * sort_vqsort.cpp — Highway's vqsort as a CPU sorter for both pair shapes
 * (built only with USE_HWY, see mk/hwy.mk).
 *
 * Packed 32-bit-key pairs are plain uint64 values.  A 64-bit-key pair is, in
 * memory, the 128-bit integer whose high half is the key and low half the
 * pointer (bs_sort.h lays it out so), so the unsigned 128-bit order is the
 * (key, ptr) order and the result equals every other sorter's.
 *
 * Large inputs are split in place, quicksort-style, around the median of a
 * sample: every thread partitions a stripe of the part, then a swap of the
 * misplaced pairs joins the stripes.  Parts are split until each thread has
 * one and none is over 16 MB; then vqsort sorts every part on a thread of
 * its own.  There is no scratch array and no merge pass, so the sort
 * touches no memory beyond the pairs.  The interrupt check runs between
 * batches, and a cancel stops the threads after the part or stripe each
 * sorts (bs_parallel_for_checked), so the sort stays cancellable within
 * tens of milliseconds.  vqsort loads 128-bit keys with
 * aligned vector loads: a misaligned array is sorted in an aligned copy.
 */
#include "hwy/contrib/sort/vqsort.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>

#include "bs_sort.h"
#include "core_alloc.h"
#include "parallel.h"

/*
 * Bytes of the largest part vqsort sorts in one call, one stretch a cancel
 * waits for: 16 MB, 1M pairs of 128 bits (26 ms here) or 2M 64-bit values
 * (19 ms).
 */
static const size_t kMaxPartBytes = (size_t) 16 << 20;
/* Values of T in the largest part vqsort sorts in one call. */
template <class T>
static constexpr size_t
vq_max_part()
{
	return kMaxPartBytes / sizeof(T);
}
/*
 * Smallest part worth splitting to give another thread work: 32K values,
 * about 0.6 ms of vqsort for 128-bit pairs, against tens of microseconds
 * of hand-offs for the split (the 295 runs of 34K pairs of a 10M-row
 * external sort at 4 MB: 206 ms of sorting on one thread, 155 ms on two).
 */
static const size_t kMinSplit = (size_t) 1 << 15;
/* Largest stripe one thread partitions in one go (a cancel waits for one). */
static const size_t kMaxStripe = (size_t) 1 << 21;
/* Most stripes of one split: every thread, and enough to keep stripes small. */
static const size_t kMaxStripes = 64 + (BS_MAX_PAIRS >> 21) + 2;
/* Misplaced pairs one task swaps. */
static const size_t kSwapGrain = (size_t) 1 << 20;
/* Pairs sampled to choose a pivot (odd, so the median is one of them). */
static const size_t kSample = 127;

/* A stretch of the array, [base, base + len); `whole` when it cannot be split. */
template <class T>
struct VqPart
{
	T		   *base;
	size_t		len;
	bool		whole;
};

/* One in-place partition of a part around a pivot, on several threads. */
template <class T>
struct VqSplit
{
	T		   *base;
	size_t		len;
	T			pivot;
	size_t		stripe;			/* pairs per stripe */
	size_t		nless[kMaxStripes]; /* per stripe: pairs below the pivot */
	VqPart<T>	wrong_high[kMaxStripes];	/* pairs >= pivot left of the cut */
	VqPart<T>	wrong_low[kMaxStripes];	/* pairs < pivot right of the cut */
};

/* The parts being sorted, and whether a sort ran out of memory. */
template <class T>
struct VqJob
{
	VqPart<T>  *parts;
	bool		failed;
};

/* Partition stripes [b, e) of a split in place: the pairs below the pivot first. */
template <class T>
static void
vq_partition_stripes(void *vsplit, size_t b, size_t e)
{
	VqSplit<T> *split = static_cast<VqSplit<T> *>(vsplit);
	const T		pivot = split->pivot;

	for (size_t s = b; s < e; s++)
	{
		T		   *a = split->base + s * split->stripe;
		size_t		len = std::min(split->stripe, split->len - s * split->stripe);
		size_t		low = 0;

		/* branch-free Lomuto: a[0..low) < pivot <= a[low..i) */
		for (size_t i = 0; i < len; i++)
		{
			T			t = a[i];

			a[i] = a[low];
			a[low] = t;
			low += t < pivot;
		}
		split->nless[s] = low;
	}
}

/* Swap misplaced pairs [b, e): the k-th high one left of the cut with the k-th low one right of it. */
template <class T>
static void
vq_swap_misplaced(void *vsplit, size_t b, size_t e)
{
	VqSplit<T> *split = static_cast<VqSplit<T> *>(vsplit);
	const VqPart<T> *hr = split->wrong_high;
	const VqPart<T> *lr = split->wrong_low;
	size_t		hoff = b;
	size_t		loff = b;

	while (hoff >= hr->len)
		hoff -= (hr++)->len;
	while (loff >= lr->len)
		loff -= (lr++)->len;
	for (size_t k = b; k < e; k++)
	{
		std::swap(hr->base[hoff], lr->base[loff]);
		if (++hoff == hr->len)
		{
			hr++;
			hoff = 0;
		}
		if (++loff == lr->len)
		{
			lr++;
			loff = 0;
		}
	}
}

/* The median of kSample pairs spread evenly over a[0..len). */
template <class T>
static T
vq_pivot(const T *a, size_t len)
{
	T			sample[kSample];

	for (size_t k = 0; k < kSample; k++)
		sample[k] = a[(2 * k + 1) * len / (2 * kSample)];
	std::nth_element(sample, sample + kSample / 2, sample + kSample);
	return sample[kSample / 2];
}

/*
 * Partition `part` in place around a sampled pivot into *low (below it) and
 * *high, with `split` as bookkeeping; false when no pair is below the pivot.
 */
template <class T>
static bool
vq_split(VqSplit<T> *split, const VqPart<T> &part, int threads, const bs_hooks *hooks,
		 VqPart<T> *low, VqPart<T> *high)
{
	size_t		nstripes = std::max((size_t) std::min(threads, 64),
									(part.len + kMaxStripe - 1) / kMaxStripe);
	size_t		cut = 0;
	size_t		nwrong = 0;
	size_t		nhigh = 0;
	size_t		nlow = 0;

	split->base = part.base;
	split->len = part.len;
	split->pivot = vq_pivot(part.base, part.len);
	split->stripe = (part.len + nstripes - 1) / nstripes;
	nstripes = (part.len + split->stripe - 1) / split->stripe;
	bs_parallel_for_checked(threads, nstripes, 1, (size_t) threads,
							vq_partition_stripes<T>, split, hooks);
	for (size_t s = 0; s < nstripes; s++)
		cut += split->nless[s];

	/* stripe s holds [lo, lo + nless) below the pivot, then the rest up to hi */
	for (size_t s = 0; s < nstripes; s++)
	{
		size_t		lo = s * split->stripe;
		size_t		mid = lo + split->nless[s];
		size_t		hi = std::min(lo + split->stripe, part.len);

		if (mid < cut && mid < hi)
			split->wrong_high[nhigh++] = {part.base + mid, std::min(hi, cut) - mid, false};
		if (mid > cut && mid > lo)
		{
			size_t		from = std::max(lo, cut);

			split->wrong_low[nlow++] = {part.base + from, mid - from, false};
			nwrong += mid - from;
		}
	}
	bs_parallel_for_checked(threads, nwrong, kSwapGrain, (size_t) threads * kSwapGrain,
							vq_swap_misplaced<T>, split, hooks);
	*low = {part.base, cut, false};
	*high = {part.base + cut, part.len - cut, false};
	return cut > 0;
}

/* Sort parts [b, e) with vqsort. */
template <class T>
static void
vq_sort_parts(void *vjob, size_t b, size_t e)
{
	VqJob<T>   *job = static_cast<VqJob<T> *>(vjob);

	try
	{
		hwy::Sorter sorter;

		for (size_t p = b; p < e; p++)
			sorter(job->parts[p].base, job->parts[p].len, hwy::SortAscending());
	}
	catch (const std::bad_alloc &)
	{
		job->failed = true;
	}
}

/*
 * The part to split next: the largest splittable one while some part is over
 * vq_max_part or a quarter above its threads' share; nparts when none is.
 */
template <class T>
static size_t
vq_part_to_split(const VqPart<T> *parts, size_t nparts, size_t n, int threads)
{
	size_t		share = n / (size_t) threads + n / (size_t) threads / 4;
	size_t		best = nparts;

	for (size_t p = 0; p < nparts; p++)
		if (!parts[p].whole && (best == nparts || parts[p].len > parts[best].len))
			best = p;
	if (best == nparts)
		return nparts;
	if (parts[best].len > vq_max_part<T>() ||
		(parts[best].len > share && parts[best].len >= kMinSplit))
		return best;
	return nparts;
}

/* Sort n values of T: split into parts in place, then vqsort each part on a thread. */
template <class T>
static bs_status
vq_sort(T *data, size_t n, const bs_options *opt)
{
	const bs_hooks *hooks = opt ? opt->hooks : NULL;
	int			threads = opt && opt->threads > 1 ? opt->threads : 1;
	size_t		maxparts = 4 * (n / vq_max_part<T>()) + 4 * (size_t) threads + 16;
	VqJob<T>	job = {NULL, false};
	VqSplit<T> *split;
	size_t		nparts = 1;

	static_assert(std::is_trivial<VqSplit<T>>::value, "split bookkeeping is plain memory");
	job.parts = static_cast<VqPart<T> *>(bs_core_alloc(hooks, maxparts * sizeof(VqPart<T>)));
	split = static_cast<VqSplit<T> *>(bs_core_alloc(hooks, sizeof(VqSplit<T>)));
	if (job.parts == NULL || split == NULL)
	{
		bs_core_free(hooks, job.parts);
		bs_core_free(hooks, split);
		return BS_ERR_NOMEM;
	}
	job.parts[0] = {data, n, false};
	while (nparts < maxparts)
	{
		size_t		p = vq_part_to_split(job.parts, nparts, n, threads);
		VqPart<T>	low;
		VqPart<T>	high;

		if (p == nparts)
			break;
		/* vq_split checks for interrupts before each batch of its stripes */
		if (!vq_split(split, job.parts[p], threads, hooks, &low, &high))
		{
			job.parts[p].whole = true;
			continue;
		}
		job.parts[p] = low;
		job.parts[nparts++] = high;
	}

	/* largest first, so no thread is left with a big part at the end */
	std::sort(job.parts, job.parts + nparts,
			  [](const VqPart<T> &a, const VqPart<T> &b) { return a.len > b.len; });
	bs_parallel_for_checked(threads, nparts, 1, (size_t) threads, vq_sort_parts<T>, &job, hooks);
	bs_core_free(hooks, split);
	bs_core_free(hooks, job.parts);
	return job.failed ? BS_ERR_NOMEM : BS_OK;
}

/* vqsort of plain 64-bit keys. */
extern "C" bs_status
bs_cpu_vqsort_keys64(uint64_t *keys, size_t n, const bs_options *opt)
{
	if (n > BS_MAX_PAIRS)
		return BS_ERR_TOO_MANY;
	return vq_sort<uint64_t>(keys, n, opt);
}

/* vqsort of packed 32-bit-key pairs: each one 64-bit integer in (key, ptr) order. */
extern "C" bs_status
bs_cpu_vqsort_pairs32(bs_pair32 *pairs, size_t n, const bs_options *opt)
{
	return bs_cpu_vqsort_keys64(pairs, n, opt);
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
