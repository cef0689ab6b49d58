#!/usr/bin/env bash
# test/scripts/demo.sh — what `make demo` runs: set-up, then gpu_sort on a
# few arrays, a timing against PostgreSQL's own sort on 1M elements, and an
# ORDER BY through the BitonicSort custom scan, in a throwaway cluster of
# its own (under ./tmp, on a free port, stopped at the end).
#
# Set-up (test/scripts/common.sh), before anything is built:
#   - as root: installs the Debian packages that are missing (apt-get),
#     builds the module (CUDA for the GPUs here, else sm_75 + PTX: mk/cuda.mk),
#     installs it, and runs the cluster as the postgres user;
#   - as another user who cannot write PostgreSQL's lib directory: uses the
#     installed module when it is current (installed from these sources:
#     the source id `make install` writes to
#     share/extension/bitonic_sort.source-id equals `make print-source-id`);
#     otherwise prints one line and stops with status 1:
#       run as root: [apt-get install -y PACKAGES && ]make -C DIR install
#   - a user who can write it (a server of their own, PG_CONFIG=...)
#     builds and installs as root does, and must have the packages.
# Each step that takes more than a few seconds prints a line first.
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
