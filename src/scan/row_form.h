/*
 * scan/row_form.h — how a slot's row becomes a minimal tuple in the
 * node's store or staging (row_form.c).
 */
#ifndef BITONIC_SCAN_ROW_FORM_H
#define BITONIC_SCAN_ROW_FORM_H

#include "bitonic_sort.h"

#include "executor/tuptable.h"

/* The most columns of a row type that a fixed layout is worked out for. */
#define BITONIC_LAYOUT_MAX_COLUMNS 32

/*
 * The shape of rows of one row type where every column has a fixed width:
 * a row without NULLs then has the same length and the same offset for
 * each value, worked out once (row_form.c).
 */
typedef struct BitonicRowLayout
{
	TupleDesc	tupdesc;		/* the row type it was worked out for, or NULL */
	size_t		fixed_len;		/* bytes of such a row without NULLs; 0: not every width fixed */
	uint32		offsets[BITONIC_LAYOUT_MAX_COLUMNS];	/* each value's offset in the row */
} BitonicRowLayout;

/* How a slot's row is copied as a minimal tuple (row_form.c). */
typedef struct BitonicRowSource
{
	const char *bytes;			/* the row's bytes; NULL: a virtual slot's, formed on write */
	size_t		len;			/* bytes of the minimal tuple */
	bool		should_free;	/* bytes were allocated for the copy */
	bool		hasnull;		/* virtual slot: a NULL among its values */
	size_t		hoff;			/* virtual slot: offset of the values */
	const BitonicRowLayout *fixed;	/* virtual slot: formed by this fixed layout, or NULL */
} BitonicRowSource;

extern void BitonicRowOpen(TupleTableSlot *slot, BitonicRowLayout *layout,
						   BitonicRowSource *src);
extern void BitonicRowCopy(MinimalTuple row, const char *bytes, size_t len);
extern void BitonicRowWrite(TupleTableSlot *slot, const BitonicRowSource *src,
							MinimalTuple row);
extern void BitonicRowClose(BitonicRowSource *src);

#endif							/* BITONIC_SCAN_ROW_FORM_H */
