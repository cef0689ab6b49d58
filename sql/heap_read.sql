-- A BitonicSort node over a plain sequential scan of a heap table reads the
-- table's pages itself (src/scan/heap_read.c).  Every query here runs three
-- ways: the node reading the pages, the node reading through the scan node
-- (bitonic_sort.heap_read off) and PostgreSQL's own sort; the rows must be
-- the same and in the same order, whatever the snapshot sees.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
CREATE EXTENSION IF NOT EXISTS dblink;
SET max_parallel_workers_per_gather = 0;

-- md5 of the query's rows: 'same' when the three ways agree and the node
-- read the pages itself (pages) or through the scan (scan)
CREATE FUNCTION hr_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  got text;
  through_scan text;
  native text;
  pages bool := false;
  line text;
BEGIN
  PERFORM set_config('bitonic_sort.enable', 'on', true);
  PERFORM set_config('enable_sort', 'off', true);
  PERFORM set_config('bitonic_sort.heap_read', 'on', true);
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    pages := pages OR line LIKE '%Heap Pages Read%';
  END LOOP;
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'')) FROM (%s) x', q) INTO got;
  PERFORM set_config('bitonic_sort.heap_read', 'off', true);
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'')) FROM (%s) x', q) INTO through_scan;
  PERFORM set_config('bitonic_sort.heap_read', 'on', true);
  PERFORM set_config('bitonic_sort.enable', 'off', true);
  PERFORM set_config('enable_sort', 'on', true);
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'')) FROM (%s) x', q) INTO native;
  PERFORM set_config('bitonic_sort.enable', 'on', true);
  PERFORM set_config('enable_sort', 'off', true);
  IF got IS DISTINCT FROM native OR through_scan IS DISTINCT FROM native THEN
    RETURN 'differs';
  END IF;
  RETURN CASE WHEN pages THEN 'same (pages)' ELSE 'same (scan)' END;
END $$;

-- EXPLAIN ANALYZE's lines about the scan and the node, times masked
CREATE FUNCTION hr_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    CONTINUE WHEN line !~ 'Heap Pages|Seq Scan|BitonicSort|Rows Removed|Filter|Key Range';
    -- PostgreSQL 18 writes rows with two decimals
    RETURN NEXT regexp_replace(btrim(line), '(rows=[0-9]+)\.00', '\1', 'g');
  END LOOP;
END $$;

CREATE TABLE hr (id int, k int8, f float8, t text, big text) WITH (autovacuum_enabled = off);
INSERT INTO hr
  SELECT i, CASE WHEN i % 37 = 0 THEN NULL ELSE hashint4(i) % 5000 END,
         hashint4(i + 1) / 1e5, md5(i::text),
         CASE WHEN i % 5000 = 0 THEN repeat(md5(i::text), 3000) END
  FROM generate_series(1, 60000) i;
ANALYZE hr;
SET enable_sort = off;
SELECT * FROM hr_explain('SELECT * FROM hr ORDER BY k');
-- the scan's quals are the node's to evaluate: the filtered rows are counted
SELECT * FROM hr_explain('SELECT * FROM hr WHERE id > 20000 ORDER BY k');
SELECT (SELECT relpages FROM pg_class WHERE relname = 'hr') = pg_relation_size('hr') / 8192 AS relpages_current;
RESET enable_sort;

SELECT hr_check('SELECT * FROM hr ORDER BY k, id') AS whole_rows,
       hr_check('SELECT * FROM hr ORDER BY f DESC, id') AS float8_desc,
       hr_check('SELECT id, k FROM hr ORDER BY k NULLS FIRST, id') AS projected,
       hr_check('SELECT k FROM hr ORDER BY k') AS keys_alone,
       hr_check('SELECT DISTINCT k FROM hr ORDER BY k') AS distinct_keys,
       hr_check('SELECT id, md5(big) FROM hr WHERE k < 2000 AND t > ''5'' ORDER BY t COLLATE "C"') AS quals,
       hr_check('SELECT ctid, id FROM hr ORDER BY k, id') AS system_column;
