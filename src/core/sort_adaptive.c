/*
 * sort_adaptive.c — adaptive bitonic sorting (Bilardi & Nicolau 1989) on
 * the CPU, for both pair shapes.
 *
 * The n pairs, padded to N = 2^k with distinct maximal sentinels, are held
 * as a bitonic tree: a complete binary tree of N - 1 nodes whose in-order
 * traversal followed by one spare node is the sequence.  Node i sits at
 * in-order position i of the initial sequence; odd i are inner nodes, even i
 * leaves.  A node keeps its value and child links together (one cache line
 * holds several nodes), the links first so this file reads them for either
 * pair shape.
 * A merge finds the split index by walking both halves in step and exchanges
 * whole subsequences by swapping child pointers, so a merge of n elements
 * makes fewer than 2n comparisons and the sort fewer than 2 n log2 n.
 *
 * Parallelism: subtrees at depth D (about 2^14 nodes each) are sorted as
 * independent tasks; each merge stage above them runs its top levels one
 * level at a time (merge_step for every node of the level) and then the
 * remaining recursive merges of the depth-D subtrees as independent tasks.
 * Workers never call the hooks; interrupts are checked between batches.
 */
#include "bs_sort.h"
#include "core_alloc.h"
#include "parallel.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* log2 of the node count of the subtrees that are sorted as one task. */
#define AB_TASK_LOG 14
/* Tasks per interrupt check. */
#define AB_TASKS_PER_CHECK 64
/* Below this many pairs the sort stays on the calling thread. */
#define AB_PARALLEL_MIN ((size_t) 1 << 16)

/* Child links of a node (unused in leaves). */
typedef struct ab_links
{
	uint32_t	left;
	uint32_t	right;
} ab_links;

/* The tree: N nodes of node_size bytes, node N - 1 being the spare. */
typedef struct ab_tree
{
	void	   *nodes;
	size_t		node_size;
	size_t		N;
	int			k;				/* N = 2^k */
} ab_tree;

/* The links of node i. */
#define AB_LINKS(tree, i) ((ab_links *) ((char *) (tree)->nodes + (size_t) (i) * (tree)->node_size))

/* One unit of work: a subtree root, its spare slot, its direction. */
typedef struct ab_task
{
	uint32_t	node;
	uint32_t	slot;			/* spare slot; for AB_JOB_WRITE the output position */
	int			dir;
} ab_task;

typedef enum ab_job_kind
{
	AB_JOB_SORT,				/* sort each task's subtree */
	AB_JOB_MERGE_STEP,			/* one level of each task's merge */
	AB_JOB_MERGE,				/* each task's whole (recursive) merge */
	AB_JOB_WRITE				/* write each task's subtree in order */
} ab_job_kind;

/* A batch of tasks of one kind, shared by the workers. */
typedef struct ab_job
{
	ab_tree    *tree;
	ab_task    *tasks;
	ab_job_kind kind;
	void	   *out;			/* output pairs (AB_JOB_WRITE) or input (fill) */
	size_t		n;
	atomic_uint_fast64_t comparisons;
} ab_job;

/* Shape-specific entry points, from adaptive_tree.inc. */
typedef struct ab_shape
{
	size_t		node_size;
	size_t		value_offset;	/* of the pair inside a node */
	size_t		pair_size;
	bs_task_fn	run_tasks;
	bs_task_fn	fill;
} ab_shape;

/* Packed pairs: sentinels (UINT32_MAX, i) are distinct and above every real pair. */
#define AB_PAIR bs_pair32
#define AB_GT(x, y) ((x) > (y))
#define AB_SENTINEL(i) bs_pack32(UINT32_MAX, (uint32_t) (i))
#define AB_NAME(s) ab32_##s
#include "adaptive_tree.inc"
#undef AB_PAIR
#undef AB_GT
#undef AB_SENTINEL
#undef AB_NAME

/*
 * 64-bit-key pairs, ordered by (key, pad, ptr): real pairs have pad 0, so
 * the sentinels (UINT64_MAX, pad 1, i) are above every one of them whatever
 * its pointer (the part sorter's pointers are not the pairs' indexes).
 */
