-- bitonic_sort--1.0.sql: install script of the bitonic_sort extension.

\echo Use "CREATE EXTENSION bitonic_sort" to load this file. \quit

CREATE FUNCTION gpu_sort(anyarray, descending boolean DEFAULT false, nulls_first boolean DEFAULT NULL)
RETURNS anyarray
AS 'MODULE_PATHNAME', 'gpu_sort'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_sort(anyarray, boolean, boolean) IS
'sorts a one-dimensional array like ORDER BY (NULLs last ascending, first descending unless nulls_first says otherwise; equal elements keep their order), with a bitonic sorter';

CREATE FUNCTION bitonic_sort_info(OUT backend text, OUT usable boolean, OUT details text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'bitonic_sort_info'
LANGUAGE C VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION bitonic_sort_info() IS
'one row per sorting backend: whether it is usable, and the details (SIMD level and threads; GPU device or why there is none)';
