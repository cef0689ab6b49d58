/*
 * test_part_sort.c — pairs split by key range and sorted part by part on a
 * worker (the ORDER BY emit's order while later parts sort): for every key
 * distribution, on one and two threads, the parts cover the pairs in key
 * order, the order written equals the pointers of a full sort by (key, ptr),
 * and the progress the worker publishes only grows and ends at n.
 */
#include "part_sort.h"
#include "pairs_gen.h"
#include "unit.h"

#include <sched.h>
#include <string.h>

/* qsort order of 64-bit-key pairs by (key, ptr). */
static int
compare_pairs(const void *a, const void *b)
{
	const bs_pair64 *x = a;
	const bs_pair64 *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->ptr > y->ptr) - (x->ptr < y->ptr);
}

/*
 * Split n pairs (freed here) into nparts, sort them in parts with the given
 * algorithm and compare with a full sort; what names the case.
 */
static void
check_pairs(bs_pair64 *pairs, size_t n, uint32_t nparts, int threads, bs_algorithm algorithm,
			const char *what)
{
	bs_pair64  *expect = malloc(n * sizeof(bs_pair64));
	bs_pair64  *split = malloc(n * sizeof(bs_pair64));
	uint32_t   *order = malloc((n + 1) * sizeof(uint32_t));
	uint64_t   *sample = malloc((size_t) nparts * BS_PART_SAMPLE * sizeof(uint64_t));
	bs_key_ranges *kr = malloc(sizeof(bs_key_ranges));
	static bs_part_sort ps;
	bs_options	opt = {BS_BACKEND_CPU, algorithm, 1, NULL, NULL};
	bs_status	status = BS_OK;
	size_t		last = 0;
	int			grows = 1;
	int			covers = 1;
	int			same = 1;

	memcpy(expect, pairs, n * sizeof(bs_pair64));
	qsort(expect, n, sizeof(bs_pair64), compare_pairs);
	order[n] = 0xdeadbeef;		/* a sentinel past the end */

	memset(&ps, 0, sizeof(ps));
	bs_part_sort_split(&ps, pairs, n, split, nparts, kr, sample, threads);
	covers &= ps.nparts == nparts && ps.starts[0] == 0 && ps.starts[nparts] == n;
	for (uint32_t p = 0; p + 1 < nparts && covers; p++)
	{
		covers &= ps.starts[p] <= ps.starts[p + 1];
		/* every key of part p is below every key of the next non-empty part */
		for (size_t i = ps.starts[p]; i < ps.starts[p + 1]; i++)
			for (uint32_t q = p + 1; q < nparts; q++)
				if (ps.starts[q] < ps.starts[q + 1])
				{
					covers &= split[i].key < split[ps.starts[q]].key;
					break;
				}
	}
	bs_part_sort_start(&ps, order, &opt);
	while (last < n && status == BS_OK)
	{
		size_t		ready = bs_part_sort_ready(&ps, &status);

		grows &= ready >= last && ready <= n;
		for (size_t i = last; i < ready; i++)
			same &= order[i] == expect[i].ptr;
		last = ready;
		sched_yield();
	}
	bs_part_sort_stop(&ps);
	unit_report(status == BS_OK && covers && grows && same && last == n &&
				order[n] == 0xdeadbeef,
				"%s, %zu pairs, %u parts, %d thread(s): parts in key order, "
				"order of a full sort, progress grows to n",
				what, n, nparts, threads);
	free(pairs);
	free(expect);
	free(split);
	free(order);
	free(sample);
	free(kr);
}

/* Split n pairs of a distribution into nparts, sort them in parts and compare. */
static void
check_case(gen_dist dist, size_t n, uint32_t nparts, int threads)
{
	bs_pair64  *pairs = malloc(n * sizeof(bs_pair64));

	gen_pairs64(pairs, n, dist, 0x5eed + n);
	check_pairs(pairs, n, nparts, threads, bs_choose_algorithm(BS_BACKEND_CPU, n),
				gen_dist_names[dist]);
}

