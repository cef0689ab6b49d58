/*
 * malloc_keep.h — have malloc keep the memory a sort frees and takes again.
 *
 * An external sort fills work_mem with rows and pairs, writes them out as
 * a run and frees them, hundreds of times.  Its buffers under 2 MB come
 * from malloc's heap, and glibc gives the heap's free top back to the
 * kernel once it passes its trim threshold (128 kB at first): every run
 * then faulted its memory in afresh, 136K page faults in a backend's first
 * sort of 10M rows at 4 MB (4.15 s against 2.07 s on a VM whose fresh
 * pages cost 10 us).  glibc raises the threshold to twice a chunk it mapped
 * itself when that chunk is freed (for chunks up to 32 MB): bs_malloc_keep_freed
 * maps and frees one such chunk, never touched, so that the adjustment
 * glibc would make after the session's first sort is made before it; and
 * bs_malloc_release_freed hands what is kept back when the sort ends, so
 * that the runs' memory does not outlive the sort.
 */
#ifndef BS_MALLOC_KEEP_H
#define BS_MALLOC_KEEP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Have malloc keep up to about 2 * bytes of freed memory in its heap
 * (bytes capped at glibc's limit, 32 MB less two pages); nothing where the
 * C library is not glibc.
 */
extern void bs_malloc_keep_freed(size_t bytes);

/*
 * Give the free memory malloc keeps back to the kernel, now that the sort
 * that freed it is over (the thresholds stay raised for the session's next
 * sort); nothing where the C library is not glibc.
 */
extern void bs_malloc_release_freed(void);

#ifdef __cplusplus
}
#endif

#endif							/* BS_MALLOC_KEEP_H */
