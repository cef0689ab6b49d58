/*
 * scan/merge_tie.c — two rows of the runs whose first keys are equal,
 * ordered from their records by arithmetic alone (merge_tie.h).
 *
 * A record holds a minimal tuple; its attributes are found as
 * PostgreSQL's deforming finds them (each aligned by its type, a varlena
 * with a short header unaligned, NULLs skipped), but from arrays the
 * backend filled before the thread started: the thread reads no tuple
 * descriptor (whose offset cache PostgreSQL writes) and calls no function
 * of PostgreSQL's.  The values compared are by-value datums of exact keys,
 * and text in byte order whose values need no detoast (the runs' writer
 * checks that: BitonicRunsPut).
 */
#include "scan/merge_tie.h"

#include "access/htup_details.h"
#include "access/tupmacs.h"

/* Alignment in bytes of a type's typalign. */
static uint8
align_bytes(char typalign)
{
	switch (typalign)
	{
		case TYPALIGN_SHORT:
			return ALIGNOF_SHORT;
		case TYPALIGN_INT:
			return ALIGNOF_INT;
		case TYPALIGN_DOUBLE:
			return ALIGNOF_DOUBLE;
		default:
			return 1;
	}
}

/*
 * Whether the columns of a sort whose keys ms computes let ties be decided
 * from the records (the types alone; BitonicMergeTieInit checks the rows'
 * attributes too): the first column exact or text in byte order, the
 * later ones exact.
 */
bool
BitonicMergeTieColumnsAllow(const BitonicMultiSort *ms)
{
	if (!BitonicKeyKindExact(ms->kind) && !ms->text_prefix)
		return false;
	for (int c = 1; c < ms->ncolumns; c++)
		if (ms->tie_keys[c] == NULL || ms->tie_text[c])
			return false;
	return true;
}

/*
 * Fill spec for a sort by nkeys columns (attnos, in rows of tupdesc) whose
 * keys ms computes: false where a tie of the sort needs a comparator (the
 * first column neither exact nor text in byte order, a later column with
 * no exact key, a value not by value, a sort column with a missing value).
 */
bool
BitonicMergeTieInit(BitonicMergeTieSpec *spec, const BitonicMultiSort *ms, int nkeys,
					const AttrNumber *attnos, TupleDesc tupdesc)
{
	int			natts = 0;
	int32		off = 0;

	Assert(nkeys == ms->ncolumns);
	if (!BitonicMergeTieColumnsAllow(ms))
		return false;
	for (int c = 0; c < nkeys; c++)
	{
		Form_pg_attribute attr;

		if (attnos[c] < 1 || attnos[c] > tupdesc->natts)
			return false;
		attr = TupleDescAttr(tupdesc, attnos[c] - 1);
		if (c > 0 && !attr->attbyval)
			return false;
		if (c == 0 && ms->text_prefix && attr->attlen != -1)
			return false;
		/* a row made before the column was added reads its missing value (an earlier one's never) */
		if (attr->atthasmissing)
			return false;
		natts = Max(natts, attnos[c]);
	}

	spec->ncolumns = nkeys;
	spec->columns = palloc(sizeof(BitonicTieColumn) * nkeys);
	for (int c = 0; c < nkeys; c++)
	{
		BitonicTieColumn *col = &spec->columns[c];

		col->att = attnos[c] - 1;
		col->key = c == 0 ? (ms->text_prefix ? NULL : ms->key_of) : ms->tie_keys[c];
		col->descending = ms->ssup[c].ssup_reverse;
		col->nulls_first = ms->ssup[c].ssup_nulls_first;
	}
	spec->natts = natts;
	spec->attlen = palloc(sizeof(int16) * natts);
	spec->alignby = palloc(sizeof(uint8) * natts);
	spec->fixed_off = palloc(sizeof(int32) * natts);
	for (int i = 0; i < natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(tupdesc, i);
		int32		aligned;

		spec->attlen[i] = attr->attlen;
		spec->alignby[i] = align_bytes(attr->attalign);
		aligned = off < 0 ? -1 : (int32) TYPEALIGN(spec->alignby[i], off);
		/* a varlena's start is known only where no padding could come before it */
		spec->fixed_off[i] = attr->attlen > 0 || aligned == off ? aligned : -1;
		off = spec->fixed_off[i] >= 0 && attr->attlen > 0 ? spec->fixed_off[i] + attr->attlen : -1;
	}
	return true;
}

