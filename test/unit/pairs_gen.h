/*
 * pairs_gen.h — input generators and the qsort reference shared by the
 * sorter unit tests.
 */
#ifndef BS_PAIRS_GEN_H
#define BS_PAIRS_GEN_H

#include "bs_sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Input distributions every sorter is tested on. */
typedef enum gen_dist
{
	GEN_RANDOM,
	GEN_SORTED,
	GEN_REVERSED,
	GEN_FEW_DISTINCT,
	GEN_ALL_EQUAL,
	GEN_DISTS
} gen_dist;

static const char *const gen_dist_names[GEN_DISTS] = {
	"random", "sorted", "reversed", "few-distinct", "all-equal"
};

/* xorshift64*: a small deterministic generator. */
static inline uint64_t
gen_next(uint64_t *state)
{
	uint64_t	x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 2685821657736338717ULL;
}

/* The i-th key of a distribution, as a 64-bit value. */
static inline uint64_t
gen_key(gen_dist dist, size_t i, size_t n, uint64_t *state)
{
	switch (dist)
	{
		case GEN_RANDOM:
			return gen_next(state);
		case GEN_SORTED:
			return (uint64_t) i * 3;
		case GEN_REVERSED:
			return (uint64_t) (n - i) * 3;
		case GEN_FEW_DISTINCT:
			return gen_next(state) % 5;
		default:
			return 42;
	}
}

/* Fill packed 32-bit-key pairs (the key's high half for random input). */
static inline void
gen_pairs32(bs_pair32 *p, size_t n, gen_dist dist, uint64_t seed)
{
	uint64_t	state = seed | 1;

	for (size_t i = 0; i < n; i++)
	{
		uint64_t	k = gen_key(dist, i, n, &state);

		p[i] = bs_pack32((uint32_t) (dist == GEN_RANDOM ? k >> 32 : k), (uint32_t) i);
	}
}

/* Fill 64-bit-key pairs. */
static inline void
gen_pairs64(bs_pair64 *p, size_t n, gen_dist dist, uint64_t seed)
{
	uint64_t	state = seed | 1;

	for (size_t i = 0; i < n; i++)
	{
		p[i].key = gen_key(dist, i, n, &state);
		p[i].ptr = (uint32_t) i;
		p[i].pad = 0;
	}
}

/* qsort comparator of packed pairs. */
static inline int
ref_cmp32(const void *a, const void *b)
{
	bs_pair32	x = *(const bs_pair32 *) a,
				y = *(const bs_pair32 *) b;

	return (x > y) - (x < y);
}

/* qsort comparator of 64-bit-key pairs. */
static inline int
ref_cmp64(const void *a, const void *b)
{
	const bs_pair64 *x = (const bs_pair64 *) a,
			   *y = (const bs_pair64 *) b;

	if (x->key != y->key)
		return x->key > y->key ? 1 : -1;
	return (x->ptr > y->ptr) - (x->ptr < y->ptr);
}

#endif							/* BS_PAIRS_GEN_H */
