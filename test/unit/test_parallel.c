/*
 * test_parallel.c — the parallel-for's interrupt handling
 * (bs_parallel_for_checked with a probe, parallel.h): an interrupt that
 * arrives while threads work stops them after the chunk each runs, the
 * check then runs with no helper alive (so it may longjmp, as PostgreSQL's
 * ERROR does, and nothing runs after it), a check that returns lets the
 * work go on with every item done once, and an interrupt held off (the
 * probe keeps firing after the check) does not stop the loop again and
 * again.
 */
#include "bs_sort.h"
#include "parallel.h"
#include "threads.h"
#include "unit.h"

#include <setjmp.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* Items of each loop, and the item whose task raises the interrupt. */
#define ITEMS 400
#define FIRE_AT 100

/* What the tasks, the probe and the check saw. */
typedef struct seen
{
	atomic_int	done[ITEMS];	/* times each item ran */
	atomic_int	running;		/* tasks running now */
	atomic_int	total;			/* items done */
	atomic_bool pending;		/* the interrupt waits */
	bool		held_off;		/* the check leaves it waiting */
	bool		jump;			/* the check longjmps */
	jmp_buf		escape;
	int			checks;			/* check calls */
	int			checks_pending; /* check calls while it waited */
	int			total_at_check; /* items done when the check took it */
	int			running_at_check;	/* tasks or helpers alive then (should be none) */
} seen;

static seen s;

/* Task: count each item, linger a millisecond; item FIRE_AT raises the interrupt. */
static void
count_items(void *ctx, size_t begin, size_t end)
{
	(void) ctx;
	atomic_fetch_add(&s.running, 1);
	for (size_t i = begin; i < end; i++)
	{
		atomic_fetch_add(&s.done[i], 1);
		if (i == FIRE_AT)
			atomic_store(&s.pending, true);
		usleep(1000);
		atomic_fetch_add(&s.total, 1);
	}
	atomic_fetch_sub(&s.running, 1);
}

/* Probe: whether the interrupt waits. */
static bool
probe_pending(void *arg)
{
	(void) arg;
	return atomic_load(&s.pending);
}

/* Check: take the interrupt (unless held off), noting what ran at that moment. */
static void
check_interrupt(void *arg)
{
	(void) arg;
	s.checks++;
	if (!atomic_load(&s.pending))
		return;
	s.checks_pending++;
	if (s.checks_pending == 1)
	{
		s.total_at_check = atomic_load(&s.total);
		s.running_at_check = atomic_load(&s.running) + (int) bs_threads_alive();
	}
	if (s.held_off)
		return;
	atomic_store(&s.pending, false);
	if (s.jump)
		longjmp(s.escape, 1);
}

/* Items run exactly once each, out of ITEMS. */
static int
items_once(void)
{
	int			once = 0;

	for (int i = 0; i < ITEMS; i++)
		once += atomic_load(&s.done[i]) == 1;
	return once;
}

/* Start afresh: nothing seen, the given check behaviour. */
static void
reset_seen(bool held_off, bool jump)
{
	memset(&s, 0, sizeof(s));
	s.held_off = held_off;
	s.jump = jump;
}

static const bs_hooks hooks = {NULL, NULL, check_interrupt, probe_pending, NULL};
/* The same check without a probe. */
static const bs_hooks hooks_unprobed = {NULL, NULL, check_interrupt, NULL, NULL};

/*
 * An interrupt in the middle of one batch on `threads` threads: the check
 * runs soon after (a chunk a thread, but for a thread descheduled: long
 * before the batch's end), no task running; the check returns and every
 * item is done once.
 */
static void
check_stop_and_go_on(int threads)
{
	reset_seen(false, false);
	bs_parallel_for_checked(threads, ITEMS, 1, ITEMS, count_items, NULL, &hooks);
	unit_report(s.checks_pending == 1 && s.running_at_check == 0 &&
				s.total_at_check >= FIRE_AT + 1 && s.total_at_check < ITEMS / 2 &&
				items_once() == ITEMS && atomic_load(&s.total) == ITEMS,
				"%d thread(s): an interrupt at item %d is checked at once (%d items done, "
				"%d tasks or helpers alive), then every item runs once (%d of %d)",
				threads, FIRE_AT, s.total_at_check, s.running_at_check, items_once(), ITEMS);
}

/*
 * The check longjmps (PostgreSQL's ERROR): no helper is alive when it does,
 * and none runs an item afterwards.
 */
static void
check_longjmp(int threads)
{
	int			total_after;

	reset_seen(false, true);
	if (setjmp(s.escape) == 0)
		bs_parallel_for_checked(threads, ITEMS, 1, ITEMS, count_items, NULL, &hooks);
	total_after = atomic_load(&s.total);
	usleep(20000);
	unit_report(s.checks_pending == 1 && s.running_at_check == 0 && bs_threads_alive() == 0 &&
				atomic_load(&s.total) == total_after && total_after < ITEMS,
				"%d thread(s): a check that longjmps finds no helper alive, and no item runs "
				"after it (%d of %d done)", threads, total_after, ITEMS);
}

/*
 * An interrupt held off (the probe keeps firing after the check): the loop
 * stops for it once, then goes on to the end, the check still run before
 * each batch.
 */
static void
check_held_off(int threads)
{
	reset_seen(true, false);
	bs_parallel_for_checked(threads, ITEMS, 1, ITEMS / 4, count_items, NULL, &hooks);
	unit_report(items_once() == ITEMS && s.checks <= 4 + 1 && s.checks_pending >= 1,
				"%d thread(s): an interrupt held off stops the loop once, then every item runs "
				"once (%d of %d) with %d checks", threads, items_once(), ITEMS, s.checks);
}

int
main(void)
{
	for (int threads = 1; threads <= 4; threads *= 2)
	{
		check_stop_and_go_on(threads);
		check_longjmp(threads);
		check_held_off(threads);
	}
	reset_seen(false, false);
	bs_parallel_for_checked(4, ITEMS, 1, ITEMS, count_items, NULL, &hooks_unprobed);
	unit_report(s.checks == 1 && s.checks_pending == 0 && items_once() == ITEMS,
				"without a probe the check runs before each batch only (%d checks, none while "
				"the interrupt waited)", s.checks);
	return unit_exit_status();
}
