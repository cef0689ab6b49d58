#!/usr/bin/env bash
# test/scripts/bench-gpu-sql.sh — gpu_sort and ORDER BY with
# bitonic_sort.device = gpu beside device = cpu and PostgreSQL's own sort,
# timed in the same run (best of BENCH_REPS), gpu_sort's beside what the
# array's reading alone takes (read_only_ms: detoasting it): installs the
# module and starts a throwaway cluster (common.sh), so it needs a machine
# with a GPU and the rights `make bench` needs.  Run by `make bench-gpu`; not a test.
#   BENCH_SIZES="1000000 10000000"   (default)
#   BENCH_REPS=3
#   BENCH_SERVER=running   use the server that PGHOST/PGPORT/PGUSER name,
#                          the module already installed and preloaded there
#                          (a GPU machine with no package archive to reach)
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP" || exit 1
[ "${BENCH_SERVER:-}" = running ] || setup_all
SIZES=${BENCH_SIZES:-1000000 10000000}
REPS=${BENCH_REPS:-3}
mkdir -p tmp/bench

{
	orderby_bench_session_sql
	echo "SELECT backend, usable, details FROM bitonic_sort_info();"
	echo "CREATE TEMP TABLE results (what text, n bigint, device text, ms float8);"
	echo "\\o /dev/null"
	for n in $SIZES; do
		# type and how a random value of it is made
		for spec in "int4 (random() * 2e9 - 1e9)::int4" "int8 (random() * 1e18)::int8" "float8 random() - 0.5"; do
			t=${spec%% *}
			echo "CREATE TEMP TABLE arr AS SELECT ARRAY(SELECT ${spec#* } FROM generate_series(1, $n)) AS a;"
			# the array's reading alone (detoasting it), which every gpu_sort figure includes
			echo "INSERT INTO results SELECT 'gpu_sort $t', $n, 'read', pg_temp.best_ms('SELECT cardinality(a) FROM arr', $REPS);"
			echo "INSERT INTO results SELECT 'gpu_sort $t', $n, 'native', pg_temp.native_ms('arr', $REPS);"
			for dev in cpu gpu; do
				echo "SET bitonic_sort.device = $dev;"
				echo "INSERT INTO results SELECT 'gpu_sort $t', $n, '$dev', pg_temp.gpu_sort_ms('arr', 'bitonic', $REPS);"
			done
			echo "DROP TABLE arr;"
		done
		echo "DROP TABLE IF EXISTS bench;"
		echo "CREATE TABLE bench AS SELECT (random() * 1e18)::int8 AS a, random() - 0.5 AS b,"
		echo "  (random() * 2e9 - 1e9)::int4 AS d FROM generate_series(1, $n) i;"
		echo "VACUUM ANALYZE bench;"
		for col in a b d; do
			q="SELECT * FROM bench ORDER BY $col"
			echo "SET bitonic_sort.enable = off; SET enable_sort = on;"
			echo "INSERT INTO results SELECT 'ORDER BY $col', $n, 'native', pg_temp.best_ms('$q', $REPS);"
			echo "SET bitonic_sort.enable = on; SET enable_sort = off;"
			for dev in cpu gpu; do
				echo "SET bitonic_sort.device = $dev;"
				echo "INSERT INTO results SELECT 'ORDER BY $col', $n, '$dev', pg_temp.best_ms('$q', $REPS);"
			done
		done
	done
	echo "\\o"
	echo "SELECT what, n, max(ms) FILTER (WHERE device = 'native') AS native_ms,"
	echo "  max(ms) FILTER (WHERE device = 'read') AS read_only_ms,"
	echo "  max(ms) FILTER (WHERE device = 'cpu') AS cpu_ms, max(ms) FILTER (WHERE device = 'gpu') AS gpu_ms,"
	echo "  round((max(ms) FILTER (WHERE device = 'cpu') / max(ms) FILTER (WHERE device = 'gpu'))::numeric, 2) AS \"cpu / gpu\""
	echo "  FROM results GROUP BY what, n ORDER BY n, what;"
	echo "\\copy results TO 'tmp/bench/gpu_sql.csv' CSV HEADER"
} | psql -X -q -v ON_ERROR_STOP=1 -P footer=off || exit 1
test/scripts/bench-record.sh gpu_sql "make bench-gpu" "work_mem=4GB max_parallel_workers_per_gather=0 jit=off"
