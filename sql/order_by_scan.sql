-- ORDER BY through the BitonicSort custom scan: when the planner picks it,
-- and that it returns exactly what the native Sort returns.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SET work_mem = '64MB';

-- a table of every sortable type: NULLs, duplicates, NaN, extremes
CREATE TYPE obs_pair AS (x int, y text);
CREATE TABLE obs (
  id int PRIMARY KEY, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
  b bool, o oid, d date, tm time, ts timestamp, tz timestamptz,
  t text, v varchar(20), c char(3), n numeric, u uuid, by bytea,
  iv interval, ar int4[], rc obs_pair);
INSERT INTO obs
SELECT i,
  CASE i % 11 WHEN 0 THEN NULL WHEN 1 THEN -32768 WHEN 2 THEN 32767 ELSE (i * 37) % 201 - 100 END,
  CASE i % 12 WHEN 0 THEN NULL WHEN 1 THEN -2147483648 WHEN 2 THEN 2147483647 ELSE (i * 7919) % 1001 - 500 END,
  CASE i % 13 WHEN 0 THEN NULL WHEN 1 THEN -9223372036854775808 WHEN 2 THEN 9223372036854775807 ELSE ((i * 104729) % 5003 - 2500)::int8 * 1000000007 END,
  CASE i % 14 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN '-Infinity' WHEN 3 THEN 'Infinity' WHEN 4 THEN '-0' WHEN 5 THEN 0 ELSE ((i * 31) % 301 - 150) / 7.0 END,
  CASE i % 15 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN '-Infinity' WHEN 3 THEN 'Infinity' WHEN 4 THEN '-0' WHEN 5 THEN 0 WHEN 6 THEN 1e-300 ELSE ((i * 7907) % 4001 - 2000) / 3.0 END,
  CASE i % 5 WHEN 0 THEN NULL ELSE i % 3 = 0 END,
  CASE i % 16 WHEN 0 THEN NULL WHEN 1 THEN 4294967295 ELSE (i * 13) % 97 END,
  CASE i % 17 WHEN 0 THEN NULL WHEN 1 THEN '4713-01-01 BC'::date WHEN 2 THEN 'infinity' WHEN 3 THEN '-infinity' ELSE date '2000-01-01' + (i * 17) % 3000 - 1500 END,
  CASE i % 18 WHEN 0 THEN NULL ELSE time '00:00' + ((i * 7) % 1440) * interval '1 minute' END,
  CASE i % 19 WHEN 0 THEN NULL WHEN 1 THEN 'infinity' WHEN 2 THEN '-infinity' ELSE timestamp '2000-01-01' + ((i * 7919) % 100000) * interval '1 hour' END,
  CASE i % 20 WHEN 0 THEN NULL ELSE timestamptz '2000-01-01 00:00+00' + ((i * 7907) % 100000) * interval '1 minute' END,
  CASE i % 9 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN 'É' WHEN 3 THEN 'e' WHEN 4 THEN 'E'
    ELSE substr(md5((i % 400)::text), 1, 1 + i % 5) || CASE WHEN i % 4 = 0 THEN ' Z' ELSE '' END END,
  CASE i % 10 WHEN 0 THEN NULL ELSE upper(substr(md5((i % 300)::text), 1, 2 + i % 12)) END,
  CASE i % 8 WHEN 0 THEN NULL ELSE chr(97 + i % 5) || chr(65 + i % 3) END,
  CASE i % 7 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 1e100 WHEN 3 THEN -1e100 ELSE ((i * 7919) % 2001 - 1000) / 7.0 END,
  CASE i % 6 WHEN 0 THEN NULL ELSE md5((i % 500)::text)::uuid END,
  CASE i % 21 WHEN 0 THEN NULL ELSE decode(substr(md5((i % 250)::text), 1, 2 * (i % 4)), 'hex') END,
  CASE i % 22 WHEN 0 THEN NULL ELSE ((i * 13) % 400) * interval '1 hour' + (i % 3) * interval '1 month' END,
  CASE i % 23 WHEN 0 THEN NULL WHEN 1 THEN '{}' ELSE ARRAY[(i * 7) % 5, CASE WHEN i % 4 = 0 THEN NULL ELSE i % 3 END] END,
  CASE i % 24 WHEN 0 THEN NULL ELSE ROW(i % 6, CASE WHEN i % 5 = 0 THEN NULL ELSE chr(97 + i % 4) END)::obs_pair END
FROM generate_series(1, 3000) i;
ANALYZE obs;

