/*
 * test_threads.c — the core's threads within their budget (threads.h):
 * a shared pool bounds the helpers of a parallel-for, a full pool or a
 * system that refuses new threads (a soft RLIMIT_NPROC) leaves the work to
 * fewer threads with the same result and no error, and every place taken is
 * given back.
 */
#include "bs_sort.h"
#include "pairs_gen.h"
#include "parallel.h"
#include "part_sort.h"
#include "prefault.h"
#include "threads.h"
#include "unit.h"
#include "worker.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a parallel-for's tasks saw: how many ran at once, at most. */
typedef struct overlap
{
	atomic_int	running;
	atomic_int	most;
	atomic_size_t items;
} overlap;

/* Task: count the items and how many tasks overlap (each lingers a little). */
static void
count_overlap(void *ctx, size_t begin, size_t end)
{
	overlap    *o = (overlap *) ctx;
	int			now = atomic_fetch_add(&o->running, 1) + 1;
	int			most = atomic_load(&o->most);

	while (now > most && !atomic_compare_exchange_weak(&o->most, &most, now))
		;
	usleep(2000);
	atomic_fetch_add(&o->items, end - begin);
	atomic_fetch_sub(&o->running, 1);
}

/* A parallel-for of 8 threads under a shared limit of `limit` helpers. */
static void
check_pool_limit(unsigned limit)
{
	static char mem[64];
	bs_thread_pool *pool = bs_thread_pool_init(mem);
	overlap		o = {0, 0, 0};

	bs_threads_share(pool);
	bs_threads_set_limit(limit);
	bs_parallel_for(8, 0, 64, 1, count_overlap, &o);
	unit_report(atomic_load(&o.items) == 64 && atomic_load(&o.most) <= (int) limit + 1 &&
				atomic_load(&o.most) >= 1 && bs_threads_alive() == 0,
				"8 threads asked under a shared limit of %u: every item done, at most %d "
				"tasks at once (%d seen), every place given back",
				limit, limit + 1, atomic_load(&o.most));
	bs_threads_share(NULL);
	bs_threads_set_limit(UINT32_MAX);
}

/* Whether pairs are in (key, ptr) order. */
static int
sorted64(const bs_pair64 *p, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (p[i - 1].key > p[i].key || (p[i - 1].key == p[i].key && p[i - 1].ptr >= p[i].ptr))
			return 0;
	return 1;
}

/*
 * Sort with every algorithm on 8 threads, start a worker, a prefaulter and
 * a part sort, while no thread can start: bit 0 set when every sort is
 * right, bit 1 when every start said no and the part sort ran here.
 */
static int
work_without_threads(void)
{
	size_t		n = 300000;
	bs_pair64  *pairs = malloc(n * sizeof(bs_pair64));
	bs_pair64  *split = malloc(n * sizeof(bs_pair64));
	uint32_t   *order = malloc(n * sizeof(uint32_t));
	uint64_t   *sample = malloc(16 * BS_PART_SAMPLE * sizeof(uint64_t));
	bs_key_ranges *kr = malloc(sizeof(bs_key_ranges));
	static bs_part_sort ps;
	static bs_worker w;
	static bs_prefaulter pf;
	bs_algorithm algos[] = {BS_ALGO_BITONIC, BS_ALGO_ADAPTIVE, BS_ALGO_VQSORT};
	int			sorts_ok = 1;
	int			refused = 1;
	bs_status	status;

	for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++)
	{
		bs_options	opt = {BS_BACKEND_CPU, algos[a], 8, NULL, NULL};

		if (algos[a] == BS_ALGO_VQSORT && !bs_cpu_has_vqsort())
			continue;
		gen_pairs64(pairs, n, GEN_RANDOM, 0x7e5 + a);
		sorts_ok &= bs_sort_pairs64(pairs, n, &opt) == BS_OK && sorted64(pairs, n);
	}
	refused &= !bs_worker_start(&w);
	refused &= !bs_prefaulter_start(&pf);
	gen_pairs64(pairs, n, GEN_RANDOM, 0x9a7);
	memset(&ps, 0, sizeof(ps));
	bs_part_sort_split(&ps, pairs, n, split, 16, kr, sample, 8);
	{
		bs_options	opt = {BS_BACKEND_CPU, BS_ALGO_BITONIC, 1, NULL, NULL};

		bs_part_sort_start(&ps, order, &opt);
	}
	/* without a worker the parts are sorted before bs_part_sort_start returns */
	refused &= bs_part_sort_ready(&ps, &status) == n && status == BS_OK;
	bs_part_sort_stop(&ps);
	refused &= bs_threads_alive() == 0;
	free(pairs);
	free(split);
	free(order);
	free(sample);
	free(kr);
	return sorts_ok | refused << 1;
}

/* Thread body that does nothing (to see whether a thread can start at all). */
static void *
idle_thread(void *arg)
{
	return arg;
}

/*
 * In a child process whose user may run no more tasks (a soft RLIMIT_NPROC
 * of 1; as root, the child first becomes nobody, since root is exempt), the
 * sorts run on the calling thread alone and give the same results.
 */
static void
check_rlimit_nproc(void)
{
	int			pipefd[2];
	pid_t		pid;
	int			result[2] = {-1, -1};	/* could a thread start; what the work said */

	if (pipe(pipefd) != 0 || (pid = fork()) < 0)
	{
		unit_report(0, "a soft RLIMIT_NPROC: could not fork the child");
		return;
	}
	if (pid == 0)
	{
		struct rlimit rl;
		pthread_t	t;

		close(pipefd[0]);
		if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(2);
		getrlimit(RLIMIT_NPROC, &rl);
		rl.rlim_cur = 1;
		if (setrlimit(RLIMIT_NPROC, &rl) != 0)
			_exit(3);
		result[0] = pthread_create(&t, NULL, idle_thread, NULL);
		if (result[0] == 0)
			pthread_join(t, NULL);
		result[1] = work_without_threads();
		if (write(pipefd[1], result, sizeof(result)) != (ssize_t) sizeof(result))
			_exit(4);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], result, sizeof(result)) != (ssize_t) sizeof(result))
		result[0] = result[1] = -1;
	close(pipefd[0]);
	waitpid(pid, NULL, 0);
	unit_report(result[0] == EAGAIN,
				"a soft RLIMIT_NPROC of 1 refuses new threads (pthread_create: %d)", result[0]);
	unit_report(result[1] >= 0 && (result[1] & 1),
				"no thread can start: bitonic, adaptive and vqsort on 8 threads still sort, no error");
	unit_report(result[1] >= 0 && (result[1] & 2),
				"no thread can start: worker and prefaulter say so, the parts are sorted on the caller, "
				"no place is held");
}

/* A full shared pool: the same as a refused thread, and the pool stays whole. */
static void
check_full_pool(void)
{
	static char mem[64];
	bs_thread_pool *pool = bs_thread_pool_init(mem);
	int			result;

	bs_threads_share(pool);
	bs_threads_set_limit(0);
	result = work_without_threads();
	bs_threads_share(NULL);
	bs_threads_set_limit(UINT32_MAX);
	unit_report(result == 3,
				"a shared limit of 0: every sort right on the caller alone, every start refused");
}

int
main(void)
{
	check_pool_limit(0);
	check_pool_limit(1);
	check_pool_limit(3);
	check_full_pool();
	check_rlimit_nproc();
	return unit_exit_status();
}
