/*
 * array_sort.c — gpu_sort(anyarray, descending, nulls_first): the contract
 * of PostgreSQL 18's array_sort, computed by sorting key/pointer pairs.
 */
#include "bitonic_sort.h"

#include "catalog/pg_collation_d.h"
#include "core/parallel.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

PG_FUNCTION_INFO_V1(gpu_sort);

/*
 * Values per task of a pass (a cancel waits for the task each thread runs:
 * 256k random reads of a gather take about 8 ms), and how far ahead a
 * gather prefetches.
 */
#define GATHER_GRAIN ((size_t) 1 << 18)
#define GATHER_PREFETCH 16
/* Values a pass handles between two interrupt checks (a cancel waits for a task only). */
#define PASS_BATCH ((size_t) 1 << 23)
/* Elements the backend's own loops handle between two interrupt checks, less one (a mask). */
#define CHECK_MASK ((size_t) 0xffff)
/* Slices added to a generic sort per call. */
#define ADD_BATCH ((size_t) 1 << 16)

/* The default btree ordering operator of a type, or an ERROR saying there is none. */
static Oid
ordering_operator(Oid typid, bool descending)
{
	TypeCacheEntry *tc = lookup_type_cache(typid, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	Oid			op = descending ? tc->gt_opr : tc->lt_opr;

	if (!OidIsValid(op))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("gpu_sort does not support arrays of type %s", format_type_be(typid)),
				 errdetail("Type %s has no default btree operator class.", format_type_be(typid)),
				 errhint("Sort arrays of a type that ORDER BY can sort.")));
	return op;
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

/*
 * A result array shaped like the input: same bounds, NULLs first or last,
 * with `room` bytes at least from the start of its values for the sort.
 */