-- a volatile function in the scan's target list: read through the scan
-- (the node would run a page's quals before its rows' projection)
SELECT hr_check('SELECT id, random() > 2 AS never FROM hr WHERE id % 2 = 0 ORDER BY k, id') AS volatile_target_list;

-- dead rows, HOT chains and rows moved to other pages
DELETE FROM hr WHERE id % 10 = 1;
UPDATE hr SET k = k + 1 WHERE id % 10 = 2;
UPDATE hr SET t = repeat(t, 4) WHERE id % 100 = 3;
SELECT hr_check('SELECT * FROM hr ORDER BY k, id') AS after_updates,
       hr_check('SELECT k FROM hr ORDER BY k') AS keys_after_updates;

-- a transaction's own changes, and a cursor's older snapshot of them
BEGIN;
INSERT INTO hr SELECT i, i % 7, i, 'new' FROM generate_series(100001, 100500) i;
DELETE FROM hr WHERE id % 10 = 4;
UPDATE hr SET k = -k WHERE id % 10 = 5;
SET LOCAL enable_sort = off;
DECLARE hr_cur CURSOR FOR SELECT id, k FROM hr WHERE id % 10 = 6 ORDER BY k, id;
SET LOCAL bitonic_sort.enable = off;
SET LOCAL enable_sort = on;
DECLARE hr_native CURSOR FOR SELECT id, k FROM hr WHERE id % 10 = 6 ORDER BY k, id;
UPDATE hr SET k = 0 WHERE id % 10 = 6;
SELECT hr_check('SELECT * FROM hr ORDER BY k, id') AS own_changes;
-- the cursors see the rows as they were when declared (none of k 0)
FETCH 4 FROM hr_cur;
FETCH 4 FROM hr_native;
COMMIT;
SELECT hr_check('SELECT * FROM hr ORDER BY k, id') AS committed;

-- another session's uncommitted changes are not seen; under REPEATABLE READ
-- neither are its committed ones
SELECT dblink_connect('hr_other', format('host=%s port=%s dbname=%s user=%s',
  split_part(current_setting('unix_socket_directories'), ',', 1),
  current_setting('port'), current_database(), current_user));
SELECT dblink_exec('hr_other', 'BEGIN');
SELECT dblink_exec('hr_other', 'DELETE FROM hr WHERE id % 10 = 7');
SELECT dblink_exec('hr_other', 'INSERT INTO hr SELECT i, 1, 1, ''other'' FROM generate_series(200001, 200300) i');
SELECT hr_check('SELECT * FROM hr ORDER BY k, id') AS others_uncommitted;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) AS rows_before FROM hr;
SELECT dblink_exec('hr_other', 'COMMIT');
SELECT hr_check('SELECT * FROM hr ORDER BY k, id') AS repeatable_read;
SELECT count(*) AS rows_still FROM hr;
COMMIT;
SELECT count(*) AS rows_after FROM hr;
SELECT dblink_disconnect('hr_other');

-- SERIALIZABLE reads through the scan node (its predicate locks)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT hr_check('SELECT * FROM hr ORDER BY k, id') AS serializable;
COMMIT;

-- a dropped column and a column added with a default (missing in old rows)
ALTER TABLE hr DROP COLUMN big;
ALTER TABLE hr ADD COLUMN extra int DEFAULT 42;
INSERT INTO hr SELECT i, i % 11, 0, 'added', i FROM generate_series(300001, 300200) i;
SELECT hr_check('SELECT * FROM hr ORDER BY extra, k, id') AS dropped_and_added,
       hr_check('SELECT id, extra FROM hr ORDER BY extra DESC, id') AS missing_attribute;

