/*
 * row_form.c — how a slot's row becomes a minimal tuple in the node's
 * store or staging: a heap or minimal tuple's bytes are copied as they are
 * (from where a minimal tuple's would start); a virtual slot's row (a
 * projection's) is formed in place, without the palloc and copy of
 * heap_form_minimal_tuple.
 *
 * A row type whose columns all have a fixed width (int8, float8, int4,
 * uuid, ...) gives every row without NULLs the same length and every value
 * the same offset: worked out once per row type (BitonicRowLayout), such a
 * row is written value by value, where heap_compute_data_size and
 * heap_fill_tuple would find the same offsets again for each row.
 */
#include "scan/row_form.h"

#include "access/htup_details.h"
#include "access/tupmacs.h"

/* Work out the layout of rows of tupdesc (fixed_len 0 where a width varies, or too many columns). */
static void
plan_layout(BitonicRowLayout *layout, TupleDesc tupdesc)
{
	size_t		hoff = MAXALIGN(SizeofMinimalTupleHeader);
	size_t		off = 0;

	layout->tupdesc = tupdesc;
	layout->fixed_len = 0;
	if (tupdesc->natts > BITONIC_LAYOUT_MAX_COLUMNS)
		return;
	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (att->attlen <= 0 || att->attisdropped)
			return;
		off = att_align_nominal(off, att->attalign);
		layout->offsets[i] = (uint32) (hoff + off);
		off += att->attlen;
	}
	layout->fixed_len = hoff + off;
}

/*
 * Get ready to copy the slot's row as a minimal tuple: its length, and
 * where its bytes are (a heap tuple straight from its buffer: one copy, no
 * palloc); a virtual slot's row is formed by BitonicRowWrite, by layout
 * (worked out for the slot's row type on first use) where it has no NULLs
 * and fixed widths.
 */
void
BitonicRowOpen(TupleTableSlot *slot, BitonicRowLayout *layout, BitonicRowSource *src)
{
	memset(src, 0, sizeof(BitonicRowSource));
	if (TTS_IS_VIRTUAL(slot))
	{
		TupleDesc	tupdesc = slot->tts_tupleDescriptor;
		int			natts = tupdesc->natts;

		slot_getallattrs(slot);
		for (int i = 0; i < natts && !src->hasnull; i++)
			src->hasnull = slot->tts_isnull[i];
		if (layout != NULL && !src->hasnull)
		{
			if (layout->tupdesc != tupdesc)
				plan_layout(layout, tupdesc);
			if (layout->fixed_len > 0)
			{
				src->fixed = layout;
				src->hoff = MAXALIGN(SizeofMinimalTupleHeader);
				src->len = layout->fixed_len;
				return;
			}
		}
		src->hoff = MAXALIGN(SizeofMinimalTupleHeader + (src->hasnull ? BITMAPLEN(natts) : 0));
		src->len = src->hoff + heap_compute_data_size(tupdesc, slot->tts_values, slot->tts_isnull);
	}
	else if (TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot))
	{
		HeapTuple	ht = ExecFetchSlotHeapTuple(slot, false, &src->should_free);

		src->bytes = (const char *) ht->t_data + MINIMAL_TUPLE_OFFSET;
		src->len = ht->t_len - MINIMAL_TUPLE_OFFSET;
		Assert(!src->should_free);
	}
	else
	{
		MinimalTuple mt = ExecFetchSlotMinimalTuple(slot, &src->should_free);

		src->bytes = (const char *) mt;
		src->len = mt->t_len;
	}
}

/*
 * Copy a row's bytes as BitonicRowOpen found them (a minimal tuple's, or a
 * heap tuple's from where a minimal tuple's would start) to row: plain C,
 * for the ingest worker too.
 */
void
BitonicRowCopy(MinimalTuple row, const char *bytes, size_t len)
{
	memcpy(row, bytes, len);
	row->t_len = (uint32) len;
	/* a heap tuple's t_ctid lands in the padding: no version may be read there */
	memset(row->mt_padding, 0, sizeof(row->mt_padding));
	BitonicClearDatumMark(row);
}

/* Write a virtual slot's values without NULLs at the offsets of a fixed layout. */
static void
write_fixed(TupleTableSlot *slot, const BitonicRowLayout *layout, char *row)
{
	TupleDesc	tupdesc = slot->tts_tupleDescriptor;

	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);
		char	   *at = row + layout->offsets[i];

		if (att->attbyval)
			store_att_byval(at, slot->tts_values[i], att->attlen);
		else
			memcpy(at, DatumGetPointer(slot->tts_values[i]), att->attlen);
	}
}

/* Write the slot's row, as BitonicRowOpen found it, to row (src->len bytes). */
void
BitonicRowWrite(TupleTableSlot *slot, const BitonicRowSource *src, MinimalTuple row)
{
	TupleDesc	tupdesc = slot->tts_tupleDescriptor;

	if (src->bytes != NULL)
	{
		BitonicRowCopy(row, src->bytes, src->len);
		return;
	}
	memset(row, 0, src->len);	/* the padding between values too */
	row->t_len = (uint32) src->len;
	HeapTupleHeaderSetNatts(row, tupdesc->natts);
	row->t_hoff = (uint8) (src->hoff + MINIMAL_TUPLE_OFFSET);
	if (src->fixed != NULL)
		write_fixed(slot, src->fixed, (char *) row);	/* t_infomask: no flag to set */
	else
		heap_fill_tuple(tupdesc, slot->tts_values, slot->tts_isnull, (char *) row + src->hoff,
						src->len - src->hoff, &row->t_infomask,
						src->hasnull ? row->t_bits : NULL);
}

/* Free what BitonicRowOpen may have allocated. */
void
BitonicRowClose(BitonicRowSource *src)
{
	if (src->should_free)
		pfree((void *) src->bytes);
}
