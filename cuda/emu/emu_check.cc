/*
 * emu_check.cc — the checks on every load and store of instrumented code.
 *
 * Code compiled with g++ -fsanitize=thread (and --param
 * tsan-instrument-func-entry-exit=0) calls __tsan_readN / __tsan_writeN
 * with the address before each access; the Linux kernel's KCSAN uses that
 * compiler interface with a runtime of its own, and this file is ours (the
 * program is linked without libtsan).  Outside a kernel's threads the hooks
 * return at once.  Inside, an access
 *   - to the thread's own stack or to its coordinates is not checked;
 *   - inside a shared array is race-checked (below);
 *   - inside the data of a device or pinned allocation is fine;
 *   - anywhere else (a red zone, a guard page, another thread's stack, host
 *     memory) is out of bounds: reported, and the launch abandoned before
 *     the access happens, as a GPU raises an illegal address.
 * Then, with a seeded schedule, the thread is switched out at random (every
 * BS_EMU_SWITCH accesses on average), so that threads interleave inside a
 * barrier interval and not only between barriers.
 *
 * Race check: every granule of a shared array (an element, or the largest
 * power of two up to 16 bytes that divides its size) remembers its last
 * writer and up to two readers in the current barrier interval (intervals
 * are numbered across blocks and launches, so nothing is cleared until the
 * 32-bit number wraps).  A
 * read of a granule another thread wrote, or a write of one another thread
 * read or wrote, in the same interval is a hazard no schedule makes safe.
 * The kernels have no warp-synchronous code (every exchange of data through
 * shared memory has a __syncthreads() between), so the check needs no notion
 * of warps.
 */
#include "emu_internal.h"

#include <atomic>
#include <set>

/*
 * The thread-locals every file and every kernel reads are defined here, in a
 * file with no thread-local that needs a constructor: then reading one calls
 * no initialisation function (it would, defined beside the scheduler's).
 */
thread_local bs_emu_coords bs_emu_at;

