-- bitonic_sort--1.0.sql: install script of the bitonic_sort extension.

\echo Use "CREATE EXTENSION bitonic_sort" to load this file. \quit

CREATE FUNCTION gpu_sort(anyarray, descending boolean DEFAULT false, nulls_first boolean DEFAULT NULL)
RETURNS anyarray
AS 'MODULE_PATHNAME', 'gpu_sort'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_sort(anyarray, boolean, boolean) IS
'the array sorted as ORDER BY sorts its elements: NULLs last ascending and first descending unless nulls_first says otherwise, equal elements in input order, bounds kept; a multi-dimensional array along its first dimension; on the GPU or the CPU as bitonic_sort.device and bitonic_sort.algorithm choose';

CREATE FUNCTION bitonic_sort_info(OUT backend text, OUT usable boolean, OUT details text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'bitonic_sort_info'
LANGUAGE C VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION bitonic_sort_info() IS
'one row per sorting backend (cpu, cuda): whether it can sort, and the details: the CPU''s SIMD level, threads, sorters, thread limit and transparent huge page choice; the GPU, its memory and limit, or why there is none';
