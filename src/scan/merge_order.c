/*
 * scan/merge_order.c — the thread that decides the final merge's order
 * ahead of the backend (merge_order.h).
 *
 * The backend's merge of many runs spent a sixth of its time replaying
 * the loser tree (10M rows at 4 MB, 545 runs) while the second core only
 * touched the runs' pages ahead.  Here a thread plays the tree over cursors
 * of its own, which read each record's key, NULL flag and length where the
 * run is mapped (and, for rows of equal keys, the values the tie needs:
 * merge_tie.c; a cursor keeps its row's second sort column once read, as
 * a row meets others of its key at each level of the tree), and puts
 * each winner's record in a ring, and a run's end
 * after its last; the backend takes them in turn and hands each row out
 * where it lies.  (Handing out reader indices alone, the backend moving
 * its readers on as the thread had, took 40% longer than the backend's own
 * tree: each record's first line came from the other core twice.)  The
 * backend unmaps a run's pages behind the records it handed out, which
 * the thread has left.  A record the thread finds cut short ends its run
 * with a mark, which the backend raises as the reader's error.  The ring
 * is filled by the thread
 * alone and emptied by the backend alone, without a lock; either sleeps
 * only where it waits (the thread on a full ring until it is half empty,
 * the backend on an empty one for 10 ms at most, so that it checks for
 * interrupts).
 */
#include "scan/merge_order.h"

#include "core/monotonic.h"
#include "core/threads.h"

#include <time.h>

/* Longest the backend spins before it sleeps, in nanoseconds. */
#define SPIN_NS 20000


/* Spins between two looks at the clock. */
#define SPINS_PER_CLOCK 64

/* Winners each side hands out or takes before it says so to the other. */
#define BITONIC_MERGE_ORDER_BATCH 32

/* Winners ahead of the one taken whose record the backend asks into its cache. */
#define BITONIC_MERGE_ORDER_PREFETCH 16

/* Longest the backend sleeps before it checks for interrupts, in nanoseconds. */
#define OWNER_SLEEP_NS 10000000

/* Move a cursor to its run's next record, or the run's end (cut: inside a record). */
static void
cursor_next(BitonicMergeCursor *c)
{
	size_t		left = (size_t) (c->end - c->next);
	uint32		t_len;
	size_t		bytes;

	if (left < BITONIC_RECORD_KEY_BYTES + sizeof(uint32))
	{
		c->ended = true;
		c->cut = left > 0;
		return;
	}
	memcpy(&t_len, c->next + BITONIC_RECORD_KEY_BYTES, sizeof(uint32));
	bytes = BitonicRunRecordBytes(t_len);
	if (t_len < MINIMAL_TUPLE_DATA_OFFSET || bytes > left)
	{
		c->ended = true;
		c->cut = true;
		return;
	}
	memcpy(&c->key, c->next, BITONIC_RECORD_KEY_BYTES);
	c->isnull = c->next[BITONIC_RECORD_NULL_FLAG] != 0;
	c->record = c->next;
	c->second_known = false;
	c->next += bytes;
	__builtin_prefetch(c->next);
}

/* The minimal tuple of a cursor's current row. */
static inline const char *
cursor_tuple(const BitonicMergeCursor *c)
{
	return c->record + BITONIC_RECORD_KEY_BYTES;
}

/* A cursor's row's second sort column (exact), read once. */
static inline BitonicTieKey
cursor_second_key(const BitonicMergeOrder *mo, BitonicMergeCursor *c)
{
	if (!c->second_known)
	{
		c->second_key = BitonicMergeTieKey(mo->tie, 1, cursor_tuple(c));
		c->second_known = true;
	}
	return c->second_key;
}

/*
 * The thread's tie: whether entry a's row goes before entry b's where
 * their classes and keys are equal, from the first column the keys left
 * open (the first where they are prefixes of text, else the second), then
 * the earlier run, as the backend's comparators would order them.
 */
