#!/usr/bin/env bash
# test/scripts/demo.sh — what `make demo` runs: set-up, then gpu_sort on a
# few arrays and a timing against PostgreSQL's own sort on 1M elements.
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
setup_all

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
\pset footer off
CREATE EXTENSION bitonic_sort;
\echo
\echo '== the backends'
SELECT * FROM bitonic_sort_info();
\echo '== gpu_sort on a few arrays'
SELECT gpu_sort(ARRAY[5, 3, NULL, 1, 4]) AS ascending,
       gpu_sort(ARRAY[5, 3, NULL, 1, 4], true) AS descending,
       gpu_sort(ARRAY[5, 3, NULL, 1, 4], false, true) AS nulls_first;
SELECT gpu_sort('{NaN,Infinity,-0,-Infinity,0,1.5}'::float8[]) AS floats;
SELECT gpu_sort(ARRAY['2024-02-29', '1999-12-31', 'infinity']::date[]) AS dates;
\echo '== 1M random int8: gpu_sort(a) per algorithm vs ARRAY(SELECT x FROM unnest(a) x ORDER BY x), best of 3 (ms)'
\i test/bench/timing.sql
SET work_mem = '1GB';
CREATE TEMP TABLE demo_1m AS SELECT ARRAY(SELECT (random() * 1e15)::int8 FROM generate_series(1, 1000000)) AS a;
SELECT gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x) AS same_answer FROM demo_1m;
WITH native AS MATERIALIZED (SELECT pg_temp.native_ms('demo_1m') AS ms),
     ours AS MATERIALIZED (
       SELECT algorithm, i, pg_temp.gpu_sort_ms('demo_1m', algorithm) AS ms
       FROM unnest(ARRAY['bitonic', 'adaptive', 'auto']) WITH ORDINALITY AS a(algorithm, i))
SELECT algorithm, ours.ms AS gpu_sort_ms, native.ms AS native_ms,
       round((native.ms / ours.ms)::numeric, 2) AS "native / gpu_sort"
FROM ours, native ORDER BY i;
\echo '== ORDER BY through the BitonicSort custom scan: 1M rows, then the native Sort'
CREATE TEMP TABLE demo_rows AS
SELECT i AS id, (random() * 1e15)::int8 AS k, md5(i::text) AS t FROM generate_series(1, 1000000) i;
ANALYZE demo_rows;
EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) SELECT * FROM demo_rows ORDER BY k DESC, id;
SET bitonic_sort.enable = off;
EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) SELECT * FROM demo_rows ORDER BY k DESC, id;
SQL
rc=$?
echo "== stopping the cluster"
exit $rc
