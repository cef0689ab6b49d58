-- BitonicSort wherever the planner sorts: under WindowAgg, GroupAggregate
-- (and grouping sets), Unique (DISTINCT, DISTINCT ON), both inputs of a
-- Merge Join (inner, left, full, semi, anti), in subqueries, CTEs, LATERAL,
-- over a partitioned table and in a prepared statement's generic plan.
-- Each shape: EXPLAIN shows the node where the Sort was, with the same Sort
-- Key, and the rows are those of the same query with the module off.  The
-- native Sort stays for a LIMIT's top-N and small inputs (min_rows).
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SET bitonic_sort.min_rows = 0;
SET work_mem = '64MB';
SET max_parallel_workers_per_gather = 0;
SET jit = off;

CREATE TABLE sn (id int, a int8, f float8, s text, i int4, n numeric);
INSERT INTO sn
SELECT g,
  CASE WHEN g % 17 = 0 THEN NULL ELSE (hashint4(g) % 5000)::int8 END,
  CASE g % 29 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN '-0' WHEN 3 THEN 'Infinity'
    ELSE (hashint4(g * 3) % 1000) / 8.0 END,
  CASE WHEN g % 13 = 0 THEN NULL ELSE substr(md5((g % 3000)::text), 1, 3 + g % 5) END,
  g % 100,
  CASE WHEN g % 11 = 0 THEN NULL ELSE round((hashint4(g * 7) % 300) / 7.0, 2) END
FROM generate_series(1, 30000) g;
ANALYZE sn;

-- same_rows(q): the query's rows with the module on and off, as multisets
CREATE FUNCTION same_rows(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE on_rows text; off_rows text; n bigint;
BEGIN
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'' ORDER BY x::text)), count(*) FROM (%s) x', q)
    INTO on_rows, n;
  PERFORM set_config('bitonic_sort.enable', 'off', true);
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'' ORDER BY x::text)) FROM (%s) x', q)
    INTO off_rows;
  PERFORM set_config('bitonic_sort.enable', 'on', true);
  RETURN CASE WHEN on_rows IS NOT DISTINCT FROM off_rows THEN format('same %s rows', n)
              ELSE format('DIFFER (%s rows)', n) END;
END $$;

-- same_order(q): the query's rows with the module on and off, in order
CREATE FUNCTION same_order(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE on_rows text; off_rows text;
BEGIN
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'')) FROM (%s) x', q) INTO on_rows;
  PERFORM set_config('bitonic_sort.enable', 'off', true);
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'')) FROM (%s) x', q) INTO off_rows;
  PERFORM set_config('bitonic_sort.enable', 'on', true);
  RETURN CASE WHEN on_rows IS NOT DISTINCT FROM off_rows THEN 'same order' ELSE 'DIFFER' END;
END $$;

