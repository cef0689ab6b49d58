#!/usr/bin/env bash
# test/scripts/bench-cancel.sh — what `make bench-cancel` runs: how long a
# BitonicSort query takes to stop after a cancel, at points spread over its
# whole run (ingest, split, sort, part sort, emit, tie pass, strcoll merge;
# past work_mem: runs written, merge passes, the final merge).
# A driver session runs each query in a second session (dblink), cancels it
# after 2%, 7%, ... 97% of its uncancelled time, and measures from the
# cancel until that session answers again (the error reaches the client
# before the abort's clean-up, which joins the threads and frees the
# memory).  Prints, per query, the median and the largest of those times.
# Not a test.
#   BENCH_ROWS=2000000   rows of the table (default 2M)
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
setup_all locales-all
ROWS=${BENCH_ROWS:-2000000}

psql -X -q -v ON_ERROR_STOP=1 -P footer=off <<SQL || exit 1
CREATE EXTENSION bitonic_sort;
CREATE EXTENSION dblink;
CREATE COLLATION bench_en (provider = libc, locale = 'en_US.utf8');
CREATE TABLE bench AS SELECT (random() * 1e18)::int8 AS a, random() - 0.5 AS b,
  md5(i::text) AS c, (random() * 1000)::int4 AS d, (random() * 1e6)::numeric(12, 3) AS n
  FROM generate_series(1, $ROWS) i;
VACUUM ANALYZE bench;
SELECT dblink_connect('q', format('host=%s port=%s dbname=%s user=%s options=''-cwork_mem=4GB -cenable_sort=off -cjit=off''',
  split_part(current_setting('unix_socket_directories'), ',', 1),
  current_setting('port'), current_database(), current_user));
CREATE TEMP TABLE other AS SELECT pid FROM dblink('q', 'SELECT pg_backend_pid()') AS r(pid int);

-- milliseconds q takes in the second session, uncancelled
CREATE FUNCTION pg_temp.full_ms(q text) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  PERFORM dblink_exec('q', q);
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END \$\$;
-- run q in the second session, cancel it after at_ms, and return the
-- milliseconds from the cancel until it answers again (NULL: q had ended)
CREATE FUNCTION pg_temp.stop_ms(q text, at_ms float8) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE
  t0 timestamptz;
  ended bool;
BEGIN
  PERFORM dblink_send_query('q', q);
  PERFORM pg_sleep(at_ms / 1000);
  t0 := clock_timestamp();
  PERFORM pg_cancel_backend((SELECT pid FROM other));
  ended := EXISTS (SELECT FROM dblink_get_result('q', false) AS r(status text));
  PERFORM * FROM dblink_get_result('q', false) AS r(status text);
  PERFORM * FROM dblink('q', 'SELECT 1') AS r(one int);
  RETURN CASE WHEN ended THEN NULL ELSE extract(epoch FROM clock_timestamp() - t0) * 1000 END;
END \$\$;
-- the stop times of q cancelled at 20 points of its run
CREATE FUNCTION pg_temp.sweep(label text, settings text, q text) RETURNS TABLE
  (query text, full_ms numeric, cancels int, median_stop_ms numeric, max_stop_ms numeric)
  LANGUAGE plpgsql AS \$\$
DECLARE
  whole float8;
  stops float8[] := '{}';
  s float8;
BEGIN
  PERFORM dblink_exec('q', 'RESET ALL; SET work_mem = ''4GB''; SET enable_sort = off; SET jit = off; ' || settings);
  -- every row through the node, none to the client
  q := 'DO \$x\$ BEGIN PERFORM * FROM (' || q || ') s OFFSET 1000000000; END \$x\$';
  whole := pg_temp.full_ms(q);
  FOR i IN 0..19 LOOP
    s := pg_temp.stop_ms(q, whole * (0.02 + 0.05 * i));
    IF s IS NOT NULL THEN
      stops := stops || s;
    END IF;
  END LOOP;
  RETURN QUERY SELECT label, round(whole::numeric, 1), cardinality(stops),
    (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY x)::numeric, 1) FROM unnest(stops) x),
    (SELECT round(max(x)::numeric, 1) FROM unnest(stops) x);
END \$\$;

SET client_min_messages = warning;
SELECT backend, details FROM bitonic_sort_info() WHERE usable;
SELECT s.* FROM (VALUES
  (1, 'int8 (placement, parts)', '', 'SELECT * FROM bench ORDER BY a'),
  (2, 'int8, parts by the bitonic network', 'SET bitonic_sort.algorithm = bitonic', 'SELECT * FROM bench ORDER BY a'),
  (3, 'int8, one piece by the bitonic network', 'SET bitonic_sort.algorithm = bitonic; SET bitonic_sort.cpu_threads = 1',
   'SELECT * FROM bench ORDER BY a'),
  (4, 'int4, float8 (tie pass)', '', 'SELECT * FROM bench ORDER BY d, b'),
  (5, 'numeric (constant key, tie pass)', '', 'SELECT * FROM bench ORDER BY n'),
  (6, 'text en_US (strcoll merge)', '', 'SELECT * FROM bench ORDER BY c COLLATE bench_en'),
  (7, 'int8, external at work_mem 4MB (runs, one merge)', 'SET work_mem = ''4MB''', 'SELECT * FROM bench ORDER BY a'),
  (8, 'text en_US, external at 4MB', 'SET work_mem = ''4MB''', 'SELECT * FROM bench ORDER BY c COLLATE bench_en'),
  (9, 'int4, float8, external at 64kB (merge passes)', 'SET work_mem = ''64kB''', 'SELECT * FROM bench ORDER BY d, b'),
  (10, 'native Sort, int8 (for scale)', 'SET bitonic_sort.enable = off; SET enable_sort = on', 'SELECT * FROM bench ORDER BY a')
) v(i, label, settings, q), LATERAL pg_temp.sweep(v.label, v.settings, v.q) s ORDER BY v.i;
SQL
