/*
 * values.c — one column whose key is its value, sorted as plain keys.
 *
 * Where the node's input is one column, it is the sort key, and its type is
 * an int64 underneath whose key is the value XOR a constant (int8, time,
 * timestamp, timestamptz: BitonicKeyIsBijective, 64-bit), a row is its
 * value: the node stores no rows, only each value's key in one array (8
 * bytes a row, against a stored row, a pair and the room the pairs are
 * split into), and counts the NULLs.  The keys are sorted alone (vqsort on
 * the CPU, or the GPU's 8-byte kernels where the GPU takes that shape), and
 * emit turns each key back into its value in a virtual slot.  Equal keys are
 * equal values, so no order of ties can be seen.  `SELECT DISTINCT a`, and
 * `SELECT a … ORDER BY a`, take this path.
 *
 * Past work_mem the values read so far are sorted and written out as a
 * run of the node's external sort (runs.c), and the next run begins: a run
 * of keys alone, 8 bytes a value, its NULLs a count.
 */
#include "scan/values.h"

#include "catalog/pg_type_d.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/memutils.h"

/* One column of a type whose key is its value: its keys, NULLs apart. */
typedef struct BitonicValues
{
	uint64		xor;			/* key = value XOR this; and back */
	bool		nulls_first;
	uint64	   *keys;			/* in state->cxt; NULL before the first value */
	BitonicRegion *region;		/* the keys' allocation */
	size_t		nkeys;
	size_t		cap;
	size_t		nnulls;
	TupleTableSlot *slot;		/* virtual: the values handed out */
} BitonicValues;

/*
 * Whether the node sorts its input as keys alone, set up if so (at
 * ExecInit): one stored column, the one sort key, of a type whose exact
 * 64-bit key is its value, with a sorter of plain keys (BitonicSortsKeysAlone).
 */
bool
BitonicValuesStart(BitonicScanState *state, EState *estate)
{
	TupleDesc	tupdesc = state->slot->tts_tupleDescriptor;
	Form_pg_attribute attr = TupleDescAttr(tupdesc, 0);
	BitonicValues *values;

	if (state->keys.nkeys != 1 || tupdesc->natts != 1 || state->keys.attnos[0] != 1 ||
		!attr->attbyval || attr->attlen != sizeof(int64) ||
		!BitonicKeyIsBijective(attr->atttypid) ||
		BitonicKeyWidthForType(attr->atttypid) != BITONIC_KEY_64 ||
		state->ms.kind != BITONIC_KIND_EXACT64 ||
		!BitonicSortsKeysAlone((size_t) Max(BitonicScanInputRows(state), 1.0)))
		return false;
	values = palloc0(sizeof(BitonicValues));
	values->xor = BitonicKeyXor64(attr->atttypid, state->ms.descending);
	values->nulls_first = state->keys.nulls_first[0];
	values->slot = ExecInitExtraTupleSlot(estate, tupdesc, &TTSOpsVirtual);
	state->values = values;
	return true;
}

/* Bytes the values' keys take. */
size_t
BitonicValuesBytes(BitonicScanState *state)
{
	return state->values->cap * sizeof(uint64);
}

/* The constant whose XOR turns a value into its key, and back. */
uint64
BitonicValuesXor(BitonicScanState *state)
{
	return state->values->xor;
}

/* Forget the values (their memory went with the node's context). */
void
BitonicValuesForget(BitonicScanState *state)
{
	BitonicValues *values = state->values;

	values->keys = NULL;
	values->region = NULL;
	values->nkeys = values->cap = values->nnulls = 0;
}

/*
 * Make room for cap keys, those so far kept: a region of its own (memory
 * kept from an earlier run or sort where there is some, else fresh pages
 * that the store's prefaulter faults in on another core while the keys
 * come in; written first on the backend, the fresh pages' faults were a
 * tenth of a 10M-row window sort), grown by moving its pages where the
 * kernel can, else copied.
 */
static void
grow_keys(BitonicScanState *state, BitonicValues *values, size_t cap)
{
	size_t		bytes = cap * sizeof(uint64);
	BitonicRegion *region = values->region;
	uint64	   *keys;

	/* a run's keys that malloc keeps for the next run (exec.c): from it */
	if (state->runs != NULL && region == NULL && bytes <= BITONIC_RUNS_MALLOC_KEEP)
	{
		values->keys = values->keys == NULL ? MemoryContextAllocHuge(state->cxt, bytes) :
			repalloc_huge(values->keys, bytes);
		values->cap = cap;
		return;
	}
	keys = region == NULL ? NULL : BitonicRegionGrow(region, bytes, state->ms.prefaulter);
	if (keys == NULL)
	{
		keys = BitonicRegionAlloc(state->cxt, bytes, 16, BITONIC_PAGES_SMALL, &region);
		if (values->nkeys > 0)
			memcpy(keys, values->keys, values->nkeys * sizeof(uint64));
		if (values->region != NULL)
			BitonicRegionFreeAfter(values->region, state->ms.prefaulter);
		else if (values->keys != NULL)
			pfree(values->keys);
		values->region = region;
	}
	BitonicStorePrefault(&state->store, keys + values->cap, bytes - values->cap * sizeof(uint64));
	values->keys = keys;
	values->cap = cap;
}

