#!/usr/bin/env bash
# test/scripts/bench-parallel.sh — what `make bench-parallel` runs: ORDER BY
# int8 and float8 with 0, 1 and 2 parallel workers, native and ours with the
# same setting, in the same run: each as the planner chooses at the default
# parallel costs, and with parallel plans made free so that the workers are
# used (native: Gather Merge over Sort; ours: the node in the workers below
# Gather Merge, and above Gather with Gather Merge off).  Times are EXPLAIN ANALYZE's execution time (TIMING OFF), best of
# BENCH_REPS; the plan columns say what ran.  Not a test.
#   BENCH_SIZES="10000000"  (default)
#   BENCH_REPS=2
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
CLUSTER_EXTRA_CONF="max_worker_processes = 16
max_parallel_workers = 8"
setup_all
SIZES=${BENCH_SIZES:-10000000}
REPS=${BENCH_REPS:-2}
mkdir -p tmp/bench

{
	echo "CREATE EXTENSION bitonic_sort;"
	echo "\\i test/bench/timing.sql"
	echo "\\i test/bench/parallel.sql"
	echo "SET work_mem = '4GB';"
	echo "SET jit = off;"
	echo "\\o /dev/null"
	for n in $SIZES; do
		echo "DROP TABLE IF EXISTS t;"
		bench_table_sql "$n"
		echo "VACUUM ANALYZE t;"
		for w in 0 1 2; do
			echo "SELECT pg_temp.compare('ORDER BY int8', 'SELECT * FROM t ORDER BY a', $n, $w, $REPS);"
			echo "SELECT pg_temp.compare('ORDER BY float8', 'SELECT * FROM t ORDER BY f', $n, $w, $REPS);"
		done
	done
	echo "\\o"
	echo "SELECT * FROM bench_parallel ORDER BY n, query, workers;"
	echo "\\copy bench_parallel TO 'tmp/bench/parallel.csv' CSV HEADER"
} | psql -X -q -v ON_ERROR_STOP=1 -P footer=off || exit 1
test/scripts/bench-record.sh parallel "make bench-parallel" "work_mem=4GB jit=off shared_buffers=512MB max_parallel_workers=8"
