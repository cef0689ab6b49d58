-- BitonicSort in parallel plans: below Gather Merge each worker sorts its
-- share with the node and the leader merges.  The rows are those of the
-- same query with the module off, in the same order; a rescan (the inner
-- side of a nested loop), a scroll cursor read backward, a worker that
-- errors and a cancel while the workers sort behave as for the native Sort.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
RESET client_min_messages;
SET bitonic_sort.min_rows = 0;
SET work_mem = '256MB';
SET jit = off;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;

CREATE TABLE obp (id int, a int8, f float8, t text, g int);
INSERT INTO obp
SELECT i,
  CASE WHEN i % 37 = 0 THEN NULL ELSE (hashint4(i) % 20000)::int8 END,
  CASE i % 101 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN '-0' WHEN 3 THEN '-Infinity'
    ELSE hashint4(i * 7) / 1e4 END,
  CASE WHEN i % 41 = 0 THEN NULL ELSE md5((i % 30000)::text) END,
  i % 4
FROM generate_series(1, 200000) i;
ANALYZE obp;

-- obp_same_order(q): the query's rows with the module on and off, in order
CREATE FUNCTION obp_same_order(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE on_rows text; off_rows text; n bigint;
BEGIN
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'')), count(*) FROM (%s) x', q) INTO on_rows, n;
  PERFORM set_config('bitonic_sort.enable', 'off', true);
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'')) FROM (%s) x', q) INTO off_rows;
  PERFORM set_config('bitonic_sort.enable', 'on', true);
  RETURN CASE WHEN on_rows IS NOT DISTINCT FROM off_rows THEN format('same %s rows, same order', n)
              ELSE format('DIFFER (%s rows)', n) END;
END $$;

-- the node in the workers, the leader merging
EXPLAIN (COSTS OFF) SELECT * FROM obp ORDER BY a, id;
EXPLAIN (COSTS OFF) SELECT id, f FROM obp WHERE g <> 1 ORDER BY f DESC, id;
SELECT obp_same_order('SELECT * FROM obp ORDER BY a, id');
SELECT obp_same_order('SELECT * FROM obp ORDER BY a DESC NULLS LAST, id');
SELECT obp_same_order('SELECT id, f FROM obp WHERE g <> 1 ORDER BY f DESC, id');
SELECT obp_same_order('SELECT id, t FROM obp ORDER BY t COLLATE "C", id');
SELECT obp_same_order('SELECT id, t FROM obp ORDER BY t COLLATE "en_US" DESC, id');
SELECT obp_same_order('SELECT a, f, id FROM obp ORDER BY a NULLS FIRST, f, id');

-- rescan: the parallel sort on the inner side of a nested loop (LEFT JOIN
-- keeps it there), run again
-- for each outer row (workers launched anew each time)
SET enable_material = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF)
SELECT k, md5(string_agg(s.id::text, ',')) FROM generate_series(0, 3) k
  LEFT JOIN (SELECT id, g FROM obp ORDER BY a, id OFFSET 0) s ON s.g = k GROUP BY k;
SELECT obp_same_order($$
SELECT k, md5(string_agg(s.id::text, ',')) FROM generate_series(0, 3) k
  LEFT JOIN (SELECT id, g FROM obp ORDER BY a, id OFFSET 0) s ON s.g = k GROUP BY k ORDER BY k$$);
RESET enable_material;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- a cursor: PostgreSQL plans cursors without workers, native and ours
-- alike; read backward and at random, the node (c) gives native's rows (n)
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT id, a FROM obp ORDER BY a DESC, id;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id, a FROM obp ORDER BY a DESC, id;
SET LOCAL bitonic_sort.enable = off;
DECLARE n SCROLL CURSOR FOR SELECT id, a FROM obp ORDER BY a DESC, id;
FETCH LAST FROM c;
FETCH LAST FROM n;
FETCH BACKWARD 3 FROM c;
FETCH BACKWARD 3 FROM n;
FETCH ABSOLUTE 5 FROM c;
FETCH ABSOLUTE 5 FROM n;
FETCH RELATIVE -2 FROM c;
FETCH RELATIVE -2 FROM n;
FETCH ABSOLUTE 100000 FROM c;
FETCH ABSOLUTE 100000 FROM n;
COMMIT;

-- a worker that errors (its sort key divides by zero at one row): the
-- query reports the worker's error, and the next sort runs
EXPLAIN (COSTS OFF) \set VERBOSITY terse
SELECT id FROM obp ORDER BY 1000 / (id - 123456), id;
\set VERBOSITY default
\set VERBOSITY terse
SELECT id FROM obp ORDER BY 1000 / (id - 123456), id;
\set VERBOSITY default
SELECT obp_same_order('SELECT id FROM obp ORDER BY 1000 / (id - 1234567), id');

-- a cancel (statement_timeout) while the workers read and sort 2M rows:
-- the statement stops, no worker is left, and the next sort runs
CREATE TABLE obp_big AS SELECT i AS id, hashint4(i)::int8 AS a FROM generate_series(1, 2000000) i;
ANALYZE obp_big;
EXPLAIN (COSTS OFF) SELECT * FROM obp_big ORDER BY a, id;
SET statement_timeout = '50ms';
SELECT count(*) FROM (SELECT * FROM obp_big ORDER BY a, id OFFSET 0) s;
-- the same cancel at 30 moments from 4 to 120 ms (planning, the workers'
-- start, their reads, their sorts): each stops the statement and no process
-- dies of it (a worker's prefaulter once read pool pages its abort had
-- already unmapped: a SIGSEGV, and the server restarted)
\set VERBOSITY terse
SELECT format('SET statement_timeout = %s', t) AS timeout,
       'SELECT count(*) FROM (SELECT * FROM obp_big ORDER BY a, id OFFSET 0) s' AS sort
  FROM generate_series(4, 120, 4) t \gexec
\set VERBOSITY default
RESET statement_timeout;
SELECT pg_sleep(0.2);
SELECT count(*) AS workers_left FROM pg_stat_activity
  WHERE backend_type = 'parallel worker' AND leader_pid = pg_backend_pid();
SELECT obp_same_order('SELECT * FROM obp_big WHERE id % 10 = 0 ORDER BY a, id');

DROP TABLE obp, obp_big;
DROP FUNCTION obp_same_order(text);