/*
 * Take one input row; false, the row not taken, when the keys would
 * outgrow work_mem (the caller writes a run and starts the next).
 */
bool
BitonicValuesAdd(BitonicScanState *state, TupleTableSlot *slot)
{
	bool		isnull;
	Datum		value = slot_getattr(slot, 1, &isnull);

	return BitonicValuesAddValue(state, value, isnull);
}

/* Take one input row's value (its one column); as BitonicValuesAdd. */
bool
BitonicValuesAddValue(BitonicScanState *state, Datum value, bool isnull)
{
	BitonicValues *values = state->values;

	if (isnull)
	{
		values->nnulls++;
		return true;
	}
	if (values->nkeys == values->cap)
	{
		double		expected = BitonicScanInputRows(state);
		size_t		cap = values->cap == 0 ?
			(size_t) Max(Min(expected * 1.05, (double) MaxAllocHugeSize / sizeof(uint64)), 1024.0) :
			values->cap * 2;

		/* what work_mem leaves beside the runs an external sort has written */
		size_t		room = state->mem_limit > state->runs_bytes + sizeof(uint64) ?
			state->mem_limit - state->runs_bytes : sizeof(uint64);

		if (cap * sizeof(uint64) > room)
			cap = Max(room / sizeof(uint64), values->nkeys + 1);
		if (cap * sizeof(uint64) > room)
			return false;
		grow_keys(state, values, cap);
		state->peak_bytes = Max(state->peak_bytes, cap * sizeof(uint64));
	}
	values->keys[values->nkeys++] = (uint64) DatumGetInt64(value) ^ values->xor;
	return true;
}

/* Store item i of the sorted order (NULLs first or last) in the values' slot. */
static TupleTableSlot *
store_item(BitonicValues *values, size_t i)
{
	TupleTableSlot *slot = values->slot;
	size_t		key_from = values->nulls_first ? values->nnulls : 0;

	ExecClearTuple(slot);
	if (i < key_from || i >= key_from + values->nkeys)
	{
		slot->tts_values[0] = (Datum) 0;
		slot->tts_isnull[0] = true;
	}
	else
	{
		slot->tts_values[0] = Int64GetDatum((int64) (values->keys[i - key_from] ^ values->xor));
		slot->tts_isnull[0] = false;
	}
	return ExecStoreVirtualTuple(slot);
}

/* Sort the keys; the rows in order are then state->ntuples items. */
void
BitonicValuesSort(BitonicScanState *state)
{
	BitonicValues *values = state->values;

	size_t		n = values->nkeys;

	if (n > 1 && BitonicSortsKeysAlone(n))
		BitonicSortKeys64(values->keys, n);
	else if (n > 1)
	{
		/* more values than planned now go to another sorter: as pairs */
		bs_pair64  *pairs = MemoryContextAllocHuge(state->cxt, n * sizeof(bs_pair64));

		for (size_t i = 0; i < n; i++)
			pairs[i] = (bs_pair64) {.ptr = 0, .pad = 0, .key = values->keys[i]};
		BitonicSortPairs64(pairs, n);
		for (size_t i = 0; i < n; i++)
			values->keys[i] = pairs[i].key;
		pfree(pairs);
	}
	state->ntuples = n + values->nnulls;
}

/*
 * The next item whose value differs from the one at state->pos (the node
 * does a Unique: unique.c), forward: a run of equal keys, or of NULLs, is
 * stepped over in the array without a slot per item.
 */
TupleTableSlot *
BitonicValuesNextDistinct(BitonicScanState *state)
{
	BitonicValues *values = state->values;
	size_t		n = state->ntuples;
	size_t		key_from = values->nulls_first ? values->nnulls : 0;
	size_t		next = (size_t) (state->pos + 1);

	if (state->pos >= 0 && next < n)
	{
		size_t		at = (size_t) state->pos;

		if (at < key_from || at >= key_from + values->nkeys)
			next = at < key_from ? key_from : n;	/* past the NULLs */
		else
		{
			size_t		k = at - key_from;

			while (k + 1 < values->nkeys && values->keys[k + 1] == values->keys[k])
				k++;
			next = key_from + k + 1;
		}
	}
	if (next >= n)
	{
		state->pos = (int64) n;
		return ExecClearTuple(values->slot);
	}
	state->pos = (int64) next;
	return store_item(values, next);
}

/* Item pos of the sorted order in the values' slot. */
TupleTableSlot *
BitonicValuesGet(BitonicScanState *state, size_t pos)
{
	return store_item(state->values, pos);
}