-- WindowAgg: one window, a partitioned one, two windows sorted differently
EXPLAIN (COSTS OFF) SELECT id, row_number() OVER (ORDER BY a, id) FROM sn;
SELECT same_rows('SELECT id, row_number() OVER (ORDER BY a, id) FROM sn');
-- the window's columns in another order than the scan's: the scan puts
-- them in the node's order, and the node returns the rows it stored as they
-- are (the window copies them whole)
CREATE FUNCTION node_outputs(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  below bool := false;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
    below := below OR line ~ 'BitonicSort';
    IF below AND line ~ 'BitonicSort|Seq Scan|Output:' THEN RETURN NEXT btrim(line); END IF;
  END LOOP;
END $$;
SELECT * FROM node_outputs('SELECT i, row_number() OVER (ORDER BY a) FROM sn');
-- over the table's whole rows the scan keeps them as they are (the node
-- stores them from the pages), the node computes the window over them and
-- its output puts the columns in the query's order
SELECT * FROM node_outputs('SELECT id, a, f, s, i, n, row_number() OVER (ORDER BY s) FROM sn');
SELECT same_rows('SELECT id, a, f, s, i, n, row_number() OVER (ORDER BY s, id) FROM sn');
-- a plain scan projecting some of a table's columns: where the whole rows
-- fit work_mem in at most twice the memory, the scan returns them whole,
-- the node keeps them as they lie in the pages and its output maps the
-- query's columns; a system column, the whole row, or a work_mem they would
-- not fit keeps the projection
CREATE TABLE sn_whole AS SELECT g AS id, (g * 7919) % 1000 AS k, g::float8 / 7 AS f, md5(g::text) AS s
FROM generate_series(1, 30000) g;
ANALYZE sn_whole;
SELECT * FROM node_outputs('SELECT id, k FROM sn_whole ORDER BY k');
SELECT same_order('SELECT id, k FROM sn_whole ORDER BY k, id');
SELECT same_order('SELECT id, k, rank() OVER (PARTITION BY k ORDER BY f), row_number() OVER (PARTITION BY k ORDER BY f) FROM sn_whole ORDER BY id');
SELECT same_rows('SELECT k, count(*), sum(f) FROM sn_whole GROUP BY k');
SELECT * FROM node_outputs('SELECT ctid, k FROM sn_whole ORDER BY k');
SELECT * FROM node_outputs('SELECT sn_whole, k FROM sn_whole ORDER BY k');
SET work_mem = '2MB';
SELECT * FROM node_outputs('SELECT id, k FROM sn_whole ORDER BY k');
SET work_mem = '64MB';
DROP TABLE sn_whole;
EXPLAIN (COSTS OFF) SELECT id, rank() OVER (PARTITION BY i ORDER BY f DESC NULLS LAST) FROM sn;
SELECT same_rows('SELECT id, rank() OVER (PARTITION BY i ORDER BY f DESC NULLS LAST) FROM sn');
EXPLAIN (COSTS OFF)
SELECT id, sum(n) OVER (PARTITION BY i % 7 ORDER BY a RANGE BETWEEN 3 PRECEDING AND CURRENT ROW),
       dense_rank() OVER (ORDER BY s COLLATE "C", id) FROM sn;
