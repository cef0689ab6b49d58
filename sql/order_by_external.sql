-- The external sort (runs.c): past work_mem the node writes sorted runs to
-- temporary files with each row's normalized key and merges them.  Rows
-- and order equal to the native Sort's (bitonic_sort.enable off) for every
-- key type and option at work_mem 64kB, 1MB and 4MB, with the node shown
-- external in EXPLAIN; the same below a window, DISTINCT, GROUP BY and a
-- merge join; scroll cursors, mark/restore and rescans; cancel,
-- temp_file_limit, no temporary file left; Peak Memory within work_mem.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SET bitonic_sort.min_rows = 0;
-- every run of 4096 rows or more written in place is written from both
-- ends at once (by default only runs of 24 MB and more are), so that the
-- checks below cover that path for every type; runs of fewer rows (at
-- 64kB), text in other collations and one thread cover the other (and
-- runs written behind the input, at 1MB, a third)
SET bitonic_sort.both_ends_run_size = 0;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
CREATE COLLATION ext_en (provider = libc, locale = 'en_US.utf8');
-- 40,000 rows of about 170 bytes (6.5 MB): every work_mem below spills;
-- id is the input order (the heap is read front to back)
CREATE TABLE ext AS
SELECT i AS id,
  CASE WHEN i % 17 = 0 THEN NULL ELSE (hashint4(i) % 1000)::int4 END AS i4,
  CASE WHEN i % 19 = 0 THEN NULL ELSE (hashint4(i + 1) % 50000)::int8 * 1000003 END AS i8,
  CASE i % 29 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 'Infinity' WHEN 3 THEN '-Infinity'
    WHEN 4 THEN '-0' WHEN 5 THEN '0' ELSE (hashint4(i + 2) % 2000) / 8.0 END::float8 AS f8,
  CASE WHEN i % 23 = 0 THEN NULL WHEN i % 31 = 1 THEN 'NaN' ELSE round((hashint4(i + 3) % 100000) / 7.0, 3) END::numeric AS n,
  CASE WHEN i % 13 = 0 THEN NULL ELSE (ARRAY['apple', 'Apple', 'banana', 'b', 'B', '', 'éclair', 'eclair', 'zebra', 'a b'])[1 + abs(hashint4(i + 4)) % 10] || substr(md5(i::text), 1, i % 5) END AS t,
  CASE WHEN i % 11 = 0 THEN NULL ELSE date '2024-01-01' + (hashint4(i + 5) % 400) END AS d,
  CASE WHEN i % 7 = 0 THEN NULL ELSE md5((i % 3000)::text)::uuid END AS u,
  i % 3 = 0 AS b,
  repeat('p', 60 + i % 40) AS pad
FROM generate_series(1, 40000) i;
ANALYZE ext;
-- an int8 column of 700,000 rows (5.6 MB): sorted as keys alone
CREATE TABLE ext_keys AS
SELECT CASE WHEN i % 101 = 0 THEN NULL ELSE (hashint4(i) % 300000)::int8 END AS k, i AS id
FROM generate_series(1, 700000) i;
ANALYZE ext_keys;
-- 300,000 rows queried through (i % 7) < 10, of which the planner expects
-- a third: it prices the node as a sort in memory, which then spills
CREATE TABLE ext_misled AS
  SELECT i, (i::int8 * 7919) % 1000003 AS a, ((i * 31) % 1009) / 7.0::float8 AS f,
         md5(i::text) AS t, CASE WHEN i % 101 = 0 THEN NULL ELSE i % 1000 END AS g
  FROM generate_series(1, 300000) i;
ANALYZE ext_misled;

-- the native Sort's digest of each reference query, computed once: its
-- rows do not depend on work_mem
CREATE TEMP TABLE ext_native (q text PRIMARY KEY, digest text);
-- ext_check(q): the node ran (Sort disabled) and sorted externally, its
-- rows in the native Sort's order (the query's keys end in id, or the
-- native query given breaks ties by id: ties keep the input order)
CREATE FUNCTION ext_check(q text, native_q text DEFAULT NULL, mem text DEFAULT NULL,
  behind boolean DEFAULT true, map text DEFAULT 'auto',
  OUT node boolean, OUT external boolean, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  plan json;
  ours text;
  native text;
BEGIN
  IF mem IS NOT NULL THEN
    PERFORM set_config('work_mem', mem, true);
  END IF;
  PERFORM set_config('bitonic_sort.write_runs_behind', behind::text, true);
  PERFORM set_config('bitonic_sort.map_runs', map, true);
  PERFORM set_config('enable_sort', 'off', true);
  PERFORM set_config('enable_hashagg', 'off', true);
  EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
  plan := plan -> 0 -> 'Plan';
  WHILE plan ->> 'Custom Plan Provider' IS DISTINCT FROM 'BitonicSort' AND plan -> 'Plans' IS NOT NULL LOOP
    plan := plan -> 'Plans' -> 0;
  END LOOP;
  node := plan ->> 'Custom Plan Provider' IS NOT DISTINCT FROM 'BitonicSort';
  external := plan ->> 'Sort Method' IS NOT DISTINCT FROM 'external merge';
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'')) FROM (%s) x', q) INTO ours;
  SELECT digest INTO native FROM ext_native WHERE ext_native.q = coalesce(native_q, ext_check.q);
  IF NOT FOUND THEN
    PERFORM set_config('bitonic_sort.enable', 'off', true);
    PERFORM set_config('enable_sort', 'on', true);
    EXECUTE format('SELECT md5(string_agg(x::text, E''\n'')) FROM (%s) x', coalesce(native_q, q)) INTO native;
    PERFORM set_config('bitonic_sort.enable', 'on', true);
    INSERT INTO ext_native VALUES (coalesce(native_q, q), native);
  END IF;
  same := ours IS NOT DISTINCT FROM native;
END $$;

