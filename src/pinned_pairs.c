/*
 * pinned_pairs.c — the pairs of a sort that goes to the GPU, built in the
 * backend's page-locked buffer (bitonic_sort.gpu_pinned_memory): they are
 * copied to the device and back as they are, where pairs anywhere else are
 * locked page by page at every sort.  The buffer goes back when the memory
 * context it was lent in goes: the sort's end, or an ERROR's clean-up.
 */
#include "bitonic_sort.h"

#ifdef BS_HAVE_CUDA
#include "cuda/bs_cuda.h"

/* Give the buffer back (a memory context's reset callback). */
static void
return_pinned(void *arg)
{
	bs_cuda_pinned_return(arg);
}
#endif

/*
 * Page-locked memory of `bytes` for the pairs of a sort of n pairs (wide:
 * 64-bit) that runs on the GPU, lent until the current memory context is
 * reset or deleted; NULL where the sort runs on the CPU or the buffer
 * cannot be had (lent already, larger than the setting, no device).
 */
void *
BitonicPinnedPairs(size_t bytes, bool wide, size_t n)
{
#ifdef BS_HAVE_CUDA
	bs_backend	backend;
	bs_algorithm algorithm;
	MemoryContextCallback *give_back;
	void	   *pairs;

	BitonicSortChoice((double) n, wide, &backend, &algorithm);
	if (backend != BS_BACKEND_CUDA)
		return NULL;
	/* allocated first: an ERROR here leaves nothing lent */
	give_back = palloc(sizeof(MemoryContextCallback));
	pairs = bs_cuda_pinned_lend(bytes);
	if (pairs == NULL)
	{
		pfree(give_back);
		return NULL;
	}
	give_back->func = return_pinned;
	give_back->arg = pairs;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, give_back);
	return pairs;
#else
	return NULL;
#endif
}