-- past work_mem the rows go to the runs of the external sort as the scan would give them
SET work_mem = '1MB';
SELECT hr_check('SELECT * FROM hr ORDER BY k, id') AS spilled,
       hr_check('SELECT k FROM hr ORDER BY k') AS keys_alone_spilled;
RESET work_mem;

-- a projection of table columns only is done by the node (its columns
-- copied out of the row, past a text column); a row of fixed-width columns
-- without NULLs is formed at fixed offsets: by value, by reference (uuid,
-- interval, name), NULLs among them, more columns than a fixed layout takes
CREATE TABLE hr_fixed (id int, t text, u uuid, iv interval, n name, b bool, c "char", k int2)
  WITH (autovacuum_enabled = off);
INSERT INTO hr_fixed
  SELECT i, md5(i::text), md5((i % 1000)::text)::uuid,
         CASE WHEN i % 97 = 0 THEN NULL ELSE make_interval(secs => hashint4(i) % 100000) END,
         ('n' || (i % 300))::name, i % 3 = 0, chr(65 + i % 26)::"char", (i % 500)::int2
  FROM generate_series(1, 20000) i;
SELECT hr_check('SELECT u, id, iv FROM hr_fixed ORDER BY u, id') AS uuid_key,
       hr_check('SELECT iv, n, b, c, k, id FROM hr_fixed ORDER BY iv DESC, id') AS interval_key,
       hr_check('SELECT k, n, id FROM hr_fixed ORDER BY n, id') AS name_key,
       hr_check('SELECT t, k, id FROM hr_fixed ORDER BY k, t') AS with_text;
DO $$ BEGIN
  EXECUTE (SELECT format('CREATE TABLE hr_wide AS SELECT %s FROM generate_series(1, 12000) g',
                         string_agg(format('(g * %s) %% 1009 AS c%s', n, n), ', ' ORDER BY n))
             FROM generate_series(1, 40) n);
END $$;
SELECT hr_check(format('SELECT %s FROM hr_wide ORDER BY c1, c2, c3',
                       string_agg('c' || n, ', ' ORDER BY n DESC)))
         AS more_columns_than_a_layout
  FROM generate_series(1, 36) n;

-- a rescan with a changed parameter reads the pages again
SELECT hr_check($q$SELECT g, (SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM hr WHERE k < g * 1000 ORDER BY k, id) s) FROM generate_series(1, 3) g$q$) AS rescan;

-- the scan's rescan tells its quals' hashed subplan that the parameter
-- changed (it builds its hash table again), and counts the scan's loops
CREATE TABLE hr_u AS
  SELECT g AS c, x FROM generate_series(1, 3) g, generate_series(1, 40000, 7) x WHERE x % g = 0;
ANALYZE hr_u;
SELECT hr_check($q$SELECT g, (SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM hr WHERE id NOT IN (SELECT x FROM hr_u WHERE hr_u.c = g) ORDER BY k, id) s) FROM generate_series(1, 3) g$q$) AS rescan_hashed_subplan;
SET enable_sort = off;
-- (the pages the updates above left depend on whether on-access pruning
-- ran, which another backend's snapshot can hold off: counted against the
-- table's size, three loops of all its pages)
SELECT regexp_replace(regexp_replace(l, 'actual rows=[0-9.]+ ', ''), 'Heap Pages Read: [0-9]+',
         CASE WHEN l ~ ('Heap Pages Read: ' || 3 * (pg_relation_size('hr') / 8192) || '$')
              THEN 'Heap Pages Read: 3 x all' ELSE 'Heap Pages Read: not 3 x all' END) AS loops
  FROM hr_explain($q$SELECT g, (SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM hr WHERE id NOT IN (SELECT x FROM hr_u WHERE hr_u.c = g) ORDER BY k, id) s) FROM generate_series(1, 3) g$q$) l
  WHERE l ~ 'Seq Scan on hr |BitonicSort|Heap Pages';
RESET enable_sort;