static ArrayType *
make_result(ArrayType *input, size_t nitems, size_t nnulls, bool nulls_first,
			int typlen, size_t room)
{
	size_t		overhead = nnulls ? ARR_OVERHEAD_WITHNULLS(1, nitems) : ARR_OVERHEAD_NONULLS(1);
	size_t		size = overhead + (nitems - nnulls) * typlen;
	ArrayType  *result = (ArrayType *) BitonicAllocLarge(CurrentMemoryContext,
														 Max(size, overhead + room));

	/* the values are all written by the sort: only the header and bitmap need zeroes */
	memset(result, 0, overhead);
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

/*
 * The pairs of a sort of fixed-width values: built from src, then read to
 * gather the values into dst by pointer (dst[i] = src[pointer of pair i]).
 */
typedef struct PairsJob
{
	Oid			elemtype;
	const char *src;
	char	   *dst;
	int			typlen;
	bool		descending;
	bs_pair32  *pairs32;		/* one of the two */
	bs_pair64  *pairs64;
	uint64		key_xor;		/* keys alone: value XOR key_xor is the key */
} PairsJob;

/* Build pairs [begin, end) from the values (a task of bs_parallel_for). */
static void
build_pairs(void *ctx, size_t begin, size_t end)
{
	const PairsJob *job = (const PairsJob *) ctx;

	if (job->pairs32)
		BitonicKeysFromArray32(job->elemtype, job->src, begin, end - begin,
							   job->descending, job->pairs32);
	else
		BitonicKeysFromArray64(job->elemtype, job->src, begin, end - begin,
							   job->descending, job->pairs64);
}

/* Pointer of pair i of a gather. */
static inline size_t
gather_ptr(const PairsJob *job, size_t i)
{
	return job->pairs32 ? bs_ptr32(job->pairs32[i]) : job->pairs64[i].ptr;
}

/* Gather values [begin, end) of the output (a task of bs_parallel_for). */
static void
gather_values(void *ctx, size_t begin, size_t end)
{
	const PairsJob *job = (const PairsJob *) ctx;

	for (size_t i = begin; i < end; i++)
	{
		if (i + GATHER_PREFETCH < end)
			__builtin_prefetch(job->src + gather_ptr(job, i + GATHER_PREFETCH) * job->typlen);
		copy_value(job->dst + i * job->typlen, job->src + gather_ptr(job, i) * job->typlen,
				   job->typlen);
	}
}

/* dst[i] = src[i] XOR key_xor over [begin, end): keys from values, or back (a task of bs_parallel_for). */
static void
xor_values(void *ctx, size_t begin, size_t end)
{
	const PairsJob *job = (const PairsJob *) ctx;
	const uint64 *src = (const uint64 *) job->src;
	uint64	   *dst = (uint64 *) job->dst;

	for (size_t i = begin; i < end; i++)
		dst[i] = src[i] ^ job->key_xor;
}

/* Decode the sorted keys [begin, end) into their values, in order (see sort_values). */
static void
decode_values(void *ctx, size_t begin, size_t end)
{
	const PairsJob *job = (const PairsJob *) ctx;
	char	   *dst = job->dst + begin * job->typlen;

	if (job->pairs32)
		BitonicValuesFromPairs32(job->elemtype, job->pairs32 + begin, end - begin,
								 job->descending, dst);
	else
		BitonicValuesFromPairs64(job->elemtype, job->pairs64 + begin, end - begin,
								 job->descending, dst);
}

/*
 * fn over values [0, n) on up to `threads` threads, in tasks of
 * GATHER_GRAIN: a cancel stops the threads after the task each runs; with
 * one thread the values are handled in order.
 */
static void
run_pass(size_t n, int threads, bs_task_fn fn, PairsJob *job)
{
	bs_parallel_for_checked(threads, n, GATHER_GRAIN, PASS_BATCH, fn, job, BitonicCoreHooks());
}

/* Check for interrupts at every 64k-th step i of one of the backend's long loops. */
static inline void
check_every(size_t i)
{
	if ((i & CHECK_MASK) == CHECK_MASK)
		CHECK_FOR_INTERRUPTS();
}

/* Bytes of the pairs of n values of a type with an exact key. */
static size_t
pairs_bytes(Oid elemtype, size_t n)
{
	return Max(n, 1) * (BitonicKeyWidthForType(elemtype) == BITONIC_KEY_32 ?
						sizeof(bs_pair32) : sizeof(bs_pair64));
}

/*
 * Whether n values of this type are sorted as their keys alone: a 64-bit
 * key that determines the value (equal keys are equal values, so no
 * pointer is needed) and a sorter of plain keys: the GPU's 8-byte kernels,
 * or vqsort on the CPU (BitonicSortsKeysAlone).
 */
static bool
keys_alone(Oid elemtype, size_t n)
{
	return BitonicKeyIsBijective(elemtype) &&
		BitonicKeyWidthForType(elemtype) == BITONIC_KEY_64 && BitonicSortsKeysAlone(n);
}

/*
 * Room a sort of n values needs past the start of the result's values: for a
 * type whose keys are its values, the pairs themselves, 16-byte aligned;
 * none for keys alone, which take the values' own places.
 */
static size_t
result_room(Oid elemtype, size_t n)
{
	if (keys_alone(elemtype, n))
		return 0;
	return BitonicKeyIsBijective(elemtype) ? pairs_bytes(elemtype, n) + 16 : 0;
}

/*
 * Sorted copy of n values sorted as their keys alone (keys_alone): each key
 * is its value XOR a constant, written into `pinned` where the GPU sorts
 * them (pinned_pairs), else into dst, sorted there and turned back into
 * dst: two streaming passes and a sort of plain 64-bit keys (half the bytes
 * of pairs), in the result's memory only where not on the GPU.
 */
static void
sort_keys_alone(ArrayType *array, size_t n, bool descending, char *dst, void *pinned)
{
	Oid			elemtype = ARR_ELEMTYPE(array);
	char	   *keys = pinned ? (char *) pinned : dst;
	PairsJob	job = {elemtype, ARR_DATA_PTR(array), keys, sizeof(uint64), descending,
					   NULL, NULL, BitonicKeyXor64(elemtype, descending)};

	run_pass(n, bitonic_sort_cpu_threads, xor_values, &job);
	BitonicSortKeys64((uint64 *) keys, n);
	job.src = keys;
	job.dst = dst;
	run_pass(n, bitonic_sort_cpu_threads, xor_values, &job);
}

/*
 * Page-locked memory for the pairs (or keys alone) of a sort of n values
 * that goes to the GPU (pinned_pairs.c), lent until the current memory
 * context goes; NULL where the sort runs on the CPU.
 */
static void *
pinned_pairs(Oid elemtype, size_t n)
{
	if (n < 2)
		return NULL;
	if (keys_alone(elemtype, n))
		return BitonicPinnedPairs(n * sizeof(uint64), false, n);
	return BitonicPinnedPairs(pairs_bytes(elemtype, n),
							  BitonicKeyWidthForType(elemtype) == BITONIC_KEY_64, n);
}

/*
 * Sorted copy of the non-null values of `array` into `dst`.  The pairs are
 * built in `pinned` where the GPU sorts them (pinned_pairs).  Otherwise,
 * for a type whose keys are its values, in dst's own memory (which has
 * result_room for them), the sorted keys decoded over them in place: no
 * memory beyond the result, and no reads by pointer.
 */
static void
sort_values(ArrayType *array, size_t nvalues, bool descending, char *dst, void *pinned)
{
	Oid			elemtype = ARR_ELEMTYPE(array);
	bool		narrow = BitonicKeyWidthForType(elemtype) == BITONIC_KEY_32;
	bool		bijective = BitonicKeyIsBijective(elemtype);
	BitonicRegion *region = NULL;
	void	   *pairs;
	PairsJob	job;

	if (keys_alone(elemtype, nvalues))
	{
		sort_keys_alone(array, nvalues, descending, dst, pinned);
		return;
	}
	if (pinned)
		pairs = pinned;
	else if (bijective)
		pairs = (void *) TYPEALIGN(16, dst);
	else
		pairs = BitonicAllocPairs(CurrentMemoryContext, pairs_bytes(elemtype, nvalues),
								  BITONIC_PAGES_HUGE, &region);
	job = (PairsJob) {elemtype, ARR_DATA_PTR(array), dst, get_typlen(elemtype), descending,
					  narrow ? pairs : NULL, narrow ? NULL : pairs, 0};

	/* the pairs are fresh memory: every core builds (and faults in) a share */
	run_pass(nvalues, bitonic_sort_cpu_threads, build_pairs, &job);
	if (narrow)
		BitonicSortPairs32(job.pairs32, nvalues);
	else
		BitonicSortPairs64(job.pairs64, nvalues);

	if (bijective)
	{
		/* in place, values are written over pairs already read: in order; else on every core */
		run_pass(nvalues, pinned ? bitonic_sort_cpu_threads : 1, decode_values, &job);
	}
	else
	{
		/* random reads of the values: every core keeps some in flight */
		run_pass(nvalues, bitonic_sort_cpu_threads, gather_values, &job);
		if (region)
			BitonicRegionFree(region);
	}
}

/* Element (or sub-array) values of a generic sort, read by the tie pass. */
typedef struct SliceKeys
{
	Datum	   *values;
	bool	   *nulls;
} SliceKeys;

/* Tie-pass callback: the value of slice `item`. */
static void
fetch_slice(void *arg, uint32 item, int column, Datum *value, bool *isnull)
{
	SliceKeys  *keys = (SliceKeys *) arg;

	*value = keys->values[item];
	*isnull = keys->nulls[item];
}

/* The sub-arrays along the first dimension of a multi-dimensional array, as array datums. */
static void
make_slices(ArrayType *array, Datum *elems, bool *nulls, int nslices, int stride,
			SliceKeys *keys)
{
	Oid			elemtype = ARR_ELEMTYPE(array);
	int16		typlen;
	bool		typbyval;
	char		typalign;

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	keys->values = palloc(sizeof(Datum) * Max(nslices, 1));
	keys->nulls = palloc0(sizeof(bool) * Max(nslices, 1));
	for (int i = 0; i < nslices; i++)
	{
		keys->values[i] = PointerGetDatum(construct_md_array(elems + (size_t) i * stride,
															 nulls + (size_t) i * stride,
															 ARR_NDIM(array) - 1,
															 ARR_DIMS(array) + 1,
															 ARR_LBOUND(array) + 1,
															 elemtype, typlen, typbyval, typalign));
		check_every(i);
	}
}

/* The elements of an array in storage order, as deconstruct_array gives them, with interrupt checks. */
static void
read_elements(ArrayType *array, int16 typlen, bool typbyval, char typalign,
			  Datum **elems, bool **nulls, int *nelems)
{
	int			n = ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array));
	array_iter	it;

	*elems = palloc(sizeof(Datum) * Max(n, 1));
	*nulls = palloc(sizeof(bool) * Max(n, 1));
	array_iter_setup(&it, (AnyArrayType *) array);
	for (int i = 0; i < n; i++)
	{
		(*elems)[i] = array_iter_next(&it, &(*nulls)[i], i, typlen, typbyval, typalign);
		check_every(i);
	}
	*nelems = n;
}

