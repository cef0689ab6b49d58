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
	return (bits & UINT32_C(0x80000000)) ? ~bits : bits ^ UINT32_C(0x80000000);
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
	return (bits & UINT64_C(0x8000000000000000)) ? ~bits : bits ^ UINT64_C(0x8000000000000000);
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

/* Loop over n packed values of C type ctype, storing (key ^ flip, index). */
#define FILL_PAIRS32(ctype, keyexpr) \
	do { \
		const ctype *src = (const ctype *) values; \
		for (size_t i = 0; i < n; i++) \
		{ \
			ctype		v = src[i]; \
			pairs[i] = bs_pack32((keyexpr) ^ flip, (uint32) i); \
		} \
	} while (0)

#define FILL_PAIRS64(ctype, keyexpr) \
	do { \
		const ctype *src = (const ctype *) values; \
		for (size_t i = 0; i < n; i++) \
		{ \
			ctype		v = src[i]; \
			pairs[i].key = (keyexpr) ^ flip; \
			pairs[i].ptr = (uint32) i; \
			pairs[i].pad = 0; \
		} \
	} while (0)

/* Pairs of n contiguous non-null values of a 32-bit-key type. */
void
BitonicKeysFromArray32(Oid typid, const char *values, size_t n,
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

/* Pairs of n contiguous non-null values of a 64-bit-key type. */
void
BitonicKeysFromArray64(Oid typid, const char *values, size_t n,
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

/* Loop over n datums, storing the ascending key of each. */
#define FILL_KEYS(getter, keyexpr) \
	do { \
		for (size_t i = 0; i < n; i++) \
		{ \
			__typeof__(getter(values[0])) v = getter(values[i]); \
			keys[i] = (keyexpr); \
		} \
	} while (0)

/*
 * Ascending keys of n datums of a type with an exact key (32-bit keys
 * zero-extended), one type dispatch for the whole column.  Datums of NULLs
 * are read but their keys are meaningless.
 */
void
BitonicKeysFromDatums(Oid typid, const Datum *values, size_t n, uint64 *keys)
{
	switch (typid)
	{
		case BOOLOID:
			FILL_KEYS(DatumGetBool, (uint64) (v ? 1 : 0));
			break;
		case INT2OID:
			FILL_KEYS(DatumGetInt16, (uint64) key_from_int32(v));
			break;
		case INT4OID:
		case DATEOID:
			FILL_KEYS(DatumGetInt32, (uint64) key_from_int32(v));
			break;
		case OIDOID:
			FILL_KEYS(DatumGetObjectId, (uint64) v);
			break;
		case FLOAT4OID:
			FILL_KEYS(DatumGetFloat4, (uint64) key_from_float4(v));
			break;
		case INT8OID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			FILL_KEYS(DatumGetInt64, key_from_int64(v));
			break;
		case FLOAT8OID:
			FILL_KEYS(DatumGetFloat8, key_from_float8(v));
			break;
		default:
			elog(ERROR, "type %u has no exact key", typid);
	}
}