-- rows placed by key range: an estimate of 4M rows has the node place
-- them; with one thread the backend copies each row from its page into its
-- range's stream, with two it stages the row's address for the worker
CREATE TABLE hr_placed AS
  SELECT i AS id, (hashint4(i) % 3000)::int8 AS k, repeat('p', 40 + i % 50) AS pad
  FROM generate_series(1, 100000) i;
ANALYZE hr_placed;
UPDATE pg_class SET reltuples = 4000000 WHERE relname = 'hr_placed';
SET work_mem = '256MB';
SET bitonic_sort.cpu_threads = 1;
SET enable_sort = off;
-- (the table's pages differ between major versions: counted against its size)
SELECT regexp_replace(l, 'Heap Pages Read: [0-9]+',
         CASE WHEN l ~ ('Heap Pages Read: ' || pg_relation_size('hr_placed') / 8192 || '$')
              THEN 'Heap Pages Read: all' ELSE 'Heap Pages Read: not all' END) AS hr_explain
  FROM hr_explain('SELECT * FROM hr_placed ORDER BY k') l;
RESET enable_sort;
SELECT hr_check('SELECT * FROM hr_placed ORDER BY k DESC, id') AS placed_one_thread;
SET enable_sort = off;
SELECT (SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM hr_placed ORDER BY k) s) =
       (SELECT md5(string_agg(id::text, ',' ORDER BY k, id)) FROM hr_placed) AS ties_in_block_order;
RESET enable_sort;
SET bitonic_sort.cpu_threads = 2;
SELECT hr_check('SELECT * FROM hr_placed ORDER BY k DESC, id') AS placed_on_worker;
SET enable_sort = off;
SELECT (SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM hr_placed ORDER BY k) s) =
       (SELECT md5(string_agg(id::text, ',' ORDER BY k, id)) FROM hr_placed) AS ties_on_worker;
RESET enable_sort;
RESET bitonic_sort.cpu_threads;
RESET work_mem;

-- an all-visible page goes to the worker that places rows whole: the
-- backend keys its rows and stages the page (Heap Pages Whole), a page that
-- is not all-visible row by row; NULL keys, DESC, a text key, ties in block
-- order, and a spill that takes the rows of the pages still staged (ties
-- after a spill keep their order too; the checks break them by id)
CREATE TABLE hr_whole (id int, k int8, pad text) WITH (autovacuum_enabled = off);
INSERT INTO hr_whole
  SELECT i, CASE WHEN i % 41 = 0 THEN NULL ELSE (hashint4(i) % 3000)::int8 END,
         md5((i % 7000)::text) || repeat('w', i % 50)
  FROM generate_series(1, 100000) i;
-- (a vacuum leaves pages not all-visible while another session's snapshot,
-- an autovacuum worker's say, is older than the rows: vacuumed again from
-- another session until every page is, for up to a minute)
SELECT dblink_connect('hr_vacuum', format('host=%s port=%s dbname=%s user=%s',
  split_part(current_setting('unix_socket_directories'), ',', 1),
  current_setting('port'), current_database(), current_user));
