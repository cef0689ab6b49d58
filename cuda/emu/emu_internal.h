/*
 * emu_internal.h — what the emulator's own files share: the regions the
 * checks know (allocations and shared arrays), the running launch, the hot
 * per-thread state of the access hooks, and reporting.
 */
#ifndef BS_EMU_INTERNAL_H
#define BS_EMU_INTERNAL_H

#include "cuda_emu.h"

#include <cstdarg>
#include <cstdint>
#include <string>
#include <vector>

namespace bs_emu
{

/* One granule of a shared array: who wrote and who read it in which barrier interval. */
struct Shadow
{
	uint32_t	wepoch = 0,
				repoch = 0;
	uint16_t	wtid = 0,
				rtid = 0,			/* the first reader in repoch */
				rtid2 = 0;			/* another reader, when rother */
	bool		rother = false;
	const void *wpc = nullptr,
			   *rpc = nullptr,
			   *rpc2 = nullptr;
};

/* A region the checks know: a device or pinned allocation or a shared array, with its red zones. */
struct Region
{
	enum Kind
	{
		DEVICE, PINNED, SHARED
	}			kind;
	uintptr_t	lo, hi;				/* the fenced region: red zones included */
	uintptr_t	data_lo, data_hi;	/* what may be accessed */
	std::string name;				/* "s in bs_tile_sort", "device allocation #3" */
	unsigned	granule_shift = 0;	/* shared arrays: log2 of the bytes of a granule */
	std::vector<Shadow> shadow;		/* shared arrays only: one per granule */
	/* device allocations: the last launch that read / wrote each 32-byte sector (made on first access) */
	std::vector<uint32_t> sector_read, sector_written;
};

/* Bytes of the emulated device's memory. */
const size_t kDeviceBytes = (size_t) 4 << 30;

/* cuda_emu.cc */
/* Count an operation; true when failure injection says it must fail. */
extern bool inject(bs_emu_op op);
/* Remember an error for cudaGetLastError and return it. */
extern cudaError_t fail(cudaError_t err);

/* emu_memory.cc */
/* The region whose fence holds addr, or null. */
extern Region *region_find(uintptr_t addr);
/* region_find's last answer (null after a region is removed): the hooks try it first. */
extern Region *region_last;
/* Forget every shared array's access history (the interval numbers wrapped). */
extern void shadows_clear(void);
/* Forget every allocation's traffic marks (the launch numbers wrapped). */
extern void regions_forget_traffic(void);
/* Add a region (shared arrays; allocations add their own). */
extern void region_add(Region r);
/* Check the red zones of every allocation; report what was written over. */
extern bool redzones_intact(const char *after);
/* Device and pinned allocations not yet freed. */
extern long live_allocations(void);

/* emu_fault.cc */
/* Install the guard-page fault handler once (the first fenced allocation does). */
extern void fault_handler_install(void);

/*
 * emu_sched.cc: the launch running now on this OS thread.  Thread-locals
 * used across files have no initialisers (zero is their start), so that
 * using one calls no initialisation function.
 */
struct Launch
{
	const void *kernel;
	const char *label;
	uint64_t	seed;
	long		number;				/* launches since the seed was set */
	bool		in_grid;			/* its blocks run (a block is named in reports) */
	bool		failed;				/* a check failed: the launch returns an error */
	cudaError_t error;
};
extern thread_local Launch launch;
/* Leave the running thread's kernel now: the launch is abandoned. */
[[noreturn]] extern void abandon_launch(cudaError_t err);
/* Switch to another thread of the block (instrumented accesses do, at random). */
extern void switch_thread(void);
/* The next number of the seeded generator of this launch. */
extern uint64_t draw(void);

/* emu_check.cc: the thread that runs now, for the access hooks */
struct Running
{
	bool		active;				/* a kernel thread runs (hooks check) */
	unsigned	tid;				/* linear thread index in the block */
	uintptr_t	stack_lo,
				stack_hi;			/* its fibre's stack */
	uint32_t	epoch;				/* barrier interval, unique over all blocks (until it wraps) */
	long		countdown;			/* accesses before a random switch */
	long		switch_mean;		/* mean accesses between switches; 0: none */
};
extern thread_local Running running;
/* A new barrier interval (a block starts, or its threads pass a barrier). */
extern void next_epoch(void);
/* A launch starts: each pair of racing accesses is reported once per launch. */
extern void check_launch_begin(void);

/* emu_report.cc */
/* Record a finding: the launch's context, then the message. */
extern void report(bs_emu_check kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "file:line in function (inlined in file:line in function)" for a code address. */
extern std::string where(const void *pc);
/* "file:line" with the file's directories left out. */
extern std::string source_line(const char *file, int line);
/* A thread's coordinates "(x,y,z)" from its linear index in the block. */
extern std::string thread_name(unsigned tid);

}								/* namespace bs_emu */

#endif							/* BS_EMU_INTERNAL_H */
