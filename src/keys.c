/*
 * keys.c — normalisation of fixed-width values to unsigned keys whose
 * unsigned order is PostgreSQL's btree order.
 *
 *   signed integers, date, time, timestamp(tz): sign bit flipped
 *   oid, bool: the value itself
 *   float4/float8: negative -> all bits flipped, otherwise sign bit flipped;
 *                  -0 -> +0; every NaN -> all ones (above +Infinity)
 *   descending: bitwise NOT of the ascending key
 */
#include "bitonic_sort.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "port/pg_bswap.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

/* Key of a signed 32-bit integer. */
static inline uint32
key_from_int32(int32 v)
{
	return (uint32) v ^ UINT32_C(0x80000000);
}

/* Key of a signed 64-bit integer. */
static inline uint64
key_from_int64(int64 v)
{
	return (uint64) v ^ UINT64_C(0x8000000000000000);
}

/* Key of a float4, in PostgreSQL's order (NaN last, -0 = +0). */
static inline uint32
key_from_float4(float4 v)
{
	uint32		bits;

	if (isnan(v))
		return UINT32_MAX;
	if (v == 0)
		v = 0;					/* -0 -> +0 */
	memcpy(&bits, &v, sizeof(bits));
	/* negative: every bit flipped; else the sign bit (no branch: signs mix at random) */
	return bits ^ ((uint32) ((int32) bits >> 31) | UINT32_C(0x80000000));
}

/* Key of a float8, in PostgreSQL's order (NaN last, -0 = +0). */
static inline uint64
key_from_float8(float8 v)
{
	uint64		bits;

	if (isnan(v))
		return UINT64_MAX;
	if (v == 0)
		v = 0;					/* -0 -> +0 */
	memcpy(&bits, &v, sizeof(bits));
	/* negative: every bit flipped; else the sign bit (no branch: signs mix at random) */
	return bits ^ ((uint64) ((int64) bits >> 63) | UINT64_C(0x8000000000000000));
}

/* Width of the exact key of a type, or BITONIC_KEY_NONE. */
BitonicKeyWidth
BitonicKeyWidthForType(Oid typid)
{
	switch (typid)
	{
		case BOOLOID:
		case INT2OID:
		case INT4OID:
		case OIDOID:
		case DATEOID:
		case FLOAT4OID:
			return BITONIC_KEY_32;
		case INT8OID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case FLOAT8OID:
			return BITONIC_KEY_64;
		default:
			return BITONIC_KEY_NONE;
	}
}

/* Loop over packed values [first, first + n) of C type ctype, storing (key ^ flip, index). */
#define FILL_PAIRS32(ctype, keyexpr) \
	do { \
		const ctype *src = (const ctype *) values; \
		for (size_t i = first; i < first + n; i++) \
		{ \
			ctype		v = src[i]; \
			pairs[i] = bs_pack32((keyexpr) ^ flip, (uint32) i); \
		} \
	} while (0)

#define FILL_PAIRS64(ctype, keyexpr) \
	do { \
		const ctype *src = (const ctype *) values; \
		for (size_t i = first; i < first + n; i++) \
		{ \
			ctype		v = src[i]; \
			pairs[i].key = (keyexpr) ^ flip; \
			pairs[i].ptr = (uint32) i; \
			pairs[i].pad = 0; \
		} \
	} while (0)

/*
 * Pairs [first, first + n) of contiguous non-null values of a 32-bit-key
 * type (values and pairs both indexed from the start of the array).
 */
void
BitonicKeysFromArray32(Oid typid, const char *values, size_t first, size_t n,
					   bool descending, bs_pair32 *pairs)
{
	uint32		flip = descending ? UINT32_MAX : 0;

	switch (typid)
	{
		case BOOLOID:
			FILL_PAIRS32(bool, (uint32) (v ? 1 : 0));
			break;
		case INT2OID:
			FILL_PAIRS32(int16, key_from_int32(v));
			break;
		case INT4OID:
		case DATEOID:
			FILL_PAIRS32(int32, key_from_int32(v));
			break;
		case OIDOID:
			FILL_PAIRS32(Oid, (uint32) v);
			break;
		case FLOAT4OID:
			FILL_PAIRS32(float4, key_from_float4(v));
			break;
		default:
			elog(ERROR, "type %u has no 32-bit key", typid);
	}
}

