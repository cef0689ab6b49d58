/*
 * large_alloc.c — the large buffers of a sort (tuple blocks, key/pointer
 * pairs): memory of a context, or, under bitonic_sort.huge_pages, 2 MB pages
 * from the kernel's huge page pool (vm.nr_hugepages) while it has room.
 *
 * Outside the pool, a buffer asks for transparent huge pages or not, as
 * bitonic_sort.transparent_huge_pages says.  A 2 MB page is one TLB entry
 * and one fault, but it needs a free 2 MB block of the kernel's, and on a
 * VM whose balloon hands free 2 MB blocks back to the host only the blocks
 * freed in the last seconds are still backed: a reported one costs 512
 * host faults (2.3-3.6 s per GB against 0.08 s, make bench-first-touch),
 * while 4 kB pages are taken from smaller free pieces, which stay backed
 * (0.44-0.61 s per GB).  So, "mixed", huge pages are asked for where they
 * pay (BitonicPages): rows that emit reads in random order (rows placed by
 * key range, read a range at a time, ask for none: scan/place.c), and
 * gpu_sort's buffers (a few hundred MB, which the backed blocks usually
 * cover).  The pairs, key columns and order of an ORDER BY, read in order
 * and allocated after its rows have taken the backed blocks, ask for none
 * (4 kB pages where transparent huge pages are "madvise", the kernel's
 * choice where they are "always").
 *
 * A VM that keeps shadow page tables turns this around: every 4 kB page
 * faults twice, in the kernel and in the hypervisor, 11-16 us a page
 * (2.9-4.0 s per GB) in every situation, and a 2 MB page costs less even
 * where the host must back it again (1.3-1.8 s per GB).  "auto" measures a
 * fresh 4 kB page once (core/page_probe.h: in the postmaster where the
 * module is preloaded, so every backend inherits the figure; elsewhere at
 * the backend's first buffer of 2 MB or more outside the pool, not when the
 * module is loaded, which every parallel worker does) and asks
 * for huge pages for every buffer where it costs SLOW_SMALL_PAGE_US or
 * more, as "always" does; elsewhere it is "mixed".
 *
 * A pool mapping is populated as soon as it is made, so that a page the
 * kernel refuses (a container's hugetlb limit) sends the buffer to ordinary
 * memory instead of raising SIGBUS where the sort first writes it.
 *
 * Pool pages go back to the pool when freed, not to the kernel's free
 * lists, so they stay backed: on a VM whose balloon hands freed memory back
 * to the host, ordinary fresh memory costs a host fault per page on every
 * sort, pool pages only on their first use.
 *
 * A buffer of 2 MB or more is a mapping of its own (pool pages or ordinary
 * ones) that belongs to a memory context like any allocation: its reset or
 * deletion unmaps it.  Ordinary pages are unmapped on the unmapper's thread
 * (core/unmapper.h): the kernel takes 30-40 ms to free the 1.1 GB of 4 kB
 * pages of a 10M-row sort on the test VM, which the query's end no longer
 * waits for.  Such mappings are
 * outside the memory contexts' statistics, as the pool's always were; the
 * node counts them itself (EXPLAIN's Peak Memory, work_mem).
 *
 * Ordinary mappings are kept instead, up to bitonic_sort.keep_memory bytes
 * (by default work_mem's), and the backend's next sort takes its large
 * buffers from them (best fit by size) before it maps fresh pages: the same
 * query run again then faults nothing in.  Kept memory is memory the kernel
 * may reclaim (MADV_FREE): it counts in MemAvailable, and memory pressure
 * takes it without swapping; a parallel worker keeps nothing, as it ends
 * with its query.  What no sort takes goes back to the kernel after
 * bitonic_sort.keep_memory_idle (core/unmapper.h).  Kept memory still
 * goes through the prefault thread: on a VM that keeps shadow page tables,
 * a page untouched while another query ran (a native Sort, 8 s) faults
 * again on its first access, and the thread's read of each page takes that
 * off the sort (10M int8 right after a native Sort, medians of three:
 * 785 ms against 932 ms without it; 745 against 701 ms back to back).
 */