/* A 64-bit xorshift step. */
static uint64_t
next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/*
 * Parts whose keys spread too wide to pack whole beside a position: keys in
 * 64 groups far apart, each group's keys differing only in its low 0 to 12
 * bits, so that the packed values of a group's keys collide (runs short and
 * long, some of equal keys).  Pointers in input order, or a random
 * permutation (equal keys not in pointer order: every run sorted again).
 */
static void
check_packed_runs(bs_algorithm algorithm, bool shuffled, const char *what)
{
	size_t		n = 200000;
	bs_pair64  *pairs = malloc(n * sizeof(bs_pair64));
	uint64_t	state = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < n; i++)
	{
		uint64_t	group = next_random(&state) % 64;
		uint64_t	low = next_random(&state) & (((uint64_t) 1 << (group % 13)) - 1);

		pairs[i].key = group << 58 | low;
		pairs[i].ptr = (uint32_t) i;
		pairs[i].pad = 0;
	}
	for (size_t i = n - 1; shuffled && i > 0; i--)
	{
		size_t		j = next_random(&state) % (i + 1);
		uint32_t	ptr = pairs[i].ptr;

		pairs[i].ptr = pairs[j].ptr;
		pairs[j].ptr = ptr;
	}
	check_pairs(pairs, n, 16, 2, algorithm, what);
}

/*
 * Keys at the top of the range (int8 values near its largest): values
 * packed from them reach the adaptive sorter's padding unless kept below
 * 2^63; and a part of more than 2^20 pairs (sorted as pairs) all of the
 * largest key, whose pointers are not their indexes in the part, against
 * the adaptive sorter's padding pairs of that key.
 */
static void
check_top_keys(bs_algorithm algorithm, const char *what)
{
	size_t		n = 300000;
	size_t		big = ((size_t) 1 << 20) + 100000;
	bs_pair64  *pairs = malloc(n * sizeof(bs_pair64));
	uint64_t	state = 0x51ed270b27ULL;

	for (size_t i = 0; i < n; i++)
	{
		pairs[i].key = next_random(&state) % 100 == 0 ? UINT64_MAX - 1000 :
			((uint64_t) 1 << 63) + next_random(&state) % 1000000;
		pairs[i].ptr = (uint32_t) i;
		pairs[i].pad = 0;
	}
	check_pairs(pairs, n, 8, 2, algorithm, what);

	pairs = malloc((big + 1000) * sizeof(bs_pair64));
	for (size_t i = 0; i < big + 1000; i++)
	{
		pairs[i].key = i < 1000 ? i : UINT64_MAX;
		pairs[i].ptr = (uint32_t) i;
		pairs[i].pad = 0;
	}
	check_pairs(pairs, big + 1000, 2, 2, algorithm, "a part of over 2^20 pairs of the largest key");
}

/* The buffers of one part sort: n pairs, the room they split into, the order, the cut's scratch. */
typedef struct part_fixture
{
	size_t		n;
	uint32_t	nparts;
	bs_pair64  *pairs;
	bs_pair64  *split;
	uint32_t   *order;			/* n entries, all bits set until written */
	uint64_t   *sample;
	bs_key_ranges *kr;
} part_fixture;

/* Random pairs split into nparts parts, the order not yet written. */
static void
fixture_split(part_fixture *f, bs_part_sort *ps, size_t n, uint32_t nparts, uint64_t seed)
{
	f->n = n;
	f->nparts = nparts;
	f->pairs = malloc(n * sizeof(bs_pair64));
	f->split = malloc(n * sizeof(bs_pair64));
	f->order = malloc(n * sizeof(uint32_t));
	f->sample = malloc((size_t) nparts * BS_PART_SAMPLE * sizeof(uint64_t));
	f->kr = malloc(sizeof(bs_key_ranges));
	gen_pairs64(f->pairs, n, GEN_RANDOM, seed);
	memset(f->order, 0xff, n * sizeof(uint32_t));
	memset(ps, 0, sizeof(*ps));
	bs_part_sort_split(ps, f->pairs, n, f->split, nparts, f->kr, f->sample, 2);
}

/* Free a fixture's buffers. */
static void
fixture_free(part_fixture *f)
{
	free(f->pairs);
	free(f->split);
	free(f->order);
	free(f->sample);
	free(f->kr);
}

