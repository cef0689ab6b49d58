-- Differential test of the BitonicSort custom scan: generated ORDER BY
-- queries (random key lists, directions, NULL placement, collations, types,
-- LIMIT/OFFSET, some with a tiny work_mem) on tables with NULLs and heavy
-- duplicates, each run with the node forced and with the node off.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SET bitonic_sort.min_rows = 0;
SET work_mem = '16MB';

CREATE TABLE dt (id int, a int4, b int8, c float8, d text, e numeric, f bool,
                 g date, h varchar(12), u uuid, ts timestamptz, s int2);
INSERT INTO dt
SELECT i,
  CASE WHEN i % 10 = 0 THEN NULL ELSE (i * 7) % 13 - 6 END,
  CASE WHEN i % 9 = 0 THEN NULL ELSE ((i * 31) % 17 - 8)::int8 * 1000000000000 END,
  CASE i % 23 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 'Infinity' WHEN 3 THEN '-Infinity'
    ELSE ((i * 11) % 29 - 14) / 4.0 END,
  CASE WHEN i % 8 = 0 THEN NULL ELSE (ARRAY['apple', 'Apple', 'banana', 'b', 'B', '', 'éclair', 'eclair', 'zebra', 'a b'])[1 + (i * 3) % 10] END,
  CASE WHEN i % 11 = 0 THEN NULL WHEN i % 37 = 1 THEN 'NaN' ELSE round(((i * 13) % 41 - 20) / 3.0, 2) END,
  CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 = 0 END,
  CASE WHEN i % 12 = 0 THEN NULL ELSE date '2020-02-28' + (i * 5) % 9 END,
  CASE WHEN i % 6 = 0 THEN NULL ELSE upper(substr(md5((i % 19)::text), 1, 1 + i % 4)) END,
  CASE WHEN i % 5 = 0 THEN NULL ELSE md5((i % 21)::text)::uuid END,
  CASE WHEN i % 13 = 0 THEN NULL ELSE timestamptz '2024-01-01 00:00+00' + ((i * 7) % 15) * interval '1 hour' END,
  CASE WHEN i % 4 = 0 THEN NULL ELSE 7 END
FROM generate_series(1, 2000) i;
-- a second shape: a column that is all NULL, few rows, another row order
CREATE TABLE dt2 AS
SELECT id, a, b, c, d, e, f, g, h, u, ts, NULL::int2 AS s
FROM dt WHERE id % 4 = 1 ORDER BY md5(id::text);
ANALYZE dt;
ANALYZE dt2;

-- diff_run(n, seed): generates and checks n queries; mismatches counted
-- when the node's rows differ from the native Sort's (in order where the
-- keys fix the order; as a set within groups that tie on every key)
CREATE FUNCTION diff_run(n int, seed float8,
  OUT queries int, OUT node_used int, OUT node_expected int, OUT mismatches int)
LANGUAGE plpgsql AS $$
DECLARE
  cols text[] := ARRAY['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'u', 'ts', 's',
                       'a % 3', 'lower(d)', 'length(h)', 'c::float4', 'b / 3'];
  dirs text[] := ARRAY['', ' ASC', ' DESC', ' NULLS FIRST', ' NULLS LAST',
                       ' DESC NULLS FIRST', ' DESC NULLS LAST'];
  colls text[] := ARRAY['', ' COLLATE "C"', ' COLLATE "und-x-icu"', ' COLLATE "en-x-icu"', ' COLLATE "default"'];
  tab text; nkeys int; col text; keys text; keyrow text;
  unique_tail bool; mode float8; q text; line text; used bool; direct_limit bool;
  fixed bool; ak text[]; ar text[]; bk text[]; br text[]; ok bool;
BEGIN
  queries := 0; node_used := 0; node_expected := 0; mismatches := 0;
  PERFORM setseed(seed);
  FOR i IN 1..n LOOP
    tab := CASE WHEN random() < 0.75 THEN 'dt' ELSE 'dt2' END;
    nkeys := 1 + floor(random() * 4)::int;
    keys := ''; keyrow := '';
    FOR k IN 1..nkeys LOOP
      col := cols[1 + floor(random() * array_length(cols, 1))::int];
      IF col IN ('d', 'h', 'lower(d)') THEN
        col := col || colls[1 + floor(random() * array_length(colls, 1))::int];
      END IF;
      keys := keys || CASE WHEN k > 1 THEN ', ' ELSE '' END || col ||
              dirs[1 + floor(random() * array_length(dirs, 1))::int];
      keyrow := keyrow || ', ' || col;
    END LOOP;
    unique_tail := random() < 0.75;
    IF unique_tail THEN
      keys := keys || CASE WHEN random() < 0.5 THEN ', id' ELSE ', id DESC' END;
    END IF;
    q := format('SELECT ROW(0%s)::text AS k, x::text AS r FROM %I x ORDER BY %s', keyrow, tab, keys);
    mode := random();
    direct_limit := false;
    fixed := unique_tail;
    IF mode < 0.15 THEN
      -- the LIMIT above the node: the node sorts all, the Limit stops early
      q := format('SELECT * FROM (%s) w LIMIT %s', q, 1 + floor(random() * 600)::int);
      fixed := unique_tail;
    ELSIF mode < 0.22 THEN
      -- a LIMIT on the query itself: native top-N is chosen, checked all the same
      q := q || format(' LIMIT %s', 1 + floor(random() * 300)::int);
      direct_limit := true;
    ELSIF mode < 0.32 THEN
      q := q || format(' OFFSET %s', floor(random() * 700)::int);
    END IF;
    -- where rows tie on every key and only some are returned, the set of
    -- returned rows is not fixed: compare the key sequence only
    IF NOT unique_tail AND (mode < 0.22 OR (mode >= 0.22 AND mode < 0.32)) THEN
      fixed := NULL;
    END IF;

    -- the node, forced (Sort disabled); now and then with a tiny work_mem (spill)
    PERFORM set_config('bitonic_sort.enable', 'on', true);
    PERFORM set_config('bitonic_sort.min_rows', '0', true);
    PERFORM set_config('enable_sort', 'off', true);
    PERFORM set_config('work_mem', CASE WHEN random() < 0.1 THEN '64kB' ELSE '16MB' END, true);
    used := false;
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
      used := used OR line LIKE '%BitonicSort%';
    END LOOP;
    EXECUTE format('SELECT array_agg(k), array_agg(r) FROM (%s) s', q) INTO ak, ar;
    -- the native Sort
    PERFORM set_config('bitonic_sort.enable', 'off', true);
    PERFORM set_config('enable_sort', 'on', true);
    EXECUTE format('SELECT array_agg(k), array_agg(r) FROM (%s) s', q) INTO bk, br;

    IF fixed IS NULL THEN
      ok := ak IS NOT DISTINCT FROM bk;
    ELSIF fixed THEN
      ok := ar IS NOT DISTINCT FROM br;
    ELSE
      ok := ak IS NOT DISTINCT FROM bk AND
            (SELECT array_agg(v ORDER BY v) FROM unnest(ar) v) IS NOT DISTINCT FROM
            (SELECT array_agg(v ORDER BY v) FROM unnest(br) v);
    END IF;
    IF NOT ok THEN
      mismatches := mismatches + 1;
      RAISE NOTICE 'mismatch: %', q;
    END IF;
    queries := queries + 1;
    node_used := node_used + used::int;
    node_expected := node_expected + (NOT direct_limit)::int;
  END LOOP;
END $$;

SELECT * FROM diff_run(1200, 0.42);