#include "bitonic_sort.h"

#include "core/page_probe.h"
#include "core/parallel.h"
#include "core/prefault.h"
#include "core/unmapper.h"

#include <sys/mman.h>
#include <unistd.h>

#include "access/parallel.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
/* mmap flags for 2 MB pages from the pool, whatever its default page size */
#define POOL_MAP_FLAGS (MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (21 << MAP_HUGE_SHIFT))

/* 2 MB pages a thread faults in at a time (32 MB) */
#define POPULATE_GRAIN_PAGES 16

/* Bytes of pool pages the backend has mapped now, and the most since the last reset. */
static size_t pool_bytes;
static size_t pool_peak;

/* Bytes of kept memory the backend's sorts have taken back. */
static size_t kept_reused;

/*
 * A fresh 4 kB page costing this many microseconds or more makes "auto"
 * ask for transparent huge pages for every buffer: 1.3 s per GB, under
 * what a 2 MB page that the host must back again costs on a VM that keeps
 * shadow page tables (1.3-1.8 s per GB, against 2.9-4.0 s for its 4 kB
 * pages), about twice what a 4 kB page costs on a VM that does not
 * (0.44-0.61 s per GB, make bench-first-touch).
 */
#define SLOW_SMALL_PAGE_US 5.0

/* The probe's cost of a fresh 4 kB page (us; negative: unmeasurable), once measured. */
static double small_page_us;
static bool small_page_measured;

/* Ask for transparent huge pages over the 2 MB-aligned interior of a large allocation. */
static void
advise_huge_pages(void *ptr, size_t size)
{
#ifdef MADV_HUGEPAGE
	char	   *start = (char *) TYPEALIGN(HUGE_PAGE_BYTES, ptr);
	char	   *end = (char *) TYPEALIGN_DOWN(HUGE_PAGE_BYTES, (char *) ptr + size);

	if (end > start)
		(void) madvise(start, end - start, MADV_HUGEPAGE);	/* advice only */
#endif
}

/* Microseconds a fresh 4 kB page costs this process, measured once (negative: unmeasurable). */
double
BitonicSmallPageFaultUs(void)
{
	if (!small_page_measured)
	{
		small_page_us = bs_small_page_fault_us();
		small_page_measured = true;
	}
	return small_page_us;
}

/* bitonic_sort.transparent_huge_pages as it applies here: "auto" resolved by the probe. */
BitonicHugePageAdvice
BitonicHugePageAdviceInEffect(void)
{
	BitonicHugePageAdvice advice = (BitonicHugePageAdvice) bitonic_sort_transparent_huge_pages;

	if (advice != BITONIC_THP_AUTO)
		return advice;
	return BitonicSmallPageFaultUs() >= SLOW_SMALL_PAGE_US ? BITONIC_THP_ALWAYS : BITONIC_THP_MIXED;
}

/*
 * Whether a buffer of size bytes and the given kind asks for transparent
 * huge pages (one under 2 MB holds none: no probe for it).
 */
static bool
wants_huge_pages(size_t size, BitonicPages pages)
{
	if (size < HUGE_PAGE_BYTES)
		return false;
	switch (BitonicHugePageAdviceInEffect())
	{
		case BITONIC_THP_ALWAYS:
			return true;
		case BITONIC_THP_MIXED:
			return pages == BITONIC_PAGES_HUGE;
		case BITONIC_THP_NEVER:
		case BITONIC_THP_AUTO:	/* resolved above */
			break;
	}
	return false;
}

/* A huge allocation in cxt, advised as transparent huge pages unless the setting is "never". */
void *
BitonicAllocLarge(MemoryContext cxt, size_t size)
{
	void	   *ptr = MemoryContextAllocHuge(cxt, size);

	if (wants_huge_pages(size, BITONIC_PAGES_HUGE))
		advise_huge_pages(ptr, size);
	return ptr;
}

