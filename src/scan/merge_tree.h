/*
 * scan/merge_tree.h — the loser tree of the external sort's merge, over
 * entries of (key, tag): a reader's class (NULLs first, a key, NULLs last,
 * ended) and index in the tag, so that one 128-bit compare orders rows
 * whose keys differ, and rows of keys that decide alone, without reading
 * the rows.  Played by the backend (runs.c, where equal keys that do not
 * decide go to the comparators) and by the thread that decides the final
 * merge's order ahead of it (merge_order.c, keys that decide alone only).
 * Node 0 holds the winner; nodes 1 to n - 1 the losers; leaf i is node
 * n + i.
 */
#ifndef BITONIC_SCAN_MERGE_TREE_H
#define BITONIC_SCAN_MERGE_TREE_H

#include "c.h"

/*
 * A reader's current row in the loser tree, ordered by (key, tag): enough to
 * order rows whose keys differ, and rows of keys that decide alone, without
 * reading the readers.
 */
typedef struct BitonicMergeEntry
{
	uint64		key;			/* the row's key; 0 or all ones for a NULL or an ended run */
	uint64		tag;			/* class (NULLs first, key, NULLs last, ended) << 32 | reader */
} BitonicMergeEntry;

/* A reader's class in the merge's order, before its key: see BitonicMergeEntryOf. */
#define RANK_NULLS_FIRST 0
#define RANK_KEY 1
#define RANK_NULLS_LAST 2
#define RANK_ENDED 3

/* A tree entry's class and reader, from its tag. */
#define TAG_RANK(tag) ((uint32) ((tag) >> 32))
#define TAG_READER(tag) ((int) (uint32) (tag))

/*
 * Whether the row of entry a goes before entry b's where their classes and
 * keys are equal and do not decide (the comparators' answer), for arg.
 */
typedef bool (*BitonicMergeTie) (void *arg, const BitonicMergeEntry *a, const BitonicMergeEntry *b);

/*
 * Reader i's entry: ended, or its row's key and NULL flag.  A NULL first
 * takes key 0, a NULL last or an ended run all ones, and the class in the
 * tag's high half sorts them against keys equal to those: so (key, tag)
 * orders the classes, then the keys, then the runs.
 */
static inline BitonicMergeEntry
BitonicMergeEntryOf(int i, bool ended, bool isnull, uint64 key, bool nulls_first)
{
	BitonicMergeEntry e;
	uint32		rank = ended ? RANK_ENDED : !isnull ? RANK_KEY :
		nulls_first ? RANK_NULLS_FIRST : RANK_NULLS_LAST;

	e.key = rank == RANK_KEY ? key : rank == RANK_NULLS_FIRST ? 0 : PG_UINT64_MAX;
	e.tag = (uint64) rank << 32 | (uint32) i;
	return e;
}

/* Whether (key a, tag a) goes before (key b, tag b), without a branch. */
static inline bool
bs_merge_pair_less(uint64 key_a, uint64 tag_a, uint64 key_b, uint64 tag_b)
{
#ifdef HAVE_INT128
	return ((uint128) key_a << 64 | tag_a) < ((uint128) key_b << 64 | tag_b);
#else
	return (key_a < key_b) | ((key_a == key_b) & (tag_a < tag_b));
#endif
}

/*
 * Whether entry a's row goes before entry b's: (key, tag), except that rows
 * of one class and equal keys go to tie where there is one (NULL: keys
 * decide alone).
 */
static inline bool
bs_merge_entry_before(const BitonicMergeEntry *a, const BitonicMergeEntry *b,
					  BitonicMergeTie tie, void *arg)
{
	if (a->key != b->key)
		return a->key < b->key;
	if (tie == NULL || TAG_RANK(a->tag) != TAG_RANK(b->tag) || TAG_RANK(a->tag) == RANK_ENDED)
		return a->tag < b->tag;
	return tie(arg, a, b);
}

/*
 * Reader w has a new entry `up` (a row, or ended): play it up the tree of n
 * readers to the root.  The winner of each node is chosen by masks, not by
 * a branch, which would be mispredicted half the time; only equal keys
 * that do not decide alone branch to tie.
 */
/*
 * (The files that play it are built without GCC's SLP vectorizer, which
 * paired the key's and the tag's masked swaps in SSE registers: a move
 * between register files on each level's dependency chain, and the whole
 * sort of 10M rows at 4 MB, 545 runs, 25% slower.  See the Makefile.)
 */
static inline void
bs_merge_tree_replay(uint64 *keys, uint64 *tags, int n, int w, BitonicMergeEntry up,
					 BitonicMergeTie tie, void *arg)
{
	for (unsigned node = ((unsigned) w + (unsigned) n) / 2; node >= 1; node /= 2)
	{
		uint64		held_key = keys[node];
		uint64		held_tag = tags[node];
		bool		held_first = bs_merge_pair_less(held_key, held_tag, up.key, up.tag);
		uint64		take;
		uint64		key_diff;
		uint64		tag_diff;

		if (unlikely(tie != NULL && held_key == up.key))
		{
			BitonicMergeEntry held = {held_key, held_tag};

			held_first = bs_merge_entry_before(&held, &up, tie, arg);
		}
		/* the loser stays at the node; the winner goes up */
		take = -(uint64) held_first;
		key_diff = (held_key ^ up.key) & take;
		tag_diff = (held_tag ^ up.tag) & take;
		keys[node] = held_key ^ key_diff;
		tags[node] = held_tag ^ tag_diff;
		up.key ^= key_diff;
		up.tag ^= tag_diff;
	}
	keys[0] = up.key;
	tags[0] = up.tag;
}

/*
 * Play the tree of n readers whose entries `entries` holds (n of them):
 * losers at the nodes, the winner at node 0.
 */
extern void bs_merge_tree_build(uint64 *keys, uint64 *tags, int n, const BitonicMergeEntry *entries,
								BitonicMergeTie tie, void *arg);

#endif							/* BITONIC_SCAN_MERGE_TREE_H */
