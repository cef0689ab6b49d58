/*
 * scan/merge_tree.c — the loser tree's first play (merge_tree.h).
 */
#include "postgres.h"

#include "scan/merge_tree.h"

/* Play the subtree under node; its winner. */
static BitonicMergeEntry
build(uint64 *keys, uint64 *tags, int n, const BitonicMergeEntry *entries, int node,
	  BitonicMergeTie tie, void *arg)
{
	BitonicMergeEntry left,
				right;

	if (node >= n)
		return entries[node - n];
	left = build(keys, tags, n, entries, 2 * node, tie, arg);
	right = build(keys, tags, n, entries, 2 * node + 1, tie, arg);
	if (bs_merge_entry_before(&left, &right, tie, arg))
	{
		keys[node] = right.key;
		tags[node] = right.tag;
		return left;
	}
	keys[node] = left.key;
	tags[node] = left.tag;
	return right;
}

/* Play the tree of n readers from their entries (merge_tree.h). */
void
bs_merge_tree_build(uint64 *keys, uint64 *tags, int n, const BitonicMergeEntry *entries,
					BitonicMergeTie tie, void *arg)
{
	BitonicMergeEntry winner = n == 1 ? entries[0] : build(keys, tags, n, entries, 1, tie, arg);

	keys[0] = winner.key;
	tags[0] = winner.tag;
}