/* Bytes a value of bitonic_sort.keep_memory (kB) allows: work_mem's where it is -1. */
size_t
BitonicKeepMemoryBytes(int setting_kb)
{
	return (size_t) (setting_kb < 0 ? work_mem : setting_kb) * 1024;
}

/*
 * Bytes of large buffers the backend keeps for its next sort: what
 * bitonic_sort.keep_memory allows; none in a parallel worker, whose process
 * ends with the query.
 */
size_t
BitonicKeepMemoryCap(void)
{
	return IsParallelWorker() ? 0 : BitonicKeepMemoryBytes(bitonic_sort_keep_memory);
}

/* What is kept for the next sort past cap bytes goes back to the kernel at once. */
void
BitonicKeptMemoryTrim(size_t cap)
{
	if (bs_unmap_kept() > cap)
		bs_unmap_release_kept();
}

/*
 * Give a region's mapping back (once): pool pages at once, so that the
 * next sort finds them free in the pool; ordinary pages kept for the next
 * sort where they fit BitonicKeepMemoryCap, else unmapped on the
 * unmapper's thread, so that the sort ends without waiting for the kernel.
 */
static void
unmap_region(BitonicRegion *region)
{
	if (region->map == NULL)
		return;
	if (region->pool)
	{
		(void) munmap(region->map, region->map_bytes);
		pool_bytes -= Min(pool_bytes, region->map_bytes);
	}
	else
	{
		size_t		cap = BitonicKeepMemoryCap();

		if (cap == 0 || !bs_unmap_keep(region->map, region->map_bytes, region->huge, cap,
									   (unsigned) bitonic_sort_keep_memory_idle))
			bs_unmap_later(region->map, region->map_bytes);
	}
	region->map = NULL;
}

/* Reset callback of a mapped region's context. */
static void
unmap_on_reset(void *arg)
{
	unmap_region((BitonicRegion *) arg);
}

/* Have the region's mapping unmapped when cxt is reset or deleted. */
static void
unmap_with(MemoryContext cxt, BitonicRegion *region)
{
	region->unmap.func = unmap_on_reset;
	region->unmap.arg = region;
	MemoryContextRegisterResetCallback(cxt, &region->unmap);
}

/* A fresh pool mapping being faulted in, a slice of 2 MB pages per task. */
typedef struct PoolPopulate
{
	char	   *pages;
	_Atomic bool refused;		/* a page was refused (or the kernel cannot populate) */
} PoolPopulate;

/* Fault pages [begin, end) of a pool mapping in (a bs_parallel_for task). */
static void
populate_pool_slice(void *arg, size_t begin, size_t end)
{
	PoolPopulate *populate = (PoolPopulate *) arg;

#ifdef MADV_POPULATE_WRITE
	if (madvise(populate->pages + begin * HUGE_PAGE_BYTES, (end - begin) * HUGE_PAGE_BYTES,
				MADV_POPULATE_WRITE) == 0)
		return;
#endif
	populate->refused = true;
}

/*
 * Fault every page of a fresh pool mapping in now.  The mmap reserved the
 * pages, but a hugetlb cgroup limit (a container's), a cpuset or a memory
 * policy can still refuse one at its first touch, and a refused touch is a
 * SIGBUS; populating turns that into an error return.  The kernel zeroes
 * each page as it faults it in (about 0.2 s per GB on one core here), and
 * the sort waits for it, so the pages are faulted in on the sort's threads
 * (bitonic_sort.cpu_threads) at once.  False when a page was refused, or
 * when the kernel cannot populate (before Linux 5.14).
 */
static bool
populate_pool_pages(void *pages, size_t bytes)
{
	PoolPopulate populate = {.pages = pages, .refused = false};

	bs_parallel_for(bitonic_sort_cpu_threads, 0, bytes / HUGE_PAGE_BYTES, POPULATE_GRAIN_PAGES,
					populate_pool_slice, &populate);
	return !populate.refused;
}

