/*
 * sort_host.cu — the CUDA backend's entry points: the host pipeline around
 * the device sorters.  One stream.  An input that fits the device-memory
 * budget twice over is sorted in place: the caller's pairs are registered
 * with the driver (page-locked; pairs in pinned.cu's lent buffer are so
 * already) and copied straight to the device and back, with a device copy
 * of the input kept to restore them should the copy back fail.  Otherwise
 * (or where the pairs cannot be registered), pinned double-buffered
 * staging with asynchronous copies, inputs larger than the budget sorted
 * in chunks and merged on the host.  Every CUDA call checked,
 * and every device allocation, pinned buffer, registration, stream and event
 * freed on every path.
 */
#include "cuda_internal.cuh"

#include <cstdlib>
#include <cstring>

/* Everything one sort holds on the device and in pinned memory. */
template<typename P>
struct bs_gpu_job
{
	P		   *dev = nullptr;			/* one chunk on the device */
	P		   *keep = nullptr;			/* in place: the input, kept on the device */
	void	   *registered = nullptr;	/* in place: the caller's pairs, registered */
	void	   *scratch = nullptr;		/* the algorithm's device scratch */
	size_t		scratch_bytes = 0;
	P		   *stage[2] = {nullptr, nullptr};	/* pinned staging buffers */
	cudaEvent_t done[2] = {nullptr, nullptr};	/* staging buffer i is free again */
	cudaStream_t stream = nullptr;
	size_t		chunk = 0;				/* pairs per chunk */
	size_t		piece = 0;				/* pairs per staging buffer */
};

/* Host memory through the caller's hooks (a PostgreSQL context) or malloc. */
static void *
host_alloc(size_t size, const bs_options *opt)
{
	if (opt->hooks && opt->hooks->alloc)
		return opt->hooks->alloc(size, opt->hooks->arg);
	return malloc(size);
}

/* Free what host_alloc returned. */
static void
host_free(void *p, const bs_options *opt)
{
	if (opt->hooks && opt->hooks->free)
		opt->hooks->free(p, opt->hooks->arg);
	else
		free(p);
}

/* Release everything the job holds; the first failure is recorded, the rest still freed. */
template<typename P>
static bool
job_release(bs_gpu_job<P> *job)
{
	bool		ok = true;

	for (int i = 0; i < 2; i++)
	{
		if (job->done[i])
			ok &= bs_cuda_check(cudaEventDestroy(job->done[i]), "cudaEventDestroy");
		if (job->stage[i])
			ok &= bs_cuda_check(cudaFreeHost(job->stage[i]), "cudaFreeHost");
	}
	if (job->keep)
		ok &= bs_cuda_check(cudaFree(job->keep), "cudaFree");
	if (job->dev)
		ok &= bs_cuda_check(cudaFree(job->dev), "cudaFree");
	if (job->scratch)
		ok &= bs_cuda_check(cudaFree(job->scratch), "cudaFree");
	if (job->stream)
		ok &= bs_cuda_check(cudaStreamDestroy(job->stream), "cudaStreamDestroy");
	/* last: cudaFree has waited for the device, so no copy still reads the pairs */
	if (job->registered)
		ok &= bs_cuda_check(cudaHostUnregister(job->registered), "cudaHostUnregister");
	return ok;
}

