#!/usr/bin/env bash
# test/scripts/bench-orderby.sh — what `make bench-orderby` runs: ORDER BY on
# tables of (int8, float8, md5 text, int4) with the native Sort and with the
# BitonicSort custom scan in ordinary memory (bitonic_sort.huge_pages off,
# with what its previous run kept: bitonic_sort.keep_memory's default)
# and, as root, over a reserved huge page pool (huge_pages on, its default),
# timed in the same run, and last in ordinary memory again with nothing
# kept (keep_memory 0: a backend's first sort); prints the sort
# node's self time, the whole query's time and the ratios native / bitonic,
# and the bare scan of the table with BitonicSort's whole query over it.
# Not a test.
#   BENCH_SIZES="1000000 10000000"  (default: 1000000)
#   BENCH_REPS=2   alternating runs of each side per query, best kept (default 2)
#   BENCH_QUERIES='^(int8|float8)$'  a regex: only the queries whose label matches
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
setup_all locales-all
# 1.2 GB of 2 MB pages (as root) for BitonicSort's third run in each round;
# the pool goes back to its size on exit
reserve_huge_pages 600
SIZES=${BENCH_SIZES:-1000000}
REPS=${BENCH_REPS:-2}
QUERIES=${BENCH_QUERIES:-.}

# compare LABEL SQL: the line that times one query, where BENCH_QUERIES matches its label
compare() {
	[[ $1 =~ $QUERIES ]] || return 0
	echo "SELECT pg_temp.compare('$1', '$2', $REPS);"
}
mkdir -p tmp/bench

{
	orderby_bench_session_sql
	echo "CREATE COLLATION bench_en (provider = libc, locale = 'en_US.utf8');"
	echo "SELECT backend, details FROM bitonic_sort_info() WHERE usable;"
	echo "CREATE TEMP TABLE bench_results (query text, n bigint, native_node text, native_ms float8,"
	echo "  bitonic_node text, bitonic_ms float8, node_ratio numeric, native_total_ms float8,"
	echo "  bitonic_total_ms float8, total_ratio numeric, pool_node_ms float8, pool_node_ratio numeric,"
	echo "  pool_total_ms float8, pool_total_ratio numeric, scan_ms float8, bitonic_x_scan numeric,"
	echo "  pool_x_scan numeric, fresh_node_ms float8, fresh_node_ratio numeric, fresh_total_ms float8,"
	echo "  fresh_x_scan numeric);"
	echo "\\o /dev/null"
	for n in $SIZES; do
		echo "DROP TABLE IF EXISTS bench;"
		echo "CREATE TABLE bench AS SELECT (random() * 1e18)::int8 AS a, random() - 0.5 AS b,"
		echo "  md5(i::text) AS c, (random() * 2e9 - 1e9)::int4 AS d FROM generate_series(1, $n) i;"
		echo "VACUUM ANALYZE bench;"
		compare 'int8' "SELECT * FROM bench ORDER BY a"
		compare 'float8' "SELECT * FROM bench ORDER BY b"
		compare 'text C' "SELECT * FROM bench ORDER BY c COLLATE \"C\""
		# the database's collation, C.UTF-8, has no collation rules (byte order)
		compare 'text C.UTF-8' "SELECT * FROM bench ORDER BY c"
		compare 'text en_US' "SELECT * FROM bench ORDER BY c COLLATE bench_en"
		compare 'int4 & float8' "SELECT * FROM bench ORDER BY d, b"
		compare 'int8 LIMIT 100' "SELECT * FROM bench ORDER BY a LIMIT 100"
	done
	echo "\\o"
	echo "SELECT * FROM bench_results;"
	echo "\\copy bench_results TO 'tmp/bench/orderby.csv' CSV HEADER"
} | psql -X -q -v ON_ERROR_STOP=1 -P footer=off || exit 1
test/scripts/bench-record.sh orderby "make bench-orderby" "work_mem=4GB max_parallel_workers_per_gather=0 jit=off shared_buffers=512MB"
test/scripts/bench-chart.sh