namespace bs_emu
{

thread_local Running running;
thread_local Launch launch;

namespace
{

uint32_t	epochs;				/* barrier intervals so far */
uint32_t	traffic_launch;		/* launches so far, the sectors' mark (0: never touched) */
std::atomic<unsigned long long> traffic_read,
			traffic_written;
/* racing pairs of code addresses already reported in this launch */
std::set<std::pair<const void *, const void *>> reported;

/* Report a race once per pair of accesses and launch; the launch will fail. */
void
race(const Region &r, uintptr_t a, const char *hazard, unsigned other, const void *other_pc,
	 const char *other_did, const void *pc, bool write)
{
	launch.failed = true;
	launch.error = cudaErrorLaunchFailure;
	if (!reported.insert(std::make_pair(pc, other_pc)).second)
		return;
	report(BS_EMU_RACE, "race (%s) on %s at byte offset %td: thread %s %s at %s; thread %s %s at %s, "
		   "with no barrier between", hazard, r.name.c_str(), (ptrdiff_t) (a - r.data_lo),
		   thread_name(running.tid).c_str(), write ? "writes" : "reads", where(pc).c_str(),
		   thread_name(other).c_str(), other_did, where(other_pc).c_str());
}

/* Check one granule's history against this access, then record the access. */
void
granule_access(const Region &r, Shadow &g, uintptr_t a, bool write, const void *pc)
{
	uint32_t	e = running.epoch;
	uint16_t	t = (uint16_t) running.tid;

	if (g.wepoch == e && g.wtid != t)
		race(r, a, write ? "write after write" : "read after write", g.wtid, g.wpc, "wrote", pc, write);
	else if (write && g.repoch == e && g.rtid != t)
		race(r, a, "write after read", g.rtid, g.rpc, "read", pc, write);
	else if (write && g.repoch == e && g.rother)
		race(r, a, "write after read", g.rtid2, g.rpc2, "read", pc, write);
	if (write)
	{
		g.wepoch = e;
		g.wtid = t;
		g.wpc = pc;
	}
	else if (g.repoch != e)
	{
		g.repoch = e;
		g.rtid = t;
		g.rpc = pc;
		g.rother = false;
	}
	else if (g.rtid != t && !g.rother)
	{
		g.rother = true;
		g.rtid2 = t;
		g.rpc2 = pc;
	}
}

/* Count the sectors of a device allocation this access touches first in this launch. */
void
count_traffic(Region &r, uintptr_t a, unsigned size, bool write)
{
	std::vector<uint32_t> &mark = write ? r.sector_written : r.sector_read;
	size_t		first = (a - r.data_lo) / BS_EMU_SECTOR_BYTES;
	size_t		last = (a + size - 1 - r.data_lo) / BS_EMU_SECTOR_BYTES;
	unsigned long long added = 0;

	if (mark.empty())
		mark.resize((r.data_hi - r.data_lo + BS_EMU_SECTOR_BYTES - 1) / BS_EMU_SECTOR_BYTES);
	for (size_t s = first; s <= last; s++)
		if (mark[s] != traffic_launch)
		{
			mark[s] = traffic_launch;
			added += BS_EMU_SECTOR_BYTES;
		}
	if (added > 0)
		(write ? traffic_written : traffic_read) += added;
}

/* Where an access lies relative to a region's data, for a report. */
std::string
relative(uintptr_t a, const Region &r)
{
	if (a >= r.data_hi)
		return std::to_string(a - r.data_hi) + " bytes past the end of " + r.name;
	if (a < r.data_lo)
		return std::to_string(r.data_lo - a) + " bytes before the start of " + r.name;
	return "across the end of " + r.name;
}

/* Report an access outside every region's data and abandon the launch. */
[[noreturn]] void
out_of_bounds(uintptr_t a, unsigned size, bool write, const void *pc, const Region *r)
{
	std::string what = r == nullptr ? "which is no device memory, shared array or stack of this thread" :
		relative(a, *r);

	report(BS_EMU_OUT_OF_BOUNDS, "out of bounds: thread %s %s %u bytes at %p, %s, at %s",
		   thread_name(running.tid).c_str(), write ? "writes" : "reads", size, (void *) a,
		   what.c_str(), where(pc).c_str());
	abandon_launch(cudaErrorIllegalAddress);
}

/* The check of one access of size bytes at p by the code at pc. */
inline void
check(const void *p, unsigned size, bool write, const void *pc)
{
	uintptr_t	a = (uintptr_t) p;
	Region	   *r;

	if (!running.active)
		return;
	if (a - running.stack_lo < running.stack_hi - running.stack_lo ||
		a - (uintptr_t) &bs_emu_at < sizeof(bs_emu_at))
		return;
	r = region_last;
	if (r == nullptr || a - r->lo >= r->hi - r->lo)
		r = region_find(a);
	if (r == nullptr || a < r->data_lo || a + size > r->data_hi)
		out_of_bounds(a, size, write, pc, r);
	if (r->kind == Region::DEVICE)
		count_traffic(*r, a, size, write);
	if (r->kind == Region::SHARED)
		for (uintptr_t g = (a - r->data_lo) >> r->granule_shift; g <= (a + size - 1 - r->data_lo) >> r->granule_shift; g++)
			granule_access(*r, r->shadow[g], a, write, pc);
	if (running.switch_mean > 0 && --running.countdown <= 0)
	{
		running.countdown = 1 + (long) (draw() % (uint64_t) (2 * running.switch_mean));
		switch_thread();
	}
}

}								/* namespace */

/* A new barrier interval (a block starts, or its threads pass a barrier); at the wrap, history is forgotten. */
void
next_epoch(void)
{
	if (++epochs == 0)
	{
		shadows_clear();
		epochs = 1;
	}
	running.epoch = epochs;
}

/* A launch starts: each pair of racing accesses is reported once per launch. */
void
check_launch_begin(void)
{
	reported.clear();
	/* a new mark for the sectors (at the wrap, old marks could match: start over) */
	if (++traffic_launch == 0)
	{
		regions_forget_traffic();
		traffic_launch = 1;
	}
}

}								/* namespace bs_emu */

using bs_emu::check;

/* Global-memory traffic of the instrumented launches so far. */
bs_emu_traffic
bs_emu_traffic_total(void)
{
	bs_emu_traffic t;

	t.read_bytes = bs_emu::traffic_read;
	t.written_bytes = bs_emu::traffic_written;
	return t;
}

/* The compiler's hooks, one pair per access size (the unaligned ones check the same way). */
#define BS_EMU_HOOKS(N) \
	extern "C" void __tsan_read##N(void *p) { check(p, N, false, __builtin_return_address(0)); } \
	extern "C" void __tsan_write##N(void *p) { check(p, N, true, __builtin_return_address(0)); } \
	extern "C" void __tsan_unaligned_read##N(void *p) { check(p, N, false, __builtin_return_address(0)); } \
	extern "C" void __tsan_unaligned_write##N(void *p) { check(p, N, true, __builtin_return_address(0)); }

BS_EMU_HOOKS(1)
BS_EMU_HOOKS(2)
BS_EMU_HOOKS(4)
BS_EMU_HOOKS(8)
BS_EMU_HOOKS(16)

/* Accesses of any size (copies the compiler could not split). */
extern "C" void
__tsan_read_range(void *p, unsigned long size)
{
	check(p, (unsigned) size, false, __builtin_return_address(0));
}

/* Writes of any size. */
extern "C" void
__tsan_write_range(void *p, unsigned long size)
{
	check(p, (unsigned) size, true, __builtin_return_address(0));
}

/* Each instrumented file's constructor calls this: nothing to set up. */
extern "C" void
__tsan_init(void)
{
}

/* Function entry and exit are not instrumented (see mk/unit.mk); kept for a build that does. */
extern "C" void
__tsan_func_entry(void *pc)
{
	(void) pc;
}

/* See __tsan_func_entry. */
extern "C" void
__tsan_func_exit(void)
{
}