static bool
cursors_before(void *arg, const BitonicMergeEntry *ea, const BitonicMergeEntry *eb)
{
	BitonicMergeOrder *mo = (BitonicMergeOrder *) arg;
	int			a = TAG_READER(ea->tag);
	int			b = TAG_READER(eb->tag);
	BitonicMergeCursor *x = &mo->cursors[a];
	BitonicMergeCursor *y = &mo->cursors[b];
	int			from = (x->isnull || mo->key_exact) ? 1 : 0;
	int			r = 0;

	if (from == 1 && mo->tie->ncolumns > 1)
	{
		r = BitonicTieKeyCompare(cursor_second_key(mo, x), cursor_second_key(mo, y));
		from = 2;
	}
	if (r == 0)
		r = BitonicMergeTieCompare(mo->tie, cursor_tuple(x), cursor_tuple(y), from);
	return r != 0 ? r < 0 : a < b;
}

/* The thread's tree's tie: none where keys decide alone. */
static inline BitonicMergeTie
tie_of(const BitonicMergeOrder *mo)
{
	return mo->tie != NULL ? cursors_before : NULL;
}

/* Reader i's entry in the thread's tree. */
static inline BitonicMergeEntry
cursor_entry(const BitonicMergeOrder *mo, int i)
{
	const BitonicMergeCursor *c = &mo->cursors[i];

	return BitonicMergeEntryOf(i, c->ended, c->isnull, c->key, mo->nulls_first);
}

/* Wake whoever sleeps on cond, where `sleeping` says so. */
static void
wake(BitonicMergeOrder *mo, atomic_bool *sleeping, pthread_cond_t *cond)
{
	if (!atomic_load(sleeping))
		return;
	pthread_mutex_lock(&mo->lock);
	pthread_cond_signal(cond);
	pthread_mutex_unlock(&mo->lock);
}

/* Whether the ring is full (for the thread, which alone fills it). */
static inline bool
ring_full(BitonicMergeOrder *mo, unsigned long long put)
{
	/* seq_cst: after the thread says it sleeps, it must see the backend's last count */
	return put - atomic_load(&mo->taken) >= BITONIC_MERGE_ORDER_RING;
}

/* The thread says how many winners it handed out, and wakes the backend where it sleeps. */
static void
publish_put(BitonicMergeOrder *mo, unsigned long long put)
{
	atomic_store_explicit(&mo->put, put, memory_order_seq_cst);
	wake(mo, &mo->owner_sleeping, &mo->done);
}

/*
 * The thread waits for room in the ring, its winners told (spins, then
 * sleeps): false where it is stopped.
 */
static bool
wait_for_room(BitonicMergeOrder *mo, unsigned long long put)
{
	long long	deadline = bs_monotonic_ns() + SPIN_NS;

	publish_put(mo, put);
	for (int spins = 1; ring_full(mo, put); spins++)
	{
		if (atomic_load(&mo->stop))
			return false;
		if (spins % SPINS_PER_CLOCK == 0 && bs_monotonic_ns() > deadline)
		{
			pthread_mutex_lock(&mo->lock);
			atomic_store(&mo->thread_sleeping, true);
			while (!atomic_load(&mo->stop) && ring_full(mo, put))
				pthread_cond_wait(&mo->wake, &mo->lock);
			atomic_store(&mo->thread_sleeping, false);
			pthread_mutex_unlock(&mo->lock);
		}
		else
			bs_spin_pause();
	}
	return !atomic_load(&mo->stop);
}

/* The thread puts entry e in the ring: false where it is stopped while it waits for room. */
static inline bool
put_entry(BitonicMergeOrder *mo, unsigned long long *put, uint64 e)
{
	if (*put - mo->taken_seen_by_thread >= BITONIC_MERGE_ORDER_RING)
	{
		mo->taken_seen_by_thread = atomic_load_explicit(&mo->taken, memory_order_acquire);
		if (*put - mo->taken_seen_by_thread >= BITONIC_MERGE_ORDER_RING)
		{
			if (!wait_for_room(mo, *put))
				return false;
			mo->taken_seen_by_thread = atomic_load_explicit(&mo->taken, memory_order_acquire);
		}
	}
	mo->ring[*put % BITONIC_MERGE_ORDER_RING] = e;
	if (++*put % BITONIC_MERGE_ORDER_BATCH == 0)
		publish_put(mo, *put);
	return true;
}