#define AB_PAIR bs_pair64
#define AB_LOW(x) (((uint64_t) (x).pad << 32) | (x).ptr)
#define AB_GT(x, y) (((x).key > (y).key) | (((x).key == (y).key) & (AB_LOW(x) > AB_LOW(y))))
#define AB_SENTINEL(i) ((bs_pair64) {.ptr = (uint32_t) (i), .pad = 1, .key = UINT64_MAX})
#define AB_NAME(s) ab64_##s
#include "adaptive_tree.inc"
#undef AB_PAIR
#undef AB_LOW
#undef AB_GT
#undef AB_SENTINEL
#undef AB_NAME

/* Link node i to its children in the initial complete tree. */
static void
ab_link(void *vtree, size_t b, size_t e)
{
	ab_tree    *tree = (ab_tree *) vtree;

	for (size_t i = b | 1; i < e; i += 2)
	{
		size_t		stride = ((i + 1) & ~i) / 2;	/* lowest set bit of i + 1, halved */

		AB_LINKS(tree, i)->left = (uint32_t) (i - stride);
		AB_LINKS(tree, i)->right = (uint32_t) (i + stride);
	}
}

/*
 * Collect the nodes `depth` levels below `node` with their spare slots and
 * the directions the sort gives them (right halves the other way).
 */
static size_t
ab_collect(const ab_tree *tree, size_t node, size_t slot, int dir, int depth,
		   ab_task *tasks, size_t ntasks)
{
	if (depth == 0)
	{
		tasks[ntasks].node = (uint32_t) node;
		tasks[ntasks].slot = (uint32_t) slot;
		tasks[ntasks].dir = dir;
		return ntasks + 1;
	}
	ntasks = ab_collect(tree, AB_LINKS(tree, node)->left, node, dir, depth - 1,
						tasks, ntasks);
	return ab_collect(tree, AB_LINKS(tree, node)->right, slot, !dir, depth - 1,
					  tasks, ntasks);
}

/* Replace each task by its two children (same direction), in place. */
static size_t
ab_expand(const ab_tree *tree, ab_task *tasks, size_t ntasks)
{
	for (size_t t = ntasks; t-- > 0;)
	{
		ab_task		parent = tasks[t];

		tasks[2 * t].node = AB_LINKS(tree, parent.node)->left;
		tasks[2 * t].slot = parent.node;
		tasks[2 * t].dir = parent.dir;
		tasks[2 * t + 1].node = AB_LINKS(tree, parent.node)->right;
		tasks[2 * t + 1].slot = parent.slot;
		tasks[2 * t + 1].dir = parent.dir;
	}
	return 2 * ntasks;
}

/* Run a job over its tasks in batches, checking for interrupts in between. */
static void
ab_run(ab_job *job, const ab_shape *shape, size_t ntasks, int threads,
	   const bs_hooks *hooks)
{
	bs_parallel_for_checked(threads, ntasks, 1, AB_TASKS_PER_CHECK,
							shape->run_tasks, job, hooks);
}

/* Copy node i's value to out[pos]. */
static void
ab_copy_value(const ab_tree *tree, const ab_shape *shape, size_t i, void *out,
			  size_t pos)
{
	memcpy((char *) out + pos * shape->pair_size,
		   (char *) AB_LINKS(tree, i) + shape->value_offset, shape->pair_size);
}

/*
 * Write the sorted tree to out[0..n): the top `depth` levels here, the
 * subtrees below them as parallel tasks.  Returns the number of tasks.
 */
static size_t
ab_collect_writes(const ab_tree *tree, size_t node, size_t first, int height,
				  int depth, ab_task *tasks, size_t ntasks, const ab_shape *shape,
				  void *out, size_t n)
{
	size_t		half = ((size_t) 1 << (height - 1)) - 1;	/* nodes per child subtree */

	if (depth == 0)
	{
		tasks[ntasks].node = (uint32_t) node;
		tasks[ntasks].slot = (uint32_t) first;
		tasks[ntasks].dir = 0;
		return ntasks + 1;
	}
	ntasks = ab_collect_writes(tree, AB_LINKS(tree, node)->left, first, height - 1,
							   depth - 1, tasks, ntasks, shape, out, n);
	if (first + half < n)
		ab_copy_value(tree, shape, node, out, first + half);
	return ab_collect_writes(tree, AB_LINKS(tree, node)->right, first + half + 1,
							 height - 1, depth - 1, tasks, ntasks, shape, out, n);
}

