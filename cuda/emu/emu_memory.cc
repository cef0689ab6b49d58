/*
 * emu_memory.cc — the emulated device's memory and the regions the checks
 * know.
 *
 * Every device or pinned allocation is a mapping of its own:
 *   [guard page][red zone >= 256 bytes][data, rounded up to 16][guard page]
 * The data ends at the second guard page, so an access just past the end
 * faults even in code that is not instrumented, and starts 16-byte aligned
 * (not 256 as cudaMalloc's: the CPU does not care).  The red zones hold a
 * canary that is checked after every launch and when the memory is freed.
 * Instrumented kernels are checked exactly, access by access, against the
 * regions (emu_check.cc); copies are checked here.
 */
#include "emu_internal.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>

#include <sys/mman.h>
#include <unistd.h>

namespace bs_emu
{

namespace
{

const size_t kRedZone = 256;		/* the least red zone before the data */
const unsigned char kCanary = 0xfd;	/* what a red zone holds */

/* Every region by its lowest address; the device memory in use. */
struct Memory
{
	std::map<uintptr_t, Region> regions;
	size_t		device_bytes = 0;
	size_t		device_peak = 0;
	long		serial = 0;			/* allocations made so far */
	long		live = 0;			/* allocations and host registrations not yet freed */
	std::map<uintptr_t, size_t> registered;	/* host ranges registered, by their start */
};

Memory		mem;

/* The system's page size. */
size_t
page_size(void)
{
	static const size_t page = (size_t) sysconf(_SC_PAGESIZE);

	return page;
}

/* The red zones of an allocation: before the data, and the tail rounding after it. */
void
redzones(const Region &r, uintptr_t *lo, uintptr_t *hi)
{
	*lo = r.lo + page_size();
	*hi = (r.data_hi + 15) & ~(uintptr_t) 15;
}

/* A fenced mapping for size bytes; null when the system has no memory. */
void *
fenced_alloc(size_t size, Region::Kind kind)
{
	size_t		page = page_size();
	size_t		span = (size + 15) & ~(size_t) 15;
	size_t		inner = (span + kRedZone + page - 1) / page * page;
	char	   *m = (char *) mmap(nullptr, inner + 2 * page, PROT_READ | PROT_WRITE,
								  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	Region		r;

	if (m == MAP_FAILED)
		return nullptr;
	fault_handler_install();
	mprotect(m, page, PROT_NONE);
	mprotect(m + page + inner, page, PROT_NONE);
	r.kind = kind;
	r.lo = (uintptr_t) m;
	r.hi = r.lo + inner + 2 * page;
	r.data_lo = r.lo + page + inner - span;
	r.data_hi = r.data_lo + size;
	r.name = (kind == Region::DEVICE ? "device allocation #" : "pinned allocation #") +
		std::to_string(++mem.serial) + " (" + std::to_string(size) + " bytes)";
	memset(m + page, kCanary, inner - span);
	memset((char *) r.data_hi, kCanary, span - size);
	mem.live++;
	region_add(r);
	return (void *) r.data_lo;
}

/* Free the allocation of this kind whose data starts at p, after checking its red zones. */
cudaError_t
fenced_free(void *p, Region::Kind kind)
{
	Region	   *r = region_find((uintptr_t) p);

	if (p == nullptr)
		return cudaSuccess;
	if (r == nullptr || r->kind != kind || r->data_lo != (uintptr_t) p)
		return fail(cudaErrorInvalidValue);
	void	   *m = (void *) r->lo;
	size_t		len = r->hi - r->lo;

	redzones_intact(kind == Region::DEVICE ? "cudaFree" : "cudaFreeHost");
	if (kind == Region::DEVICE)
		mem.device_bytes -= r->data_hi - r->data_lo;
	mem.regions.erase(r->lo);
	region_last = nullptr;
	mem.live--;
	munmap(m, len);
	return cudaSuccess;
}

/* Whether [p, p + size) lies in one allocation's data; device says it must be device memory. */
bool
copy_range_ok(const void *p, size_t size, bool device, const char *side)
{
	uintptr_t	a = (uintptr_t) p;
	Region	   *r = region_find(a);

	if (r == nullptr || r->kind == Region::SHARED)
	{
		if (!device)
			return true;
		report(BS_EMU_OUT_OF_BOUNDS, "cudaMemcpy: the %s %p is not device memory", side, p);
		return false;
	}
	if (a >= r->data_lo && size <= r->data_hi - a)
		return true;
	report(BS_EMU_OUT_OF_BOUNDS, "cudaMemcpy: the %s's %zu bytes at offset %td of %s run outside it",
		   side, size, (ptrdiff_t) (a - r->data_lo), r->name.c_str());
	return false;
}

}								/* namespace */

Region	   *region_last;

/* The region whose fence holds addr, or null. */
Region *
region_find(uintptr_t addr)
{
	Region	   *r = region_last;

	if (r != nullptr && addr - r->lo < r->hi - r->lo)
		return r;
	auto		it = mem.regions.upper_bound(addr);

	if (it == mem.regions.begin())
		return nullptr;
	--it;
	if (addr - it->second.lo >= it->second.hi - it->second.lo)
		return nullptr;
	return region_last = &it->second;
}

/* Forget every shared array's access history (the interval numbers wrapped). */
void
shadows_clear(void)
{
	for (auto &kv : mem.regions)
		std::fill(kv.second.shadow.begin(), kv.second.shadow.end(), Shadow());
}

/* Forget every allocation's traffic marks (the launch numbers wrapped). */
void
regions_forget_traffic(void)
{
	for (auto &kv : mem.regions)
	{
		std::fill(kv.second.sector_read.begin(), kv.second.sector_read.end(), 0);
		std::fill(kv.second.sector_written.begin(), kv.second.sector_written.end(), 0);
	}
}

/* Add a region (shared arrays; allocations add their own). */
void
region_add(Region r)
{
	uintptr_t	lo = r.lo;

	if (r.kind == Region::SHARED)
		r.shadow.resize(((r.data_hi - r.data_lo) >> r.granule_shift) + 1);
	mem.regions.emplace(lo, std::move(r));
}

/* The first byte of [lo, hi) that is not the canary, or 0 (compared a block at a time). */
static uintptr_t
overwritten(uintptr_t lo, uintptr_t hi)
{
	static unsigned char canaries[1024];

	if (canaries[0] != kCanary)
		memset(canaries, kCanary, sizeof(canaries));
	for (uintptr_t a = lo; a < hi; a += sizeof(canaries))
	{
		size_t		len = hi - a < sizeof(canaries) ? hi - a : sizeof(canaries);

		if (memcmp((const void *) a, canaries, len) == 0)
			continue;
		while (*(const unsigned char *) a == kCanary)
			a++;
		return a;
	}
	return 0;
}

/* Check the red zones of every allocation; report what was written over. */
bool
redzones_intact(const char *after)
{
	bool		ok = true;

	for (auto &kv : mem.regions)
	{
		const Region &r = kv.second;
		uintptr_t	lo,
					hi,
					bad;

		if (r.kind == Region::SHARED)
			continue;
		redzones(r, &lo, &hi);
		if ((bad = overwritten(lo, r.data_lo)) == 0 && (bad = overwritten(r.data_hi, hi)) == 0)
			continue;
		report(BS_EMU_OUT_OF_BOUNDS, "%s: the red zone of %s was written over at offset %td",
			   after, r.name.c_str(), (ptrdiff_t) (bad - r.data_lo));
		ok = false;
	}
	return ok;
}

/* Allocations not yet freed. */
long
live_allocations(void)
{
	return mem.live;
}

}								/* namespace bs_emu */

using namespace bs_emu;

/* Free and total emulated device memory. */
cudaError_t
cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
	*free_bytes = kDeviceBytes - mem.device_bytes;
	*total_bytes = kDeviceBytes;
	return cudaSuccess;
}

