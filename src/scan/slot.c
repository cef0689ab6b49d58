/*
 * slot.c — the slot the BitonicSort node returns when its output
 * columns are its stored columns in another order or repeated (a scan adds
 * the sort key `c COLLATE "C"` as a second copy of c, say): each output
 * column names a stored column, and the stored row is deformed only when a
 * consumer reads it, as with a minimal-tuple slot.  Everything else (clear,
 * materialize, copies) is the virtual slot's, once every column is read.
 */
#include "scan/slot.h"

#include "nodes/nodeFuncs.h"

/* A virtual slot that reads its values from a row slot through a column map. */
typedef struct BitonicMappedSlot
{
	VirtualTupleTableSlot base;
	TupleTableSlot *row;		/* slot holding the stored row; NULL once copied */
	const AttrNumber *map;		/* output column i is stored column map[i] */
	AttrNumber *row_natts;		/* stored columns to deform for the first i outputs */
} BitonicMappedSlot;

/* getsomeattrs: deform the stored row as far as the first natts outputs need. */
static void
mapped_getsomeattrs(TupleTableSlot *slot, int natts)
{
	BitonicMappedSlot *mslot = (BitonicMappedSlot *) slot;
	TupleTableSlot *row = mslot->row;

	Assert(row != NULL);
	slot_getsomeattrs(row, mslot->row_natts[natts]);
	for (int i = slot->tts_nvalid; i < natts; i++)
	{
		slot->tts_values[i] = row->tts_values[mslot->map[i] - 1];
		slot->tts_isnull[i] = row->tts_isnull[mslot->map[i] - 1];
	}
	slot->tts_nvalid = natts;
}

/* clear: forget the row, and free what materialize copied. */
static void
mapped_clear(TupleTableSlot *slot)
{
	((BitonicMappedSlot *) slot)->row = NULL;
	TTSOpsVirtual.clear(slot);
}

/* materialize: every column read, by-reference values copied into the slot. */
static void
mapped_materialize(TupleTableSlot *slot)
{
	slot_getallattrs(slot);
	((BitonicMappedSlot *) slot)->row = NULL;
	TTSOpsVirtual.materialize(slot);
}

/* copyslot: another slot's values, copied. */
static void
mapped_copyslot(TupleTableSlot *dstslot, TupleTableSlot *srcslot)
{
	((BitonicMappedSlot *) dstslot)->row = NULL;
	TTSOpsVirtual.copyslot(dstslot, srcslot);
}

/* copy_heap_tuple: a heap tuple formed from every column. */
static HeapTuple
mapped_copy_heap_tuple(TupleTableSlot *slot)
{
	slot_getallattrs(slot);
	return TTSOpsVirtual.copy_heap_tuple(slot);
}

/* copy_minimal_tuple: a minimal tuple formed from every column. */
static MinimalTuple
mapped_copy_minimal_tuple(BITONIC_COPY_MINIMAL_ARGS)
{
	slot_getallattrs(slot);
	return BITONIC_COPY_MINIMAL_CALL(TTSOpsVirtual, slot);
}

/* init: nothing beyond the virtual slot's. */
static void
mapped_init(TupleTableSlot *slot)
{
	TTSOpsVirtual.init(slot);
}

/* release: nothing beyond the virtual slot's. */
static void
mapped_release(TupleTableSlot *slot)
{
	TTSOpsVirtual.release(slot);
}

/* getsysattr: the output row has no system columns, as for a virtual slot. */
static Datum
mapped_getsysattr(TupleTableSlot *slot, int attnum, bool *isnull)
{
	return TTSOpsVirtual.getsysattr(slot, attnum, isnull);
}

const TupleTableSlotOps BitonicMappedSlotOps = {
	.base_slot_size = sizeof(BitonicMappedSlot),
	.init = mapped_init,
	.release = mapped_release,
	.clear = mapped_clear,
	.getsomeattrs = mapped_getsomeattrs,
	.getsysattr = mapped_getsysattr,
	.materialize = mapped_materialize,
	.copyslot = mapped_copyslot,
	.get_heap_tuple = NULL,
	.get_minimal_tuple = NULL,
	.copy_heap_tuple = mapped_copy_heap_tuple,
	.copy_minimal_tuple = mapped_copy_minimal_tuple,
};

/*
 * The stored column behind each output column of a plan's target list, when
 * every entry is a stored column (INDEX_VAR), relabelled or not; else NULL.
 */
AttrNumber *
BitonicOutputColumnMap(List *targetlist)
{
	AttrNumber *map = palloc(sizeof(AttrNumber) * Max(list_length(targetlist), 1));
	ListCell   *lc;

	foreach(lc, targetlist)
	{
		Expr	   *expr = lfirst_node(TargetEntry, lc)->expr;

		while (IsA(expr, RelabelType))
			expr = ((RelabelType *) expr)->arg;
		if (!IsA(expr, Var) || ((Var *) expr)->varno != INDEX_VAR ||
			((Var *) expr)->varattno <= 0)
		{
			pfree(map);
			return NULL;
		}
		map[foreach_current_index(lc)] = ((Var *) expr)->varattno;
	}
	return map;
}

/* A mapped slot of descriptor desc over the row slot, outputs per map. */
TupleTableSlot *
BitonicMappedSlotCreate(EState *estate, TupleDesc desc, TupleTableSlot *row,
						const AttrNumber *map)
{
	TupleTableSlot *slot = ExecInitExtraTupleSlot(estate, desc, &BitonicMappedSlotOps);
	BitonicMappedSlot *mslot = (BitonicMappedSlot *) slot;

	mslot->map = map;
	mslot->row_natts = palloc0(sizeof(AttrNumber) * (desc->natts + 1));
	for (int i = 0; i < desc->natts; i++)
		mslot->row_natts[i + 1] = Max(mslot->row_natts[i], map[i]);
	return slot;
}

/* Show the row slot's current row through the mapped slot (empty if it is). */
TupleTableSlot *
BitonicMappedSlotShow(TupleTableSlot *slot, TupleTableSlot *row)
{
	ExecClearTuple(slot);
	if (TupIsNull(row))
		return slot;
	((BitonicMappedSlot *) slot)->row = row;
	slot->tts_flags &= ~TTS_FLAG_EMPTY;
	return slot;
}