-- every sortable type, both directions, NULLs first and last, NaN and -0,
-- collations C, en_US and (where built) ICU, several keys, ties
CREATE TABLE ext_queries (label text, q text, native_q text);
INSERT INTO ext_queries VALUES
  ('int4', 'SELECT * FROM ext ORDER BY i4, id', NULL),
  ('int8 desc nulls last', 'SELECT * FROM ext ORDER BY i8 DESC NULLS LAST, id', NULL),
  ('float8 NaN -0', 'SELECT * FROM ext ORDER BY f8', 'SELECT * FROM ext ORDER BY f8, id'),
  ('float8 desc nulls first', 'SELECT * FROM ext ORDER BY f8 DESC NULLS FIRST, id DESC', NULL),
  ('numeric', 'SELECT * FROM ext ORDER BY n', 'SELECT * FROM ext ORDER BY n, id'),
  ('text C', 'SELECT * FROM ext ORDER BY t COLLATE "C"', 'SELECT * FROM ext ORDER BY t COLLATE "C", id'),
  ('text en_US desc', 'SELECT * FROM ext ORDER BY t COLLATE ext_en DESC', 'SELECT * FROM ext ORDER BY t COLLATE ext_en DESC, id'),
  ('text default', 'SELECT * FROM ext ORDER BY t NULLS FIRST, id', NULL),
  ('date', 'SELECT * FROM ext ORDER BY d', 'SELECT * FROM ext ORDER BY d, id'),
  ('uuid', 'SELECT * FROM ext ORDER BY u DESC', 'SELECT * FROM ext ORDER BY u DESC, id'),
  ('bool int4 float8', 'SELECT * FROM ext ORDER BY b, i4 DESC, f8, id', NULL),
  ('keys alone', 'SELECT k FROM ext_keys ORDER BY k DESC', NULL),
  ('keys alone nulls last', 'SELECT k FROM ext_keys ORDER BY k', NULL),
  ('expression', 'SELECT *, i4 % 7 AS m FROM ext ORDER BY i4 % 7, id', NULL),
  ('int4 ties, float8 desc', 'SELECT * FROM ext ORDER BY i4, f8 DESC NULLS LAST', 'SELECT * FROM ext ORDER BY i4, f8 DESC NULLS LAST, id'),
  ('int4 ties, date after text', 'SELECT * FROM ext ORDER BY i4 DESC, d NULLS FIRST', 'SELECT * FROM ext ORDER BY i4 DESC, d NULLS FIRST, id'),
  ('text C desc nulls first', 'SELECT * FROM ext ORDER BY t COLLATE "C" DESC NULLS FIRST', 'SELECT * FROM ext ORDER BY t COLLATE "C" DESC NULLS FIRST, id');
INSERT INTO ext_queries
SELECT 'text ICU', 'SELECT * FROM ext ORDER BY t COLLATE "und-x-icu", id', NULL
FROM pg_collation WHERE collname = 'und-x-icu';

-- (at 1MB the runs after the first are written behind the input where the
-- key allows, and the merges read them mapped; at 4MB every run from both
-- ends, read through buffers, as at 64kB)
CREATE TEMP TABLE ext_results AS
SELECT w.work_mem, q.label, c.*
FROM (VALUES ('64kB'), ('1MB'), ('4MB')) w(work_mem), ext_queries q,
     LATERAL ext_check(q.q, q.native_q, w.work_mem, w.work_mem <> '4MB',
                       CASE w.work_mem WHEN '1MB' THEN 'on' ELSE 'auto' END) c;
-- the failures, if any, then the count of checks
SELECT * FROM ext_results WHERE NOT (node AND external AND same);
SELECT count(*) AS checks, bool_and(node AND external AND same) AS all_external_and_same FROM ext_results;

-- records longer than a read chunk's head room, and longer than a chunk
-- (up to 6 kB, computed above the scan so that nothing is compressed):
-- gathered in a buffer of their own, the rest of a record read there; and
-- the same records read mapped, across pages
CREATE TABLE ext_wide AS
  SELECT i AS id, (i * 7919) % 1013 AS k, (i * 31) % 40 AS n FROM generate_series(1, 3000) i;
SELECT w.work_mem, w.map, c.*
FROM (VALUES ('64kB', 'auto'), ('1MB', 'off'), ('1MB', 'on')) w(work_mem, map),
     LATERAL ext_check('SELECT k, id, repeat(md5(id::text), n * 5) AS w FROM ext_wide ORDER BY k, id',
                       NULL, w.work_mem, true, w.map) c;
-- keys at the ends of their range beside NULLs and runs that have ended:
-- the merge's loser tree gives a NULL first key 0 and a NULL last or an
-- ended run all ones, and orders them apart from equal keys by their class
CREATE TABLE ext_edge AS
  SELECT i AS id, CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN -9223372036854775808
    WHEN 2 THEN 9223372036854775807 WHEN 3 THEN 0 ELSE (hashint4(i) % 3)::int8 END AS k,
    repeat('e', 50) AS pad
  FROM generate_series(1, 20000) i;
SELECT w.work_mem, w.map, o.dir, c.*
FROM (VALUES ('64kB', 'auto'), ('1MB', 'on')) w(work_mem, map),
     (VALUES ('NULLS FIRST'), ('NULLS LAST'), ('DESC NULLS FIRST'), ('DESC NULLS LAST')) o(dir),
     LATERAL ext_check('SELECT * FROM ext_edge ORDER BY k ' || o.dir,
                       'SELECT * FROM ext_edge ORDER BY k ' || o.dir || ', id', w.work_mem, true, w.map) c;
-- text whose key is 0 (the empty string) beside NULLs first
SELECT * FROM ext_check('SELECT * FROM ext ORDER BY t COLLATE "C" NULLS FIRST',
                        'SELECT * FROM ext ORDER BY t COLLATE "C" NULLS FIRST, id', '64kB') AS text_empty_nulls_first;