/* Device memory: a fenced mapping that is counted and bounded. */
cudaError_t
cudaMalloc(void **ptr, size_t size)
{
	*ptr = nullptr;
	if (inject(BS_EMU_ALLOC) || size > kDeviceBytes - mem.device_bytes)
		return fail(cudaErrorMemoryAllocation);
	if ((*ptr = fenced_alloc(size, Region::DEVICE)) == nullptr)
		return fail(cudaErrorMemoryAllocation);
	mem.device_bytes += size;
	if (mem.device_bytes > mem.device_peak)
		mem.device_peak = mem.device_bytes;
	return cudaSuccess;
}

/* Free device memory; a pointer cudaMalloc did not return is an error. */
cudaError_t
cudaFree(void *ptr)
{
	return fenced_free(ptr, Region::DEVICE);
}

/* Pinned host memory: a fenced mapping that is counted (kernels may read it, as mapped memory). */
cudaError_t
cudaMallocHost(void **ptr, size_t size)
{
	*ptr = nullptr;
	if (inject(BS_EMU_ALLOC) || (*ptr = fenced_alloc(size, Region::PINNED)) == nullptr)
		return fail(cudaErrorMemoryAllocation);
	return cudaSuccess;
}

/* Free pinned memory; a pointer cudaMallocHost did not return is an error. */
cudaError_t
cudaFreeHost(void *ptr)
{
	return fenced_free(ptr, Region::PINNED);
}

