/*
 * scan/merge_tie.h — the order of two rows of the external sort's runs
 * whose first keys are equal, decided from their records by arithmetic
 * alone, so that the thread that decides the final merge's order
 * (merge_order.c) can tell ties apart without PostgreSQL's comparators:
 * text in byte order as the first column (its values compared whole),
 * and further columns of exact keys (keys.c).  Other sorts have no such
 * tie, and their merge stays the backend's (merge_tie.c).
 */
#ifndef BITONIC_SCAN_MERGE_TIE_H
#define BITONIC_SCAN_MERGE_TIE_H

#include "bitonic_sort.h"

#include "access/tupdesc.h"

/* One sort column as the thread reads it. */
typedef struct BitonicTieColumn
{
	int			att;			/* its attribute, from 0 */
	BitonicKeyFn key;			/* its exact key; NULL: text in byte order */
	bool		descending;
	bool		nulls_first;
} BitonicTieColumn;

/*
 * What the thread needs of the sort's columns and of the rows' attributes
 * up to the last sort column's.
 */
typedef struct BitonicMergeTieSpec
{
	int			ncolumns;
	BitonicTieColumn *columns;
	int			natts;			/* attributes read at most */
	int16	   *attlen;
	uint8	   *alignby;		/* each attribute's alignment, in bytes */
	int32	   *fixed_off;		/* its offset where the row has no NULL, or -1 where that varies */
} BitonicMergeTieSpec;

/*
 * A sort column's value of one row as the thread orders it: its class
 * (NULLs first 0, a value 1, NULLs last 2) above its key.
 */
typedef struct BitonicTieKey
{
	uint64		rank;
	uint64		key;
} BitonicTieKey;

extern bool BitonicMergeTieColumnsAllow(const BitonicMultiSort *ms);
extern bool BitonicMergeTieInit(BitonicMergeTieSpec *spec, const BitonicMultiSort *ms, int nkeys,
								const AttrNumber *attnos, TupleDesc tupdesc);
extern BitonicTieKey BitonicMergeTieKey(const BitonicMergeTieSpec *spec, int c, const char *tuple);
extern int	BitonicMergeTieCompare(const BitonicMergeTieSpec *spec, const char *tuple_a,
								   const char *tuple_b, int from);

/* Order of two tie keys: negative, zero or positive as a goes before, with or after b. */
static inline int
BitonicTieKeyCompare(BitonicTieKey a, BitonicTieKey b)
{
	if (a.rank != b.rank)
		return a.rank < b.rank ? -1 : 1;
	return a.key == b.key ? 0 : (a.key < b.key ? -1 : 1);
}

#endif							/* BITONIC_SCAN_MERGE_TIE_H */