-- bs_compare(query): runs the query with BitonicSort forced (Sort disabled)
-- and with BitonicSort off; 'same' when the rows come back identical and in
-- the same order, otherwise how many positions differ.
CREATE FUNCTION bs_compare(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  used bool := false;
  a text[];
  b text[];
BEGIN
  PERFORM set_config('bitonic_sort.enable', 'on', true);
  PERFORM set_config('enable_sort', 'off', true);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    used := used OR line LIKE '%Custom Scan (BitonicSort)%';
  END LOOP;
  EXECUTE format('SELECT array_agg(x::text) FROM (%s) x', q) INTO a;
  PERFORM set_config('bitonic_sort.enable', 'off', true);
  PERFORM set_config('enable_sort', 'on', true);
  EXECUTE format('SELECT array_agg(x::text) FROM (%s) x', q) INTO b;
  IF NOT used THEN
    RETURN 'BitonicSort not used';
  END IF;
  IF a IS NOT DISTINCT FROM b THEN
    RETURN 'same';
  END IF;
  RETURN format('%s of %s rows differ', (SELECT count(*) FROM unnest(a, b) u(x, y) WHERE x IS DISTINCT FROM y), cardinality(b));
END $$;

-- a libc collation with collation rules (the database's, C.UTF-8, has none:
-- its text sorts in byte order, as in "C")
CREATE COLLATION bs_en (provider = libc, locale = 'en_US.utf8');
-- when the planner picks the node: with the CPU's fastest sorter (auto) it
-- is cheaper than the native Sort for keys it can normalise, not where the
-- tie pass must do a whole comparison sort (strcoll text) ...
SET bitonic_sort.min_rows = 0;
EXPLAIN (COSTS OFF) SELECT * FROM obs ORDER BY i8;
EXPLAIN (COSTS OFF) SELECT * FROM obs ORDER BY t COLLATE "C", id;
EXPLAIN (COSTS OFF) SELECT * FROM obs ORDER BY t;           -- C.UTF-8: byte order, keyed as "C"
EXPLAIN (COSTS OFF) SELECT * FROM obs ORDER BY t COLLATE bs_en;
-- ... with the standard bitonic network on the CPU it is slower than the
-- native Sort for 64-bit keys, and the planner keeps the Sort ...
SET bitonic_sort.algorithm = bitonic;
EXPLAIN (COSTS OFF) SELECT * FROM obs ORDER BY i8;
EXPLAIN (COSTS OFF) SELECT * FROM obs ORDER BY t COLLATE "C", id;
RESET bitonic_sort.algorithm;
-- ... and with Sort disabled the node is used wherever it is offered
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT * FROM obs ORDER BY i8;          -- exact key
EXPLAIN (COSTS OFF) SELECT * FROM obs ORDER BY t COLLATE "C", id;  -- abbreviated key
EXPLAIN (COSTS OFF) SELECT * FROM obs ORDER BY t COLLATE bs_en;  -- strcoll: no key, comparison sort
EXPLAIN (COSTS OFF) SELECT i4 + 1 AS k, t FROM obs ORDER BY 1 DESC NULLS LAST, i8;
EXPLAIN (COSTS OFF, VERBOSE) SELECT id, upper(t) FROM obs ORDER BY f8 DESC, v COLLATE "C" NULLS FIRST, ar;
-- where it is not offered
EXPLAIN (COSTS OFF) SELECT * FROM obs ORDER BY i8 LIMIT 10; -- top-N heap sort: native
EXPLAIN (COSTS OFF) SELECT * FROM obs WHERE id < 100 ORDER BY id;  -- index order: no sort
SET bitonic_sort.min_rows = 100000;
EXPLAIN (COSTS OFF) SELECT * FROM obs ORDER BY i8;          -- too few rows
SET bitonic_sort.min_rows = 0;
SET bitonic_sort.enable = off;
EXPLAIN (COSTS OFF) SELECT * FROM obs ORDER BY i8;          -- switched off
RESET bitonic_sort.enable;
RESET enable_sort;

-- every type, both directions, both NULL placements, against the native Sort
SELECT count(*) AS queries, count(*) FILTER (WHERE r = 'same') AS same
FROM (SELECT bs_compare(format('SELECT id, %I FROM obs ORDER BY %I %s, id', col, col, dir)) r
      FROM unnest(ARRAY['i2','i4','i8','f4','f8','b','o','d','tm','ts','tz','t','v','c','n','u','by','iv','ar','rc']) col,
           unnest(ARRAY['ASC', 'DESC', 'ASC NULLS FIRST', 'DESC NULLS LAST']) dir) s;
-- same, printing any query that differs (none)
SELECT col, dir, r
FROM (SELECT col, dir, bs_compare(format('SELECT id, %I FROM obs ORDER BY %I %s, id', col, col, dir)) r
      FROM unnest(ARRAY['i2','i8','f8','t','n','u']) col,
           unnest(ARRAY['ASC', 'DESC NULLS LAST']) dir) s
WHERE r <> 'same';

-- several keys, expressions, keys not in the select list, collations
SELECT bs_compare('SELECT id FROM obs ORDER BY b, i2 DESC, f4 NULLS FIRST, id');
SELECT bs_compare('SELECT id, t FROM obs ORDER BY t COLLATE "C" DESC, n, id');
SELECT bs_compare('SELECT id, t FROM obs ORDER BY t, id');
SELECT bs_compare('SELECT id, t FROM obs ORDER BY t COLLATE "und-x-icu", id');
SELECT bs_compare('SELECT id, t FROM obs ORDER BY t COLLATE "en-x-icu" DESC NULLS LAST, v COLLATE "C", id');
SELECT bs_compare('SELECT id FROM obs ORDER BY i4 % 7, -(i4::int8), f8 * 2 DESC, id');
SELECT bs_compare('SELECT id, length(t) FROM obs ORDER BY lower(v), c DESC, id');
SELECT bs_compare('SELECT id FROM obs ORDER BY rc DESC, ar, iv, by NULLS FIRST, id');
SELECT bs_compare('SELECT id FROM obs ORDER BY tz, ts DESC, d, tm, o, id');
SELECT bs_compare('SELECT v, count(*) FROM obs GROUP BY v ORDER BY count(*) DESC, v');
SELECT bs_compare('SELECT t, i2 FROM obs ORDER BY t USING ~<~, i2 USING >, id');

-- ties come out in input order: the node's ORDER BY keys against the
-- native Sort's ORDER BY keys, ctid (the order a seq scan reads)
CREATE FUNCTION bs_ties(keys text, tbl text DEFAULT 'obs') RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  a int[];
  b int[];
  used bool := false;
  line text;
BEGIN
  PERFORM set_config('bitonic_sort.enable', 'on', true);
  PERFORM set_config('enable_sort', 'off', true);
  FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT id FROM %I ORDER BY %s', tbl, keys) LOOP
    used := used OR line LIKE '%Custom Scan (BitonicSort)%';
  END LOOP;
  IF NOT used THEN
    RETURN 'BitonicSort not used';
  END IF;
  EXECUTE format('SELECT array_agg(id) FROM (SELECT id FROM %I ORDER BY %s) x', tbl, keys) INTO a;
  PERFORM set_config('bitonic_sort.enable', 'off', true);
  PERFORM set_config('enable_sort', 'on', true);
  EXECUTE format('SELECT array_agg(id) FROM (SELECT id FROM %I ORDER BY %s, ctid) x', tbl, keys) INTO b;
  RETURN CASE WHEN a = b THEN 'input order' ELSE 'differs' END;
END $$;
SELECT bs_ties('i2') AS exact_key,
       bs_ties('t COLLATE "C"') AS abbreviated_key,
       bs_ties('n DESC') AS numeric_key,
       bs_ties('t') AS byte_order_key,
       bs_ties('t COLLATE bs_en') AS no_key,
       bs_ties('b, i4 % 3') AS two_keys,
       bs_ties('f4 DESC NULLS LAST, c') AS nulls;
-- the tie pass sorts a run of equal keys by the next column's exact key
-- (its NULLs apart, in input order), then each group of equal keys by the
-- columns after it; the first column's NULL group the same way
SELECT bs_ties('b, f8 DESC NULLS FIRST') AS keyed_float8,
       bs_ties('i4 % 3, f4 NULLS FIRST, i2 DESC') AS keyed_three_columns,
       bs_ties('b NULLS FIRST, d DESC, t COLLATE "C"') AS keyed_then_compared,
       bs_ties('t COLLATE "C", ts') AS abbreviated_then_keyed,
       bs_ties('t COLLATE bs_en, i8 DESC NULLS LAST') AS no_key_then_keyed;

-- LIMIT / OFFSET, subqueries, CTEs, UNION, DISTINCT, window input
SELECT bs_compare('SELECT id FROM obs ORDER BY f4 DESC, id OFFSET 2990');
SELECT bs_compare('SELECT * FROM (SELECT id, i8 FROM obs WHERE i2 > 0 ORDER BY i8, id LIMIT 2000) s WHERE id % 2 = 0');
SELECT bs_compare('WITH w AS MATERIALIZED (SELECT id, f8 FROM obs ORDER BY f8 DESC, id) SELECT * FROM w');
SELECT bs_compare('SELECT * FROM (SELECT i2 AS k, t AS s FROM obs UNION ALL SELECT (i4 % 100)::int2, v FROM obs) u ORDER BY s COLLATE "C", k');
SELECT bs_compare('SELECT x FROM (SELECT DISTINCT i2 % 50 AS x FROM obs) d ORDER BY x DESC');
SELECT bs_compare('SELECT id, (SELECT max(o2.id) FROM obs o2 WHERE o2.i2 = obs.i2) FROM obs ORDER BY i4, id');

-- rescans: correlated subquery and nested loop with changing parameters,
-- and a rescan without parameters that replays the sorted rows
SELECT bs_compare($q$SELECT k, (SELECT string_agg(id::text, ',') FROM (SELECT id FROM obs WHERE obs.i2 % 5 = g.k ORDER BY f8, id) s) FROM generate_series(-4, 4) g(k)$q$);
SELECT bs_compare($q$SELECT g.k, s.id FROM generate_series(1, 3) g(k), LATERAL (SELECT id FROM obs WHERE i4 % 3 = g.k - 2 ORDER BY t COLLATE "C", id) s$q$);
SET enable_material = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT g.k, s.id FROM generate_series(1, 3) g(k), (SELECT id FROM obs ORDER BY i8 DESC, id OFFSET 0) s;
RESET enable_sort;
SELECT bs_compare('SELECT g.k, s.id FROM generate_series(1, 3) g(k), (SELECT id FROM obs ORDER BY i8 DESC, id OFFSET 0) s');
RESET enable_material;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- scrollable cursor, forced node: FETCH forward, backward, absolute
SET enable_sort = off;
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT id, f8 FROM obs ORDER BY f8 DESC, id;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id, f8 FROM obs ORDER BY f8 DESC, id;
FETCH 4 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH BACKWARD 3 FROM c;
FETCH ABSOLUTE 6 FROM c;
FETCH RELATIVE -5 FROM c;
FETCH BACKWARD 1 FROM c;
FETCH FORWARD 2 FROM c;
MOVE LAST IN c;
FETCH NEXT FROM c;
FETCH PRIOR FROM c;
COMMIT;
RESET enable_sort;
-- the same moves through plpgsql, node forced and native, compared
CREATE FUNCTION bs_cursor_trace(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c refcursor;
  r record;
  trace text := '';
BEGIN
  OPEN c SCROLL FOR EXECUTE q;
  FOR step IN 1..4 LOOP FETCH NEXT FROM c INTO r; trace := trace || coalesce(r::text, '-'); END LOOP;
  FOR step IN 1..2 LOOP FETCH PRIOR FROM c INTO r; trace := trace || coalesce(r::text, '-'); END LOOP;
  FETCH LAST FROM c INTO r; trace := trace || coalesce(r::text, '-');
  FOR step IN 1..3 LOOP FETCH PRIOR FROM c INTO r; trace := trace || coalesce(r::text, '-'); END LOOP;
  FETCH ABSOLUTE 6 FROM c INTO r; trace := trace || coalesce(r::text, '-');
  FETCH RELATIVE -5 FROM c INTO r; trace := trace || coalesce(r::text, '-');
  FETCH PRIOR FROM c INTO r; trace := trace || CASE WHEN FOUND THEN r::text ELSE '-' END;
  FETCH NEXT FROM c INTO r; trace := trace || CASE WHEN FOUND THEN r::text ELSE '-' END;
  MOVE LAST IN c;
  FETCH NEXT FROM c INTO r; trace := trace || CASE WHEN FOUND THEN r::text ELSE '-' END;
  FETCH PRIOR FROM c INTO r; trace := trace || CASE WHEN FOUND THEN r::text ELSE '-' END;
  CLOSE c;
  RETURN trace;
END $$;
CREATE FUNCTION bs_cursor_compare(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  a text;
  b text;
BEGIN
  PERFORM set_config('bitonic_sort.enable', 'on', true);
  PERFORM set_config('enable_sort', 'off', true);
  a := bs_cursor_trace(q);
  PERFORM set_config('bitonic_sort.enable', 'off', true);
  PERFORM set_config('enable_sort', 'on', true);
  b := bs_cursor_trace(q);
  RETURN CASE WHEN a = b THEN 'same' ELSE 'differs' END;
END $$;
SELECT bs_cursor_compare('SELECT id, f8 FROM obs ORDER BY f8 DESC, id') AS exact,
       bs_cursor_compare('SELECT id, t FROM obs ORDER BY t COLLATE "C", id DESC') AS abbreviated,
       bs_cursor_compare('SELECT id, n FROM obs ORDER BY n NULLS FIRST, i2, id') AS several_keys;

-- partitioned table
CREATE TABLE obs_part (id int, k int8, t text) PARTITION BY RANGE (id);
CREATE TABLE obs_part_1 PARTITION OF obs_part FOR VALUES FROM (MINVALUE) TO (1000);
CREATE TABLE obs_part_2 PARTITION OF obs_part FOR VALUES FROM (1000) TO (MAXVALUE);
INSERT INTO obs_part SELECT id, i8, t FROM obs;
ANALYZE obs_part;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT * FROM obs_part ORDER BY k, id;
RESET enable_sort;
SELECT bs_compare('SELECT * FROM obs_part ORDER BY k, id');
SELECT bs_compare('SELECT * FROM obs_part ORDER BY t COLLATE "C" DESC, id');

-- parallel plans: the node below Gather Merge (each worker's share) or above Gather, by cost
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT id, i8 FROM obs WHERE i2 > -50 ORDER BY i8, id;
RESET enable_sort;
SELECT bs_compare('SELECT id, i8 FROM obs WHERE i2 > -50 ORDER BY i8, id');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- a scan that only repeats a column for a sort key (t COLLATE "C") is read
-- as it is: the node stores each column once, and its output slot maps the
-- copy and reads a row only when a consumer does (the scan's Output below
-- has t once; the node's has it twice)
SET enable_sort = off;
EXPLAIN (COSTS OFF, VERBOSE) SELECT id, t FROM obs ORDER BY t COLLATE "C" DESC, id;
RESET enable_sort;
SELECT bs_compare('SELECT t COLLATE "C" AS tc, v, id FROM obs ORDER BY 1, v COLLATE "C" DESC, id') AS relabelled_output,
       bs_compare('SELECT id, v, t FROM obs ORDER BY v COLLATE "C", t COLLATE "C" DESC, id') AS two_relabelled_keys,
       bs_compare('WITH w AS MATERIALIZED (SELECT id, t FROM obs ORDER BY t COLLATE "C", id) SELECT * FROM w') AS tuplestore_copy,
       bs_compare('SELECT id, t FROM obs ORDER BY t COLLATE "C", id OFFSET 2500') AS offset;
-- rows written to a table straight from the mapped slot (heap tuples formed
-- from it), in the order the native Sort gives
SET enable_sort = off;
CREATE TABLE obs_by_t_node AS SELECT id, t COLLATE "C" AS tc, t FROM obs ORDER BY 2, id;
RESET enable_sort;
SET bitonic_sort.enable = off;
CREATE TABLE obs_by_t_native AS SELECT id, t COLLATE "C" AS tc, t FROM obs ORDER BY 2, id;
RESET bitonic_sort.enable;
SELECT (SELECT array_agg(x::text ORDER BY ctid) FROM obs_by_t_node x) =
       (SELECT array_agg(x::text ORDER BY ctid) FROM obs_by_t_native x) AS same_table,
       (SELECT count(*) FROM obs_by_t_node) AS rows;
DROP TABLE obs_by_t_node, obs_by_t_native;

-- EXPLAIN in every format shows the keys, backend and algorithm
CREATE FUNCTION bs_explain(q text, opts text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE format('EXPLAIN (%s) %s', opts, q) LOOP
    -- times and sizes vary from run to run; whether the huge page pool has
    -- room depends on the machine (bs_pool_check below tests that line),
    -- and what an earlier sort kept for this one on the time between them
    -- (bs_reused_kb below tests that line)
    CONTINUE WHEN line ~ 'Huge.Page.Memory|Reused.Memory';
    RETURN NEXT regexp_replace(line, '(time=|Time": |Time: |Memory": |Memory: |Used": |Used: |Disk: |Runs: |Passes: |Order: )[0-9.]+', '\1N', 'g');
  END LOOP;
END $$;
SET enable_sort = off;
SELECT * FROM bs_explain('SELECT id FROM obs ORDER BY t COLLATE "C" DESC, f8 NULLS FIRST', 'COSTS OFF');
SELECT * FROM bs_explain('SELECT id FROM obs ORDER BY t COLLATE "C" DESC, f8 NULLS FIRST', 'COSTS OFF, FORMAT JSON');
SELECT * FROM bs_explain('SELECT id FROM obs ORDER BY i8', 'COSTS OFF, FORMAT YAML');
SELECT * FROM bs_explain('SELECT id FROM obs ORDER BY i8', 'COSTS OFF, FORMAT XML');
-- with ANALYZE: rows, memory and the time of each phase
SELECT * FROM bs_explain('SELECT id FROM obs ORDER BY i8', 'ANALYZE, BUFFERS OFF, COSTS OFF, SUMMARY OFF');
SELECT * FROM bs_explain('SELECT id FROM obs ORDER BY t COLLATE bs_en, id', 'ANALYZE, BUFFERS OFF, COSTS OFF, SUMMARY OFF, FORMAT JSON');

-- spill: with a small work_mem the node writes sorted runs to disk and merges them
SET work_mem = '64kB';
SELECT * FROM bs_explain('SELECT * FROM obs ORDER BY f8, id', 'ANALYZE, BUFFERS OFF, COSTS OFF, SUMMARY OFF, TIMING OFF');
RESET enable_sort;
SELECT bs_compare('SELECT * FROM obs ORDER BY f8, id');
SELECT bs_compare('SELECT id, t FROM obs ORDER BY t COLLATE "C" DESC, i2, id');
SELECT bs_compare($q$SELECT k, (SELECT string_agg(id::text, ',') FROM (SELECT id, t FROM obs WHERE obs.i2 % 3 = g.k ORDER BY t, id) s) FROM generate_series(-2, 2) g(k)$q$);
SELECT bs_cursor_compare('SELECT id, f8 FROM obs ORDER BY f8 DESC, id') AS spilled_cursor;
RESET work_mem;

-- many rows: tuple blocks up to 8 MB (2 MB aligned, faulted in by a
-- background thread), a row larger than a block, a spill after large blocks
-- and a cancel while rows are read.  Compared by a digest of the whole output
-- (against native_q, when given, run with the native Sort).
CREATE FUNCTION bs_digest_compare(q text, native_q text DEFAULT NULL) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  used bool := false;
  line text;
  a text;
  b text;
BEGIN
  PERFORM set_config('bitonic_sort.enable', 'on', true);
  PERFORM set_config('enable_sort', 'off', true);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    used := used OR line LIKE '%Custom Scan (BitonicSort)%';
  END LOOP;
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'')) FROM (%s) x', q) INTO a;
  PERFORM set_config('bitonic_sort.enable', 'off', true);
  PERFORM set_config('enable_sort', 'on', true);
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'')) FROM (%s) x', coalesce(native_q, q)) INTO b;
  IF NOT used THEN
    RETURN 'BitonicSort not used';
  END IF;
  RETURN CASE WHEN a = b THEN 'same' ELSE 'different' END;
END $$;
CREATE TABLE wide AS
  SELECT i AS id, (i * 7919) % 100003 AS k, md5(i::text) AS t, repeat(md5((i % 97)::text), 12) AS pad
  FROM generate_series(1, 150000) i;
ANALYZE wide;
SET work_mem = '256MB';
SELECT bs_digest_compare('SELECT * FROM wide ORDER BY k, id DESC') AS large_blocks,
       bs_digest_compare('SELECT * FROM wide ORDER BY t COLLATE "C"') AS large_blocks_abbreviated,
       bs_digest_compare($q$SELECT i, length(b), md5(b) FROM (SELECT i, repeat(md5(i::text), 40000 + i) AS b FROM generate_series(1, 6) i OFFSET 0) s ORDER BY i DESC$q$) AS rows_over_1mb;
-- the first block is opened at the planner's estimate: rows beyond it go to
-- new blocks, and an estimate far above the rows read changes nothing
CREATE FUNCTION wide_rows(n int) RETURNS SETOF wide LANGUAGE plpgsql ROWS 40000 AS
  $$BEGIN RETURN QUERY SELECT * FROM wide WHERE id <= n; END$$;
CREATE FUNCTION wide_rows_few(n int) RETURNS SETOF wide LANGUAGE plpgsql ROWS 100000 AS
  $$BEGIN RETURN QUERY SELECT * FROM wide WHERE id <= n; END$$;
SELECT bs_digest_compare('SELECT * FROM wide_rows(90000) ORDER BY k, id') AS rows_beyond_estimate,
       bs_digest_compare('SELECT * FROM wide_rows_few(3000) ORDER BY k DESC, id') AS rows_below_estimate;
-- the first block leaves room in work_mem for the pairs:
-- a few rows under a large estimate sort in memory, not spilled
SET work_mem = '16MB';
SET enable_sort = off;
SELECT * FROM bs_explain('SELECT * FROM wide_rows_few(300) ORDER BY k, id', 'ANALYZE, BUFFERS OFF, COSTS OFF, SUMMARY OFF, TIMING OFF');
RESET enable_sort;
SET work_mem = '256MB';
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM (SELECT w.*, g FROM wide w, generate_series(1, 40) g ORDER BY w.k, g) s;
SET statement_timeout = '100ms';
SELECT count(*) FROM (SELECT w.*, g FROM wide w, generate_series(1, 40) g ORDER BY w.k, g) s;
RESET statement_timeout;
SELECT count(*) AS after_cancel FROM (SELECT * FROM wide ORDER BY k) s;
RESET enable_sort;
SET work_mem = '24MB';
SELECT bs_digest_compare('SELECT * FROM wide ORDER BY k DESC, id') AS spill_after_large_blocks;
RESET work_mem;

-- rows placed by key range of the first column (128 MB of rows or more
-- expected, an exact key or "C" text): EXPLAIN ANALYZE gives the number of
-- ranges; the rows come out as the native Sort's, ties in input order, with
-- NULLs in a stream of their own, both directions, NaN, -0 and infinities,
-- a key most of whose rows lie beyond the sampled first rows, a key of one
-- value, a spill from placed rows, a backward cursor and a rescan
CREATE TABLE placed AS
  SELECT i AS id,
         CASE WHEN i % 53 = 0 THEN NULL ELSE (hashint4(i) % 5000)::int8 END AS k8,
         CASE WHEN i % 41 = 0 THEN 'NaN'::float8 WHEN i % 43 = 0 THEN '-0'::float8
              WHEN i % 47 = 0 THEN 0::float8 WHEN i % 59 = 0 THEN '-Infinity'::float8
              WHEN i % 67 = 0 THEN 'Infinity'::float8 ELSE hashint4(i + 7) / 1e6 END AS f8,
         CASE WHEN i % 61 = 0 THEN NULL ELSE substr(md5((i % 20000)::text), 1, 6 + i % 9) END AS t,
         CASE WHEN i <= 3000 THEN i ELSE 1000000 - i % 70000 END AS late,
         7 AS one,
         repeat('x', 420) AS pad
  FROM generate_series(1, 300000) i;
ANALYZE placed;
CREATE FUNCTION bs_key_ranges(q text) RETURNS SETOF text LANGUAGE sql AS $$
  SELECT btrim(line) FROM bs_explain(q, 'ANALYZE, BUFFERS OFF, COSTS OFF, SUMMARY OFF, TIMING OFF') line
  WHERE line ~ 'Key Range|BitonicSort'
$$;
SET work_mem = '256MB';
SET enable_sort = off;
SELECT * FROM bs_key_ranges('SELECT * FROM placed ORDER BY k8');
SELECT * FROM bs_key_ranges('SELECT * FROM placed ORDER BY t COLLATE "C" DESC');
-- text in the database's C.UTF-8 is placed as "C" text is; no key range
-- for a key that is not cheap for one row (text under collation rules)
SELECT * FROM bs_key_ranges('SELECT * FROM placed ORDER BY t');
SELECT * FROM bs_key_ranges('SELECT * FROM placed ORDER BY t COLLATE bs_en');
RESET enable_sort;
SELECT bs_ties('k8', 'placed') AS int8_key,
       bs_ties('k8 DESC NULLS LAST', 'placed') AS int8_desc,
       bs_ties('f8', 'placed') AS float8_key,
       bs_ties('f8 DESC, k8', 'placed') AS float8_desc,
       bs_ties('t COLLATE "C"', 'placed') AS c_text,
       bs_ties('t DESC', 'placed') AS c_utf8_text_desc,
       bs_ties('late', 'placed') AS beyond_sample,
       bs_ties('one', 'placed') AS one_value,
       bs_ties('(k8 % 7)::int4 DESC', 'placed') AS int4_expression;
SELECT bs_digest_compare('SELECT * FROM placed ORDER BY f8 NULLS FIRST, id') AS float8_nulls_first,
       bs_digest_compare('SELECT * FROM placed ORDER BY t COLLATE "C" DESC, id') AS c_text_desc;
SELECT bs_cursor_compare('SELECT id, k8 FROM placed ORDER BY k8 DESC, id') AS placed_cursor;
SELECT bs_compare($q$SELECT g, (SELECT md5(string_agg(id::text, ',')) FROM (SELECT id FROM placed WHERE id <> g ORDER BY k8 DESC, id) s) FROM generate_series(0, 2) g$q$) AS placed_rescan;
-- a cut that moves a key to another stream: the key's later rows still come
-- after its earlier ones (at each cut every stream leaves its chunk).  Narrow
-- rows under an estimate of 4M rows are placed, and their chunks fill slowly
CREATE TABLE drift AS
  SELECT i AS id, (CASE WHEN i <= 20000 THEN hashint4(i) % 1000 WHEN i <= 120000 THEN hashint4(i) % 3000
                        ELSE hashint4(i) % 500 END)::int8 AS k
  FROM generate_series(1, 300000) i;
ANALYZE drift;
CREATE FUNCTION drift_rows() RETURNS SETOF drift LANGUAGE plpgsql ROWS 4000000 AS
  $$BEGIN RETURN QUERY SELECT * FROM drift; END$$;
SET work_mem = '512MB';
SET enable_sort = off;
SELECT * FROM bs_key_ranges('SELECT * FROM drift_rows() ORDER BY k');
RESET enable_sort;
SELECT bs_digest_compare('SELECT id, k FROM drift_rows() ORDER BY k', 'SELECT id, k FROM drift ORDER BY k, id') AS ties_across_cuts,
       bs_digest_compare('SELECT id, k FROM drift_rows() ORDER BY k DESC', 'SELECT id, k FROM drift ORDER BY k DESC, id') AS ties_across_cuts_desc;
SET work_mem = '256MB';
-- with two threads the rows are placed on a worker thread from the first
-- cut on (src/scan/ingest.c): a row too large to stage (over 64 kB) is placed
-- by the backend between staged ones
SET bitonic_sort.cpu_threads = 2;
SET enable_sort = off;
SELECT * FROM bs_key_ranges($q$SELECT id, k8, pad, CASE WHEN id % 40000 = 0 THEN repeat(md5(id::text), 2500) END AS big FROM placed ORDER BY k8 DESC, id$q$);
RESET enable_sort;
SELECT bs_digest_compare($q$SELECT id, k8, pad, CASE WHEN id % 40000 = 0 THEN repeat(md5(id::text), 2500) END AS big FROM placed ORDER BY k8 DESC, id$q$) AS placed_large_rows;
-- an exact single key of 256k pairs or more, read front to back, is sorted
-- in parts on a worker while the first parts' rows are emitted
-- (sort_parts.c); not with a second key, nor for a scroll cursor
SET enable_sort = off;
SELECT * FROM bs_explain('SELECT id FROM placed ORDER BY k8', 'ANALYZE, BUFFERS OFF, COSTS OFF, SUMMARY OFF, TIMING OFF')
  WHERE bs_explain ~ 'Sort Parts';
SELECT count(*) AS parts_with_second_key FROM bs_explain('SELECT id FROM placed ORDER BY k8, id', 'ANALYZE, BUFFERS OFF, COSTS OFF, SUMMARY OFF, TIMING OFF')
  WHERE bs_explain ~ 'Sort Parts';
RESET enable_sort;
SELECT bs_ties('k8 NULLS FIRST', 'placed') AS parts_nulls_first,
       bs_ties('k8 DESC', 'placed') AS parts_desc,
       bs_ties('f8 DESC NULLS LAST', 'placed') AS parts_float8;
SELECT bs_cursor_compare('SELECT f8 FROM placed ORDER BY f8') AS parts_not_for_scroll_cursor;
-- the adaptive sorter on the parts: keys from 0 to 1M with 1% near the
-- largest int8 (one part spans nearly every key: its packed values stay
-- under the sorter's padding), and a part of over 2^20 rows of the largest
-- int8 (sorted as pairs, pointers past the part's length)
SET bitonic_sort.algorithm = adaptive;
CREATE TABLE top_keys AS
  SELECT i AS id,
         CASE WHEN i % 100 = 0 THEN 9223372036854774807 ELSE (hashint4(i) & 1048575)::int8 END AS near_top,
         CASE WHEN i <= 1000 THEN i::int8 ELSE 9223372036854775807 END AS top
  FROM generate_series(1, 1100000) i;
SELECT bs_ties('near_top', 'top_keys') AS adaptive_parts_near_top,
       bs_ties('top', 'top_keys') AS adaptive_part_of_largest_key;
RESET bitonic_sort.algorithm;
DROP TABLE top_keys;
-- a cancel while the worker places rows or sorts parts joins it before the
-- memory goes, and the next sort runs
SET work_mem = '2GB';
SET enable_sort = off;
SET statement_timeout = '300ms';
SELECT count(*) FROM (SELECT p.*, g FROM placed p, generate_series(1, 12) g ORDER BY p.k8) s;
RESET statement_timeout;
SELECT count(*) AS after_cancel FROM (SELECT * FROM placed ORDER BY k8) s;
RESET enable_sort;
RESET bitonic_sort.cpu_threads;
SET work_mem = '20MB';
SET enable_sort = off;
SELECT * FROM bs_explain('SELECT * FROM placed ORDER BY k8, id', 'ANALYZE, BUFFERS OFF, COSTS OFF, SUMMARY OFF, TIMING OFF')
  WHERE bs_explain ~ 'Key Range|Spilled|Sort Method';
RESET enable_sort;
SELECT bs_digest_compare('SELECT * FROM placed ORDER BY k8, id') AS placed_then_spilled;
RESET work_mem;

-- text in a libc collation, which has no abbreviated key in PostgreSQL 15:
-- sorted by strcoll on threads, equal strings by the other columns, and
-- stable (ties in input order, as ORDER BY ..., i gives for this heap);
-- in a collation without collation rules (C.UTF-8), keyed by its bytes
CREATE COLLATION bs_c_utf8 (provider = libc, locale = 'C.UTF-8');
CREATE TABLE words AS
  SELECT i, CASE WHEN i % 97 = 0 THEN NULL WHEN i % 1001 = 0 THEN repeat('é' || md5(i::text), 12)
    ELSE (ARRAY['É', 'e', 'E', 'a b', 'ab', 'A-b', '', 'z', 'Ö', 'o', 'ä', 'Å'])[1 + i % 12] ||
         substr(md5(i::text), 1, i % 3) || CASE WHEN i % 7 = 0 THEN ' x' ELSE '' END END AS t,
    i % 5 AS g
  FROM generate_series(1, 30000) i;
ANALYZE words;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT * FROM words ORDER BY t COLLATE bs_en DESC, g;
EXPLAIN (COSTS OFF) SELECT * FROM words ORDER BY t COLLATE bs_c_utf8 DESC, g;
RESET enable_sort;
SELECT bs_digest_compare('SELECT * FROM words ORDER BY t COLLATE bs_en, i') AS en,
       bs_digest_compare('SELECT * FROM words ORDER BY t COLLATE bs_en DESC NULLS LAST, g, i DESC') AS en_desc_two_keys,
       bs_digest_compare('SELECT * FROM words ORDER BY t, i') AS database_default,
       bs_digest_compare('SELECT * FROM words ORDER BY t DESC NULLS LAST, g, i DESC') AS database_default_desc,
       bs_digest_compare('SELECT * FROM words ORDER BY t COLLATE bs_c_utf8 NULLS FIRST, i') AS c_utf8,
       bs_digest_compare('SELECT * FROM words ORDER BY t COLLATE bs_en', 'SELECT * FROM words ORDER BY t COLLATE bs_en, i') AS stable,
       bs_digest_compare('SELECT * FROM words ORDER BY t COLLATE bs_en DESC, g', 'SELECT * FROM words ORDER BY t COLLATE bs_en DESC, g, i') AS stable_two_keys;
SET bitonic_sort.cpu_threads = 1;
SELECT bs_digest_compare('SELECT * FROM words ORDER BY t COLLATE bs_en, i') AS en_one_thread;
RESET bitonic_sort.cpu_threads;
-- the strings' copies fill several 4 MB blocks; strings over 1 MB (stored
-- compressed: each is expanded, copied and freed) take blocks of their own
CREATE TABLE long_words AS
  SELECT i, CASE WHEN i % 1500 = 0 THEN repeat(md5(i::text) || 'É', 50000 + i)
    ELSE (ARRAY['É', 'e', 'a b', 'ab', 'ä'])[1 + i % 5] || repeat(md5((i % 3000)::text), 40) END AS t
  FROM generate_series(1, 6000) i;
SELECT count(*) FILTER (WHERE length(t) > 1000000) AS over_1mb, sum(octet_length(t)) > 3 * 4194304 AS over_3_blocks
  FROM long_words;
SET work_mem = '256MB';
SET enable_sort = off;
SELECT * FROM bs_explain('SELECT i FROM long_words ORDER BY t COLLATE bs_en, i', 'ANALYZE, BUFFERS OFF, COSTS OFF, SUMMARY OFF, TIMING OFF')
  WHERE bs_explain ~ 'Spilled|Comparison Sort';
RESET enable_sort;
SELECT bs_digest_compare('SELECT i, md5(t) FROM long_words ORDER BY t COLLATE bs_en, i') AS en_blocks,
       bs_digest_compare('SELECT i, md5(t) FROM long_words ORDER BY t COLLATE bs_en DESC, i DESC') AS en_blocks_desc;
RESET work_mem;
-- a database whose own collation has collation rules (en_US.utf8): its text
-- is sorted by strcoll under the database's locale, not by its bytes
SELECT current_database() AS bs_home \gset
CREATE DATABASE bs_en_db TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'en_US.utf8' LC_CTYPE 'en_US.utf8';
\c bs_en_db
CREATE EXTENSION bitonic_sort;
SET bitonic_sort.min_rows = 0;
CREATE TABLE w AS
  SELECT i, (ARRAY['É', 'e', 'E', 'a b', 'ab', 'A-b', '', 'z', 'Ö', 'o', 'ä', 'Å'])[1 + i % 12] ||
    substr(md5(i::text), 1, i % 3) AS t
  FROM generate_series(1, 20000) i;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT * FROM w ORDER BY t DESC, i;
SELECT md5(string_agg(i::text, ',')) AS ours FROM (SELECT i FROM w ORDER BY t DESC, i) s \gset
SET bitonic_sort.enable = off;
RESET enable_sort;
SELECT md5(string_agg(i::text, ',')) = :'ours' AS en_database_same_as_native,
       md5(string_agg(i::text, ',')) <> (SELECT md5(string_agg(i::text, ',')) FROM (SELECT i FROM w ORDER BY t COLLATE "C" DESC, i) c) AS not_byte_order
  FROM (SELECT i FROM w ORDER BY t DESC, i) s;
\c :bs_home
DROP DATABASE bs_en_db;
SET bitonic_sort.min_rows = 0;
-- rescans with a changed parameter: each sort of 50K wide rows fills large
-- blocks (the background prefaulter starts again after each reset)
SELECT bs_digest_compare($q$SELECT g.k, s.* FROM generate_series(0, 2) g(k), LATERAL (SELECT * FROM wide WHERE k % 3 = g.k ORDER BY t, id OFFSET 0) s$q$) AS rescanned_large_sorts;

-- bitonic_sort.huge_pages (on by default): tuple blocks and pairs from the
-- huge page pool while it has room (run-tests.sh reserves 64 pages when run
-- as root), ordinary memory otherwise or when it is off; the same rows
-- either way, and every pool page back in the pool after each sort, after
-- an error and after gpu_sort
-- free 2 MB pool pages that nobody has reserved (a server's shared memory may have)
CREATE FUNCTION bs_pool_free() RETURNS int LANGUAGE sql AS $$
  SELECT coalesce(pg_read_file('/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages', 0, 64, true)::int -
                  pg_read_file('/sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages', 0, 64, true)::int, 0) $$;
CREATE FUNCTION bs_pool_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  free_before int := bs_pool_free();
  used bigint := 0;
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF) ' || q LOOP
    IF line ~ 'Huge Page Memory' THEN
      used := (regexp_match(line, '(\d+) kB'))[1]::bigint;
    END IF;
  END LOOP;
  -- off, or with no free page, it must take none; on with 128 MB free (all it needs), some
  IF ((free_before = 0 OR NOT current_setting('bitonic_sort.huge_pages')::bool) AND used > 0) OR
     (free_before >= 64 AND current_setting('bitonic_sort.huge_pages')::bool AND used = 0) THEN
    RETURN format('pool had %s free pages, the node took %s kB', free_before, used);
  END IF;
  IF bs_pool_free() <> free_before THEN
    RETURN format('%s pool pages not given back', free_before - bs_pool_free());
  END IF;
  RETURN 'ok';
END $$;
SHOW bitonic_sort.huge_pages;
SET work_mem = '256MB';
SET enable_sort = off;
SELECT bs_pool_check('SELECT * FROM wide ORDER BY k, id DESC') AS pool_sort,
       bs_pool_check('SELECT id, t FROM wide ORDER BY t COLLATE "C", id') AS pool_mapped_output;
SET bitonic_sort.huge_pages = off;
SELECT bs_pool_check('SELECT * FROM wide ORDER BY k, id DESC') AS no_pool_when_off;
RESET bitonic_sort.huge_pages;
RESET enable_sort;
SELECT bs_digest_compare('SELECT * FROM wide ORDER BY k, id DESC') AS pool_same_rows,
       bs_digest_compare('SELECT * FROM wide ORDER BY t COLLATE "C"') AS pool_same_rows_abbreviated;
SELECT bs_pool_free() AS free_before \gset
SET enable_sort = off;
SELECT id FROM (SELECT id, CASE WHEN id = 140000 THEN 1 / (id - id) ELSE k END AS k, pad FROM wide) s ORDER BY k;
RESET enable_sort;
SELECT bs_pool_free() = :free_before AS pool_pages_back_after_error;
SELECT gpu_sort(array_agg(((id * 7919) % 100003)::float8 / 7)) = (SELECT array_agg(x ORDER BY x) FROM (SELECT ((id * 7919) % 100003)::float8 / 7 AS x FROM wide) s) AS pool_gpu_sort_same
  FROM wide;
-- the pool is the machine's: read once the statement is over, and given a
-- moment (another process on the machine may hold a page briefly)
CREATE FUNCTION bs_pool_back(free_before int) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..40 LOOP
    IF bs_pool_free() = free_before THEN RETURN true; END IF;
    PERFORM pg_sleep(0.05);
  END LOOP;
  RETURN false;
END $$;
SELECT bs_pool_back(:free_before) AS pool_pages_back_after_gpu_sort;
RESET work_mem;

-- bitonic_sort.keep_memory: a sort's large buffers (ordinary memory) kept
-- for the backend's next sort, which takes them back (EXPLAIN's Reused
-- Memory) and writes over the last sort's rows: by default (-1: up to
-- work_mem), as memory the kernel may reclaim (smaps' LazyFree) while it is
-- kept; nothing when 0; the same rows as the native Sort for queries of
-- other shapes and sizes, a rescan taking the memory of the scan before,
-- nothing past the cap, nothing once it is set back to 0, and nothing after
-- keep_memory_idle
CREATE FUNCTION bs_reused_kb(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  reused bigint := 0;
  line text;
BEGIN
  PERFORM set_config('bitonic_sort.enable', 'on', true);
  PERFORM set_config('enable_sort', 'off', true);
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF) ' || q LOOP
    IF line ~ 'Reused Memory' THEN
      reused := reused + (regexp_match(line, '(\d+) kB'))[1]::bigint;
    END IF;
  END LOOP;
  PERFORM set_config('enable_sort', 'on', true);
  RETURN reused;
END $$;
CREATE FUNCTION bs_lazy_free_kb() RETURNS bigint LANGUAGE sql AS $$
  SELECT coalesce(sum((regexp_match(line, '(\d+) kB'))[1]::bigint), 0)
    FROM regexp_split_to_table(pg_read_file('/proc/self/smaps'), E'\n') AS line
   WHERE line ~ '^LazyFree:' $$;
-- kB of such memory the kernel has reclaimed (under memory pressure), system-wide
CREATE FUNCTION bs_lazily_freed_kb() RETURNS bigint LANGUAGE sql AS $$
  SELECT coalesce((regexp_match(pg_read_file('/proc/vmstat'), 'pglazyfreed (\d+)'))[1]::bigint * 4, 0) $$;
SET work_mem = '256MB';
SET bitonic_sort.huge_pages = off;
SET bitonic_sort.keep_memory = 0;
RESET bitonic_sort.keep_memory;
SHOW bitonic_sort.keep_memory;
SELECT bs_lazily_freed_kb() AS lazily_freed_before \gset
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') AS reused_kb_after_0_then_default;
SELECT bs_lazy_free_kb() + bs_lazily_freed_kb() - :lazily_freed_before > 40000 AS kept_memory_the_kernel_may_reclaim;
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') > 40000 AS reused_by_default;
-- by default the cap follows work_mem: a sort under a lower work_mem gives
-- back what was kept past it before it takes anything
SET work_mem = '8MB';
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') AS reused_kb_past_a_lowered_work_mem;
SET work_mem = '256MB';
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') <= 8192 AS at_most_the_lowered_work_mem_reused;
SET bitonic_sort.keep_memory = 0;
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') AS reused_kb_when_off;
SELECT bs_lazy_free_kb() AS lazy_free_kb_when_off;
SET bitonic_sort.keep_memory = '1GB';
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') AS reused_kb_first_sort;
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') > 40000 AS reused_by_the_same_sort;
SELECT bs_digest_compare('SELECT * FROM wide ORDER BY k, id DESC') AS kept_same_rows,
       bs_digest_compare('SELECT * FROM wide ORDER BY t COLLATE "C"') AS kept_same_rows_abbreviated,
       bs_digest_compare('SELECT id, pad FROM wide ORDER BY pad, id DESC') AS kept_same_rows_text,
       bs_digest_compare('SELECT * FROM wide_rows(90000) ORDER BY k, id') AS kept_rows_beyond_estimate,
       bs_digest_compare('SELECT * FROM wide_rows_few(3000) ORDER BY k DESC, id') AS kept_rows_below_estimate,
       bs_digest_compare('SELECT * FROM wide ORDER BY k, id DESC') AS kept_same_rows_again;
SELECT bs_digest_compare($q$SELECT g.k, s.* FROM generate_series(0, 2) g(k), LATERAL (SELECT * FROM wide WHERE k % 3 = g.k ORDER BY t, id OFFSET 0) s$q$) AS kept_rescanned_sorts,
       bs_reused_kb($q$SELECT g.k, s.* FROM generate_series(0, 2) g(k), LATERAL (SELECT * FROM wide WHERE k % 3 = g.k ORDER BY t, id OFFSET 0) s$q$) > 0 AS rescans_reuse;
SET bitonic_sort.keep_memory = '4MB';
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') AS reused_kb_under_4mb_cap;
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') <= 4096 AS at_most_the_cap_reused;
SET bitonic_sort.keep_memory = '1GB';
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') <= 4096 AS what_the_cap_kept_reused;
SET bitonic_sort.keep_memory = 0;
SET bitonic_sort.keep_memory = '1GB';
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') AS reused_kb_after_set_to_0;
SET bitonic_sort.keep_memory_idle = '100ms';
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') > 40000 AS reused_within_idle_time;
SELECT pg_sleep(1);
RESET bitonic_sort.keep_memory_idle;
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') AS reused_kb_after_idle_time;
SELECT bs_reused_kb('SELECT * FROM wide ORDER BY k, id DESC') > 40000 AS reused_within_idle_time_again;
RESET bitonic_sort.keep_memory;
RESET bitonic_sort.huge_pages;
RESET work_mem;

-- bitonic_sort.transparent_huge_pages: which large buffers ask for
-- transparent huge pages (the "hg" of VmFlags in /proc/self/smaps; memory
-- kept for the next sort keeps its mappings there to look at): none when
-- never, the rows' blocks when mixed, more when always (the pairs
-- of the text's 64-bit keys too, 2.4 MB), and
-- under auto what bitonic_sort_info() says auto chose; the rows are the
-- same under each
CREATE FUNCTION bs_advised_kb() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  size_kb bigint := 0;
  advised bigint := 0;
  line text;
BEGIN
  FOR line IN SELECT regexp_split_to_table(pg_read_file('/proc/self/smaps'), E'\n') LOOP
    IF line ~ '^Size:' THEN
      size_kb := (regexp_match(line, '(\d+) kB'))[1]::bigint;
    ELSIF line ~ '^VmFlags:.* hg' THEN
      advised := advised + size_kb;
    END IF;
  END LOOP;
  RETURN advised;
END $$;
CREATE FUNCTION bs_advised_kb_after(q text) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('bitonic_sort.keep_memory', '0', true);
  PERFORM set_config('bitonic_sort.keep_memory', '1GB', true);
  PERFORM bs_reused_kb(q);
  RETURN bs_advised_kb();
END $$;
SET work_mem = '256MB';
SET bitonic_sort.huge_pages = off;
SHOW bitonic_sort.transparent_huge_pages;
-- a kernel without transparent huge pages has no advice to show
SELECT pg_stat_file('/sys/kernel/mm/transparent_hugepage/enabled', true) IS NOT NULL AS thp \gset
SET bitonic_sort.transparent_huge_pages = never;
SELECT bs_advised_kb_after('SELECT * FROM wide ORDER BY t COLLATE "C"') AS advised_kb_when_never;
SET bitonic_sort.transparent_huge_pages = mixed;
SELECT bs_advised_kb_after('SELECT * FROM wide ORDER BY t COLLATE "C"') AS mixed_kb \gset
SELECT NOT :'thp'::bool OR :mixed_kb >= 40000 AS rows_advised_when_mixed;
SET bitonic_sort.transparent_huge_pages = always;
SELECT bs_advised_kb_after('SELECT * FROM wide ORDER BY t COLLATE "C"') AS always_kb \gset
SELECT NOT :'thp'::bool OR :always_kb > :mixed_kb AS more_advised_when_always;
SET bitonic_sort.transparent_huge_pages = auto;
SELECT bs_advised_kb_after('SELECT * FROM wide ORDER BY t COLLATE "C"') =
       CASE WHEN details ~ 'transparent_huge_pages=always \(auto; ' THEN :always_kb
            WHEN details ~ 'transparent_huge_pages=mixed \(auto; ' THEN :mixed_kb END AS auto_as_info_says
  FROM bitonic_sort_info() WHERE backend = 'cpu';
SET bitonic_sort.keep_memory = 0;
SET bitonic_sort.transparent_huge_pages = never;
SELECT bs_digest_compare('SELECT * FROM wide ORDER BY k, id DESC') AS same_rows_when_never;
SET bitonic_sort.transparent_huge_pages = always;
SELECT bs_digest_compare('SELECT * FROM wide ORDER BY k, id DESC') AS same_rows_when_always,
       bs_digest_compare('SELECT * FROM wide ORDER BY t COLLATE "C"') AS same_rows_when_always_text;
SET bitonic_sort.transparent_huge_pages = sometimes;
RESET bitonic_sort.transparent_huge_pages;
RESET bitonic_sort.huge_pages;
RESET work_mem;