/* Pool pages for size bytes, registered with cxt; false when the pool has no room. */
static bool
map_pool_pages(MemoryContext cxt, size_t size, BitonicRegion *region)
{
	size_t		bytes = TYPEALIGN(HUGE_PAGE_BYTES, size);
	void	   *pages = mmap(NULL, bytes, PROT_READ | PROT_WRITE, POOL_MAP_FLAGS, -1, 0);

	if (pages == MAP_FAILED)
		return false;			/* ENOMEM: no free pool pages; EINVAL: no 2 MB pool */
	if (!populate_pool_pages(pages, bytes))
	{
		(void) munmap(pages, bytes);
		return false;
	}
	region->map = pages;
	region->map_bytes = bytes;
	region->pool = true;
	unmap_with(cxt, region);
	pool_bytes += bytes;
	pool_peak = Max(pool_peak, pool_bytes);
	return true;
}

/*
 * An anonymous mapping of ordinary pages for size bytes (2 MB or more)
 * aligned to align, registered with cxt, taken from the memory kept for
 * reuse where it holds them (kept with the same advice, region->huge);
 * ERROR when the kernel has no room.  The
 * previous sort's mappings are unmapped first where the unmapper is still
 * at them, so that two sorts' memory is never held at once (but for what
 * bitonic_sort.keep_memory keeps and this sort does not take).
 */
static void
map_ordinary_pages(MemoryContext cxt, size_t size, size_t align, BitonicRegion *region)
{
	size_t		page = (size_t) getpagesize();
	size_t		bytes = TYPEALIGN(page, size);
	size_t		extra = align > page ? align : 0;
	size_t		keep_cap = BitonicKeepMemoryCap();
	char	   *raw;
	char	   *start;

	if (!AllocHugeSizeIsValid(size))
		elog(ERROR, "invalid memory alloc request size %zu", size);
	/* the unmapper's thread may outlive the sort: the exit must wait for it */
	BitonicThreadBudgetEnter();
	/* work_mem lowered since (keep_memory -1): what is kept past the cap goes */
	BitonicKeptMemoryTrim(keep_cap);
	/* kept memory of the same advice, so that each buffer has the pages it asked for */
	start = keep_cap > 0 ? bs_unmap_take(bytes, Max(align, page), region->huge) : NULL;
	if (start != NULL)
	{
		kept_reused += bytes;
		region->map = start;
		region->map_bytes = bytes;
		region->pool = false;
		unmap_with(cxt, region);
		return;
	}
	bs_unmap_drain();
	raw = mmap(NULL, bytes + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed on request of size %zu in memory context \"%s\".",
						   size, cxt->name)));
	/* the unaligned head and the tail past the aligned pages go back at once */
	start = (char *) TYPEALIGN(align, raw);
	if (start > raw)
		(void) munmap(raw, start - raw);
	if (raw + bytes + extra > start + bytes)
		(void) munmap(start + bytes, raw + bytes + extra - (start + bytes));
	region->map = start;
	region->map_bytes = bytes;
	region->pool = false;
	unmap_with(cxt, region);
}

/*
 * size bytes aligned to align (a power of two up to 2 MB) that live as long
 * as cxt or until BitonicRegionFree(*region): pool pages where
 * bitonic_sort.huge_pages allows and the pool has room, else ordinary pages
 * of the given kind (a mapping of their own from 2 MB on, memory of cxt
 * below).
 */