/* Add slices [0, nslices) to a generic sort, in batches with an interrupt check after each. */
static void
add_slices(BitonicMultiSort *ms, const SliceKeys *keys, int nslices)
{
	uint32	   *items = palloc(sizeof(uint32) * ADD_BATCH);

	BitonicMultiSortReserve(ms, (size_t) nslices);
	for (size_t first = 0; first < (size_t) nslices; first += ADD_BATCH)
	{
		size_t		len = Min(ADD_BATCH, (size_t) nslices - first);

		for (size_t i = 0; i < len; i++)
			items[i] = (uint32) (first + i);
		BitonicMultiSortAddBatch(ms, items, keys->values + first, keys->nulls + first, len);
		CHECK_FOR_INTERRUPTS();
	}
	pfree(items);
}

/*
 * Bytes of the values of an array's elements, as construct_md_array counts
 * them; whether any is NULL.  A varlena element that is toasted or has a
 * short header is replaced by its plain form, which the array stores (as
 * construct_md_array does).
 */
static size_t
elements_bytes(Datum *elems, const bool *nulls, int nelems, int16 typlen, char typalign,
			   bool *hasnulls)
{
	size_t		nbytes = 0;

	*hasnulls = false;
	for (int i = 0; i < nelems; i++)
	{
		if (nulls[i])
			*hasnulls = true;
		else
		{
			if (typlen == -1 && VARATT_IS_EXTENDED(DatumGetPointer(elems[i])))
				elems[i] = PointerGetDatum(PG_DETOAST_DATUM(elems[i]));
			nbytes = att_addlength_datum(nbytes, typlen, elems[i]);
			nbytes = att_align_nominal(nbytes, typalign);
		}
		check_every(i);
	}
	return nbytes;
}