DROP TABLE ext_edge;
-- pairs that outgrow the planner's estimate (a third of the rows) in
-- memory: once a mapping of their own, they grow in place, their pages
-- moved by the kernel (mremap, twice here), and keep every pair
SELECT node, same AS pairs_grown_in_place
FROM ext_check('SELECT k * 1000003 AS w, id FROM ext_keys WHERE (id % 7) < 10 ORDER BY 1, 2',
               NULL, '64MB');
-- the merge reading its runs itself: with one thread allowed, no thread
-- reads ahead
SET bitonic_sort.cpu_threads = 1;
SELECT * FROM ext_check('SELECT * FROM ext ORDER BY i8, id', NULL, '64kB') AS without_read_ahead;
SELECT * FROM ext_check('SELECT k, id, repeat(md5(id::text), n * 5) AS w FROM ext_wide ORDER BY k, id',
                        NULL, '64kB') AS wide_without_read_ahead;
RESET bitonic_sort.cpu_threads;
DROP TABLE ext_wide;

-- the plan of the first node of a query, run with Sort disabled
CREATE FUNCTION ext_plan(q text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
  PERFORM set_config('enable_sort', 'off', true);
  EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
  RETURN plan -> 0 -> 'Plan';
END $$;

-- who writes the runs (run_ends.c), at 1MB:
-- - from both ends at once: the backend and a helper gather the rows of a
--   run of 4096 rows or more, one from its first row on, the other from
--   its last back, where the first sort column's key is exact (or there
--   is none to compute) or is text in "C" of which no value of the run
--   needs a detoast; not with one thread, nor for runs of fewer rows or
--   (by default) under 24 MB;
-- - behind the input: from the second run on, a thread of the node's
--   writes each run while the node reads the next, each run in half the
--   memory; where the key allows as above, two threads are allowed and
--   work_mem is 1MB or more (the first run written in place, from both
--   ends here);
-- - else the backend alone (the first run, at 64kB, compressed text, one
--   thread).
-- The same rows and order every way (checked above, and below).
-- ext_writers(q, setting, value): q's runs with a setting changed for it
-- alone, and of those the runs written from both ends and behind
CREATE FUNCTION ext_writers(q text, setting text DEFAULT NULL, value text DEFAULT NULL,
  OUT runs int, OUT from_both_ends int, OUT behind int, OUT mapped int, OUT merge_thread boolean)
LANGUAGE plpgsql AS $$
DECLARE
  p json;
  old text := CASE WHEN setting IS NOT NULL THEN current_setting(setting) END;
BEGIN
  IF setting IS NOT NULL THEN
    PERFORM set_config(setting, value, true);
  END IF;
  p := ext_plan(q);
  IF setting IS NOT NULL THEN
    PERFORM set_config(setting, old, true);
  END IF;
  runs := (p ->> 'Runs')::int;
  from_both_ends := (p ->> 'Runs From Both Ends')::int;
  behind := (p ->> 'Runs Written Behind')::int;
  mapped := (p ->> 'Runs Read Mapped')::int;
  merge_thread := (p ->> 'Merge Thread')::boolean;
END $$;
-- text in "C" compressed in the table: its key needs a detoast, which
-- only the backend may do, so its runs are written in place
CREATE TABLE ext_packed AS
  SELECT i AS id, repeat(md5((i * 7919 % 5003)::text), 100) AS t FROM generate_series(1, 20000) i;
ANALYZE ext_packed;
SET work_mem = '1MB';
SELECT label, w.runs > 1 AS several_runs, w.from_both_ends > 0 AS from_both_ends,
       w.behind > 0 AS behind, w.behind = w.runs - 2 AS first_and_last_in_place
FROM (VALUES
  ('int8', 'SELECT * FROM ext ORDER BY i8, id', NULL, NULL),
  ('float8 desc', 'SELECT * FROM ext ORDER BY f8 DESC NULLS FIRST, id DESC', NULL, NULL),
  ('text C', 'SELECT * FROM ext ORDER BY t COLLATE "C", id', NULL, NULL),
  ('text C, compressed', 'SELECT * FROM ext_packed ORDER BY t COLLATE "C", id', NULL, NULL),
  ('one thread', 'SELECT * FROM ext ORDER BY i8, id', 'bitonic_sort.cpu_threads', '1'),
  ('not behind', 'SELECT * FROM ext ORDER BY i8, id', 'bitonic_sort.write_runs_behind', 'off'),
  ('runs under 24 MB', 'SELECT * FROM ext ORDER BY i8, id', 'bitonic_sort.both_ends_run_size', '24MB'),
  ('64kB', 'SELECT * FROM ext ORDER BY i8, id', 'work_mem', '64kB')) v(label, q, setting, value),
  LATERAL ext_writers(v.q, v.setting, v.value) w;
SELECT * FROM ext_check('SELECT * FROM ext_packed ORDER BY t COLLATE "C", id', NULL, '1MB')
  AS compressed_text_in_place;
-- who reads the runs (bitonic_sort.map_runs): mapped, where they lie in
-- the page cache, with no read buffers (as many runs merged at once as
-- fit with buffers of 2 kB, which a run that cannot be mapped takes); by
-- default (auto) only where more runs are expected than read buffers of
-- one block or more take, or for the thread below, else read into
-- buffers; never below 1MB.  And
-- who decides the final merge's order: a thread of its own where the runs
-- are mapped and one column's exact keys decide alone, or the thread can
-- tell the ties apart from the records (merge_tie.c: text in "C" whose
-- values need no detoast, later columns of exact keys), else the node
SET bitonic_sort.map_runs = on;
SELECT label, w.runs > 1 AS several_runs, w.mapped >= w.runs AS all_mapped, w.mapped = 0 AS none_mapped,
       w.merge_thread
