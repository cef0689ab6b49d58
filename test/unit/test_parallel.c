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

#include <pthread.h>
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
	int			tasks_at_check; /* tasks running then (should be none) */
	atomic_int	by_helpers;		/* items a helper ran */
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

/* The thread that runs main, whose tasks are not a helper's. */
static pthread_t main_thread;

/* Task: count each item after a tenth of a millisecond, and the items helpers ran. */
static void
count_quick(void *ctx, size_t begin, size_t end)
{
	(void) ctx;
	for (size_t i = begin; i < end; i++)
	{
		usleep(100);
		atomic_fetch_add(&s.done[i], 1);
		if (!pthread_equal(pthread_self(), main_thread))
			atomic_fetch_add(&s.by_helpers, 1);
	}
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
		s.tasks_at_check = atomic_load(&s.running);
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

/*
 * Helpers kept: the parallel-fors of many runs share three helpers, parked
 * between calls (alive after each, none started anew), which do part of
 * the work; every item runs once in each call; release joins them.
 */
static void
check_kept_reused(void)
{
	int			rounds_right = 0;
	int			alive_between = 0;
	int			helped = 0;

	bs_parallel_keep_helpers();
	for (int round = 0; round < 20; round++)
	{
		reset_seen(false, false);
		bs_parallel_for(4, 0, ITEMS, 1, count_quick, NULL);
		rounds_right += items_once() == ITEMS;
		alive_between += bs_threads_alive() == 3 && bs_parallel_kept_helpers() == 3;
		helped += atomic_load(&s.by_helpers) > 0;
	}
	bs_parallel_release_helpers();
	unit_report(rounds_right == 20 && alive_between == 20 && helped > 0 && bs_threads_alive() == 0,
				"kept helpers: 20 parallel-fors run every item once (%d of 20), three helpers "
				"stay parked between them (%d of 20), helpers did work in %d, none alive after "
				"the release (%u)", rounds_right, alive_between, helped, bs_threads_alive());
}

/*
 * Helpers kept: an interrupt is checked with no task running (the helpers
 * parked, not joined), the check's longjmp leaves them parked and running
 * nothing, and the release joins them.
 */
static void
check_kept_interrupt(void)
{
	int			total_after;
	bool		parked;

	bs_parallel_keep_helpers();
	reset_seen(false, false);
	bs_parallel_for_checked(4, ITEMS, 1, ITEMS, count_items, NULL, &hooks);
	unit_report(s.checks_pending == 1 && s.tasks_at_check == 0 && items_once() == ITEMS,
				"kept helpers: an interrupt is checked with no task running (%d), then every "
				"item runs once (%d of %d)", s.tasks_at_check, items_once(), ITEMS);
	reset_seen(false, true);
	if (setjmp(s.escape) == 0)
		bs_parallel_for_checked(4, ITEMS, 1, ITEMS, count_items, NULL, &hooks);
	total_after = atomic_load(&s.total);
	usleep(20000);
	parked = bs_parallel_kept_helpers() == 3 && bs_threads_alive() == 3;
	bs_parallel_release_helpers();
	unit_report(s.tasks_at_check == 0 && atomic_load(&s.total) == total_after &&
				total_after < ITEMS && parked && bs_threads_alive() == 0,
				"kept helpers: a check that longjmps finds no task running, no item runs after "
				"it (%d of %d done), the helpers stay parked until released", total_after, ITEMS);
}

/* A parallel-for of another thread, while main keeps helpers. */
static void *
other_thread_loop(void *arg)
{
	(void) arg;
	bs_parallel_for(2, 0, ITEMS, 1, count_quick, NULL);
	return NULL;
}

/*
 * Helpers kept by main: another thread's parallel-for starts helpers of its
 * own and runs every item once; main's kept helpers are left as they were.
 */
static void
check_kept_other_thread(void)
{
	pthread_t	other;

	bs_parallel_keep_helpers();
	reset_seen(false, false);
	bs_parallel_for(2, 0, ITEMS, 1, count_quick, NULL);
	reset_seen(false, false);
	pthread_create(&other, NULL, other_thread_loop, NULL);
	pthread_join(other, NULL);
	unit_report(items_once() == ITEMS && bs_parallel_kept_helpers() == 1,
				"kept helpers: another thread's parallel-for runs every item once (%d of %d) "
				"with helpers of its own (main keeps %d)", items_once(), ITEMS,
				bs_parallel_kept_helpers());
	bs_parallel_release_helpers();
}

int
main(void)
{
	main_thread = pthread_self();
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
	check_kept_reused();
	check_kept_interrupt();
	check_kept_other_thread();
	return unit_exit_status();
}
