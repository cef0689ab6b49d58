#!/usr/bin/env bash
# test/scripts/bench.sh — what `make bench` runs after the sorter
# micro-benchmark: gpu_sort with each CPU algorithm against
# ARRAY(SELECT x FROM unnest(a) x ORDER BY x) for 1M and 10M elements of int4,
# int8 and float8, timed in the same run (best of 3); prints the ratio.
# Not a test.
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
setup_all
SIZES=${BENCH_SIZES:-1000000 10000000}
mkdir -p tmp/bench

{
	echo "CREATE EXTENSION bitonic_sort;"
	echo "\\i test/bench/timing.sql"
	echo "SET work_mem = '4GB';"
	echo "SELECT backend, details FROM bitonic_sort_info() WHERE usable;"
	echo "CREATE TEMP TABLE results (type text, n int, algorithm text, gpu_sort_ms float8, native_ms float8);"
	for n in $SIZES; do
		for t in int4 int8 float8; do
			case $t in
				int4) expr="(random() * 2e9 - 1e9)::int4" ;;
				int8) expr="(random() * 1e18)::int8" ;;
				float8) expr="random() - 0.5" ;;
			esac
			echo "CREATE TEMP TABLE arr AS SELECT ARRAY(SELECT $expr FROM generate_series(1, $n)) AS a;"
			echo "INSERT INTO results SELECT '$t', $n, algo, pg_temp.gpu_sort_ms('arr', algo), native.ms"
			echo "  FROM (SELECT pg_temp.native_ms('arr') AS ms) native,"
			echo "       unnest(string_to_array('${BENCH_ALGORITHMS:-bitonic adaptive auto}', ' ')) WITH ORDINALITY AS a(algo, i) ORDER BY i;"
			echo "DROP TABLE arr;"
		done
	done
	echo "SELECT type, n, algorithm, gpu_sort_ms, native_ms, round((native_ms / gpu_sort_ms)::numeric, 2) AS \"native / gpu_sort\" FROM results;"
	echo "\\copy results TO 'tmp/bench/gpu_sort.csv' CSV HEADER"
} | psql -X -q -v ON_ERROR_STOP=1 -P footer=off || exit 1
test/scripts/bench-record.sh gpu_sort "make bench" "work_mem=4GB"
test/scripts/bench-chart.sh