/* The whole adaptive sort of n pairs of one shape. */
static bs_status
ab_sort(void *pairs, size_t n, const bs_options *opt, const ab_shape *shape)
{
	const bs_hooks *hooks = opt ? opt->hooks : NULL;
	int			threads = opt && n >= AB_PARALLEL_MIN ? opt->threads : 1;
	ab_tree		tree;
	ab_job		job;
	ab_task    *tasks;
	size_t		root,
				ntasks;
	int			depth;

	if (opt && opt->comparisons)
		*opt->comparisons = 0;
	if (n > BS_MAX_PAIRS)
		return BS_ERR_TOO_MANY;
	if (n < 2)
		return BS_OK;

	for (tree.k = 1, tree.N = 2; tree.N < n; tree.k++)
		tree.N *= 2;
	depth = tree.k - 1 > AB_TASK_LOG ? tree.k - 1 - AB_TASK_LOG : 0;
	tree.node_size = shape->node_size;
	tree.nodes = bs_core_alloc(hooks, tree.N * shape->node_size);
	tasks = bs_core_alloc(hooks, ((size_t) 1 << depth) * sizeof(ab_task));
	if (!tree.nodes || !tasks)
	{
		bs_core_free(hooks, tree.nodes);
		bs_core_free(hooks, tasks);
		return BS_ERR_NOMEM;
	}

	job.tree = &tree;
	job.tasks = tasks;
	job.out = pairs;
	job.n = n;
	atomic_init(&job.comparisons, 0);
	bs_parallel_for(threads, 0, tree.N, (size_t) 1 << 16, shape->fill, &job);
	bs_parallel_for(threads, 0, tree.N, (size_t) 1 << 16, ab_link, &tree);
	root = tree.N / 2 - 1;

	/* Sort the subtrees at `depth`, then merge upwards one stage at a time. */
	ntasks = ab_collect(&tree, root, tree.N - 1, 0, depth, tasks, 0);
	job.kind = AB_JOB_SORT;
	ab_run(&job, shape, ntasks, threads, hooks);
	for (int d = depth - 1; d >= 0; d--)
	{
		/* This stage merges at every node at depth d: the top levels one
		 * level at a time, then the subtrees at `depth` as whole merges. */
		ntasks = ab_collect(&tree, root, tree.N - 1, 0, d, tasks, 0);
		for (int level = d; level < depth; level++)
		{
			job.kind = AB_JOB_MERGE_STEP;
			ab_run(&job, shape, ntasks, threads, hooks);
			ntasks = ab_expand(&tree, tasks, ntasks);
		}
		job.kind = AB_JOB_MERGE;
		ab_run(&job, shape, ntasks, threads, hooks);
	}

	/* In-order write-back of the first n values; the spare is the last. */
	job.kind = AB_JOB_WRITE;
	ntasks = ab_collect_writes(&tree, root, 0, tree.k, depth, tasks, 0, shape, pairs, n);
	ab_run(&job, shape, ntasks, threads, hooks);
	if (tree.N - 1 < n)
		ab_copy_value(&tree, shape, tree.N - 1, pairs, tree.N - 1);

	if (opt && opt->comparisons)
		*opt->comparisons = atomic_load(&job.comparisons);
	bs_core_free(hooks, tree.nodes);
	bs_core_free(hooks, tasks);
	return BS_OK;
}

/* Adaptive bitonic sort of packed 32-bit-key pairs. */
bs_status
bs_cpu_adaptive_pairs32(bs_pair32 *pairs, size_t n, const bs_options *opt)
{
	return ab_sort(pairs, n, opt, &ab32_shape);
}

/* Adaptive bitonic sort of 64-bit-key pairs. */
bs_status
bs_cpu_adaptive_pairs64(bs_pair64 *pairs, size_t n, const bs_options *opt)
{
	return ab_sort(pairs, n, opt, &ab64_shape);
}
