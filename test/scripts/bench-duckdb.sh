#!/usr/bin/env bash
# test/scripts/bench-duckdb.sh — what `make bench-duckdb` runs: the queries
# of the ORDER BY and below-other-operators benchmarks on PostgreSQL, native
# (module off, the planner's choice with 2 parallel workers allowed) and
# with the module on, in ordinary memory (with the default
# bitonic_sort.keep_memory, a run takes what the one before it kept), in
# ordinary memory with nothing kept (keep_memory 0: a backend's first sort)
# and (as root) from a reserved huge page pool, and on DuckDB (in memory,
# all cores, tables of the same shape and size), in the same run; prints
# each side's best time of BENCH_REPS and DuckDB's time over ours, plain,
# with nothing kept and with the pool (above 1: ours is faster; the pool's
# columns are empty where no pool is free).  Every
# side's time is its EXPLAIN ANALYZE's (the query runs whole, its rows are
# discarded).  DuckDB comes from the npm registry (@duckdb/node-api) into
# tmp/duckdb.  Not a test.
#   BENCH_SIZES="10000000"  (default)
#   BENCH_REPS=2
#   BENCH_QUERIES='^ORDER BY (int8|float8)$'  a regex: only the queries whose label matches
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
command -v npm >/dev/null || ensure_packages nodejs npm
setup_all
# 1.2 GB of 2 MB pages (as root) for the module's runs with the pool; the
# pool goes back to its size on exit
reserve_huge_pages 600
SIZES=${BENCH_SIZES:-10000000}
REPS=${BENCH_REPS:-2}
ONLY=${BENCH_QUERIES:-.}
DUCKDB_VERSION=1.5.6-r.1
mkdir -p tmp/bench tmp/duckdb

echo "== DuckDB $DUCKDB_VERSION from npm"
if [ ! -d tmp/duckdb/node_modules/@duckdb/node-api ]; then
	(cd tmp/duckdb && npm install --silent --no-audit --no-fund "@duckdb/node-api@$DUCKDB_VERSION") ||
		die "npm install @duckdb/node-api failed (the npm registry must be reachable)"
fi
cp test/bench/duckdb.mjs tmp/duckdb/

# label, PostgreSQL's query, DuckDB's (its default collation is byte order, PostgreSQL's "C")
QUERIES=(
	"ORDER BY int8|SELECT * FROM t ORDER BY a|SELECT * FROM t ORDER BY a"
	"ORDER BY float8|SELECT * FROM t ORDER BY f|SELECT * FROM t ORDER BY f"
	"ORDER BY text (byte order)|SELECT * FROM t ORDER BY s COLLATE \"C\"|SELECT * FROM t ORDER BY s"
	"row_number() OVER (ORDER BY a)|SELECT i, row_number() OVER (ORDER BY a) FROM t|SELECT i, row_number() OVER (ORDER BY a) FROM t"
	"rank() OVER (PARTITION BY i % 1000 ORDER BY f)|SELECT rank() OVER (PARTITION BY i % 1000 ORDER BY f) FROM t|SELECT rank() OVER (PARTITION BY i % 1000 ORDER BY f) FROM t"
	"SELECT DISTINCT a|SELECT DISTINCT a FROM t|SELECT DISTINCT a FROM t"
	"GROUP BY a|SELECT a, count(*), sum(f) FROM t GROUP BY a|SELECT a, count(*), sum(f) FROM t GROUP BY a"
	"join t2 on int8|SELECT t.i, t2.f FROM t JOIN t2 ON t.a = t2.a|SELECT t.i, t2.f FROM t JOIN t2 ON t.a = t2.a"
)