/* Pairs [first, first + n) of contiguous non-null values of a 64-bit-key type. */
void
BitonicKeysFromArray64(Oid typid, const char *values, size_t first, size_t n,
					   bool descending, bs_pair64 *pairs)
{
	uint64		flip = descending ? UINT64_MAX : 0;

	switch (typid)
	{
		case INT8OID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			FILL_PAIRS64(int64, key_from_int64(v));
			break;
		case FLOAT8OID:
			FILL_PAIRS64(float8, key_from_float8(v));
			break;
		default:
			elog(ERROR, "type %u has no 64-bit key", typid);
	}
}

/*
 * Whether a type's key determines its value: every type with an exact key
 * but the floats (whose keys merge -0 with 0 and every NaN).
 */
bool
BitonicKeyIsBijective(Oid typid)
{
	return BitonicKeyWidthForType(typid) != BITONIC_KEY_NONE &&
		typid != FLOAT4OID && typid != FLOAT8OID;
}

/*
 * For a bijective type of 64-bit key (int64 underneath), the constant whose
 * XOR turns a value into its key, and the key back into the value.
 */
uint64
BitonicKeyXor64(Oid typid, bool descending)
{
	if (!BitonicKeyIsBijective(typid) || BitonicKeyWidthForType(typid) != BITONIC_KEY_64)
		elog(ERROR, "type %u has no bijective 64-bit key", typid);
	return UINT64_C(0x8000000000000000) ^ (descending ? UINT64_MAX : 0);
}

/* Loop over n pairs, storing the value of each pair's key as ctype. */
#define VALUES_FROM_KEYS(ctype, keyof, valueexpr) \
	do { \
		ctype	   *out = (ctype *) dst; \
		for (size_t i = 0; i < n; i++) \
		{ \
			__typeof__(keyof(pairs[0])) k = keyof(pairs[i]) ^ flip; \
			out[i] = (ctype) (valueexpr); \
		} \
	} while (0)

#define KEY32(p) bs_key32(p)
#define KEY64(p) ((p).key)

/*
 * Values of n sorted 32-bit-key pairs of a bijective type, packed into dst.
 * dst may lie in the pairs' own memory at or below them: each value is
 * written over pairs already read.
 */
void
BitonicValuesFromPairs32(Oid typid, const bs_pair32 *pairs, size_t n,
						 bool descending, char *dst)
{
	uint32		flip = descending ? UINT32_MAX : 0;

	switch (typid)
	{
		case BOOLOID:
			VALUES_FROM_KEYS(bool, KEY32, k != 0);
			break;
		case INT2OID:
			VALUES_FROM_KEYS(int16, KEY32, (int32) (k ^ UINT32_C(0x80000000)));
			break;
		case INT4OID:
		case DATEOID:
			VALUES_FROM_KEYS(int32, KEY32, (int32) (k ^ UINT32_C(0x80000000)));
			break;
		case OIDOID:
			VALUES_FROM_KEYS(Oid, KEY32, k);
			break;
		default:
			elog(ERROR, "type %u has no bijective 32-bit key", typid);
	}
}

/*
 * Values of n sorted 64-bit-key pairs of a bijective type (all int64
 * underneath), packed into dst; dst may overlap the pairs as above.
 */
void
BitonicValuesFromPairs64(Oid typid, const bs_pair64 *pairs, size_t n,
						 bool descending, char *dst)
{
	uint64		flip = descending ? UINT64_MAX : 0;

	if (!BitonicKeyIsBijective(typid) || BitonicKeyWidthForType(typid) != BITONIC_KEY_64)
		elog(ERROR, "type %u has no bijective 64-bit key", typid);
	VALUES_FROM_KEYS(int64, KEY64, (int64) (k ^ UINT64_C(0x8000000000000000)));
}

/* The key functions of one type with an exact key: one datum's, and a column's. */
typedef void (*KeysFn) (const Datum *values, size_t n, uint64 *keys);
typedef struct ExactKeyFns
{
	BitonicKeyFn one;
	KeysFn		many;
} ExactKeyFns;

/*
 * Define datum_key_<name> (one datum's ascending key) and datum_keys_<name>
 * (a column's, in a loop the compiler can unroll) from one expression of v.
 */
