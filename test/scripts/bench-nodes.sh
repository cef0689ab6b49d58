#!/usr/bin/env bash
# test/scripts/bench-nodes.sh — what `make bench-nodes` runs: whole-query
# time of the sorts below other operators (window functions, DISTINCT,
# GROUP BY, a merge join, INTERSECT) with the module on and off, in the same
# run.  Native's figure is its best plan of four: serial or 2 parallel
# workers, hash plans allowed or not; ours is the planner's choice with the
# module on (serial: the node is not in parallel plans yet) and, beside it,
# with hash plans off.  Times are EXPLAIN ANALYZE's execution time (TIMING
# OFF: rows are counted, not timed), best of BENCH_REPS.  Not a test.
#   BENCH_SIZES="1000000 10000000"  (default: both)
#   BENCH_REPS=2
#   BENCH_QUERIES=regex  only the queries whose label matches (default: all)
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
setup_all
SIZES=${BENCH_SIZES:-1000000 10000000}
REPS=${BENCH_REPS:-2}
QUERIES=${BENCH_QUERIES:-.}
mkdir -p tmp/bench

# The compare call of the query labelled $1, where BENCH_QUERIES matches the label.
bench_query() {
	if [[ "$1" =~ $QUERIES ]]; then echo "$2"; fi
}

{
	echo "CREATE EXTENSION bitonic_sort;"
	echo "\\i test/bench/timing.sql"
	echo "\\i test/bench/nodes.sql"
	echo "SET work_mem = '4GB';"
	echo "SET jit = off;"
	echo "\\o /dev/null"
	for n in $SIZES; do
		echo "DROP TABLE IF EXISTS t, t2;"
		bench_table_sql "$n"
		# half of t2's keys are t's, the rest one more
		echo "CREATE TABLE t2 AS SELECT CASE WHEN random() < 0.5 THEN a ELSE a + 1 END AS a, f FROM t;"
		echo "VACUUM ANALYZE t; VACUUM ANALYZE t2;"
		bench_query "row_number() OVER (ORDER BY a)" "SELECT pg_temp.compare('row_number() OVER (ORDER BY a)', 'SELECT i, row_number() OVER (ORDER BY a) FROM t', $n, $REPS);"
		bench_query "rank() OVER (PARTITION BY i % 1000 ORDER BY f)" "SELECT pg_temp.compare('rank() OVER (PARTITION BY i % 1000 ORDER BY f)', 'SELECT rank() OVER (PARTITION BY i % 1000 ORDER BY f) FROM t', $n, $REPS);"
		bench_query "SELECT DISTINCT a" "SELECT pg_temp.compare('SELECT DISTINCT a', 'SELECT DISTINCT a FROM t', $n, $REPS);"
		bench_query "GROUP BY a (all groups)" "SELECT pg_temp.compare('GROUP BY a (all groups)', 'SELECT a, count(*), sum(f) FROM t GROUP BY a', $n, $REPS);"
		bench_query "merge join on int8" "SELECT pg_temp.compare('merge join on int8', 'SELECT t.i, t2.f FROM t JOIN t2 ON t.a = t2.a', $n, $REPS);"
		bench_query "INTERSECT" "SELECT pg_temp.compare('INTERSECT', 'SELECT a FROM t INTERSECT SELECT a FROM t2', $n, $REPS);"
	done
	echo "\\o"
	echo "SELECT query, n, native_ms, native_plan, ours_ms, ours_plan, ratio, ours_sorted_ms, sorted_ratio FROM bench_nodes;"
	echo "\\copy bench_nodes TO 'tmp/bench/nodes.csv' CSV HEADER"
} | psql -X -q -v ON_ERROR_STOP=1 -P footer=off || exit 1
test/scripts/bench-record.sh nodes "make bench-nodes" "work_mem=4GB jit=off shared_buffers=512MB"
