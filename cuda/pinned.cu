/*
 * pinned.cu — the process's persistent page-locked buffer.  Pairs built
 * there are copied to the device and back as they are: a sort of pairs
 * anywhere else registers them with the driver first (cudaHostRegister
 * pins every page, at each sort: 13.6 ms for 256 MiB on an H100).  One
 * buffer, lent to one sort at a time, never larger than the limit; made on
 * first use, replaced by a larger one when a sort needs more, freed when
 * the limit falls below its size.
 */
#include "cuda_internal.cuh"

/* Sizes are rounded up to this (the driver pins whole pages anyway). */
#define PINNED_GRAIN ((size_t) 2 << 20)

static void *buffer;
static size_t buffer_bytes;
static bool lent;
static size_t limit;

/* Free the buffer (a failure is not a sort's: its error is cleared). */
static void
free_buffer(void)
{
	if (buffer != nullptr && cudaFreeHost(buffer) != cudaSuccess)
		(void) cudaGetLastError();
	buffer = nullptr;
	buffer_bytes = 0;
}

/* At most `bytes` of page-locked memory kept (0: none); a larger buffer not lent now is freed. */
void
bs_cuda_set_pinned_limit(size_t bytes)
{
	limit = bytes;
	if (!lent && buffer_bytes > limit)
		free_buffer();
}

/* The buffer, of at least `bytes`, lent until bs_cuda_pinned_return; NULL where it cannot be. */
void *
bs_cuda_pinned_lend(size_t bytes)
{
	if (lent || bytes == 0 || bytes > limit)
		return nullptr;
	if (buffer_bytes < bytes)
	{
		size_t		size = (bytes + PINNED_GRAIN - 1) / PINNED_GRAIN * PINNED_GRAIN;
		void	   *p;

		free_buffer();
		if (!bs_cuda_select_device())
			return nullptr;
		size = size < limit ? size : limit;
		if (cudaMallocHost(&p, size) != cudaSuccess)
		{
			(void) cudaGetLastError();	/* the caller builds its pairs elsewhere */
			return nullptr;
		}
		buffer = p;
		buffer_bytes = size;
	}
	lent = true;
	return buffer;
}

/* Take the buffer back from the sort it was lent to. */
void
bs_cuda_pinned_return(void *p)
{
	if (!lent || p != buffer)
		return;
	lent = false;
	if (buffer_bytes > limit)
		free_buffer();
}

/* Bytes of page-locked memory held now. */
size_t
bs_cuda_pinned_bytes(void)
{
	return buffer_bytes;
}

/* Whether the buffer is lent now (bitonic_sort_info() says so: between sorts it is not). */
bool
bs_cuda_pinned_is_lent(void)
{
	return lent;
}

/* Whether [p, p + bytes) lies in the lent buffer: copied as it is, not registered. */
bool
bs_cuda_pinned_holds(const void *p, size_t bytes)
{
	const char *lo = (const char *) buffer;
	const char *q = (const char *) p;

	return lent && q >= lo && bytes <= buffer_bytes && (size_t) (q - lo) <= buffer_bytes - bytes;
}
