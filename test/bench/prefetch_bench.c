/*
 * prefetch_bench.c — how far ahead the BitonicSort emit loop should prefetch.
 *
 * Builds what the node holds after a sort (not a test; `make bench-prefetch`):
 * rows of a given width appended to 32 MB blocks advised as huge pages, named
 * by locators of 8-byte units in 1 MB slots, and a random order of them.
 * Then walks the order the way the emit loop does, reading each row's header
 * and first attributes while prefetching the row `distance` places ahead, for
 * several distances, and prints ns per row; best of `reps` walks each.
 *
 *   prefetch_bench [rows] [row bytes] [reps]   (default 10000000 136 3)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../unit/mono_clock.h"

#define UNIT_SHIFT 3
#define SLOT_UNIT_BITS 17
#define SLOT_BYTES ((size_t) 1 << (SLOT_UNIT_BITS + UNIT_SHIFT))
#define BLOCK_BYTES ((size_t) 32 << 20)

/* xorshift64*: a fast deterministic random stream. */
static uint64_t
next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * UINT64_C(2685821657736338717);
}

/* The row a locator names. */
static inline const char *
row_at(char **slots, uint32_t locator)
{
	return slots[locator >> SLOT_UNIT_BITS] +
		((size_t) (locator & ((1u << SLOT_UNIT_BITS) - 1)) << UNIT_SHIFT);
}

/* One walk of the order with the given prefetch distance; returns a checksum. */
static uint64_t
walk(char **slots, const uint32_t *order, size_t n, size_t distance)
{
	uint64_t	sum = 0;

	for (size_t i = 0; i < n; i++)
	{
		const char *row;
		uint64_t	first;

		if (distance > 0 && i + distance < n)
			__builtin_prefetch(row_at(slots, order[i + distance]));
		row = row_at(slots, order[i]);
		memcpy(&first, row + 16, sizeof(first));
		sum += *(const uint32_t *) row + first;
	}
	return sum;
}

int
main(int argc, char **argv)
{
	size_t		n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	size_t		width = argc > 2 ? strtoull(argv[2], NULL, 10) : 136;
	int			reps = argc > 3 ? atoi(argv[3]) : 3;
	size_t		rows_per_block;
	size_t		nblocks;
	size_t		slots_per_block = BLOCK_BYTES / SLOT_BYTES;
	char	  **slots;
	uint32_t   *order;
	uint64_t	rng = 88172645463325252ull;
	static const size_t distances[] = {0, 1, 2, 4, 8, 12, 16, 24, 32, 48, 64};

	width = (width + 7) & ~(size_t) 7;
	if (width < 16 || width > BLOCK_BYTES)
	{
		fprintf(stderr, "row bytes must be between 16 and %zu\n", BLOCK_BYTES);
		return 1;
	}
	rows_per_block = BLOCK_BYTES / width;
	nblocks = (n + rows_per_block - 1) / rows_per_block;
	if (nblocks * slots_per_block > ((size_t) 1 << (32 - SLOT_UNIT_BITS)))
	{
		fprintf(stderr, "too many rows for 32-bit locators\n");
		return 1;
	}
	slots = malloc(nblocks * slots_per_block * sizeof(char *));
	order = malloc(n * sizeof(uint32_t));
	if (slots == NULL || order == NULL)
		return 1;

	/* fill the blocks in input order, as the ingest loop does */
	for (size_t b = 0; b < nblocks; b++)
	{
		char	   *block = aligned_alloc(2 << 20, BLOCK_BYTES);

		if (block == NULL)
			return 1;
		(void) madvise(block, BLOCK_BYTES, MADV_HUGEPAGE);
		for (size_t s = 0; s < slots_per_block; s++)
			slots[b * slots_per_block + s] = block + s * SLOT_BYTES;
		for (size_t r = 0; r < rows_per_block && b * rows_per_block + r < n; r++)
		{
			size_t		off = r * width;

			memset(block + off, (int) (r & 0xff), width);
			order[b * rows_per_block + r] =
				(uint32_t) ((b * slots_per_block << SLOT_UNIT_BITS) + (off >> UNIT_SHIFT));
		}
	}
	/* a random order: what sorting random keys gives */
	for (size_t i = n - 1; i > 0; i--)
	{
		size_t		j = next_random(&rng) % (i + 1);
		uint32_t	t = order[i];

		order[i] = order[j];
		order[j] = t;
	}

	printf("rows %zu, row bytes %zu, %.0f MB of rows\n", n, width,
		   (double) nblocks * BLOCK_BYTES / (1 << 20));
	printf("distance,ns_per_row\n");
	for (size_t d = 0; d < sizeof(distances) / sizeof(distances[0]); d++)
	{
		double		best = 1e30;
		uint64_t	check = 0;

		for (int r = 0; r < reps; r++)
		{
			double		t0 = 1e3 * mono_seconds();

			check += walk(slots, order, n, distances[d]);
			if (1e3 * mono_seconds() - t0 < best)
				best = 1e3 * mono_seconds() - t0;
		}
		printf("%zu,%.2f\n", distances[d], best * 1e6 / n);
		if (check == 42)
			putchar(' ');		/* keep the walks from being optimised away */
	}
	return 0;
}