SELECT same_rows('SELECT id, sum(n) OVER (PARTITION BY i % 7 ORDER BY a RANGE BETWEEN 3 PRECEDING AND CURRENT ROW),
       dense_rank() OVER (ORDER BY s COLLATE "C", id) FROM sn');

-- row_number(), rank() and dense_rank() alone in a window: on 15-17 the
-- node numbers its rows itself where the WindowAgg was (Window Functions in
-- EXPLAIN; 18 keeps the WindowAgg, as its EXPLAIN names a window from that
-- node), partitions and peers told apart by the window's equality operators
EXPLAIN (COSTS OFF) SELECT id, row_number() OVER w, rank() OVER w, dense_rank() OVER w
  FROM sn WINDOW w AS (PARTITION BY i % 7 ORDER BY f DESC NULLS FIRST, id);
SELECT same_rows('SELECT id, row_number() OVER w, rank() OVER w, dense_rank() OVER w
  FROM sn WINDOW w AS (PARTITION BY i % 7 ORDER BY f DESC NULLS FIRST, id)');
-- peers: equal f share a rank (NaN with NaN, -0 with 0, NULL with NULL)
SELECT same_rows('SELECT id, f, rank() OVER w, dense_rank() OVER w FROM sn WINDOW w AS (PARTITION BY a % 3 ORDER BY f)');
SELECT same_rows('SELECT id, s, rank() OVER (ORDER BY s COLLATE "C" DESC), dense_rank() OVER (ORDER BY s COLLATE "C" DESC) FROM sn');
SELECT same_rows('SELECT id, n, rank() OVER (PARTITION BY s ORDER BY n NULLS FIRST) FROM sn');
-- no ORDER BY: a partition's rows are all peers; keys alone (one int8 column)
SELECT same_rows('SELECT i, rank() OVER (PARTITION BY i), dense_rank() OVER (PARTITION BY i) FROM sn');
SELECT same_rows('SELECT a, row_number() OVER w, rank() OVER w, dense_rank() OVER w FROM sn WINDOW w AS (ORDER BY a)');
-- row_number() alone tells no peers apart: only the partitions are compared
SELECT same_rows('SELECT id, a, row_number() OVER (PARTITION BY i % 7 ORDER BY a, id) FROM sn');
-- partitions and peers of by-value types, compared by value without an
-- expression: int2, bool, oid, date, timestamp and float4 (NaN with NaN,
-- -0 with 0), NULL with NULL
CREATE TABLE sn_values AS
SELECT g AS id,
  CASE WHEN g % 11 = 0 THEN NULL ELSE (g % 5 - 2)::int2 END AS h,
  CASE WHEN g % 13 = 0 THEN NULL ELSE g % 3 = 0 END AS b,
  (g % 4)::oid AS o,
  CASE WHEN g % 17 = 0 THEN NULL ELSE date '2020-02-28' + g % 3 END AS d,
  timestamp '2020-01-01' + (g % 6) * interval '1 hour' AS ts,
  (CASE g % 7 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' WHEN 2 THEN '0' WHEN 3 THEN NULL
     ELSE (g % 5)::text END)::float4 AS r
FROM generate_series(1, 6000) g;
SELECT same_rows('SELECT id, rank() OVER w, dense_rank() OVER w FROM sn_values WINDOW w AS (PARTITION BY h, b ORDER BY r)');
SELECT same_rows('SELECT id, rank() OVER w, dense_rank() OVER w FROM sn_values WINDOW w AS (PARTITION BY o, d ORDER BY ts DESC, r NULLS FIRST)');
SELECT same_rows('SELECT id, rank() OVER w, row_number() OVER w FROM sn_values WINDOW w AS (PARTITION BY r ORDER BY h, id)');
-- an expression of the function, and a sort of its values above the node
EXPLAIN (COSTS OFF) SELECT id, 10 * row_number() OVER (ORDER BY a DESC, id) + i AS v FROM sn ORDER BY v DESC, id;
SELECT same_order('SELECT id, 10 * row_number() OVER (ORDER BY a DESC, id) + i AS v FROM sn ORDER BY v DESC, id');
-- past work_mem the rows come from the node's merge of its runs (the last row is copied)
SET work_mem = '64kB';
SELECT same_rows('SELECT id, rank() OVER w, dense_rank() OVER w, row_number() OVER w FROM sn WINDOW w AS (PARTITION BY i ORDER BY a, id)');
SELECT same_rows('SELECT id, row_number() OVER (PARTITION BY i ORDER BY a, id) FROM sn');
SET work_mem = '64MB';
-- a rescan numbers from 1 again: the subquery's node replayed for each x
EXPLAIN (COSTS OFF) SELECT x, (SELECT min(id) FROM (SELECT id, row_number() OVER (ORDER BY a, id) rn FROM sn) s
  WHERE rn % 10000 = x) FROM generate_series(1, 3) x;
SELECT same_order('SELECT x, (SELECT min(id) FROM (SELECT id, row_number() OVER (ORDER BY a, id) rn FROM sn) s
  WHERE rn % 10000 = x) FROM generate_series(1, 3) x');
-- a scroll cursor reads back through a Material above the node
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id, rank() OVER (ORDER BY a) FROM sn ORDER BY a, id;
SET LOCAL bitonic_sort.enable = off;
DECLARE n SCROLL CURSOR FOR SELECT id, rank() OVER (ORDER BY a) FROM sn ORDER BY a, id;
FETCH LAST FROM c;
FETCH LAST FROM n;
FETCH BACKWARD 2 FROM c;
FETCH BACKWARD 2 FROM n;
COMMIT;
-- a window target a parallel worker cannot run (a subplan over a temporary
-- table): no Gather over the node where parallel plans are forced
CREATE TEMP TABLE sn_tmp AS SELECT g AS x FROM generate_series(1, 10) g;
CREATE FUNCTION force_parallel(state text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN  -- debug_parallel_query from 16, force_parallel_mode before
  PERFORM set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                          THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, state, false);
END $$;
SELECT force_parallel('on');
EXPLAIN (COSTS OFF) SELECT id, row_number() OVER (ORDER BY a, id), (SELECT count(*) FROM sn_tmp WHERE x = sn.id) FROM sn;
SELECT same_rows('SELECT id, row_number() OVER (ORDER BY a, id), (SELECT count(*) FROM sn_tmp WHERE x = sn.id) FROM sn');
SELECT force_parallel('off');
-- another window function in the same window: the WindowAgg stays
EXPLAIN (COSTS OFF) SELECT id, row_number() OVER w, lag(id) OVER w FROM sn WINDOW w AS (ORDER BY a, id);

-- GroupAggregate and grouping sets (hash aggregation off, so both plans sort)
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT a, count(*), sum(f) FROM sn GROUP BY a;
SELECT same_rows('SELECT a, count(*), sum(f) FROM sn GROUP BY a');
EXPLAIN (COSTS OFF) SELECT i, s, count(*) FROM sn GROUP BY ROLLUP (i, s);
SELECT same_rows('SELECT i, s, count(*) FROM sn GROUP BY ROLLUP (i, s)');

-- Unique: DISTINCT and DISTINCT ON
EXPLAIN (COSTS OFF) SELECT DISTINCT f FROM sn;
SELECT same_rows('SELECT DISTINCT f FROM sn');
EXPLAIN (COSTS OFF) SELECT DISTINCT ON (i) i, f, id FROM sn ORDER BY i, f DESC, id;
SELECT same_rows('SELECT DISTINCT ON (i) i, f, id FROM sn ORDER BY i, f DESC, id');

-- the Unique done by the node itself where the first sort key is exact
-- (src/scan/unique.c): no Unique in the plan, "Unique: true" on the node;
-- NULLs are one group, NaNs one, -0 and +0 one; the order as native's
EXPLAIN (COSTS OFF) SELECT DISTINCT a FROM sn ORDER BY a DESC NULLS FIRST;
CREATE TEMP TABLE sn_f AS SELECT f FROM sn UNION ALL SELECT '0'::float8 UNION ALL SELECT '-0'::float8
  UNION ALL SELECT 'NaN'::float8 UNION ALL SELECT NULL;
SELECT count(*) FILTER (WHERE f IS NULL) AS nulls, count(*) FILTER (WHERE f = 'NaN') AS nans,
       count(*) FILTER (WHERE f = 0) AS zeros FROM (SELECT DISTINCT f FROM sn_f) d;
SELECT same_order('SELECT DISTINCT f FROM sn_f ORDER BY f');
SELECT same_order('SELECT DISTINCT a FROM sn ORDER BY a DESC NULLS FIRST');
SELECT same_order('SELECT DISTINCT ON (i) i, f, id FROM sn ORDER BY i, f DESC, id');
SELECT same_order('SELECT DISTINCT (a % 7)::int4 AS r FROM sn ORDER BY 1');
-- past work_mem the node's merge of its runs gives the rows, and the node skips the same way
SET work_mem = '64kB';
SELECT same_order('SELECT DISTINCT a FROM sn ORDER BY a');
SET work_mem = '64MB';
-- a scroll cursor reads back through a Material above the node (c), as
-- native's (n) through its Unique
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT DISTINCT a FROM sn ORDER BY a;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT DISTINCT a FROM sn ORDER BY a;
SET LOCAL bitonic_sort.enable = off;
DECLARE n SCROLL CURSOR FOR SELECT DISTINCT a FROM sn ORDER BY a;
FETCH LAST FROM c;
FETCH LAST FROM n;
FETCH BACKWARD 2 FROM c;
FETCH BACKWARD 2 FROM n;
FETCH ABSOLUTE 3 FROM c;
FETCH ABSOLUTE 3 FROM n;
COMMIT;
-- text has no exact key: the Unique stays
EXPLAIN (COSTS OFF) SELECT DISTINCT s FROM sn;
-- a rescan replays the node's Unique from its first row: an ALL subquery,
-- not materialized, read again for each outer row and stopped at its first
-- row each time (rows stored: the order needs id; on 18 this subquery keeps
-- the native Unique and Sort: 18 counts a disabled node apart from its
-- cost, and for these 150 estimated rows the native Sort costs less)
SET enable_sort = off;
SET enable_material = off;
CREATE FUNCTION plan_has(q text, pattern text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ pattern THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;
SELECT plan_has('SELECT k FROM generate_series(1, 3) k
  WHERE k > ALL (SELECT DISTINCT ON (i) i FROM sn WHERE i % 50 = 5 ORDER BY i, id)',
  'Unique: true') AS node_does_the_unique;
SELECT k FROM generate_series(1, 3) k
  WHERE k > ALL (SELECT DISTINCT ON (i) i FROM sn WHERE i % 100 = 5 ORDER BY i, id);
SELECT k FROM generate_series(4, 7) k
  WHERE k < ALL (SELECT DISTINCT ON (i) i FROM sn WHERE i % 50 = 5 ORDER BY i, id);
RESET enable_sort;
RESET enable_material;

-- one column whose key is its value (int8, timestamps): the keys sorted
-- alone, no rows stored (src/scan/values.c): "Keys Alone: true"; NULLs,
-- DESC, NULLS FIRST/LAST, past work_mem, a scroll cursor, mark/restore
CREATE TEMP TABLE sn_v AS
  SELECT a, '2020-01-01'::timestamptz + a * interval '1 second' AS ts FROM sn;
ANALYZE sn_v;
EXPLAIN (COSTS OFF) SELECT a FROM sn_v ORDER BY a;
SELECT same_order('SELECT a FROM sn_v ORDER BY a');
SELECT same_order('SELECT a FROM sn_v ORDER BY a DESC');
SELECT same_order('SELECT a FROM sn_v ORDER BY a NULLS FIRST');
SELECT same_order('SELECT a FROM sn_v ORDER BY a DESC NULLS LAST');
SELECT same_order('SELECT ts FROM sn_v ORDER BY ts DESC');
SELECT same_order('SELECT DISTINCT ts FROM sn_v ORDER BY ts');
SELECT same_order('SELECT a AS x, a AS y FROM sn_v ORDER BY a');
SET work_mem = '64kB';
SELECT same_order('SELECT a FROM sn_v ORDER BY a DESC');
-- more keys than the planner expects (ROWS 1000; 600,000 come): the keys'
-- array grows from context memory to a mapping of its own, and then by
-- moving its pages; past work_mem, the runs after the first take their
-- keys from what malloc keeps
CREATE FUNCTION sn_many_keys() RETURNS SETOF int8 LANGUAGE plpgsql ROWS 1000 AS $$
BEGIN
  RETURN QUERY SELECT CASE WHEN i % 101 = 0 THEN NULL ELSE hashint4(i)::int8 * 7 END
               FROM generate_series(1, 600000) i;
END $$;
SET work_mem = '64MB';
EXPLAIN (COSTS OFF) SELECT k FROM sn_many_keys() k ORDER BY k;
SELECT same_order('SELECT k FROM sn_many_keys() k ORDER BY k');
SET work_mem = '3MB';
SELECT same_order('SELECT k FROM sn_many_keys() k ORDER BY k DESC NULLS LAST');
DROP FUNCTION sn_many_keys();
SET work_mem = '64MB';
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT a FROM sn_v ORDER BY a NULLS FIRST;
SET LOCAL bitonic_sort.enable = off;
DECLARE n SCROLL CURSOR FOR SELECT a FROM sn_v ORDER BY a NULLS FIRST;
FETCH ABSOLUTE 2000 FROM c;
FETCH ABSOLUTE 2000 FROM n;
FETCH BACKWARD 3 FROM c;
FETCH BACKWARD 3 FROM n;
FETCH LAST FROM c;
FETCH LAST FROM n;
COMMIT;
SET enable_hashjoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT count(*), sum(x.a) FROM (SELECT a FROM sn_v) x JOIN (SELECT a FROM sn_v) y ON x.a = y.a;
SELECT same_order('SELECT count(*), sum(x.a) FROM (SELECT a FROM sn_v) x JOIN (SELECT a FROM sn_v) y ON x.a = y.a');
RESET enable_hashjoin;
RESET enable_material;

-- costed against hashing: a hash table of many groups is charged what it
-- costs (src/scan/hash_cost.c), so GROUP BY and DISTINCT sort where that is faster
-- and hash where the table is small
RESET enable_hashagg;
EXPLAIN (COSTS OFF) SELECT id, count(*) FROM sn GROUP BY id;
EXPLAIN (COSTS OFF) SELECT i, count(*) FROM sn GROUP BY i;
EXPLAIN (COSTS OFF) SELECT DISTINCT a FROM sn;
SET enable_hashagg = off;

-- SetOp and sorted UNION: the node over the inputs' Append (before 18; 18
-- sorts each input apart), its keys named through the Append as the native
-- Sort's are, in every format and in VERBOSE's Output
EXPLAIN (COSTS OFF) SELECT a FROM sn INTERSECT SELECT a + 1 FROM sn;
SELECT * FROM node_outputs('SELECT a FROM sn INTERSECT SELECT a + 1 FROM sn');
EXPLAIN (COSTS OFF, FORMAT YAML) SELECT a FROM sn EXCEPT SELECT a + 1 FROM sn;
-- in a subquery (its range table is appended to the query's)
EXPLAIN (COSTS OFF) SELECT count(*) FROM sn x WHERE x.a IN (SELECT a FROM sn INTERSECT SELECT a + 1 FROM sn);
SELECT same_rows('SELECT count(*) FROM sn x WHERE x.a IN (SELECT a FROM sn INTERSECT SELECT a + 1 FROM sn)');
SELECT same_rows('SELECT a FROM sn INTERSECT SELECT a + 1 FROM sn');
-- a chain of set operations, each input's node over the next one's: a
-- cached plan holds each input once (the node's input is its outer plan
-- alone once its columns are named; shared, a copy doubled at each level:
-- 16 MB here)
SET plan_cache_mode = force_generic_plan;
PREPARE bs_chain AS SELECT a FROM sn INTERSECT SELECT a FROM sn INTERSECT SELECT a FROM sn
  INTERSECT SELECT a FROM sn INTERSECT SELECT a FROM sn INTERSECT SELECT a FROM sn
  INTERSECT SELECT a FROM sn INTERSECT SELECT a FROM sn INTERSECT SELECT a FROM sn
  INTERSECT SELECT a FROM sn INTERSECT SELECT a FROM sn INTERSECT SELECT a FROM sn;
SELECT plan_has('EXECUTE bs_chain', 'BitonicSort') AS node_used;
CREATE TEMP TABLE bs_chain_rows AS EXECUTE bs_chain;
SELECT (SELECT count(*) FROM bs_chain_rows) AS rows,
       (SELECT sum(total_bytes) FROM pg_backend_memory_contexts WHERE name = 'CachedPlan')
         < 4 * 1024 * 1024 AS cached_plans_small;
DEALLOCATE bs_chain;
RESET plan_cache_mode;
EXPLAIN (COSTS OFF) SELECT s FROM sn EXCEPT ALL SELECT s FROM sn WHERE i < 50;
SELECT same_rows('SELECT s FROM sn EXCEPT ALL SELECT s FROM sn WHERE i < 50');
EXPLAIN (COSTS OFF) SELECT a, i FROM sn UNION SELECT i, a FROM sn;
SELECT same_rows('SELECT a, i FROM sn UNION SELECT i, a FROM sn');
RESET enable_hashagg;

-- Merge Join, both inputs sorted: inner, left, full, semi, anti
SET enable_hashjoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT x.id, y.id FROM sn x JOIN sn y ON x.a = y.a WHERE x.i < 10;
SELECT same_rows('SELECT x.id, y.id FROM sn x JOIN sn y ON x.a = y.a WHERE x.i < 10');
EXPLAIN (COSTS OFF) SELECT x.id, y.id FROM sn x LEFT JOIN sn y ON x.s = y.s AND y.i < 5;
SELECT same_rows('SELECT x.id, y.id FROM sn x LEFT JOIN sn y ON x.s = y.s AND y.i < 5');
EXPLAIN (COSTS OFF) SELECT x.id, y.id FROM (SELECT * FROM sn WHERE i < 3) x FULL JOIN (SELECT * FROM sn WHERE i > 96) y ON x.f = y.f;
SELECT same_rows('SELECT x.id, y.id FROM (SELECT * FROM sn WHERE i < 3) x FULL JOIN (SELECT * FROM sn WHERE i > 96) y ON x.f = y.f');
EXPLAIN (COSTS OFF) SELECT id FROM sn x WHERE EXISTS (SELECT 1 FROM sn y WHERE y.s = x.s AND y.i <> x.i);
SELECT same_rows('SELECT id FROM sn x WHERE EXISTS (SELECT 1 FROM sn y WHERE y.s = x.s AND y.i <> x.i)');
EXPLAIN (COSTS OFF) SELECT id FROM sn x WHERE NOT EXISTS (SELECT 1 FROM sn y WHERE y.a = x.a + 1);
SELECT same_rows('SELECT id FROM sn x WHERE NOT EXISTS (SELECT 1 FROM sn y WHERE y.a = x.a + 1)');
-- a key the input does not output (x.a + 1 above, both sides below) is
-- added to the input's columns, as the native Sort adds it
SELECT * FROM node_outputs('SELECT x.id, y.id FROM sn x FULL JOIN sn y ON x.id * 3 = y.id + 100');
SELECT same_rows('SELECT x.id, y.id FROM sn x FULL JOIN sn y ON x.id * 3 = y.id + 100');
RESET enable_hashjoin;
RESET enable_nestloop;

-- a subquery, a CTE, LATERAL
EXPLAIN (COSTS OFF) SELECT count(*) FROM (SELECT i, row_number() OVER (PARTITION BY i ORDER BY id) r FROM sn) q WHERE r = 1;
SELECT same_rows('SELECT count(*) FROM (SELECT i, row_number() OVER (PARTITION BY i ORDER BY id) r FROM sn) q WHERE r = 1');
EXPLAIN (COSTS OFF) WITH c AS MATERIALIZED (SELECT id, lag(a) OVER (ORDER BY a, id) l FROM sn) SELECT count(l) FROM c;
SELECT same_rows('WITH c AS MATERIALIZED (SELECT id, lag(a) OVER (ORDER BY a, id) l FROM sn) SELECT count(l) FROM c');
EXPLAIN (COSTS OFF) SELECT k.k, w.c FROM (VALUES (1), (2)) k(k),
  LATERAL (SELECT count(*) c FROM (SELECT DISTINCT a FROM sn WHERE i % 2 = k.k - 1 OFFSET 0) d) w;
SELECT same_rows('SELECT k.k, w.c FROM (VALUES (1), (2)) k(k),
  LATERAL (SELECT count(*) c FROM (SELECT DISTINCT a FROM sn WHERE i % 2 = k.k - 1 OFFSET 0) d) w');

-- a partitioned table
CREATE TABLE snp (id int, a int8, i int4) PARTITION BY RANGE (i);
CREATE TABLE snp_lo PARTITION OF snp FOR VALUES FROM (0) TO (50);
CREATE TABLE snp_hi PARTITION OF snp FOR VALUES FROM (50) TO (100);
INSERT INTO snp SELECT id, a, i FROM sn;
ANALYZE snp;
EXPLAIN (COSTS OFF) SELECT id, ntile(4) OVER (ORDER BY a DESC NULLS LAST, id) FROM snp;
SELECT same_rows('SELECT id, ntile(4) OVER (ORDER BY a DESC NULLS LAST, id) FROM snp');

-- a prepared statement's generic plan
SET plan_cache_mode = force_generic_plan;
PREPARE gp(int) AS SELECT id, first_value(id) OVER (PARTITION BY a ORDER BY f, id) FROM sn WHERE i >= $1;
EXPLAIN (COSTS OFF) EXECUTE gp(10);
CREATE TABLE gp_on AS EXECUTE gp(10);
SET bitonic_sort.enable = off;
CREATE TABLE gp_off AS EXECUTE gp(10);
SET bitonic_sort.enable = on;
SELECT count(*) AS rows, (SELECT count(*) FROM (TABLE gp_on EXCEPT ALL TABLE gp_off) d) AS differ FROM gp_on;
RESET plan_cache_mode;

-- a LIMIT keeps the native top-N sort; so does a small input
EXPLAIN (COSTS OFF) SELECT * FROM (SELECT id, a FROM sn ORDER BY a, id LIMIT 5) l;
SET bitonic_sort.min_rows = 100000;
EXPLAIN (COSTS OFF) SELECT id, row_number() OVER (ORDER BY a, id) FROM sn;
RESET bitonic_sort.min_rows;

-- EXPLAIN in another format: the same Sort Key property
EXPLAIN (COSTS OFF, FORMAT JSON) SELECT id, rank() OVER (ORDER BY s DESC, id) FROM sn;

-- merge join against hash join, costed (src/scan/join_paths.c, src/scan/hash_cost.c): tables
-- of 300,000 rows join through a merge join over BitonicSort (a hash table
-- that size is charged what its cache misses cost); a small inner side
-- keeps the hash join
CREATE TABLE snb AS SELECT g AS id, (hashint4(g) % 500000)::int8 AS a FROM generate_series(1, 300000) g;
CREATE TABLE snb2 AS SELECT g AS id, (hashint4(g + 7) % 500000)::int8 AS a FROM generate_series(1, 300000) g;
ANALYZE snb;
ANALYZE snb2;
EXPLAIN (COSTS OFF) SELECT x.id, y.id FROM snb x JOIN snb2 y ON x.a = y.a;
SELECT same_rows('SELECT x.id, y.id FROM snb x JOIN snb2 y ON x.a = y.a');
EXPLAIN (COSTS OFF) SELECT x.id, y.id FROM snb x LEFT JOIN snb2 y ON x.a = y.a;
SELECT same_rows('SELECT x.id, y.id FROM snb x LEFT JOIN snb2 y ON x.a = y.a');
EXPLAIN (COSTS OFF) SELECT x.id, y.id FROM snb x JOIN (SELECT * FROM snb2 WHERE id <= 1000) y ON x.a = y.a;

-- inside parallel plans: below Gather Merge each worker sorts its share with
-- the node, and the leader merges; the rows in the same order as native's
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT id, a, s FROM sn ORDER BY a DESC, id;
SELECT same_order('SELECT id, a, s FROM sn ORDER BY a DESC, id');
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT s, count(*) FROM sn GROUP BY s;
SELECT same_rows('SELECT s, count(*) FROM sn GROUP BY s');
RESET enable_hashagg;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
