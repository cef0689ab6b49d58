#!/usr/bin/env bash
# test/scripts/run-concurrency.sh COUNTS — sorts of many sessions at once
# (part of make test, against the cluster run-tests.sh started): pgbench
# runs 16 clients, each sorting through BitonicSort with worker threads
# (parts, the ingest worker, the tie pass, text), while the server-wide
# thread budget (bitonic_sort.max_threads = 4) refuses most of their
# threads, so sorts run on fewer threads than they ask for.  Every query
# checks its own result (row count, order, ties by id) and divides by zero
# when it is wrong, which pgbench counts as a failure.  Afterwards no
# thread may be left counted.  Writes "passed failed" to COUNTS.
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
counts=${1:-/dev/null}
echo "0 1" >"$counts"
script=$TOP/tmp/concurrency.pgbench
log=$TOP/tmp/concurrency.log

psql -X -q -v ON_ERROR_STOP=1 >"$log" 2>&1 <<'SQL' || { cat "$log"; exit 1; }
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
DROP TABLE IF EXISTS bs_conc;
CREATE TABLE bs_conc AS
  SELECT i AS id, (hashint4(i) % 50000)::int8 AS k, hashint4(i + 1) / 1e5::float8 AS f,
         md5((i % 40000)::text) AS t
  FROM generate_series(1, 300000) i;
ANALYZE bs_conc;
ALTER SYSTEM SET bitonic_sort.max_threads = 4;
SELECT pg_reload_conf();
SQL

# Each query is 1/0 unless its rows are all there and in order (ties by id).
cat >"$script" <<'PGBENCH'
SET enable_sort = off;
SET work_mem = '512MB';
SET bitonic_sort.cpu_threads = 2;
\set q random(1, 4)
\if :q = 1
SELECT 1 / (count(*) = 300000 AND count(*) FILTER (WHERE k < pk) = 0)::int
  FROM (SELECT k, lag(k) OVER () AS pk FROM (SELECT k FROM bs_conc ORDER BY k) s) x;
\elif :q = 2
SELECT 1 / (count(*) = 300000 AND count(*) FILTER (WHERE f > pf OR (f = pf AND id < pid)) = 0)::int
  FROM (SELECT f, id, lag(f) OVER () AS pf, lag(id) OVER () AS pid
        FROM (SELECT f, id FROM bs_conc ORDER BY f DESC, id) s) x;
\elif :q = 3
SELECT 1 / (count(*) = 300000 AND count(*) FILTER (WHERE t < pt OR (t = pt AND id < pid)) = 0)::int
  FROM (SELECT t, id, lag(t) OVER () AS pt, lag(id) OVER () AS pid
        FROM (SELECT t, id FROM bs_conc ORDER BY t COLLATE "C", id) s) x;
\else
SELECT 1 / (count(*) = 300000 AND count(*) FILTER (WHERE k < pk OR (k = pk AND id < pid)) = 0)::int
  FROM (SELECT k, id, lag(k) OVER () AS pk, lag(id) OVER () AS pid
        FROM (SELECT * FROM bs_conc ORDER BY k, id) s) x;
\endif
PGBENCH

echo "== concurrent sorts: pgbench, 16 clients, thread budget of 4"
"$PG_BIN/pgbench" -n -c 16 -j 4 -t 6 -f "$script" >>"$log" 2>&1
rc=$?
grep -E 'number of (transactions actually processed|failed)|aborted|ERROR' "$log" | head -5
left=$(psql -X -At -c "SELECT substring(details FROM '\(([0-9]+) alive\)') FROM bitonic_sort_info() WHERE backend = 'cpu'")
psql -X -q -c "ALTER SYSTEM RESET bitonic_sort.max_threads" -c "SELECT pg_reload_conf()" -c "DROP TABLE bs_conc" >/dev/null
echo "threads still counted after the clients ended: $left"
if [ "$rc" -eq 0 ] && grep -q 'number of transactions actually processed: 96/96' "$log" && [ "$left" = "0" ]; then
	echo "concurrency: ok"
	echo "1 0" >"$counts"
else
	echo "concurrency: FAILED (see $log)"
	cat "$log"
fi
