/*
 * page_probe.h — what a fresh 4 kB page costs this process: the kernel's
 * fault and zeroing, and on a VM that keeps shadow page tables the
 * hypervisor's second fault on the first access.
 */
#ifndef BS_PAGE_PROBE_H
#define BS_PAGE_PROBE_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Microseconds one 4 kB page of fresh anonymous memory takes to fault in
 * on its first write, the best of three rounds over 2 MB (11-16 us a page
 * on a VM that keeps shadow page tables, the probe about 17 ms there;
 * 1-2 us elsewhere); negative where it cannot be measured (no memory).
 */
extern double bs_small_page_fault_us(void);

#ifdef __cplusplus
}
#endif

#endif							/* BS_PAGE_PROBE_H */