FROM (VALUES
  ('int8', 'SELECT * FROM ext ORDER BY i8, id', NULL, NULL),
  ('int8 alone', 'SELECT * FROM ext ORDER BY i8', NULL, NULL),
  ('float8 alone', 'SELECT * FROM ext ORDER BY f8 DESC NULLS LAST', NULL, NULL),
  ('date alone', 'SELECT * FROM ext ORDER BY d', NULL, NULL),
  ('merge_thread off', 'SELECT * FROM ext ORDER BY i8', 'bitonic_sort.merge_thread', 'off'),
  ('one thread', 'SELECT * FROM ext ORDER BY i8', 'bitonic_sort.cpu_threads', '1'),
  ('text C', 'SELECT * FROM ext ORDER BY t COLLATE "C", id', NULL, NULL),
  ('text C desc, date', 'SELECT * FROM ext ORDER BY t COLLATE "C" DESC, d', NULL, NULL),
  ('text C, compressed', 'SELECT * FROM ext_packed ORDER BY t COLLATE "C", id', NULL, NULL),
  ('int8, text', 'SELECT * FROM ext ORDER BY i8, t COLLATE "C"', NULL, NULL),
  ('numeric, text', 'SELECT * FROM ext ORDER BY n, t', NULL, NULL),
  ('keys alone', 'SELECT k FROM ext_keys ORDER BY k', NULL, NULL),
  ('auto, few runs', 'SELECT * FROM ext ORDER BY n, id', 'bitonic_sort.map_runs', 'auto'),
  ('auto, for the thread, ties', 'SELECT * FROM ext ORDER BY i8, id', 'bitonic_sort.map_runs', 'auto'),
  ('auto, for the thread', 'SELECT * FROM ext ORDER BY i8', 'bitonic_sort.map_runs', 'auto'),
  ('auto, keys alone', 'SELECT k FROM ext_keys ORDER BY k', 'bitonic_sort.map_runs', 'auto'),
  ('off', 'SELECT * FROM ext ORDER BY i8, id', 'bitonic_sort.map_runs', 'off'),
  ('64kB', 'SELECT * FROM ext ORDER BY i8, id', 'work_mem', '64kB')) v(label, q, setting, value),
  LATERAL ext_writers(v.q, v.setting, v.value) w;
RESET bitonic_sort.map_runs;
DROP TABLE ext_packed;
-- the rows the same with the node deciding the order of mapped runs (the
-- differential above has the thread: float8, date, text in "C", several
-- keys and, below, the keys at the ends of their range)
SET bitonic_sort.merge_thread = off;
SELECT * FROM ext_check('SELECT * FROM ext ORDER BY f8', 'SELECT * FROM ext ORDER BY f8, id', '1MB', true, 'on')
  AS mapped_without_merge_thread;
SELECT * FROM ext_check('SELECT * FROM ext ORDER BY i4, f8 DESC NULLS LAST',
                        'SELECT * FROM ext ORDER BY i4, f8 DESC NULLS LAST, id', '1MB', true, 'on')
  AS ties_mapped_without_merge_thread;
RESET bitonic_sort.merge_thread;
-- text in "C" longer than a short header takes, equal in its first 8
-- bytes and more: the thread's ties compare the whole values
SELECT w.merge_thread, c.*
FROM (VALUES ('SELECT * FROM (SELECT i AS id, repeat(''ab'', 100 + i % 3) || (i * 7919) % 7 AS w FROM generate_series(1, 20000) i) s ORDER BY w COLLATE "C"')) v(q),
     LATERAL ext_writers(v.q, 'bitonic_sort.map_runs', 'on') w,
     LATERAL ext_check(v.q, v.q || ', id', '1MB', true, 'on') c;
-- second sort columns added after most rows were in the table, with a
-- default (the older rows' value is the descriptor's missing value) and
-- without (NULL there): the rows the node writes carry the values, and
-- the thread orders their ties as the backend would
CREATE TABLE ext_added AS
  SELECT i AS id, (i % 500)::int8 AS k, repeat('a', 80) AS pad FROM generate_series(1, 20000) i;
ALTER TABLE ext_added ADD COLUMN m int DEFAULT 5, ADD COLUMN w int;
INSERT INTO ext_added SELECT i, i % 500, repeat('b', 80), i % 3, i % 7 FROM generate_series(20001, 30000) i;
ANALYZE ext_added;
SELECT v.label, w.merge_thread, c.*
FROM (VALUES ('with a default', 'SELECT * FROM ext_added ORDER BY k, m DESC'),
             ('without, after one with', 'SELECT * FROM ext_added ORDER BY k, w NULLS FIRST')) v(label, q),
     LATERAL ext_writers(v.q, 'bitonic_sort.map_runs', 'on') w,
     LATERAL ext_check(v.q, v.q || ', id', '1MB', true, 'on') c;
DROP TABLE ext_added;
-- text in "C" whose strings share a prefix longer than the key (URLs):
-- a run of equal keys is sorted by the next 8 bytes, and so on (the tie
-- pass, multikey.c), strings that end there before those that go on,
-- equal strings by the columns after, then in input order; the same for
-- such text after an int4 (its prefix, then its next bytes); in memory
-- and past work_mem
CREATE TABLE ext_prefix AS
  SELECT i AS id,
    CASE WHEN i % 97 = 0 THEN NULL
      ELSE 'https://example.com/items/' || (ARRAY['a', 'ab', 'abc', 'b', ''])[1 + i % 5] ||
           repeat('x', (i * 7) % 23) || CASE WHEN i % 3 = 0 THEN '' ELSE md5((i % 1000)::text) END
    END AS s, i % 11 AS g
  FROM generate_series(1, 30000) i;
ANALYZE ext_prefix;
SELECT w.mem, v.q, c.*
FROM (VALUES ('ORDER BY s COLLATE "C"'), ('ORDER BY s COLLATE "C" DESC'),
             ('ORDER BY s COLLATE "C" NULLS FIRST, g'), ('ORDER BY s COLLATE "C" DESC NULLS LAST, g DESC'),
             ('ORDER BY g, s COLLATE "C"'), ('ORDER BY g DESC, s COLLATE "C" DESC NULLS FIRST')) v(q),
     (VALUES ('64MB'), ('1MB')) w(mem),
     LATERAL ext_check('SELECT * FROM ext_prefix ' || v.q, 'SELECT * FROM ext_prefix ' || v.q || ', id', w.mem) c;
