/*
 * malloc_keep.c — have malloc keep the memory a sort frees and takes again
 * (see malloc_keep.h).
 */
#include "malloc_keep.h"

#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/*
 * The largest chunk whose free raises glibc's thresholds (its
 * DEFAULT_MMAP_THRESHOLD_MAX, 32 MB on 64-bit), less two pages for the
 * chunk's header and rounding.
 */
#define DYNAMIC_CHUNK_MAX ((size_t) 4 * 1024 * 1024 * sizeof(long) - 8192)

/* Map and free a chunk of bytes, untouched, so that glibc keeps that much freed. */
void
bs_malloc_keep_freed(size_t bytes)
{
#ifdef __GLIBC__
	/* volatile: the compiler drops a malloc whose chunk goes only to free */
	void	   *volatile chunk = malloc(bytes < DYNAMIC_CHUNK_MAX ? bytes : DYNAMIC_CHUNK_MAX);

	free(chunk);
#else
	(void) bytes;
#endif
}

/* Hand the heap's free pages back to the kernel. */
void
bs_malloc_release_freed(void)
{
#ifdef __GLIBC__
	(void) malloc_trim(0);
#endif
}
