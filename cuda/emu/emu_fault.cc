/*
 * emu_fault.cc — a fault in a guard page of an emulated allocation, named
 * before the process dies.  Code that is not instrumented (the emulated
 * module's kernels, any host code) reading or writing just past a device or
 * pinned buffer faults on the guard page after it; the handler writes which
 * allocation, how far past its end, and (in a kernel) the launch, block and
 * thread to stderr, then lets the fault kill the process as it would have.
 * Faults anywhere else go to the handler that was there before.  Only
 * async-signal-safe calls: snprintf into a static buffer and write(2).
 */
#include "emu_internal.h"

#include <csignal>
#include <cstdio>
#include <cstring>

#include <unistd.h>

namespace bs_emu
{

namespace
{

struct sigaction previous;			/* the handler before ours */
bool		installed;
char		message[1024];

/* Name a fault inside an allocation's fence, then restore the previous handler so the fault runs its course. */
void
on_fault(int sig, siginfo_t *info, void *ctx)
{
	uintptr_t	a = (uintptr_t) info->si_addr;
	Region	   *r = region_find(a);

	(void) ctx;
	if (r != nullptr && r->kind != Region::SHARED && (a < r->data_lo || a >= r->data_hi))
	{
		int			len = snprintf(message, sizeof(message),
								   "# SIMT emulator: out of bounds: a fault at %p, %zu bytes %s %s (a guard page)%s%s%s\n",
								   (void *) a, a >= r->data_hi ? (size_t) (a - r->data_hi) : (size_t) (r->data_lo - a),
								   a >= r->data_hi ? "past the end of" : "before the start of", r->name.c_str(),
								   running.active ? ", in a thread of " : "", running.active ? launch.label : "",
								   running.active ? "<<<>>>" : "");

		if (len > 0 && write(2, message, (size_t) len) < 0)
			message[0] = '\0';
	}
	(void) sig;
	sigaction(SIGSEGV, &previous, nullptr);
}

}								/* namespace */

/* Install the guard-page fault handler once (the first fenced allocation does). */
void
fault_handler_install(void)
{
	struct sigaction sa;

	if (installed)
		return;
	installed = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &previous);
}

}								/* namespace bs_emu */