DROP TABLE ext_prefix;
-- records longer than an end's write buffer (32 kB at 1 MB: one of 41 kB
-- every 1000 rows, computed above the scan so that nothing is compressed)
-- are written in pieces where they go, at either end; and a first sort
-- column added with a default after most rows were in the table
SET work_mem = '1MB';
CREATE TABLE ext_ends AS
  SELECT i AS id, ((i * 7919) % 30011)::int8 AS k FROM generate_series(1, 30000) i;
ALTER TABLE ext_ends ADD COLUMN late int8 DEFAULT 42;
INSERT INTO ext_ends SELECT i, ((i * 7919) % 30011)::int8, i % 3 FROM generate_series(30001, 36000) i;
-- ext_wide_and_late(counter): those two sorts at 1MB, whether the runs
-- EXPLAIN counts as `counter` were written, and ext_check's answer (runs
-- written behind only where the counter is theirs)
CREATE FUNCTION ext_wide_and_late(counter text)
RETURNS TABLE (query text, counted boolean, node boolean, external boolean, same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  wide text := $q$SELECT k, id, CASE WHEN id % 1000 = 0 THEN repeat(md5(id::text), 1300)
    ELSE md5(id::text) END AS w FROM ext_ends ORDER BY k, id$q$;
  late text := 'SELECT * FROM ext_ends ORDER BY late, id';
  behind boolean := counter = 'Runs Written Behind';
BEGIN
  PERFORM set_config('work_mem', '1MB', true);
  PERFORM set_config('bitonic_sort.write_runs_behind', behind::text, true);
  RETURN QUERY SELECT 'wide', (ext_plan(wide) ->> counter)::int > 0, c.*
    FROM ext_check(wide, NULL, '1MB', behind) c;
  RETURN QUERY SELECT 'late', (ext_plan(late) ->> counter)::int > 0, c.*
    FROM ext_check(late, NULL, '1MB', behind) c;
END $$;
SELECT * FROM ext_wide_and_late('Runs From Both Ends');
RESET bitonic_sort.write_runs_behind;

-- records longer than the write buffer (32 kB at 1 MB), written in pieces
-- where they go, and a first sort column added with a default, behind
-- (the first run written in place by the backend alone)
SET bitonic_sort.both_ends_run_size = '24MB';
SELECT * FROM ext_wide_and_late('Runs Written Behind');
-- records longer than the bytes touched ahead of a mapped run (384 kB at 2MB
-- every 1000 rows): the touches start again at the record after one, whose
-- pages before are unmapped; the same rows where the node reads the runs
-- (two keys) and where a thread decides the order (one)
SELECT k.keys, c.*
FROM (VALUES ('k, id'), ('k')) k(keys),
     LATERAL ext_check(format($q$SELECT k, id, CASE WHEN id %% 1000 = 0 THEN repeat(md5(id::text), 12000)
       ELSE md5(id::text) END AS w FROM ext_ends ORDER BY %s$q$, k.keys),
       format($q$SELECT k, id, CASE WHEN id %% 1000 = 0 THEN repeat(md5(id::text), 12000)
       ELSE md5(id::text) END AS w FROM ext_ends ORDER BY %s, id$q$, k.keys), '2MB', true, 'on') c;
DROP TABLE ext_ends;
SET bitonic_sort.both_ends_run_size = 0;
RESET work_mem;

-- below a window, DISTINCT, GROUP BY and a merge join: sorts the planner
-- expects to fit, so that it takes the node by its in-memory cost (with
-- Sort disabled, PostgreSQL 18 no longer prices the native Sort out), each
-- past work_mem at run time
SELECT * FROM ext_check('SELECT i, a, row_number() OVER (ORDER BY a, i), rank() OVER (ORDER BY g) FROM ext_misled WHERE (i % 7) < 10', NULL, '16MB') AS windowed;
SELECT * FROM ext_check('SELECT DISTINCT t COLLATE "C" FROM ext_misled WHERE (i % 7) < 10 ORDER BY 1', NULL, '16MB') AS distinct_text;
SELECT * FROM ext_check('SELECT DISTINCT a FROM ext_misled WHERE (i % 7) < 10 ORDER BY 1', NULL, '2MB') AS distinct_int8;
SELECT * FROM ext_check('SELECT g, count(*), sum(i), min(f) FROM ext_misled WHERE (i % 7) < 10 GROUP BY g ORDER BY g', NULL, '8MB') AS group_by;
-- the merge join's inner side is the node, external, marked and restored
SET work_mem = '8MB';
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_material = off;
SELECT p ->> 'Node Type' AS join, p -> 'Plans' -> 1 ->> 'Custom Plan Provider' AS inner_node,
       p -> 'Plans' -> 1 ->> 'Sort Method' AS inner_method
FROM ext_plan('SELECT a.i, b.i FROM ext_misled a JOIN ext_misled b ON a.g = b.g WHERE (a.i % 7) < 10 AND a.i % 500 = 0 AND (b.i % 7) < 10') p;
SELECT same AS merge_join_same
FROM ext_check('SELECT a.i, b.i FROM ext_misled a JOIN ext_misled b ON a.g = b.g WHERE (a.i % 7) < 10 AND a.i % 500 = 0 AND (b.i % 7) < 10 ORDER BY 1, 2');
RESET enable_hashjoin;
RESET enable_nestloop;
RESET enable_material;

-- ext_trace(q): a scroll cursor moved back and forth, absolute fetches
CREATE FUNCTION ext_trace(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c refcursor := 'ext_c';
  r record;
  out text := '';
BEGIN
  OPEN c SCROLL FOR EXECUTE q;
  FOR k IN 1..5 LOOP FETCH c INTO r; out := out || r::text || ';'; END LOOP;
  FOR k IN 1..3 LOOP FETCH PRIOR FROM c INTO r; out := out || r::text || ';'; END LOOP;
  FETCH ABSOLUTE 20000 FROM c INTO r; out := out || r::text || ';';
  FETCH RELATIVE -7 FROM c INTO r; out := out || r::text || ';';
  FETCH LAST FROM c INTO r; out := out || r::text || ';';
  FETCH PRIOR FROM c INTO r; out := out || r::text || ';';
  FETCH FIRST FROM c INTO r; out := out || r::text || ';';
  MOVE ABSOLUTE 39990 FROM c;
  FETCH NEXT FROM c INTO r; out := out || r::text || ';';
  CLOSE c;
  RETURN md5(out);
END $$;
CREATE FUNCTION ext_cursor_compare(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  a text;
  b text;
BEGIN
  PERFORM set_config('enable_sort', 'off', true);
  a := ext_trace(q);
  PERFORM set_config('bitonic_sort.enable', 'off', true);
  PERFORM set_config('enable_sort', 'on', true);
  b := ext_trace(q);
  PERFORM set_config('bitonic_sort.enable', 'on', true);
  RETURN CASE WHEN a = b THEN 'same' ELSE 'differs' END;
END $$;
SET work_mem = '256kB';
SET enable_sort = off;
EXPLAIN (COSTS OFF) DECLARE ext_cur SCROLL CURSOR FOR SELECT id, i8 FROM ext ORDER BY i8 DESC, id;
RESET enable_sort;
SELECT ext_cursor_compare('SELECT id, i8 FROM ext ORDER BY i8 DESC, id') AS scroll_exact,
       ext_cursor_compare('SELECT id, t FROM ext ORDER BY t COLLATE ext_en, id DESC') AS scroll_en_us,
       ext_cursor_compare('SELECT k FROM ext_keys ORDER BY k NULLS FIRST') AS scroll_keys_alone;

-- a cursor closed in the middle of the merge: the reads asked for ahead
-- are dropped and the thread stopped before the buffers go; nothing is
-- left on disk, and the next sort is right
SET enable_sort = off;
BEGIN;
DECLARE ext_mid NO SCROLL CURSOR FOR SELECT * FROM ext ORDER BY i8, id;
MOVE 20000 IN ext_mid;
CLOSE ext_mid;
COMMIT;
RESET enable_sort;
SELECT count(*) AS temp_files_left FROM pg_ls_tmpdir();
SELECT * FROM ext_check('SELECT * FROM ext ORDER BY i8, id', NULL, '256kB') AS after_closed_cursor;

-- a rescan: an inner side rewound without new parameters (its merge kept
-- in a tuplestore), and a subquery sorted again for each parameter
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT * FROM ext_check($q$SELECT g, s.id FROM generate_series(1, 3) g,
  LATERAL (SELECT id FROM (SELECT id, i8 FROM ext ORDER BY i8 DESC, id OFFSET 0) o LIMIT 2 OFFSET 30000) s$q$) AS rewound;
SELECT * FROM ext_check($q$SELECT g, (SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM ext WHERE id % 3 <> g ORDER BY f8, id) s)
  FROM generate_series(0, 2) g$q$) AS rescanned;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- Peak Memory, the node's own accounting (rows, pairs, the sorters'
-- scratch, the runs' write and read buffers and merge), within work_mem plus
-- 512 kB (its first 64 kB block of rows, 1024 pairs, a buffer per merged
-- run) at each size
CREATE FUNCTION ext_peak_within(q text, mem text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
  PERFORM set_config('work_mem', mem, true);
  PERFORM set_config('enable_sort', 'off', true);
  EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
  plan := plan -> 0 -> 'Plan';
  -- and its runs still fill work_mem (fewer than 2,000 here, where a run
  -- of one row each would make hundreds of thousands)
  RETURN (plan ->> 'Spilled')::boolean AND
         (plan ->> 'Peak Memory')::int <= (SELECT setting::int FROM pg_settings WHERE name = 'work_mem') + 512 AND
         coalesce((plan ->> 'Runs')::int, 0) < 2000;
END $$;
SELECT w AS work_mem, ext_peak_within('SELECT * FROM ext ORDER BY i8, id', w) AS int8,
       ext_peak_within('SELECT * FROM ext ORDER BY t COLLATE ext_en, id', w) AS text_en_us,
       ext_peak_within('SELECT * FROM ext ORDER BY n, t', w) AS numeric_text,
       ext_peak_within('SELECT k FROM ext_keys ORDER BY k', w) AS keys_alone
FROM (VALUES ('64kB'), ('1MB'), ('4MB')) v(w);
-- and with the runs read mapped (the merges' readers counted, no buffers)
SET bitonic_sort.map_runs = on;
SELECT w AS work_mem, ext_peak_within('SELECT * FROM ext ORDER BY i8, id', w) AS int8_mapped,
       ext_peak_within('SELECT k FROM ext_keys ORDER BY k', w) AS keys_alone_mapped
FROM (VALUES ('1MB'), ('4MB')) v(w);
RESET bitonic_sort.map_runs;
-- runs that are one group of equal first keys, or nearly (300,000 rows at
-- 8MB): the tie pass sorts a group where its pairs lie (32 bits of the
-- next column's key at a time in 8-byte pairs; in 16-byte pairs the next
-- 8 bytes of text, or the comparators' items), and the first column's
-- NULL group in what the pairs leave beside the order, so no run takes
-- more than work_mem (it took 16-20 bytes a row more: 10-13 MB here);
-- and rows narrower than the pairs' first reservation expects spill
-- before the pairs' doubling would pass work_mem (9.6 MB here); the rows
-- in the native Sort's order
CREATE TABLE ext_groups AS
  SELECT i AS id, (i % 1000 = 0)::int AS g4, (i % 1000 = 0)::int::int8 AS g8,
         CASE WHEN i % 1000 = 0 THEN 1 END AS gn,
         (hashint4(i) % 100000) / 7.0::float8 AS f,
         CASE WHEN i % 500 = 0 THEN NULL ELSE 'https://example.com/items/' || md5(i::text) END AS url
  FROM generate_series(1, 300000) i;
ANALYZE ext_groups;
SELECT label, ext_peak_within(q, '8MB') AS within_work_mem, c.*
FROM (VALUES ('int4 of one value, float8', 'SELECT id, g4, f FROM ext_groups ORDER BY g4, f'),
             ('int4 desc, float8 desc', 'SELECT id, g4, f FROM ext_groups ORDER BY g4 DESC, f DESC'),
             ('int8 of one value, float8 desc', 'SELECT id, g8, f FROM ext_groups ORDER BY g8, f DESC'),
             ('NULLs first, float8', 'SELECT id, gn, f FROM ext_groups ORDER BY gn NULLS FIRST, f'),
             ('int4, text C', 'SELECT id, g4, url FROM ext_groups ORDER BY g4, url COLLATE "C"'),
             ('int4 desc, text C desc', 'SELECT id, g4, url FROM ext_groups ORDER BY g4 DESC, url COLLATE "C" DESC NULLS FIRST'),
             ('text C of one prefix', 'SELECT id, url FROM ext_groups ORDER BY url COLLATE "C"'),
             ('float8 alone, narrow rows', 'SELECT id, f FROM ext_groups ORDER BY f')) v(label, q),
     LATERAL ext_check(v.q, v.q || ', id', '8MB') c;
DROP TABLE ext_groups;

-- a sort the planner expects to fit: its first run is sorted as an
-- in-memory sort would be (rows placed by key range on the worker), the
-- rest in runs; nothing kept from the sort before (keep_memory 0), Peak
-- Memory within work_mem plus 512 kB
SET bitonic_sort.keep_memory = 0;
SELECT c.*, ext_peak_within(q, mem) AS within_work_mem
FROM (VALUES ('SELECT * FROM ext_misled WHERE (i % 7) < 10 ORDER BY f, i', '16MB'),
             ('SELECT * FROM ext_misled WHERE (i % 7) < 10 ORDER BY t COLLATE "C"', '16MB'),
             ('SELECT * FROM ext_misled WHERE (i % 7) < 10 ORDER BY g DESC NULLS LAST, i', '16MB'),
             ('SELECT a FROM ext_misled WHERE (i % 7) < 10 ORDER BY a', '1MB')) v(q, mem),
     LATERAL ext_check(q, NULL, mem) c;
RESET bitonic_sort.keep_memory;
-- runs written behind where the planner expects a third of the rows: more
-- runs come than one merge takes, so levels merge while rows come in; a
-- run whose end merges is written in place (besides the first and the
-- last), its memory freed before the merge's; the rows the same, Peak
-- Memory within work_mem plus 512 kB (without the merge thread, for
-- which the runs would be mapped and merged at once)
SET work_mem = '1MB';
SET bitonic_sort.merge_thread = off;
SELECT (p ->> 'Runs Written Behind')::int > 0 AS behind,
       (p ->> 'Merge Passes')::int > 1 AS several_passes,
       (p ->> 'Runs')::int - (p ->> 'Runs Written Behind')::int > 2 AS merging_runs_in_place,
       ext_peak_within(v.q, '1MB') AS within_work_mem, c.*
FROM (VALUES ('SELECT * FROM ext_misled WHERE (i % 7) < 10 ORDER BY f, i')) v(q),
     LATERAL ext_plan(v.q) p, LATERAL ext_check(v.q, NULL, '1MB') c;
RESET bitonic_sort.merge_thread;
RESET work_mem;

-- many runs at 64kB: runs merged by level as they come, more than one
-- merge pass, as many runs at once as work_mem has buffers for; Disk as
-- in the native Sort's line
SET work_mem = '64kB';
SELECT (p ->> 'Runs')::int > 100 AS many_runs,
       (p ->> 'Merge Passes')::int > 1 AS several_passes,
       (p ->> 'Merge Order')::int BETWEEN 2 AND 8 AS order_within_work_mem,
       (p ->> 'Disk')::int > 4000 AS disk_used
FROM ext_plan('SELECT * FROM ext ORDER BY i8, id') p;
-- runs of one level share a temporary file, deleted once they are read:
-- one file for a sort merged in one pass, a file per merge's worth of
-- runs where there are several (pg_stat_database counts each file as it
-- is deleted)
SELECT pg_stat_force_next_flush();
CREATE TEMP TABLE ext_files_before AS
  SELECT temp_files FROM pg_stat_database WHERE datname = current_database();
CREATE TEMP TABLE ext_files_plans AS
  SELECT '64kB' AS mem, ext_plan('SELECT * FROM ext ORDER BY i8, id') AS p;
SET work_mem = '1MB';
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
CREATE TEMP TABLE ext_files_between AS
  SELECT temp_files FROM pg_stat_database WHERE datname = current_database();
INSERT INTO ext_files_plans SELECT '1MB', ext_plan('SELECT * FROM ext ORDER BY f8, id');
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT mem, (p ->> 'Runs')::int > 2 AS several_runs, (p ->> 'Merge Passes')::int = 1 AS one_pass,
       CASE mem WHEN '64kB' THEN m.temp_files - b.temp_files < (p ->> 'Runs')::int / 2
                ELSE d.temp_files - m.temp_files = 1 END AS files_shared
FROM ext_files_plans, ext_files_before b, ext_files_between m, pg_stat_database d
WHERE d.datname = current_database() ORDER BY mem DESC;
SET work_mem = '64kB';
-- the merges' read buffers are given back with their runs: each run still
-- fills work_mem (700,000 keys of 8 bytes in 56 kB: about 150 runs)
SELECT (p ->> 'Runs')::int BETWEEN 100 AND 1000 AS keys_alone_runs_fill_work_mem
FROM ext_plan('SELECT k FROM ext_keys ORDER BY k') p;
-- keys alone past work_mem are priced as runs of keys (8 bytes a value):
-- with the native Sort enabled, the planner takes the node for them (at
-- the top, or below the window where the node does not compute it: 18)
CREATE FUNCTION ext_default_plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
  plan := plan -> 0 -> 'Plan';
  RETURN coalesce(plan ->> 'Custom Plan Provider', plan -> 'Plans' -> 0 ->> 'Custom Plan Provider');
END $$;
SET work_mem = '1MB';
SELECT ext_default_plan('SELECT k FROM ext_keys ORDER BY k') AS keys_alone_order_by,
       ext_default_plan('SELECT k, row_number() OVER (ORDER BY k) FROM ext_keys') AS keys_alone_window;
-- rows past work_mem too: the node's external sort is priced below the
-- native one's (it was measured 2-3 times faster from 50K to 10M rows)
SELECT ext_default_plan('SELECT * FROM ext ORDER BY i8, id') AS rows_int8,
       ext_default_plan('SELECT * FROM ext ORDER BY t COLLATE "C", id') AS rows_text,
       ext_default_plan('SELECT * FROM ext_misled ORDER BY a') AS rows_300k;
SET work_mem = '64kB';
-- in every format, each line of the external sort
CREATE FUNCTION ext_formats(q text) RETURNS TABLE (explain_format text, lines_shown boolean)
LANGUAGE plpgsql AS $$
DECLARE
  cmd text;
  line text;
  out text;
BEGIN
  PERFORM set_config('enable_sort', 'off', true);
  FOREACH explain_format IN ARRAY ARRAY['text', 'json', 'yaml', 'xml'] LOOP
    cmd := format('EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF, SUMMARY OFF, FORMAT %s) %s', explain_format, q);
    out := '';
    FOR line IN EXECUTE cmd LOOP
      out := out || line || E'\n';
    END LOOP;
    lines_shown := out ~ 'Sort.Method' AND out ~ 'external merge' AND out ~ 'Runs' AND
                   out ~ 'Runs.From.Both.Ends' AND out ~ 'Runs.Written.Behind' AND
                   out ~ 'Merge.Passes' AND out ~ 'Merge.Order' AND out ~ 'Disk';
    RETURN NEXT;
  END LOOP;
END $$;
SELECT * FROM ext_formats('SELECT id FROM ext ORDER BY i4, id');

-- temp_file_limit: a clean error naming it; nothing left on disk; the
-- next sort right
SET work_mem = '1MB';
SET enable_sort = off;
SET temp_file_limit = '1MB';
DO $$
BEGIN
  PERFORM count(*) FROM (SELECT * FROM ext ORDER BY i8, id) s;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'SQLSTATE %, names temp_file_limit: %', SQLSTATE, SQLERRM ~ 'temp_file_limit';
END $$;
RESET temp_file_limit;
SELECT count(*) AS temp_files_left FROM pg_ls_tmpdir();
RESET enable_sort;
SELECT * FROM ext_check('SELECT * FROM ext ORDER BY i8, id') AS after_temp_file_limit;

-- a cancel (while runs are written and merged): a clean error, nothing
-- left on disk, the next sort right
SET enable_sort = off;
SET statement_timeout = '300ms';
SELECT count(*) FROM (SELECT e.*, g FROM ext e, generate_series(1, 40) g ORDER BY e.t COLLATE ext_en, g) s;
RESET statement_timeout;
SELECT count(*) AS temp_files_left FROM pg_ls_tmpdir();
SELECT * FROM ext_check('SELECT * FROM ext ORDER BY t COLLATE ext_en, id') AS after_cancel;
-- the same while runs are written from both ends
SET bitonic_sort.write_runs_behind = off;
SET statement_timeout = '300ms';
SELECT count(*) FROM (SELECT e.*, g FROM ext e, generate_series(1, 40) g ORDER BY e.i8, g) s;
RESET statement_timeout;
RESET bitonic_sort.write_runs_behind;
SELECT count(*) AS temp_files_left FROM pg_ls_tmpdir();
SELECT * FROM ext_check('SELECT * FROM ext ORDER BY i8, id') AS after_cancel_both_ends;
-- and while runs are written behind the input (the thread is stopped
-- before the rows it reads or its descriptor go)
SET statement_timeout = '300ms';
SELECT count(*) FROM (SELECT e.*, g FROM ext e, generate_series(1, 40) g ORDER BY e.f8, g) s;
RESET statement_timeout;
SELECT count(*) AS temp_files_left FROM pg_ls_tmpdir();
SELECT * FROM ext_check('SELECT * FROM ext ORDER BY f8, id', NULL) AS after_cancel_behind;
-- runs read mapped hold their files' space until unmapped: the backend
-- maps its runs while the final merge is under way (a cursor stopped in
-- it, the thread deciding its order waiting on a full ring), and none once
-- the cursor is closed, nor after an error in the merge (the thread
-- stopped first)
CREATE FUNCTION ext_mapped_runs() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM regexp_split_to_table(pg_read_file('/proc/self/maps'), E'\n') AS line
  WHERE line LIKE '%pgsql_tmp%' $$;
SET work_mem = '1MB';
SET bitonic_sort.map_runs = on;
BEGIN;
DECLARE ext_c NO SCROLL CURSOR FOR SELECT * FROM ext ORDER BY i8;
FETCH 1 FROM ext_c;
SELECT ext_mapped_runs() > 1 AS mapped_while_merging;
CLOSE ext_c;
SELECT ext_mapped_runs() AS mapped_after_close;
DECLARE ext_c NO SCROLL CURSOR FOR SELECT * FROM ext ORDER BY f8 DESC;
FETCH 1 FROM ext_c;
SELECT 1 / 0;
ROLLBACK;
SELECT ext_mapped_runs() AS mapped_after_error, count(*) AS temp_files_left FROM pg_ls_tmpdir();
RESET bitonic_sort.map_runs;
SELECT * FROM ext_check('SELECT * FROM ext ORDER BY f8, id', NULL, '1MB', true, 'on') AS after_error_mapped;
RESET enable_sort;
RESET work_mem;
DROP TABLE ext_queries;
DROP TABLE ext_keys;
DROP TABLE ext_misled;
DROP TABLE ext;