/*
 * Register host memory with the device (page-locking it on a GPU): counted
 * as a live object until unregistered; it must not overlap another
 * registration or an emulated allocation.
 */
cudaError_t
cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	uintptr_t	a = (uintptr_t) ptr;
	auto		next = mem.registered.lower_bound(a);
	auto		region = mem.regions.lower_bound(a);	/* the first allocation at or after ptr */

	(void) flags;
	if (inject(BS_EMU_REGISTER))
		return fail(cudaErrorNotSupported);
	/* an allocation holding ptr, or one starting inside the range */
	if (ptr == nullptr || size == 0 || region_find(a) != nullptr ||
		(region != mem.regions.end() && region->first < a + size))
		return fail(cudaErrorInvalidValue);
	if ((next != mem.registered.end() && next->first < a + size) ||
		(next != mem.registered.begin() && std::prev(next)->first + std::prev(next)->second > a))
		return fail(cudaErrorHostMemoryAlreadyRegistered);
	mem.registered.emplace(a, size);
	mem.live++;
	return cudaSuccess;
}

/* Unregister what cudaHostRegister registered at ptr. */
cudaError_t
cudaHostUnregister(void *ptr)
{
	if (mem.registered.erase((uintptr_t) ptr) == 0)
		return fail(cudaErrorHostMemoryNotRegistered);
	mem.live--;
	return cudaSuccess;
}

/*
 * A copy in any direction is a memmove here, once both sides are checked.
 * An injected failure writes the first half of the destination first, as a
 * copy that breaks off midway would.
 */
cudaError_t
cudaMemcpy(void *dst, const void *src, size_t size, cudaMemcpyKind kind)
{
	bool		failing = inject(BS_EMU_COPY);

	if (size == 0)
		return failing ? fail(cudaErrorLaunchFailure) : cudaSuccess;
	if (!copy_range_ok(dst, size, kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice,
					   "destination") ||
		!copy_range_ok(src, size, kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice,
					   "source"))
		return fail(failing ? cudaErrorLaunchFailure : cudaErrorInvalidValue);
	memmove(dst, src, failing ? size / 2 : size);
	return failing ? fail(cudaErrorLaunchFailure) : cudaSuccess;
}

/* Asynchronous copies complete at once. */
cudaError_t
cudaMemcpyAsync(void *dst, const void *src, size_t size, cudaMemcpyKind kind, cudaStream_t stream)
{
	(void) stream;
	return cudaMemcpy(dst, src, size, kind);
}

/* Bytes of emulated device memory in use now. */
size_t
bs_emu_device_bytes(void)
{
	return mem.device_bytes;
}

/* The most emulated device memory ever in use at once. */
size_t
bs_emu_device_bytes_peak(void)
{
	return mem.device_peak;
}

/* Reset the peak of device bytes to the current use. */
void
bs_emu_reset_peak(void)
{
	mem.device_peak = mem.device_bytes;
}

/* Tell the checks where a shared array and its red zones are; its elements have elem bytes. */
void
bs_emu_shared_register(const void *lo, const void *data, size_t bytes, size_t elem, const void *hi,
					   const char *name, const char *function)
{
	Region		r;

	/* a granule: the largest power of two, up to 16, that divides the element's size */
	while (r.granule_shift < 4 && elem % ((size_t) 2 << r.granule_shift) == 0)
		r.granule_shift++;
	r.kind = Region::SHARED;
	r.lo = (uintptr_t) lo;
	r.hi = (uintptr_t) hi;
	r.data_lo = (uintptr_t) data;
	r.data_hi = r.data_lo + bytes;
	r.name = std::string("shared array ") + name + " of " + function;
	region_add(std::move(r));
}
