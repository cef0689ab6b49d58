-- Differential test of BitonicSort below other operators: generated
-- queries over window functions (row_number, rank, dense_rank, ntile,
-- lag/lead, first_value, sum/avg over ROWS and RANGE frames), GROUP BY and
-- grouping sets, DISTINCT and DISTINCT ON, merge joins (inner and outer),
-- on keys of several types with NULLs, NaN, -0, duplicates, DESC, NULLS
-- FIRST/LAST and collations; each run with the module on and off (hash
-- plans off in both, so both sort) and the rows compared as multisets.
-- Window orders end in the unique id, so every value is determined.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SET bitonic_sort.min_rows = 0;
SET work_mem = '16MB';
SET max_parallel_workers_per_gather = 0;
SET enable_hashagg = off;
SET enable_hashjoin = off;
SET enable_nestloop = off;

CREATE TABLE nd (id int, a int4, b int8, c float8, d text, e numeric, g date);
INSERT INTO nd
SELECT i,
  CASE WHEN i % 10 = 0 THEN NULL ELSE (i * 7) % 13 - 6 END,
  CASE WHEN i % 9 = 0 THEN NULL ELSE ((i * 31) % 17 - 8)::int8 * 1000000000000 END,
  CASE i % 23 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN '-0' WHEN 3 THEN '-Infinity'
    ELSE ((i * 11) % 29 - 14) / 4.0 END,
  CASE WHEN i % 8 = 0 THEN NULL ELSE (ARRAY['apple', 'Apple', 'banana', 'b', 'B', '', 'éclair', 'eclair', 'zebra', 'a b'])[1 + (i * 3) % 10] END,
  CASE WHEN i % 11 = 0 THEN NULL ELSE round(((i * 13) % 41 - 20) / 3.0, 2) END,
  CASE WHEN i % 12 = 0 THEN NULL ELSE date '2020-02-28' + (i * 5) % 9 END
FROM generate_series(1, 3000) i;
ANALYZE nd;

-- node_diff(n, seed): generates n queries; counts those whose rows differ,
-- and those whose plan with the module on uses the node
CREATE FUNCTION node_diff(n int, seed float8,
  OUT queries int, OUT node_used int, OUT mismatches int)
LANGUAGE plpgsql AS $$
DECLARE
  cols text[] := ARRAY['a', 'b', 'c', 'd', 'e', 'g', 'a % 3', 'lower(d)'];
  dirs text[] := ARRAY['', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST'];
  colls text[] := ARRAY['', ' COLLATE "C"', ' COLLATE "en-x-icu"'];
  wfuncs text[] := ARRAY['row_number()', 'rank()', 'dense_rank()', 'ntile(5)',
                         'lag(id) OVER w IS NULL AND true', 'lead(c, 2)', 'first_value(d)',
                         'sum(e)', 'avg(b)', 'count(*)'];
  frames text[] := ARRAY['', ' ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING',
                         ' RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW',
                         ' ROWS UNBOUNDED PRECEDING'];
  kind int; k1 text; k2 text; wf text; q text; plan text; on_rows text; off_rows text;
BEGIN
  queries := 0; node_used := 0; mismatches := 0;
  PERFORM setseed(seed);
  FOR i IN 1..n LOOP
    k1 := cols[1 + floor(random() * array_length(cols, 1))::int];
    k2 := cols[1 + floor(random() * array_length(cols, 1))::int];
    IF k1 IN ('d', 'lower(d)') THEN k1 := k1 || colls[1 + floor(random() * 3)::int]; END IF;
    IF k2 IN ('d', 'lower(d)') THEN k2 := k2 || colls[1 + floor(random() * 3)::int]; END IF;
    kind := floor(random() * 5)::int;
    IF kind = 0 THEN
      -- a window: PARTITION BY k1 ORDER BY k2, id
      wf := wfuncs[1 + floor(random() * array_length(wfuncs, 1))::int];
      IF wf LIKE '% OVER w %' THEN
        q := format('SELECT id, %s FROM nd WINDOW w AS (PARTITION BY %s ORDER BY %s%s, id)',
                    wf, k1, k2, dirs[1 + floor(random() * 4)::int]);
      ELSE
        q := format('SELECT id, %s OVER (%sORDER BY %s%s, id%s) FROM nd', wf,
                    CASE WHEN random() < 0.5 THEN format('PARTITION BY %s ', k1) ELSE '' END,
                    k2, dirs[1 + floor(random() * 4)::int],
                    CASE WHEN wf IN ('sum(e)', 'avg(b)', 'count(*)', 'first_value(d)')
                         THEN frames[1 + floor(random() * 4)::int] ELSE '' END);
      END IF;
    ELSIF kind = 1 THEN
      q := format('SELECT %s, %s, count(*), sum(e), min(id) FROM nd GROUP BY %s',
                  k1, k2, CASE WHEN random() < 0.7 THEN format('%s, %s', k1, k2)
                               ELSE format('ROLLUP (%s, %s)', k1, k2) END);
    ELSIF kind = 2 THEN
      q := CASE WHEN random() < 0.3 THEN format('SELECT DISTINCT %s, %s FROM nd', k1, k2)
                WHEN random() < 0.4 THEN format('SELECT DISTINCT %s FROM nd ORDER BY 1%s', k1,
                                                dirs[1 + floor(random() * 4)::int])
                ELSE format('SELECT DISTINCT ON (%s) %s, id FROM nd ORDER BY %s, %s%s, id',
                            k1, k1, k1, k2, dirs[1 + floor(random() * 4)::int]) END;
    ELSE
      -- a merge join on one column, inner or outer, one side filtered
      k1 := (ARRAY['a', 'b', 'c', 'd', 'e', 'g', 'd COLLATE "C"'])[1 + floor(random() * 7)::int];
      q := format('SELECT x.id, y.id FROM nd x %s JOIN (SELECT * FROM nd WHERE id %% %s = 0) y ON x.%s = y.%s',
                  (ARRAY['', 'LEFT', 'RIGHT', 'FULL'])[1 + floor(random() * 4)::int],
                  7 + floor(random() * 20)::int, k1, k1);
    END IF;
    queries := queries + 1;
    FOR plan IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
      IF plan LIKE '%BitonicSort%' THEN node_used := node_used + 1; EXIT; END IF;
    END LOOP;
    EXECUTE format('SELECT md5(string_agg(x::text, E''\n'' ORDER BY x::text)) FROM (%s) x', q)
      INTO on_rows;
    PERFORM set_config('bitonic_sort.enable', 'off', true);
    EXECUTE format('SELECT md5(string_agg(x::text, E''\n'' ORDER BY x::text)) FROM (%s) x', q)
      INTO off_rows;
    PERFORM set_config('bitonic_sort.enable', 'on', true);
    IF on_rows IS DISTINCT FROM off_rows THEN
      mismatches := mismatches + 1;
      RAISE NOTICE 'differs: %', q;
    END IF;
  END LOOP;
END $$;

-- every query must agree; the node must be in most plans (a few keys are
-- expressions the input does not output, which stay native)
SELECT queries, node_used > queries * 0.6 AS node_mostly_used, mismatches
FROM node_diff(300, 0.42);