void *
BitonicRegionAlloc(MemoryContext cxt, size_t size, size_t align, BitonicPages pages,
				   BitonicRegion **region)
{
	BitonicRegion *r = MemoryContextAllocZero(cxt, sizeof(BitonicRegion));
	char	   *ptr;

	Assert(align > 0 && align <= HUGE_PAGE_BYTES && (align & (align - 1)) == 0);
	*region = r;
	if (bitonic_sort_huge_pages && size >= HUGE_PAGE_BYTES && map_pool_pages(cxt, size, r))
		return r->map;
	r->huge = wants_huge_pages(size, pages);
	if (size >= HUGE_PAGE_BYTES)
	{
		/* 2 MB aligned where huge pages are asked for, so that the first 2 MB are one */
		map_ordinary_pages(cxt, size, r->huge ? HUGE_PAGE_BYTES : align, r);
		ptr = r->map;
	}
	else
	{
		/* the unaligned head and tail are never touched, so never resident */
		r->raw = MemoryContextAllocHuge(cxt, size + align);
		ptr = (char *) TYPEALIGN(align, r->raw);
	}
	if (r->huge)
		advise_huge_pages(ptr, size);
	return ptr;
}

/* Free a region now (its record stays in the context until it is reset). */
void
BitonicRegionFree(BitonicRegion *region)
{
	if (region->raw != NULL)
	{
		pfree(region->raw);
		region->raw = NULL;
	}
	unmap_region(region);
}

/*
 * Free a region once the prefaulter (NULL for none), which may have it
 * queued, no longer faults in any of it: the thread reads the pages it
 * populates, and a read of an unmapped page is a SIGSEGV.
 */
void
BitonicRegionFreeAfter(BitonicRegion *region, struct bs_prefaulter *prefaulter)
{
	if (prefaulter != NULL && region->raw != NULL)
		bs_prefaulter_forget(prefaulter, region->raw, GetMemoryChunkSpace(region->raw));
	else if (prefaulter != NULL && region->map != NULL)
		bs_prefaulter_forget(prefaulter, region->map, region->map_bytes);
	BitonicRegionFree(region);
}

/*
 * Grow a region that is a mapping of its own (ordinary pages that asked
 * for no huge pages) to size bytes, where the kernel can (mremap): its
 * pages keep their contents where they are, neither copied nor faulted in
 * again, and only the added tail is fresh.  The prefaulter (NULL for none)
 * lets go of the old range first.  The region's address now, or NULL where
 * it is not such a mapping or the kernel could not (the caller copies).
 */
void *
BitonicRegionGrow(BitonicRegion *region, size_t size, struct bs_prefaulter *prefaulter)
{
	size_t		bytes = TYPEALIGN(getpagesize(), size);
	void	   *moved;

	if (region->map == NULL || region->pool || region->huge || bytes <= region->map_bytes)
		return NULL;
	if (prefaulter != NULL)
		bs_prefaulter_forget(prefaulter, region->map, region->map_bytes);
	moved = mremap(region->map, region->map_bytes, bytes, MREMAP_MAYMOVE);
	if (moved == MAP_FAILED)
		return NULL;
	region->map = moved;
	region->map_bytes = bytes;
	return moved;
}

/* Bytes a region holds. */
size_t
BitonicRegionBytes(const BitonicRegion *region)
{
	if (region->raw != NULL)
		return GetMemoryChunkSpace(region->raw);
	return region->map != NULL ? region->map_bytes : 0;
}

/*
 * A huge allocation in cxt for pairs: 16-byte aligned (vqsort loads a
 * 64-bit-key pair with aligned 128-bit loads; a misaligned array costs it a
 * full copy), from the pool or of the given kind of pages.
 */
void *
BitonicAllocPairs(MemoryContext cxt, size_t size, BitonicPages pages, BitonicRegion **region)
{
	return BitonicRegionAlloc(cxt, size, 16, pages, region);
}

/* Start counting the most pool memory afresh, from what is mapped now. */
void
BitonicPoolResetPeak(void)
{
	pool_peak = pool_bytes;
}

/* The most pool memory the backend has had mapped since BitonicPoolResetPeak. */
size_t
BitonicPoolPeak(void)
{
	return pool_peak;
}

/* Bytes of kept memory the backend's sorts have taken back, ever (a running count). */
size_t
BitonicKeptReused(void)
{
	return kept_reused;
}