/* Thread body: hand out the winners' records in order, and each run's end after its last. */
static void *
merge_order_main(void *arg)
{
	BitonicMergeOrder *mo = (BitonicMergeOrder *) arg;
	unsigned long long put = 0;

	while (TAG_RANK(mo->tags[0]) != RANK_ENDED)
	{
		int			w = TAG_READER(mo->tags[0]);
		BitonicMergeCursor *c = &mo->cursors[w];

		if (!put_entry(mo, &put, (uint64) w << 48 | (uint64) (uintptr_t) c->record))
			return NULL;
		cursor_next(c);
		if (c->ended && !put_entry(mo, &put, (uint64) w << 48 |
								   (uint64) (uintptr_t) (c->cut ? BITONIC_MERGE_ORDER_CUT : NULL)))
			return NULL;
		bs_merge_tree_replay(mo->keys, mo->tags, mo->n, w, cursor_entry(mo, w), tie_of(mo), mo);
	}
	publish_put(mo, put);
	atomic_store(&mo->ended, true);
	wake(mo, &mo->owner_sleeping, &mo->done);
	return NULL;
}

/*
 * Start the thread over the merge's readers (mo->n of them, every one
 * mapped or ended, each at its current row, none of keys alone), with
 * mo's cursors and tree allocated for as many, ties decided by tie (NULL
 * where keys decide alone; key_exact: equal keys are equal first
 * columns): false where it could not start (the backend then plays its
 * own tree, which nothing has moved yet).
 */
bool
BitonicMergeOrderStart(BitonicMergeOrder *mo, const BitonicRunReader *readers, bool nulls_first,
					   const BitonicMergeTieSpec *tie, bool key_exact)
{
	BitonicMergeEntry *entries = palloc(sizeof(BitonicMergeEntry) * mo->n);

	mo->nulls_first = nulls_first;
	mo->tie = tie;
	mo->key_exact = key_exact;
	for (int i = 0; i < mo->n; i++)
	{
		const BitonicRunReader *reader = &readers[i];
		BitonicMergeCursor *c = &mo->cursors[i];

		Assert(!reader->keys_only);	/* keys alone are handed out by the backend's readers */
		Assert(reader->file == RUN_FILE_NONE || reader->map != NULL);
		c->ended = reader->file == RUN_FILE_NONE;
		c->cut = false;
		c->record = c->ended ? NULL : (const char *) reader->tuple - BITONIC_RECORD_KEY_BYTES;
		c->next = c->ended ? NULL : reader->data + reader->pos;
		c->end = c->ended ? NULL : reader->data + reader->len;
		c->key = reader->key;
		c->isnull = reader->isnull;
		c->second_known = false;
		entries[i] = cursor_entry(mo, i);
	}
	bs_merge_tree_build(mo->keys, mo->tags, mo->n, entries, tie_of(mo), mo);
	pfree(entries);
	atomic_init(&mo->put, 0);
	atomic_init(&mo->taken, 0);
	mo->put_seen = 0;
	mo->taken_own = 0;
	mo->taken_seen_by_thread = 0;
	atomic_init(&mo->ended, false);
	atomic_init(&mo->stop, false);
	atomic_init(&mo->thread_sleeping, false);
	atomic_init(&mo->owner_sleeping, false);
	mo->running = bs_thread_start_synced(&mo->thread, merge_order_main, mo, &mo->lock, &mo->wake,
										 &mo->done);
	return mo->running;
}

