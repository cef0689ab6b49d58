/*
 * array_sort.c — gpu_sort(anyarray, descending, nulls_first): the contract
 * of PostgreSQL 18's array_sort, computed by sorting key/pointer pairs.
 */
#include "bitonic_sort.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gpu_sort);

/* Reject what this version cannot sort, with the reason. */
static void
check_sortable(ArrayType *array)
{
	Oid			elemtype = ARR_ELEMTYPE(array);

	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpu_sort does not support %d-dimensional arrays", ARR_NDIM(array)),
				 errhint("Sort a one-dimensional array.")));
	if (BitonicKeyWidthForType(elemtype) == BITONIC_KEY_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpu_sort does not support arrays of type %s", format_type_be(elemtype)),
				 errdetail("Supported element types are int2, int4, int8, float4, float8, bool, oid, date, time, timestamp and timestamptz.")));
}

/* Number of NULL elements of a one-dimensional array. */
static size_t
count_nulls(ArrayType *array, size_t nitems)
{
	bits8	   *bitmap = ARR_NULLBITMAP(array);
	size_t		nulls = 0;

	if (bitmap == NULL)
		return 0;
	for (size_t i = 0; i < nitems; i++)
		if ((bitmap[i / 8] & (1 << (i % 8))) == 0)
			nulls++;
	return nulls;
}

/* Copy one value of width typlen (a power of two up to 8). */
static inline void
copy_value(char *dst, const char *src, int typlen)
{
	switch (typlen)
	{
		case 8:
			*(uint64 *) dst = *(const uint64 *) src;
			break;
		case 4:
			*(uint32 *) dst = *(const uint32 *) src;
			break;
		case 2:
			*(uint16 *) dst = *(const uint16 *) src;
			break;
		default:
			*dst = *src;
			break;
	}
}

/* A result array shaped like the input: same bounds, NULLs first or last. */
static ArrayType *
make_result(ArrayType *input, size_t nitems, size_t nnulls, bool nulls_first,
			int typlen)
{
	size_t		overhead = nnulls ? ARR_OVERHEAD_WITHNULLS(1, nitems) : ARR_OVERHEAD_NONULLS(1);
	size_t		size = overhead + (nitems - nnulls) * typlen;
	ArrayType  *result = (ArrayType *) palloc0(size);

	SET_VARSIZE(result, size);
	result->ndim = 1;
	result->dataoffset = nnulls ? (int32) overhead : 0;
	result->elemtype = ARR_ELEMTYPE(input);
	ARR_DIMS(result)[0] = (int) nitems;
	ARR_LBOUND(result)[0] = ARR_LBOUND(input)[0];
	if (nnulls)
	{
		bits8	   *bitmap = ARR_NULLBITMAP(result);
		size_t		first = nulls_first ? nnulls : 0;
		size_t		last = nulls_first ? nitems : nitems - nnulls;

		for (size_t i = first; i < last; i++)
			bitmap[i / 8] |= 1 << (i % 8);
	}
	return result;
}

/* Sorted copy of the non-null values of `array` into `dst`. */
static void
sort_values(ArrayType *array, size_t nvalues, bool descending, char *dst)
{
	Oid			elemtype = ARR_ELEMTYPE(array);
	const char *src = ARR_DATA_PTR(array);
	int			typlen = get_typlen(elemtype);

	if (BitonicKeyWidthForType(elemtype) == BITONIC_KEY_32)
	{
		bs_pair32  *pairs = MemoryContextAllocHuge(CurrentMemoryContext,
												   Max(nvalues, 1) * sizeof(bs_pair32));

		BitonicKeysFromArray32(elemtype, src, nvalues, descending, pairs);
		BitonicSortPairs32(pairs, nvalues);
		for (size_t i = 0; i < nvalues; i++)
			copy_value(dst + i * typlen, src + (size_t) bs_ptr32(pairs[i]) * typlen, typlen);
	}
	else
	{
		bs_pair64  *pairs = MemoryContextAllocHuge(CurrentMemoryContext,
												   Max(nvalues, 1) * sizeof(bs_pair64));

		BitonicKeysFromArray64(elemtype, src, nvalues, descending, pairs);
		BitonicSortPairs64(pairs, nvalues);
		for (size_t i = 0; i < nvalues; i++)
			copy_value(dst + i * typlen, src + (size_t) pairs[i].ptr * typlen, typlen);
	}
}

/*
 * gpu_sort(anyarray, descending bool DEFAULT false, nulls_first bool DEFAULT NULL)
 *
 * Not STRICT: a NULL nulls_first means the default placement (NULLs first
 * only when descending); a NULL array gives NULL.
 */
Datum
gpu_sort(PG_FUNCTION_ARGS)
{
	ArrayType  *array;
	bool		descending;
	bool		nulls_first;
	size_t		nitems;
	size_t		nnulls;
	ArrayType  *result;
	MemoryContext sort_cxt;
	MemoryContext old_cxt;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("descending must not be null"),
				 errhint("Pass true or false, or leave the argument out.")));
	array = PG_GETARG_ARRAYTYPE_P(0);
	descending = PG_GETARG_BOOL(1);
	nulls_first = PG_ARGISNULL(2) ? descending : PG_GETARG_BOOL(2);

	check_sortable(array);
	if (ARR_NDIM(array) == 0)
		PG_RETURN_ARRAYTYPE_P(array);

	nitems = (size_t) ARR_DIMS(array)[0];
	nnulls = count_nulls(array, nitems);
	result = make_result(array, nitems, nnulls, nulls_first,
						 get_typlen(ARR_ELEMTYPE(array)));

	/* Pairs live in their own context, freed here or by the ERROR path. */
	sort_cxt = AllocSetContextCreate(CurrentMemoryContext, "bitonic_sort gpu_sort",
									 ALLOCSET_DEFAULT_SIZES);
	old_cxt = MemoryContextSwitchTo(sort_cxt);
	sort_values(array, nitems - nnulls, descending, ARR_DATA_PTR(result));
	MemoryContextSwitchTo(old_cxt);
	MemoryContextDelete(sort_cxt);

	PG_RETURN_ARRAYTYPE_P(result);
}