#define DEFINE_EXACT_KEY(name, getter, keyexpr) \
	static uint64 \
	datum_key_##name(Datum d) \
	{ \
		__typeof__(getter(d)) v = getter(d); \
		return (keyexpr); \
	} \
	static void \
	datum_keys_##name(const Datum *values, size_t n, uint64 *keys) \
	{ \
		for (size_t i = 0; i < n; i++) \
		{ \
			__typeof__(getter(values[i])) v = getter(values[i]); \
			keys[i] = (keyexpr); \
		} \
	} \
	static const ExactKeyFns exact_key_##name = {datum_key_##name, datum_keys_##name}

DEFINE_EXACT_KEY(bool, DatumGetBool, (uint64) (v ? 1 : 0));
DEFINE_EXACT_KEY(int16, DatumGetInt16, (uint64) key_from_int32(v));
DEFINE_EXACT_KEY(int32, DatumGetInt32, (uint64) key_from_int32(v));
DEFINE_EXACT_KEY(oid, DatumGetObjectId, (uint64) v);
DEFINE_EXACT_KEY(float4, DatumGetFloat4, (uint64) key_from_float4(v));
DEFINE_EXACT_KEY(int64, DatumGetInt64, key_from_int64(v));
DEFINE_EXACT_KEY(float8, DatumGetFloat8, key_from_float8(v));

/* The key functions of a type with an exact key (32-bit keys zero-extended). */
static const ExactKeyFns *
exact_key_fns(Oid typid)
{
	switch (typid)
	{
		case BOOLOID:
			return &exact_key_bool;
		case INT2OID:
			return &exact_key_int16;
		case INT4OID:
		case DATEOID:
			return &exact_key_int32;
		case OIDOID:
			return &exact_key_oid;
		case FLOAT4OID:
			return &exact_key_float4;
		case INT8OID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return &exact_key_int64;
		case FLOAT8OID:
			return &exact_key_float8;
		default:
			elog(ERROR, "type %u has no exact key", typid);
	}
	return NULL;				/* keep the compiler quiet */
}

/*
 * Ascending keys of n datums of a type with an exact key (32-bit keys
 * zero-extended), one type dispatch for the whole column.  Datums of NULLs
 * are read but their keys are meaningless.
 */
void
BitonicKeysFromDatums(Oid typid, const Datum *values, size_t n, uint64 *keys)
{
	exact_key_fns(typid)->many(values, n, keys);
}

/*
 * The function giving one datum of a type with an exact key its ascending
 * key (as BitonicKeysFromDatums would), so that a per-row caller pays no
 * type dispatch.
 */
BitonicKeyFn
BitonicKeyFunction(Oid typid)
{
	return exact_key_fns(typid)->one;
}

/* Whether a sort column is text or varchar (or a domain over them) ordered by text's default operator. */
bool
BitonicIsTextOrder(Oid typid, Oid sortop)
{
	Oid			base = getBaseType(typid);
	TypeCacheEntry *tc;

	if (base != TEXTOID && base != VARCHAROID)
		return false;
	tc = lookup_type_cache(TEXTOID, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	return sortop == tc->lt_opr || sortop == tc->gt_opr;
}

/*
 * Key of a text value in a collation of byte order ("C", C.UTF-8): its
 * first 8 bytes, big-endian, zero-padded (the order of PostgreSQL's
 * abbreviated key for "C", without its cardinality estimate); equal keys
 * need the full comparison.
 */
uint64
BitonicTextPrefixKey(Datum value)
{
	struct varlena *stored = (struct varlena *) DatumGetPointer(value);
	struct varlena *text = pg_detoast_datum_packed(stored);
	uint64		prefix = BitonicTextPrefixKeyPlain(text);

	if (text != stored)
		pfree(text);
	return prefix;
}

/*
 * BitonicTextPrefixKey of a value that needs no detoast (neither
 * compressed nor stored apart): pure arithmetic, for any thread.
 */
uint64
BitonicTextPrefixKeyPlain(const struct varlena *text)
{
	size_t		len = VARSIZE_ANY_EXHDR(text);
	uint64		prefix = 0;

	Assert(!BitonicTextNeedsDetoast(text));
	memcpy(&prefix, VARDATA_ANY(text), Min(len, sizeof(prefix)));
	return pg_bswap64(prefix);
}