/* Store one element's value at dst as an array holds it, padding zeroed; returns the bytes taken. */
static size_t
store_element(char *dst, Datum value, int16 typlen, bool typbyval, char typalign)
{
	size_t		len;
	size_t		aligned;

	if (typbyval)
	{
		store_att_byval(dst, value, typlen);
		len = typlen;
	}
	else
	{
		len = att_addlength_datum(0, typlen, value);
		memcpy(dst, DatumGetPointer(value), len);
	}
	aligned = att_align_nominal(len, typalign);
	memset(dst + len, 0, aligned - len);
	return aligned;
}

/*
 * The sorted array, in cxt: the slices of `stride` elements in the order
 * `order`, shaped like `array`; the same bytes as construct_md_array would
 * make, but written here with an interrupt check every 64k elements: for
 * 4M text elements that call took about 450 ms, most of it reading the
 * elements by pointer, each a cache miss.  Here they are prefetched, and
 * the result's memory may take transparent huge pages (fewer faults as it
 * is written): 300-400 ms.  (Prefetching the datums too, a further slice
 * ahead, made it slower: 750 ms.)
 */
static ArrayType *
build_sorted(ArrayType *array, Datum *elems, const bool *nulls, int nelems, const uint32 *order,
			 int stride, int16 typlen, bool typbyval, char typalign, MemoryContext cxt)
{
	int			ndim = ARR_NDIM(array);
	int			nslices = ARR_DIMS(array)[0];
	bool		hasnulls;
	size_t		nbytes = elements_bytes(elems, nulls, nelems, typlen, typalign, &hasnulls);
	size_t		overhead = hasnulls ? ARR_OVERHEAD_WITHNULLS(ndim, nelems) : ARR_OVERHEAD_NONULLS(ndim);
	ArrayType  *result;
	bits8	   *bitmap;
	char	   *dst;
	size_t		out = 0;

	if (!AllocSizeIsValid(overhead + nbytes))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("array size exceeds the maximum allowed (%d)", (int) MaxAllocSize)));
	result = BitonicAllocLarge(cxt, overhead + nbytes);
	memset(result, 0, overhead);
	SET_VARSIZE(result, overhead + nbytes);
	result->ndim = ndim;
	result->dataoffset = hasnulls ? (int32) overhead : 0;
	result->elemtype = ARR_ELEMTYPE(array);
	memcpy(ARR_DIMS(result), ARR_DIMS(array), ndim * sizeof(int));
	memcpy(ARR_LBOUND(result), ARR_LBOUND(array), ndim * sizeof(int));
	bitmap = ARR_NULLBITMAP(result);
	dst = ARR_DATA_PTR(result);
	for (int i = 0; i < nslices; i++)
	{
		const Datum *slice = elems + (size_t) order[i] * stride;
		const bool *slice_nulls = nulls + (size_t) order[i] * stride;

		if (!typbyval && i + GATHER_PREFETCH < nslices)
			__builtin_prefetch(DatumGetPointer(elems[(size_t) order[i + GATHER_PREFETCH] * stride]));
		for (int k = 0; k < stride; k++, out++)
		{
			if (!slice_nulls[k])
			{
				if (bitmap != NULL)
					bitmap[out / 8] |= 1 << (out % 8);
				dst += store_element(dst, slice[k], typlen, typbyval, typalign);
			}
			check_every(out);
		}
	}
	return result;
}