/* Stream, events, device chunk buffer and staging buffers for chunks of job->chunk pairs. */
template<typename P>
static bool
job_acquire(bs_gpu_job<P> *job)
{
	job->piece = BS_CUDA_STAGE_BYTES / sizeof(P);
	if (job->piece > job->chunk)
		job->piece = job->chunk;
	if (!bs_cuda_check(cudaStreamCreateWithFlags(&job->stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags") ||
		!bs_cuda_check(cudaMalloc((void **) &job->dev, job->chunk * sizeof(P)), "cudaMalloc") ||
		(job->scratch_bytes > 0 &&
		 !bs_cuda_check(cudaMalloc(&job->scratch, job->scratch_bytes), "cudaMalloc")))
		return false;
	for (int i = 0; i < 2; i++)
		if (!bs_cuda_check(cudaMallocHost((void **) &job->stage[i], job->piece * sizeof(P)), "cudaMallocHost") ||
			!bs_cuda_check(cudaEventCreateWithFlags(&job->done[i], cudaEventDisableTiming), "cudaEventCreateWithFlags") ||
			!bs_cuda_check(cudaEventRecord(job->done[i], job->stream), "cudaEventRecord"))
			return false;
	return true;
}

/* Host to device through the staging buffers: fill one while the other is copied. */
template<typename P>
static bool
upload(bs_gpu_job<P> *job, const P *src, size_t n)
{
	int			slot = 0;

	for (size_t off = 0; off < n; off += job->piece, slot ^= 1)
	{
		size_t		m = n - off < job->piece ? n - off : job->piece;

		if (!bs_cuda_check(cudaEventSynchronize(job->done[slot]), "cudaEventSynchronize"))
			return false;
		memcpy(job->stage[slot], src + off, m * sizeof(P));
		if (!bs_cuda_check(cudaMemcpyAsync(job->dev + off, job->stage[slot], m * sizeof(P),
										   cudaMemcpyHostToDevice, job->stream), "cudaMemcpyAsync") ||
			!bs_cuda_check(cudaEventRecord(job->done[slot], job->stream), "cudaEventRecord"))
			return false;
	}
	return true;
}

/* Device to host through the staging buffers: drain one while the next is copied. */
template<typename P>
static bool
download(bs_gpu_job<P> *job, P *dst, size_t n)
{
	size_t		prev_off = 0,
				prev_m = 0;
	int			slot = 0;

	for (size_t off = 0;; off += job->piece, slot ^= 1)
	{
		size_t		m = off < n ? (n - off < job->piece ? n - off : job->piece) : 0;

		if (m > 0 &&
			(!bs_cuda_check(cudaMemcpyAsync(job->stage[slot], job->dev + off, m * sizeof(P),
											cudaMemcpyDeviceToHost, job->stream), "cudaMemcpyAsync") ||
			 !bs_cuda_check(cudaEventRecord(job->done[slot], job->stream), "cudaEventRecord")))
			return false;
		if (prev_m > 0)
		{
			if (!bs_cuda_check(cudaEventSynchronize(job->done[slot ^ 1]), "cudaEventSynchronize"))
				return false;
			memcpy(dst + prev_off, job->stage[slot ^ 1], prev_m * sizeof(P));
		}
		prev_off = off;
		prev_m = m;
		if (m == 0)
			break;
	}
	return true;
}

/* Merge sorted runs [lo, mid) and [mid, hi) of src into dst. */
template<typename P>
static void
merge_runs(const P *src, P *dst, size_t lo, size_t mid, size_t hi)
{
	size_t		i = lo,
				j = mid,
				o = lo;

	while (i < mid && j < hi)
		dst[o++] = bs_pair_ops<P>::gt(src[i], src[j]) ? src[j++] : src[i++];
	memcpy(dst + o, src + i, (mid - i) * sizeof(P));
	o += mid - i;
	memcpy(dst + o, src + j, (hi - j) * sizeof(P));
}

/* Merge the sorted chunks of `runs` (each `chunk` pairs) into out; runs is clobbered. */
template<typename P>
static void
merge_chunks(P *runs, P *out, size_t n, size_t chunk)
{
	P		   *src = runs,
			   *dst = out;

	for (size_t width = chunk; width < n; width *= 2)
	{
		for (size_t lo = 0; lo < n; lo += 2 * width)
		{
			size_t		mid = lo + width < n ? lo + width : n;
			size_t		hi = lo + 2 * width < n ? lo + 2 * width : n;

			merge_runs(src, dst, lo, mid, hi);
		}
		P		   *t = src;

		src = dst;
		dst = t;
	}
	if (src != out)
		memcpy(out, src, n * sizeof(P));
}

/* Sort every chunk of pairs on the device into runs (a host buffer of n pairs). */
template<typename P>
static bool
sort_chunks(bs_gpu_job<P> *job, const P *pairs, P *runs, size_t n, bs_algorithm algo)
{
	for (size_t lo = 0; lo < n; lo += job->chunk)
	{
		size_t		m = n - lo < job->chunk ? n - lo : job->chunk;

		if (!upload(job, pairs + lo, m) ||
			!bs_gpu_sort(job->dev, m, algo, job->scratch, job->stream) ||
			!download(job, runs + lo, m) ||
			!bs_cuda_check(cudaStreamSynchronize(job->stream), "cudaStreamSynchronize"))
			return false;
	}
	return true;
}

/*
 * Sort n pairs where they are: registered (unless they lie in the lent
 * page-locked buffer), copied to the device (and kept there), sorted,
 * copied back.  A failure before the copy back leaves the pairs as they
 * were; a failed copy back is undone from the kept input, and
 * only where that fails too (a lost device) is BS_ERR_DEVICE_LOST returned,
 * the pairs partly overwritten.  BS_ERR_UNSUPPORTED, nothing done, where the
 * driver cannot register the pairs.
 */
template<typename P>
static bs_status
sort_in_place(P *pairs, size_t n, bs_algorithm algo, size_t scratch_bytes)
{
	bs_gpu_job<P> job;
	size_t		bytes = n * sizeof(P);
	bool		ok,
				back;

	if (!bs_cuda_pinned_holds(pairs, bytes))
	{
		if (cudaHostRegister(pairs, bytes, cudaHostRegisterDefault) != cudaSuccess)
		{
			(void) cudaGetLastError();	/* not an error of the sort: it is staged instead */
			return BS_ERR_UNSUPPORTED;
		}
		job.registered = pairs;
	}
	job.scratch_bytes = scratch_bytes;
	ok = bs_cuda_check(cudaStreamCreateWithFlags(&job.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags") &&
		bs_cuda_check(cudaMalloc((void **) &job.dev, bytes), "cudaMalloc") &&
		bs_cuda_check(cudaMalloc((void **) &job.keep, bytes), "cudaMalloc") &&
		(job.scratch_bytes == 0 || bs_cuda_check(cudaMalloc(&job.scratch, job.scratch_bytes), "cudaMalloc")) &&
		bs_cuda_check(cudaMemcpyAsync(job.dev, pairs, bytes, cudaMemcpyHostToDevice, job.stream), "cudaMemcpyAsync") &&
		bs_cuda_check(cudaMemcpyAsync(job.keep, job.dev, bytes, cudaMemcpyDeviceToDevice, job.stream), "cudaMemcpyAsync") &&
		bs_gpu_sort(job.dev, n, algo, job.scratch, job.stream) &&
		bs_cuda_check(cudaStreamSynchronize(job.stream), "cudaStreamSynchronize");
	back = true;
	if (ok &&
		!(bs_cuda_check(cudaMemcpyAsync(pairs, job.dev, bytes, cudaMemcpyDeviceToHost, job.stream), "cudaMemcpyAsync") &&
		  bs_cuda_check(cudaStreamSynchronize(job.stream), "cudaStreamSynchronize")))
	{
		ok = false;
		back = bs_cuda_check(cudaMemcpy(pairs, job.keep, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
	}
	/* a failure may leave copies of the pairs queued: none runs once the caller has them back */
	if (!ok && job.stream)
		(void) bs_cuda_check(cudaStreamSynchronize(job.stream), "cudaStreamSynchronize");
	ok &= job_release(&job);
	if (!back)
		return BS_ERR_DEVICE_LOST;
	return ok ? BS_OK : BS_ERR_DEVICE;
}

/*
 * The whole sort.  The host buffer for the sorted runs is taken before any
 * device resource, so an allocation hook that raises an error (PostgreSQL's)
 * cannot leak GPU memory; the pairs are written only after the GPU is done.
 */
template<typename P>
static bs_status
cuda_sort(P *pairs, size_t n, const bs_options *opt)
{
	bs_gpu_job<P> job;
	size_t		budget,
				scratch;		/* in place: the algorithm's scratch for all n */
	P		   *runs;
	bool		ok;

	bs_cuda_clear_error();
	if (opt->algorithm == BS_ALGO_VQSORT)
		return BS_ERR_UNSUPPORTED;	/* a CPU sorter */
	if (n > BS_MAX_PAIRS)
		return BS_ERR_TOO_MANY;
	if (!bs_cuda_select_device() || !bs_cuda_memory_budget(&budget))
		return BS_ERR_DEVICE;
	if (n < 2)
		return BS_OK;
	scratch = bs_gpu_scratch_bytes<P>(n, opt->algorithm);
	if (2 * n * sizeof(P) + scratch <= budget)
	{
		bs_status	st = sort_in_place(pairs, n, opt->algorithm, scratch);

		if (st != BS_ERR_UNSUPPORTED)
			return st;
	}
	job.chunk = bs_gpu_chunk_pairs<P>(budget, opt->algorithm);
	if (job.chunk < bs_pair_ops<P>::tile)
		job.chunk = bs_pair_ops<P>::tile;
	if (job.chunk > n)
		job.chunk = n;
	job.scratch_bytes = bs_gpu_scratch_bytes<P>(job.chunk, opt->algorithm);
	runs = (P *) host_alloc(n * sizeof(P), opt);
	if (runs == NULL)
		return BS_ERR_NOMEM;
	ok = job_acquire(&job) && sort_chunks(&job, pairs, runs, n, opt->algorithm);
	ok &= job_release(&job);
	if (ok)
		merge_chunks(runs, pairs, n, job.chunk);
	host_free(runs, opt);
	return ok ? BS_OK : BS_ERR_DEVICE;
}

/* Sort packed 32-bit-key pairs on the GPU. */
bs_status
bs_cuda_sort_pairs32(bs_pair32 *pairs, size_t n, const bs_options *opt)
{
	return cuda_sort(pairs, n, opt);
}

/* Sort 64-bit-key pairs on the GPU. */
bs_status
bs_cuda_sort_pairs64(bs_pair64 *pairs, size_t n, const bs_options *opt)
{
	return cuda_sort(pairs, n, opt);
}