/*
 * A part the worker cannot sort (an algorithm no build has): the failure is
 * reported, nothing of the order is published or written, and the worker
 * joins.
 */
static void
check_failure(void)
{
	static bs_part_sort ps;
	part_fixture f;
	bs_options	opt = {BS_BACKEND_CPU, (bs_algorithm) (BS_ALGO_VQSORT + 1), 1, NULL, NULL};
	bs_status	status = BS_OK;
	size_t		ready = 0;
	int			untouched = 1;

	fixture_split(&f, &ps, 100000, 8, 0xbad);
	bs_part_sort_start(&ps, f.order, &opt);
	while (status == BS_OK && ready < f.n)
	{
		ready = bs_part_sort_ready(&ps, &status);
		sched_yield();
	}
	bs_part_sort_stop(&ps);
	for (size_t i = 0; i < f.n; i++)
		untouched &= f.order[i] == UINT32_MAX;
	unit_report(status == BS_ERR_UNSUPPORTED && ready == 0 && untouched,
				"a part that fails to sort: its status is reported, no order is published");
	fixture_free(&f);
}

/*
 * A stop while parts remain (the bitonic network, slow enough for 256
 * parts to take a while): the worker sorts no part after the stop, what it
 * published is a prefix of the full sort's order, and nothing past it is
 * written.  Without the stop flag the join waits for every part.
 */
static void
check_stop(void)
{
	static bs_part_sort ps;
	part_fixture f;
	bs_pair64  *expect;
	bs_options	opt = {BS_BACKEND_CPU, BS_ALGO_BITONIC, 1, NULL, NULL};
	bs_status	status;
	size_t		ready;
	size_t		written = 0;
	int			prefix = 1;

	fixture_split(&f, &ps, 1 << 20, 256, 0x570b);
	expect = malloc(f.n * sizeof(bs_pair64));
	memcpy(expect, f.split, f.n * sizeof(bs_pair64));
	qsort(expect, f.n, sizeof(bs_pair64), compare_pairs);
	bs_part_sort_start(&ps, f.order, &opt);
	bs_part_sort_stop(&ps);
	ready = bs_part_sort_ready(&ps, &status);
	for (size_t i = 0; i < ready; i++)
		prefix &= f.order[i] == expect[i].ptr;
	for (size_t i = ready; i < f.n; i++)
		written += f.order[i] != UINT32_MAX;
	unit_note("stopped with %zu of %zu pairs sorted", ready, f.n);
	unit_report(status == BS_OK && ready < f.n && prefix && written <= f.n / 64,
				"a stop while parts remain: no part is sorted after it, the order "
				"published is a prefix of the full sort's");
	free(expect);
	fixture_free(&f);
}

int
main(void)
{
	for (int d = 0; d < GEN_DISTS; d++)
		for (int threads = 1; threads <= 2; threads++)
			check_case((gen_dist) d, 200000, 16, threads);
	check_case(GEN_RANDOM, 1000, 64, 2);	/* fewer sampled keys than parts need */
	check_case(GEN_FEW_DISTINCT, 100000, 2, 2);
	check_case(GEN_RANDOM, 300000, 256, 2);	/* the most parts sort_parts.c cuts */
	check_case(GEN_RANDOM, 64, 32, 2);	/* parts of a few pairs */
	for (int a = BS_ALGO_BITONIC; a <= BS_ALGO_VQSORT; a++)
	{
		bs_algorithm algorithm = (bs_algorithm) a;
		const char *name = bs_algorithm_name(algorithm);
		char		what[160];

		if (algorithm == BS_ALGO_VQSORT && !bs_cpu_has_vqsort())
			continue;
		snprintf(what, sizeof(what), "%s: wide keys packed with collisions", name);
		check_packed_runs(algorithm, false, what);
		snprintf(what, sizeof(what), "%s: the same, pointers shuffled", name);
		check_packed_runs(algorithm, true, what);
		snprintf(what, sizeof(what), "%s: keys near the largest", name);
		check_top_keys(algorithm, what);
	}
	check_failure();
	check_stop();
	return unit_exit_status();
}