/*
 * Sorted copy of any array along its first dimension, in the default btree
 * order of its element type (of its sub-arrays when multi-dimensional), by
 * the key machinery of multikey.c: abbreviated keys where the type has them,
 * the full comparator for ties.  The result is made in result_cxt, the
 * rest in the current context.
 */
static ArrayType *
sort_generic(ArrayType *array, bool descending, bool nulls_first, Oid collation,
			 MemoryContext result_cxt)
{
	Oid			elemtype = ARR_ELEMTYPE(array);
	int			ndim = ARR_NDIM(array);
	int			nslices = ARR_DIMS(array)[0];
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	int			stride;
	SliceKeys	keys;
	BitonicSortColumn col;
	BitonicMultiSort ms;
	uint32	   *order;

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	read_elements(array, typlen, typbyval, typalign, &elems, &nulls, &nelems);
	stride = nslices > 0 ? nelems / nslices : 0;
	col.typid = ndim == 1 ? elemtype : get_array_type(elemtype);
	if (!OidIsValid(col.typid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpu_sort does not support multi-dimensional arrays of type %s",
						format_type_be(elemtype))));
	col.sortop = ordering_operator(col.typid, descending);
	col.collation = OidIsValid(collation) || !type_is_collatable(elemtype) ?
		collation : DEFAULT_COLLATION_OID;
	col.nulls_first = nulls_first;
	if (ndim == 1)
	{
		keys.values = elems;
		keys.nulls = nulls;
	}
	else
		make_slices(array, elems, nulls, nslices, stride, &keys);

	BitonicMultiSortInit(&ms, 1, &col, CurrentMemoryContext);
	add_slices(&ms, &keys, nslices);
	order = BitonicMultiSortRun(&ms, fetch_slice, &keys);
	return build_sorted(array, elems, nulls, nelems, order, stride, typlen, typbyval, typalign,
						result_cxt);
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
	size_t		room;
	ArrayType  *result;
	void	   *pinned;
	MemoryContext sort_cxt;
	MemoryContext old_cxt;

	BitonicThreadBudgetEnter();
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

	(void) ordering_operator(ARR_ELEMTYPE(array), descending);
	if (ARR_NDIM(array) == 0)
		PG_RETURN_ARRAYTYPE_P(array);

	/* Sort memory (and a lent page-locked buffer) lives in its own context, freed here or by the ERROR path. */
	sort_cxt = AllocSetContextCreate(CurrentMemoryContext, "bitonic_sort gpu_sort",
									 ALLOCSET_DEFAULT_SIZES);
	if (ARR_NDIM(array) > 1 || BitonicKeyWidthForType(ARR_ELEMTYPE(array)) == BITONIC_KEY_NONE)
	{
		old_cxt = MemoryContextSwitchTo(sort_cxt);
		result = sort_generic(array, descending, nulls_first, PG_GET_COLLATION(), old_cxt);
		MemoryContextSwitchTo(old_cxt);
		MemoryContextDelete(sort_cxt);
		PG_RETURN_ARRAYTYPE_P(result);
	}

	nitems = (size_t) ARR_DIMS(array)[0];
	nnulls = count_nulls(array, nitems);
	old_cxt = MemoryContextSwitchTo(sort_cxt);
	pinned = pinned_pairs(ARR_ELEMTYPE(array), nitems - nnulls);
	MemoryContextSwitchTo(old_cxt);
	room = pinned ? 0 : result_room(ARR_ELEMTYPE(array), nitems - nnulls);
	result = make_result(array, nitems, nnulls, nulls_first,
						 get_typlen(ARR_ELEMTYPE(array)), room);

	old_cxt = MemoryContextSwitchTo(sort_cxt);
	sort_values(array, nitems - nnulls, descending, ARR_DATA_PTR(result), pinned);
	MemoryContextSwitchTo(old_cxt);
	MemoryContextDelete(sort_cxt);
	/* give back the room the pairs took past the values (realloc shrinks in place) */
	if (room > 0)
		result = (ArrayType *) repalloc_huge(result, VARSIZE(result));

	PG_RETURN_ARRAYTYPE_P(result);
}