DO $$
BEGIN
  FOR i IN 1..600 LOOP
    PERFORM dblink_exec('hr_vacuum', 'VACUUM (FREEZE, ANALYZE) hr_whole');
    EXIT WHEN (SELECT relallvisible = relpages FROM pg_class WHERE relname = 'hr_whole');
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT dblink_disconnect('hr_vacuum');
SELECT relallvisible = relpages AS all_visible FROM pg_class WHERE relname = 'hr_whole';
UPDATE hr_whole SET pad = pad || 'u', k = k + 1 WHERE id % 997 = 0;
UPDATE pg_class SET reltuples = 4000000 WHERE relname = 'hr_whole';
SET work_mem = '256MB';
SET bitonic_sort.cpu_threads = 2;
CREATE FUNCTION hr_whole_pages(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  pages bigint;
  whole bigint := 0;
  spilled bool := false;
  placed bool := false;
BEGIN
  PERFORM set_config('enable_sort', 'off', true);
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Heap Pages Read' THEN pages := substring(line from '[0-9]+')::bigint; END IF;
    IF line ~ 'Heap Pages Whole' THEN whole := substring(line from '[0-9]+')::bigint; END IF;
    spilled := spilled OR line ~ 'Spilled: true';
    placed := placed OR line ~ 'Key Ranges';
  END LOOP;
  RETURN CASE WHEN NOT placed THEN 'rows not placed'
              WHEN whole = 0 THEN 'no page whole'
              WHEN whole < pages THEN 'some pages whole' ELSE 'every page whole' END ||
         CASE WHEN spilled THEN ', spilled' ELSE '' END;
END $$;
CREATE TABLE hr_fresh WITH (autovacuum_enabled = off) AS SELECT * FROM hr_whole;
UPDATE pg_class SET reltuples = 4000000, relpages = pg_relation_size('hr_fresh') / 8192
  WHERE relname = 'hr_fresh';
SELECT hr_whole_pages('SELECT * FROM hr_whole ORDER BY k') AS whole_pages,
       hr_whole_pages('SELECT * FROM hr_fresh ORDER BY k') AS not_vacuumed;
SELECT hr_whole_pages('SELECT * FROM hr_whole ORDER BY k DESC, id') AS desc_pages,
       hr_whole_pages('SELECT * FROM hr_whole ORDER BY k NULLS FIRST, id') AS nulls_first_pages,
       hr_whole_pages('SELECT * FROM hr_whole ORDER BY pad COLLATE "C", id') AS text_pages;
SELECT hr_check('SELECT * FROM hr_whole ORDER BY k DESC, id') AS whole_desc,
       hr_check('SELECT * FROM hr_whole ORDER BY k NULLS FIRST, id') AS whole_nulls_first,
       hr_check('SELECT * FROM hr_whole ORDER BY pad COLLATE "C", id') AS whole_text;
SET enable_sort = off;
SELECT (SELECT md5(string_agg(x::text, E'\n')) FROM (SELECT * FROM hr_whole ORDER BY k) x) =
       (SELECT md5(string_agg(x::text, E'\n' ORDER BY k, ctid)) FROM hr_whole x) AS whole_ties_in_block_order;
RESET enable_sort;
SET work_mem = '2MB';
SELECT hr_whole_pages('SELECT * FROM hr_whole ORDER BY k') AS whole_pages_spilled;
SELECT hr_check('SELECT * FROM hr_whole ORDER BY k, id') AS whole_spilled;
RESET bitonic_sort.cpu_threads;
RESET work_mem;

-- a temporary table (local buffers)
CREATE TEMP TABLE hr_temp AS SELECT * FROM hr;
SELECT hr_check('SELECT * FROM hr_temp ORDER BY k DESC, id') AS temp_table;

-- the table's statistics count the scan and its rows as the scan node does
SELECT pg_stat_force_next_flush();
CREATE TEMP TABLE hr_stats AS
  SELECT seq_scan, seq_tup_read FROM pg_stat_user_tables WHERE relname = 'hr';
SET enable_sort = off;
SELECT count(*) > 0 AS read FROM (SELECT * FROM hr ORDER BY k) s;
SET bitonic_sort.heap_read = off;
SELECT count(*) > 0 AS read FROM (SELECT * FROM hr ORDER BY k) s;
RESET bitonic_sort.heap_read;
RESET enable_sort;
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT s.seq_scan - b.seq_scan AS scans, (s.seq_tup_read - b.seq_tup_read) = 2 * (SELECT count(*) FROM hr) AS rows_counted
  FROM pg_stat_user_tables s, hr_stats b WHERE s.relname = 'hr';

-- order_by_locking creates dblink again
DROP EXTENSION dblink;
