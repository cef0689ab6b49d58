#!/usr/bin/env bash
# test/scripts/bench-sharded.sh — what `make bench-sharded` runs: ORDER BY
# over a table sharded on two shard clusters through postgres_fdw (shards.sh,
# all on this machine) against the same query on one cluster, in the same
# run: the sharded query with the shards sorting through BitonicSort and
# with their native Sort, the unsorted transfer alone (the rows pulled from
# the shards, no ORDER BY), and the single-cluster table with BitonicSort
# and with the native Sort.  Times are EXPLAIN ANALYZE's execution time on
# the coordinator (TIMING OFF), best and worst of BENCH_REPS rounds that
# alternate the queries.  Not a test.
#   BENCH_ROWS=4000000  (default)
#   BENCH_REPS=3
set -u
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/shards.sh"
cd "$TOP"
ROWS=${BENCH_ROWS:-4000000}
REPS=${BENCH_REPS:-3}
mkdir -p "$TOP/tmp/bench"
ensure_packages
build_and_install
start_shards
echo "== loading $ROWS rows"
create_sharded_table "$ROWS"
for name in shard1 shard2; do
	on "$name" -c "ALTER SYSTEM SET auto_explain.log_min_duration = -1" -c "SELECT pg_reload_conf()" >/dev/null
done

# One round: every query once, each its own transaction (a changed server
# option reaches postgres_fdw's connections at the next one); the rounds
# alternate the queries.
bench_round() {
	cat <<'SQL'
SELECT pg_temp.shards_sort(false);
INSERT INTO bench_sharded SELECT 'sharded, shards sort with BitonicSort', *, 1 FROM pg_temp.run('SELECT * FROM events ORDER BY a', 'jit=off', 1);
INSERT INTO bench_sharded SELECT 'sharded, transfer only (no ORDER BY)', *, 2 FROM pg_temp.run('SELECT * FROM events', 'jit=off', 1);
SELECT pg_temp.shards_sort(true);
INSERT INTO bench_sharded SELECT 'sharded, shards sort natively', *, 3 FROM pg_temp.run('SELECT * FROM events ORDER BY a', 'jit=off', 1);
INSERT INTO bench_sharded SELECT 'one cluster, BitonicSort', *, 4 FROM pg_temp.run('SELECT * FROM events_local ORDER BY a', 'jit=off', 1);
INSERT INTO bench_sharded SELECT 'one cluster, native Sort', *, 5 FROM pg_temp.run('SELECT * FROM events_local ORDER BY a', 'bitonic_sort.enable=off', 1);
INSERT INTO bench_sharded SELECT 'one cluster, scan only (no ORDER BY)', *, 6 FROM pg_temp.run('SELECT * FROM events_local', 'jit=off', 1);
SQL
}

on coord -P footer=off <<SQL || die "the benchmark's queries failed"
\\i test/bench/timing.sql
SET work_mem = '4GB';
SET jit = off;
-- the shards' module off for the coordinator's connections, or on
CREATE FUNCTION pg_temp.shards_sort(native bool) RETURNS void LANGUAGE plpgsql AS \$\$
BEGIN
  EXECUTE format('ALTER SERVER shard1 OPTIONS (SET options %L)', '-c bitonic_sort.enable=' || NOT native);
  EXECUTE format('ALTER SERVER shard2 OPTIONS (SET options %L)', '-c bitonic_sort.enable=' || NOT native);
  PERFORM postgres_fdw_disconnect_all();
END \$\$;
CREATE TEMP TABLE bench_sharded (query text, ms float8, plan text, i int);
\\o /dev/null
-- the tables into the shards' and the coordinator's buffers first
SELECT count(*) FROM events;
SELECT count(*) FROM events_local;
$(for r in $(seq "$REPS"); do bench_round; done)
\\o
SELECT query, $ROWS AS n, min(ms) AS best_ms, max(ms) AS worst_ms, min(plan) AS plan
  FROM bench_sharded GROUP BY query ORDER BY min(i);
\\copy bench_sharded TO 'tmp/bench/sharded.csv' CSV HEADER
SQL
test/scripts/bench-record.sh sharded "make bench-sharded" "work_mem=4GB jit=off; a coordinator and two postgres_fdw shards on this machine"
