#!/usr/bin/env bash
# test/scripts/bench-external.sh — what `make bench-external` runs: ORDER BY,
# a window and DISTINCT on BENCH_ROWS rows of (int8, float8, md5 text,
# int4) at work_mem 4MB, 64MB and 256MB: the native Sort (serial, and with 2
# parallel workers: its best is the one compared) against BitonicSort's
# external sort, alternated in the same run, with BitonicSort in memory
# (work_mem 4GB, best of two) beside it, the sort the planner takes with
# PostgreSQL's defaults (Sort enabled, 2 workers allowed), and the node's
# Peak Memory, runs and merge passes; and each side's time as the first
# sort of a new session (a new user's psql, a parallel worker), where the
# backend's malloc has not yet adapted to a sort's memory.  Writes
# tmp/bench/external.csv, kept in docs/bench.  Not a test.
#   BENCH_ROWS=10000000   rows (default 10000000, about 1 GB)
#   BENCH_REPS=1          alternated runs of each side, best kept (default 1)
#   BENCH_MEMS="4MB 64MB 256MB"
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
setup_all
ROWS=${BENCH_ROWS:-10000000}
REPS=${BENCH_REPS:-1}
MEMS=${BENCH_MEMS:-4MB 64MB 256MB}
mkdir -p tmp/bench

QUERIES=(
	'int8|SELECT * FROM bench_ext ORDER BY a'
	'float8|SELECT * FROM bench_ext ORDER BY b'
	'text C|SELECT * FROM bench_ext ORDER BY c COLLATE "C"'
	'int4, float8|SELECT * FROM bench_ext ORDER BY d, b'
	'row_number()|SELECT a, row_number() OVER (ORDER BY a) FROM bench_ext'
	'DISTINCT int8|SELECT DISTINCT a FROM bench_ext'
)

# query LABEL SQL: its in-memory time (best of two: the first of a
# backend's sorts pays for fresh memory), then each work_mem's comparison
query() {
	echo "SELECT least((pg_temp.ext_run('$2', '4GB', 'ours')).ms, (pg_temp.ext_run('$2', '4GB', 'ours')).ms) AS inmem \\gset"
	for mem in $MEMS; do
		echo "SELECT pg_temp.ext_compare('$1', '$2', '$mem', $REPS, :inmem);"
	done
}

# session_setup: the timing functions and settings every session of the bench starts with
session_setup() {
	echo "\\i test/bench/external.sql"
	echo "SET bitonic_sort.min_rows = 0;"
	echo "SET jit = off;"
}

# first_sort LABEL SQL MEM MODE: the query as the first sort of a new session
first_sort() {
	{
		session_setup
		echo "INSERT INTO bench_external_first VALUES ('$1', '$3', '$4', (pg_temp.ext_run('$2', '$3', '$4')).ms);"
	} | psql -X -q -v ON_ERROR_STOP=1
}

{
	echo "CREATE EXTENSION IF NOT EXISTS bitonic_sort;"
	session_setup
	echo "SET client_min_messages = warning;"
	echo "DROP TABLE IF EXISTS bench_external, bench_external_first, bench_ext;"
	echo "RESET client_min_messages;"
	echo "CREATE TABLE bench_external (query text, work_mem text, native_serial_ms float8,"
	echo "  native_2_workers_ms float8, native_best_ms float8, ours_ms float8, native_best_over_ours numeric,"
	echo "  ours_in_memory_ms float8, ours_over_in_memory numeric, node text, planner_default text, peak_memory_kb int,"
	echo "  runs int, merge_passes int, disk_kb int);"
	echo "CREATE TABLE bench_external_first (query text, work_mem text, mode text, ms float8);"
	echo "CREATE TABLE bench_ext AS SELECT (random() * 1e18)::int8 AS a, random() - 0.5 AS b,"
	echo "  md5(i::text) AS c, (random() * 2e9 - 1e9)::int4 AS d FROM generate_series(1, $ROWS) i;"
	echo "VACUUM ANALYZE bench_ext;"
	echo "\\o /dev/null"
	for q in "${QUERIES[@]}"; do
		query "${q%%|*}" "${q#*|}"
	done
	echo "\\o"
} | psql -X -q -v ON_ERROR_STOP=1 -P footer=off || exit 1
for q in "${QUERIES[@]}"; do
	for mem in $MEMS; do
		first_sort "${q%%|*}" "${q#*|}" "$mem" native || exit 1
		first_sort "${q%%|*}" "${q#*|}" "$mem" ours || exit 1
	done
done
{
	echo "CREATE TEMP VIEW bench_external_all AS SELECT e.*, n.ms AS native_serial_first_session_ms,"
	echo "  o.ms AS ours_first_session_ms FROM bench_external e"
	echo "  LEFT JOIN bench_external_first n ON n.query = e.query AND n.work_mem = e.work_mem AND n.mode = 'native'"
	echo "  LEFT JOIN bench_external_first o ON o.query = e.query AND o.work_mem = e.work_mem AND o.mode = 'ours';"
	echo "SELECT * FROM bench_external_all;"
	echo "\\copy (SELECT * FROM bench_external_all) TO 'tmp/bench/external.csv' CSV HEADER"
	echo "DROP VIEW bench_external_all;"
	echo "DROP TABLE bench_external, bench_external_first, bench_ext;"
} | psql -X -q -v ON_ERROR_STOP=1 -P footer=off || exit 1
test/scripts/bench-record.sh external "make bench-external" "rows=$ROWS jit=off parallel workers 0 (ours, native serial) and 2 (native)"