printf '%s\n' "query,n,native_ms,native_plan,ours_ms,ours_plan,ours_fresh_ms,ours_pool_ms,duckdb_ms,duckdb_over_ours,duckdb_over_fresh,duckdb_over_pool" >tmp/bench/duckdb.csv
for n in $SIZES; do
	echo "== $n rows: PostgreSQL"
	{
		echo "CREATE EXTENSION IF NOT EXISTS bitonic_sort;"
		echo "\\i test/bench/timing.sql"
		echo "SELECT pg_temp.pool_pages() > 0 AS pool \\gset"
		echo "SET work_mem = '4GB';"
		echo "SET jit = off;"
		echo "DROP TABLE IF EXISTS t, t2;"
		bench_table_sql "$n"
		echo "CREATE TABLE t2 AS SELECT CASE WHEN random() < 0.5 THEN a ELSE a + 1 END AS a, f FROM t;"
		echo "VACUUM ANALYZE t; VACUUM ANALYZE t2;"
		for q in "${QUERIES[@]}"; do
			IFS='|' read -r label pg _ <<<"$q"
			[[ $label =~ $ONLY ]] || continue
			pg=${pg//\'/\'\'}
			# with a pool: one untimed run first gives its pages their first use
			echo "\\if :pool"
			echo "DO \$\$ BEGIN PERFORM pg_temp.run('$pg', 'bitonic_sort.enable=on,bitonic_sort.huge_pages=on', 1); END \$\$;"
			echo "\\endif"
			echo "SELECT '$label', n.ms, n.plan, o.ms, o.plan, k.ms, h.ms"
			echo "  FROM pg_temp.run('$pg', 'bitonic_sort.enable=off', $REPS) n,"
			echo "       pg_temp.run('$pg', 'bitonic_sort.enable=on,bitonic_sort.huge_pages=off', $REPS) o,"
			echo "       pg_temp.run('$pg', 'bitonic_sort.enable=on,bitonic_sort.huge_pages=off,bitonic_sort.keep_memory=0', $REPS) k"
			echo "  LEFT JOIN pg_temp.run('$pg', 'bitonic_sort.enable=on,bitonic_sort.huge_pages=on', $REPS) h ON :'pool'::bool;"
		done
	} | psql -X -q -A -t -F '|' -v ON_ERROR_STOP=1 >tmp/bench/duckdb-pg.txt || exit 1
	echo "== $n rows: DuckDB"
	for q in "${QUERIES[@]}"; do
		IFS='|' read -r label _ duck <<<"$q"
		[[ $label =~ $ONLY ]] || continue
		printf '%s\t%s\n' "$label" "$duck"
	done | (cd tmp/duckdb && node duckdb.mjs "$n" "$REPS") >tmp/bench/duckdb-duck.txt ||
		die "the DuckDB side failed"
	while IFS='|' read -r label native_ms native_plan ours_ms ours_plan fresh_ms pool_ms; do
		[ -z "$label" ] && continue
		duck_ms=$(awk -F '\t' -v l="$label" '$1 == l { print $2 }' tmp/bench/duckdb-duck.txt)
		ratio=$(awk -v d="$duck_ms" -v o="$ours_ms" 'BEGIN { printf "%.2f", d / o }')
		fresh_ratio=$(awk -v d="$duck_ms" -v o="$fresh_ms" 'BEGIN { printf "%.2f", d / o }')
		pool_ratio=$(awk -v d="$duck_ms" -v o="$pool_ms" 'BEGIN { if (o != "") printf "%.2f", d / o }')
		printf '"%s",%s,%s,"%s",%s,"%s",%s,%s,%s,%s,%s,%s\n' "$label" "$n" "$native_ms" "$native_plan" \
			"$ours_ms" "$ours_plan" "$fresh_ms" "$pool_ms" "$duck_ms" "$ratio" "$fresh_ratio" "$pool_ratio" \
			>>tmp/bench/duckdb.csv
	done <tmp/bench/duckdb-pg.txt
done
echo
column -s, -t <tmp/bench/duckdb.csv
test/scripts/bench-record.sh duckdb "make bench-duckdb" "work_mem=4GB jit=off shared_buffers=512MB; DuckDB from npm"