/* Attribute att of a minimal tuple: where its value lies, or NULL for a NULL. */
static const char *
attr_value(const BitonicMergeTieSpec *spec, const char *tuple, int att)
{
	MinimalTuple mt = (MinimalTuple) tuple;
	const char *data = tuple + mt->t_hoff - MINIMAL_TUPLE_OFFSET;
	bool		hasnulls = (mt->t_infomask & HEAP_HASNULL) != 0;
	uint32		off = 0;

	if (att >= (int) (mt->t_infomask2 & HEAP_NATTS_MASK))
		return NULL;			/* added after the row was made: no missing value (init) */
	if (hasnulls && att_isnull(att, mt->t_bits))
		return NULL;
	if (!hasnulls && spec->fixed_off[att] >= 0)
		return data + spec->fixed_off[att];
	for (int i = 0;; i++)
	{
		int16		len = spec->attlen[i];

		if (hasnulls && att_isnull(i, mt->t_bits))
			continue;
		/* a varlena whose first byte is not a pad byte has a short header: not aligned */
		if (len != -1 || ((const uint8 *) data)[off] == 0)
			off = TYPEALIGN(spec->alignby[i], off);
		if (i == att)
			return data + off;
		off += len > 0 ? (uint32) len : len == -1 ? VARSIZE_ANY(data + off) :
			(uint32) strlen(data + off) + 1;
	}
}

/* A by-value datum of attlen bytes at p, as PostgreSQL fetches it. */
static Datum
fetch_by_value(const char *p, int16 attlen)
{
	switch (attlen)
	{
		case 1:
			return CharGetDatum(*p);
		case 2:
			{
				int16		v;

				memcpy(&v, p, sizeof(v));
				return Int16GetDatum(v);
			}
		case 4:
			{
				int32		v;

				memcpy(&v, p, sizeof(v));
				return Int32GetDatum(v);
			}
		default:
			{
				int64		v;

				memcpy(&v, p, sizeof(v));
				return Int64GetDatum(v);
			}
	}
}

/* A value's class: NULLs first, a value, NULLs last. */
static inline uint64
value_rank(const BitonicTieColumn *col, const char *value)
{
	return value != NULL ? 1 : col->nulls_first ? 0 : 2;
}

/*
 * Sort column c (one with an exact key) of the row whose minimal tuple is
 * at tuple, as the thread orders it (DESC flips the key).
 */
BitonicTieKey
BitonicMergeTieKey(const BitonicMergeTieSpec *spec, int c, const char *tuple)
{
	const BitonicTieColumn *col = &spec->columns[c];
	const char *value = attr_value(spec, tuple, col->att);
	BitonicTieKey k;

	Assert(col->key != NULL);
	k.rank = value_rank(col, value);
	k.key = value == NULL ? 0 :
		col->key(fetch_by_value(value, spec->attlen[col->att])) ^ (col->descending ? PG_UINT64_MAX : 0);
	return k;
}

/* Order of two text values in byte order, -1, 0 or 1: memcmp, then the shorter first (as "C"). */
static int
text_bytes_compare(const char *a, const char *b)
{
	size_t		la = VARSIZE_ANY_EXHDR(a);
	size_t		lb = VARSIZE_ANY_EXHDR(b);
	int			r = memcmp(VARDATA_ANY(a), VARDATA_ANY(b), Min(la, lb));

	if (r != 0)
		return r < 0 ? -1 : 1;
	return la == lb ? 0 : (la < lb ? -1 : 1);
}

/*
 * Order of two rows (their minimal tuples) by the sort columns from `from`
 * on: negative, zero or positive as a's row goes before, with or after b's.
 */
int
BitonicMergeTieCompare(const BitonicMergeTieSpec *spec, const char *tuple_a, const char *tuple_b,
					   int from)
{
	for (int c = from; c < spec->ncolumns; c++)
	{
		const BitonicTieColumn *col = &spec->columns[c];
		int			r;

		if (col->key != NULL)
			r = BitonicTieKeyCompare(BitonicMergeTieKey(spec, c, tuple_a),
									 BitonicMergeTieKey(spec, c, tuple_b));
		else
		{
			const char *a = attr_value(spec, tuple_a, col->att);
			const char *b = attr_value(spec, tuple_b, col->att);
			uint64		rank_a = value_rank(col, a);
			uint64		rank_b = value_rank(col, b);

			if (rank_a != rank_b)
				return rank_a < rank_b ? -1 : 1;
			r = a == NULL ? 0 : text_bytes_compare(a, b);
			r = col->descending ? -r : r;
		}
		if (r != 0)
			return r;
	}
	return 0;
}