/*
 * Whether a winner is there to take, or the thread ended (the backend looks
 * again): the end first, so that the count seen after it is the last.
 */
static inline bool
owner_ready(BitonicMergeOrder *mo)
{
	bool		ended = atomic_load(&mo->ended);

	mo->put_seen = atomic_load_explicit(&mo->put, memory_order_acquire);
	return mo->put_seen != mo->taken_own || ended;
}

/* The backend sleeps until a winner is there or the thread ended, OWNER_SLEEP_NS at most. */
static void
owner_sleep(BitonicMergeOrder *mo)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += OWNER_SLEEP_NS;
	if (until.tv_nsec >= 1000000000L)
	{
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&mo->lock);
	atomic_store(&mo->owner_sleeping, true);
	if (!owner_ready(mo))
		(void) pthread_cond_timedwait(&mo->done, &mo->lock, &until);
	atomic_store(&mo->owner_sleeping, false);
	pthread_mutex_unlock(&mo->lock);
}

/* Record of ring entry e (NULL: its run's end). */
static inline const char *
entry_record(uint64 e)
{
	return (const char *) (uintptr_t) (e & ((UINT64CONST(1) << 48) - 1));
}

/*
 * The next winner's reader index, its record in *record (NULL: the run
 * ended); BITONIC_MERGE_ORDER_END once every run is read, or
 * BITONIC_MERGE_ORDER_WAITED where none came within 10 ms.  The backend
 * looks at the thread's count only where it took all it saw, and says
 * its own a batch at a time: a count read or written at every row moved
 * its cache line between the cores at every row.
 */
int
BitonicMergeOrderNext(BitonicMergeOrder *mo, const char **record)
{
	unsigned long long taken = mo->taken_own;
	long long	deadline = 0;
	uint64		e;

	if (mo->put_seen == taken)
	{
		for (int spins = 1; !owner_ready(mo); spins++)
		{
			if (spins % SPINS_PER_CLOCK != 0)
				bs_spin_pause();
			else if (deadline == 0)
				deadline = bs_monotonic_ns() + SPIN_NS;
			else if (bs_monotonic_ns() > deadline)
			{
				owner_sleep(mo);
				if (!owner_ready(mo))
					return BITONIC_MERGE_ORDER_WAITED;
				break;
			}
		}
		/* ready with nothing to take: the thread ended */
		if (mo->put_seen == taken)
			return BITONIC_MERGE_ORDER_END;
	}
	e = mo->ring[taken % BITONIC_MERGE_ORDER_RING];
	*record = entry_record(e);
	/* the record handed out some rows on: the thread read it on its core */
	if (mo->put_seen > taken + BITONIC_MERGE_ORDER_PREFETCH)
	{
		const char *p = entry_record(mo->ring[(taken + BITONIC_MERGE_ORDER_PREFETCH) %
											  BITONIC_MERGE_ORDER_RING]);

		__builtin_prefetch(p);
		__builtin_prefetch(p + 64);
	}
	mo->taken_own = ++taken;
	if (taken % BITONIC_MERGE_ORDER_BATCH == 0)
	{
		atomic_store_explicit(&mo->taken, taken, memory_order_seq_cst);
		/* the thread sleeps on a full ring until it is half empty */
		if (atomic_load(&mo->thread_sleeping) &&
			mo->put_seen - taken <= BITONIC_MERGE_ORDER_RING / 2)
			wake(mo, &mo->thread_sleeping, &mo->wake);
	}
	return (int) (e >> 48);
}

/* Stop and join the thread (nothing where it is not running). */
void
BitonicMergeOrderStop(BitonicMergeOrder *mo)
{
	if (!mo->running)
		return;
	atomic_store(&mo->stop, true);
	pthread_mutex_lock(&mo->lock);
	pthread_cond_signal(&mo->wake);
	pthread_mutex_unlock(&mo->lock);
	bs_thread_join_synced(mo->thread, &mo->lock, &mo->wake, &mo->done);
	mo->running = false;
}
