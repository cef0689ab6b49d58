/*
 * emu_sched.cc — the emulator's launches: one cooperative fibre per thread
 * of a block (ucontext for the first entry, _setjmp/_longjmp for the
 * switches, no system call), blocks and threads run in an order drawn from
 * the schedule's seed, and the barrier check.
 *
 * Between two barriers the block's ready threads are resumed in a random
 * order; a thread runs until it reaches a barrier, exits, or (instrumented
 * code, emu_check.cc) is switched out at a random access.  When no thread
 * is ready, every live thread must wait at the same barrier (the same call
 * of __syncthreads in the code): threads at different barriers, or some
 * waiting while others have exited, are a barrier error, reported and
 * ending the launch where a GPU would hang or go wrong.  A warp shuffle is
 * a rendezvous of the lanes of its mask: a lane that reaches it waits,
 * other threads running, until every one of them has; lanes that never do
 * are a barrier error too.
 *
 * Built with -U_FORTIFY_SOURCE: fortified longjmp refuses to jump to another
 * stack, which is exactly what a fibre switch does.
 */
#include "emu_internal.h"

#include <csetjmp>
#include <cstdlib>
#include <map>

#include <sys/mman.h>
#include <ucontext.h>

namespace bs_emu
{

namespace
{

const size_t kStackBytes = 64 * 1024;	/* per fibre, reused by every launch */
const size_t kGuardBytes = 4096;		/* PROT_NONE below each stack */
const unsigned kMaxThreads = 1024;		/* threads per block, as on a GPU */
const long kSwitchMean = 64;			/* default mean accesses between switches */

/* Where a thread of the block stands. */
enum State
{
	READY, AT_BARRIER, AT_SHUFFLE, EXITED
};

/* One thread of a block: its context, its stack and where it stopped. */
struct Fibre
{
	ucontext_t	uc;
	jmp_buf		jb;
	char	   *mapping = nullptr;
	bool		started = false;	/* entered since its context was made */
	State		state = READY;
	const void *barrier = nullptr;	/* the __syncthreads call it waits at */
	const char *file = nullptr;
	int			line = 0;
	unsigned long shuffles = 0;	/* warp shuffles it has reached */
};

/*
 * A warp's shuffles: of shuffle k (in slot k % 2), how many lanes have
 * reached it and the value each lane gave; its lanes.
 */
struct WarpExchange
{
	unsigned long shuffle[2];
	unsigned	arrived[2];
	unsigned	lanes;				/* threads of the block in this warp (32 but in a last, partial one) */
	uint64_t	value[2][32];
};

/*
 * The scheduler of the grid that runs now.  One OS thread launches at a
 * time (the emulated memory is process-wide too); not a thread-local: with
 * its constructor, every use would call the thread-local initialiser.
 */
struct Scheduler
{
	jmp_buf		jb;
	std::vector<Fibre> fibres;
	std::vector<unsigned> ready;
	void		(*body) (const void *) = nullptr;
	const void *ctx = nullptr;
	unsigned	current = 0;
	bool		running = false;
	bool		abandoned = false;
	uint64_t	rng = 0;
	unsigned long long barriers = 0;	/* block-wide barriers passed, over all blocks */
	std::vector<WarpExchange> warps;	/* the block's warps */
};

Scheduler	sched;

/* The schedule's seed, read from BS_EMU_SEED once; launches counted from each new seed. */
struct Seeds
{
	bool		read = false;
	bool		pinned = false;		/* BS_EMU_SEED overrides bs_emu_set_seed */
	uint64_t	seed = 1;
	long		launches = 0;
	long		switch_mean = kSwitchMean;
};

Seeds		seeds;

/* Read BS_EMU_SEED (replay a seed) and BS_EMU_SWITCH (mean accesses between switches, 0: none). */
void
seeds_init(void)
{
	const char *s = getenv("BS_EMU_SEED");
	const char *m = getenv("BS_EMU_SWITCH");

	if (seeds.read)
		return;
	seeds.read = true;
	if (s != nullptr && *s != '\0')
	{
		seeds.seed = strtoull(s, nullptr, 0);
		seeds.pinned = true;
	}
	if (m != nullptr && *m != '\0')
		seeds.switch_mean = strtol(m, nullptr, 0);
}

/* splitmix64: the next number of a generator state. */
uint64_t
mix(uint64_t *state)
{
	uint64_t	z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Every fibre runs this: the launch's body once per block, forever. */
void
fibre_main()
{
	for (;;)
	{
		sched.body(sched.ctx);
		Fibre	   &f = sched.fibres[sched.current];

		f.state = EXITED;
		if (!_setjmp(f.jb))
			_longjmp(sched.jb, 1);
	}
}

/* Give a fibre a stack on first use and a fresh context whenever it has none. */
bool
fibre_prepare(Fibre &f)
{
	if (f.mapping == nullptr)
	{
		void	   *m = mmap(nullptr, kStackBytes + kGuardBytes, PROT_READ | PROT_WRITE,
							 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);

		if (m == MAP_FAILED)
			return false;
		mprotect(m, kGuardBytes, PROT_NONE);
		f.mapping = (char *) m;
		f.started = false;
	}
	if (f.started)
		return true;
	getcontext(&f.uc);
	f.uc.uc_stack.ss_sp = f.mapping + kGuardBytes;
	f.uc.uc_stack.ss_size = kStackBytes;
	f.uc.uc_link = nullptr;
	makecontext(&f.uc, fibre_main, 0);
	return true;
}

/* Thread i's coordinates in the block. */
dim3
thread_coords(unsigned i)
{
	const dim3	bd = bs_emu_at.block_dim;

	return dim3(i % bd.x, (i / bd.x) % bd.y, i / (bd.x * bd.y));
}

/* Run thread i until it reaches a barrier, exits, is switched out or the launch is abandoned. */
void
fibre_resume(unsigned i)
{
	Fibre	   &f = sched.fibres[i];

	sched.current = i;
	bs_emu_at.thread = thread_coords(i);
	running.tid = i;
	running.stack_lo = (uintptr_t) f.mapping + kGuardBytes;
	running.stack_hi = running.stack_lo + kStackBytes;
	running.active = true;
	if (_setjmp(sched.jb))
	{
		running.active = false;
		return;
	}
	if (!sched.fibres[i].started)
	{
		sched.fibres[i].started = true;
		setcontext(&sched.fibres[i].uc);
	}
	_longjmp(sched.fibres[i].jb, 1);
}

/* Stop the running thread in state s and return to the scheduler. */
void
fibre_yield(State s)
{
	Fibre	   &f = sched.fibres[sched.current];

	f.state = s;
	if (!_setjmp(f.jb))
		_longjmp(sched.jb, 1);
}

/* Make every thread of the block ready, in index order when the seed is 0. */
void
ready_all(unsigned nthreads, State from)
{
	sched.ready.clear();
	for (unsigned i = nthreads; i-- > 0;)	/* popped from the back: 0 first */
		if (sched.fibres[i].state == from)
		{
			sched.fibres[i].state = READY;
			sched.ready.push_back(i);
		}
	next_epoch();
}

/* Resume ready threads in the seeded order until none is ready; false when abandoned. */
bool
run_interval(void)
{
	while (!sched.ready.empty())
	{
		size_t		k = launch.seed ? draw() % sched.ready.size() : sched.ready.size() - 1;
		unsigned	i = sched.ready[k];

		sched.ready[k] = sched.ready.back();
		sched.ready.pop_back();
		fibre_resume(i);
		if (sched.abandoned)
			return false;
		if (sched.fibres[i].state == READY)
			sched.ready.push_back(i);
	}
	return true;
}

/* Whether every live thread waits at one barrier; reports a barrier error otherwise. */
bool
barrier_agrees(unsigned nthreads)
{
	/* per barrier (code address): threads waiting there, the first of them */
	std::map<const void *, std::pair<unsigned, unsigned>> at;
	unsigned	exited = 0,
				first_exited = 0,
				shuffling = 0,
				first_shuffling = 0;
	std::string what;

	for (unsigned i = 0; i < nthreads; i++)
	{
		const Fibre &f = sched.fibres[i];

		if (f.state == EXITED && exited++ == 0)
			first_exited = i;
		else if (f.state == AT_BARRIER && at[f.barrier].first++ == 0)
			at[f.barrier].second = i;
		else if (f.state == AT_SHUFFLE && shuffling++ == 0)
			first_shuffling = i;
	}
	if (shuffling > 0)
	{
		const Fibre &f = sched.fibres[first_shuffling];

		report(BS_EMU_BARRIER, "barrier error: %u thread(s) from %s wait at the warp shuffle of %s, which not every "
			   "lane of its mask reached; on a GPU the warp would hang or read undefined values",
			   shuffling, thread_name(first_shuffling).c_str(), source_line(f.file, f.line).c_str());
		return false;
	}
	if (at.size() <= 1 && (at.empty() || exited == 0))
		return true;
	for (const auto &b : at)
	{
		const Fibre &f = sched.fibres[b.second.second];

		what += std::to_string(b.second.first) + " thread(s) from " + thread_name(b.second.second) +
			" wait at the __syncthreads() of " + source_line(f.file, f.line) + " [" + where(f.barrier) + "]; ";
	}
	if (exited > 0)
		what += std::to_string(exited) + " thread(s) from " + thread_name(first_exited) + " have exited; ";
	report(BS_EMU_BARRIER, "barrier error: not every live thread of the block reached the same barrier: %s"
		   "on a GPU the block would hang or run on unsynchronised", what.c_str());
	return false;
}

/* Forget every thread's context: the next launch starts them afresh. */
void
forget_contexts(void)
{
	for (Fibre &f : sched.fibres)
		f.started = false;
}

/* Run every thread of the current block to completion, barrier by barrier; false when abandoned. */
bool
run_block(unsigned nthreads)
{
	for (unsigned i = 0; i < nthreads; i++)
	{
		sched.fibres[i].state = READY;
		sched.fibres[i].shuffles = 0;
	}
	sched.warps.assign((nthreads + 31) / 32, WarpExchange {{0, 1}, {0, 0}, 32, {}});
	if (nthreads % 32 != 0)
		sched.warps.back().lanes = nthreads % 32;
	ready_all(nthreads, READY);
	for (;;)
	{
		if (!run_interval())
			return false;
		if (!barrier_agrees(nthreads))
		{
			launch.failed = true;
			launch.error = cudaErrorLaunchFailure;
			forget_contexts();
			return false;
		}
		ready_all(nthreads, AT_BARRIER);
		if (sched.ready.empty())
			return true;
		sched.barriers++;
	}
}

/* Greatest common divisor. */
unsigned long
gcd(unsigned long a, unsigned long b)
{
	while (b != 0)
	{
		unsigned long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Run every block of the grid: in index order (seed 0), or from a random start with a random stride prime to their number. */
void
run_blocks(dim3 grid, unsigned nthreads)
{
	unsigned long nblocks = (unsigned long) grid.x * grid.y * grid.z;
	unsigned long start = 0,
				stride = 1;

	if (launch.seed != 0 && nblocks > 1)
	{
		start = draw() % nblocks;
		do
			stride = 1 + draw() % (nblocks - 1);
		while (gcd(stride, nblocks) != 1);
	}
	for (unsigned long k = 0; k < nblocks; k++)
	{
		unsigned long b = (unsigned long) ((start + (unsigned __int128) k * stride) % nblocks);

		bs_emu_at.block = dim3(b % grid.x, (b / grid.x) % grid.y, b / ((unsigned long) grid.x * grid.y));
		if (!run_block(nthreads))
			return;
	}
}

}								/* namespace */

/* The next number of the seeded generator of this launch. */
uint64_t
draw(void)
{
	return mix(&sched.rng);
}

/* Leave the running thread's kernel now: the launch is abandoned. */
void
abandon_launch(cudaError_t err)
{
	launch.failed = true;
	launch.error = err;
	sched.abandoned = true;
	forget_contexts();
	running.active = false;
	_longjmp(sched.jb, 1);
}

/* Switch to another thread of the block (instrumented accesses do, at random). */
void
switch_thread(void)
{
	fibre_yield(READY);
}

/* Whether every lane of mask in the warp from thread warp0 has reached shuffle k. */
bool
shuffle_complete(unsigned warp0, unsigned mask, unsigned long k)
{
	const WarpExchange &w = sched.warps[warp0 / 32];
	unsigned	want = 0;

	if (mask == 0xffffffffu)
		want = 32;
	else
		for (unsigned j = 0; j < 32; j++)
			want += mask >> j & 1;
	return w.shuffle[k % 2] == k && w.arrived[k % 2] == want;
}

/* Count the running lane in at shuffle k of its warp (the slot's count restarts at a new shuffle). */
void
shuffle_arrive(unsigned warp0, unsigned long k)
{
	WarpExchange &w = sched.warps[warp0 / 32];

	if (w.shuffle[k % 2] != k)
	{
		w.shuffle[k % 2] = k;
		w.arrived[k % 2] = 0;
	}
	w.arrived[k % 2]++;
}

/* Make the lanes of the warp from warp0 that wait at a shuffle ready (they check again). */
void
wake_shufflers(unsigned warp0)
{
	for (unsigned j = 0; j < sched.warps[warp0 / 32].lanes; j++)
		if (sched.fibres[warp0 + j].state == AT_SHUFFLE)
		{
			sched.fibres[warp0 + j].state = READY;
			sched.ready.push_back(warp0 + j);
		}
}

/* A shuffle asks for a lane outside its warp or its mask: report it and abandon the launch. */
[[noreturn]] void
shuffle_out_of_warp(unsigned lane, unsigned src, unsigned mask, int lane_mask, int width, const char *file, int line)
{
	report(BS_EMU_OUT_OF_BOUNDS, "out of bounds: thread %s (lane %u) shuffles with lane %u (lane mask %d, width %d, "
		   "mask 0x%08x), outside its warp's lanes, at %s", thread_name(sched.current).c_str(), lane, src,
		   lane_mask, width, mask, source_line(file, line).c_str());
	abandon_launch(cudaErrorIllegalAddress);
}

}								/* namespace bs_emu */

using namespace bs_emu;

/*
 * __shfl_xor_sync: the running thread's value goes to its warp's exchange,
 * the thread waits (other threads run) until every lane of mask has
 * reached the same shuffle, and takes lane (lane ^ lane_mask)'s value.
 * A lane outside the warp, the block, the width or the mask is out of
 * bounds; lanes that never come are a barrier error (the block's check).
 */
uint64_t
bs_emu_shfl_xor(unsigned mask, uint64_t value, int lane_mask, int width, const char *file, int line)
{
	if (!sched.running)
		return value;
	unsigned	me = sched.current,
				lane = me % 32,
				warp0 = me - lane,
				src = lane ^ (unsigned) lane_mask;
	Fibre	   &f = sched.fibres[me];
	unsigned long k = f.shuffles;

	if (lane_mask < 0 || lane_mask >= width || width != 32 || !(mask >> lane & 1) || !(mask >> src & 1) ||
		src >= sched.warps[warp0 / 32].lanes)
		shuffle_out_of_warp(lane, src, mask, lane_mask, width, file, line);
	f.shuffles = k + 1;
	f.file = file;
	f.line = line;
	shuffle_arrive(warp0, k);
	sched.warps[warp0 / 32].value[k % 2][lane] = value;
	if (shuffle_complete(warp0, mask, k))
		wake_shufflers(warp0);
	else
		do
			fibre_yield(AT_SHUFFLE);
		while (!shuffle_complete(warp0, mask, k));
	return sched.warps[warp0 / 32].value[k % 2][src];
}

/* Reach the block's barrier: switch back to the scheduler. */
void
bs_emu_syncthreads(const char *file, int line)
{
	if (!sched.running)
		return;
	Fibre	   &f = sched.fibres[sched.current];

	f.barrier = __builtin_return_address(0);
	f.file = file;
	f.line = line;
	fibre_yield(AT_BARRIER);
}

/* Use this seed for the next launches (BS_EMU_SEED, when set, wins); restart their count. */
void
bs_emu_set_seed(uint64_t seed)
{
	seeds_init();
	if (!seeds.pinned)
		seeds.seed = seed;
	seeds.launches = 0;
}

/* Block-wide barriers every block of every launch has passed so far. */
unsigned long long
bs_emu_barriers_total(void)
{
	return sched.barriers;
}

/* The seed of the next launch. */
uint64_t
bs_emu_seed(void)
{
	seeds_init();
	return seeds.seed;
}

/* Run body(ctx) once per thread of every block of the grid; kernel and label name it. */
cudaError_t
bs_emu_run_grid(dim3 grid, dim3 block, void (*body) (const void *), const void *ctx,
				const void *kernel, const char *label)
{
	unsigned long nthreads = (unsigned long) block.x * block.y * block.z;

	if (inject(BS_EMU_LAUNCH))
		return fail(cudaErrorLaunchFailure);
	/* a block over the limit: what CUDA 13's runtime answered on an H100 */
	if (nthreads > kMaxThreads)
		return fail(cudaErrorInvalidValue);
	if (sched.running || nthreads == 0 || grid.x == 0 || grid.y == 0 || grid.z == 0)
		return fail(cudaErrorInvalidConfiguration);
	if (sched.fibres.size() < nthreads)
		sched.fibres.resize(nthreads);
	for (unsigned i = 0; i < nthreads; i++)
		if (!fibre_prepare(sched.fibres[i]))
			return fail(cudaErrorMemoryAllocation);
	seeds_init();
	launch = Launch();
	launch.kernel = kernel;
	launch.label = label;
	launch.seed = seeds.seed;
	launch.number = ++seeds.launches;
	sched.rng = seeds.seed * 0x100000001b3ULL + (uint64_t) launch.number;
	running.switch_mean = seeds.seed ? seeds.switch_mean : 0;
	running.countdown = running.switch_mean;
	check_launch_begin();
	sched.body = body;
	sched.ctx = ctx;
	sched.running = true;
	sched.abandoned = false;
	bs_emu_at.grid_dim = grid;
	bs_emu_at.block_dim = block;
	launch.in_grid = true;
	run_blocks(grid, (unsigned) nthreads);
	launch.in_grid = false;
	sched.running = false;
	if (!redzones_intact(label))
	{
		launch.failed = true;
		launch.error = cudaErrorIllegalAddress;
	}
	launch.kernel = nullptr;
	return launch.failed ? fail(launch.error) : cudaSuccess;
}
