-- test/bench/orderby.sql — ORDER BY timing helpers for bench-orderby.sh.

-- sort_node(plan): the first Sort or Custom Scan node of an EXPLAIN JSON plan.
CREATE OR REPLACE FUNCTION pg_temp.sort_node(p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE child jsonb; found jsonb;
BEGIN
  IF p->>'Node Type' IN ('Sort', 'Custom Scan', 'Incremental Sort') THEN
    RETURN p;
  END IF;
  FOR child IN SELECT jsonb_array_elements(coalesce(p->'Plans', '[]'))
  LOOP
    found := pg_temp.sort_node(child);
    IF found IS NOT NULL THEN RETURN found; END IF;
  END LOOP;
  RETURN NULL;
END $$;

-- time_sort(query): the sort node's name and self time (its last-row time
-- minus its input's) and the query's execution time without per-node timing.
CREATE OR REPLACE FUNCTION pg_temp.time_sort(q text,
  OUT node text, OUT node_ms float8, OUT total_ms float8)
LANGUAGE plpgsql AS $$
DECLARE plan jsonb; s jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || q INTO plan;
  s := pg_temp.sort_node(plan->0->'Plan');
  node := coalesce(s->>'Custom Plan Provider', s->>'Node Type');
  node_ms := round(((s->>'Actual Total Time')::float8 -
                    (s->'Plans'->0->>'Actual Total Time')::float8)::numeric, 1);
  EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
  total_ms := round((plan->0->>'Execution Time')::numeric, 1);
END $$;

-- scan_ms(): the bare scan of the table, `SELECT * FROM bench`, as time_sort
-- times the whole query (EXPLAIN ANALYZE, TIMING OFF: rows read, none sent).
CREATE OR REPLACE FUNCTION pg_temp.scan_ms() RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE plan jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) SELECT * FROM bench' INTO plan;
  RETURN round((plan->0->>'Execution Time')::numeric, 1);
END $$;

-- compare(label, query, reps): the query with the native Sort and with
-- BitonicSort (forced: Sort disabled), alternating, `reps` times each in the
-- same run; the best of each and the ratios native / bitonic.  Alternating
-- keeps either side from always inheriting the other's freed memory.
-- BitonicSort runs with bitonic_sort.huge_pages off (ordinary memory) and,
-- when the huge page pool has free pages, a third time in each round with it
-- on (its default: the pool's pages while it has room), after one untimed
-- run that gives the pool's pages their first use (a page's first write
-- after the pool is reserved costs a host fault per 4 kB on this VM).
-- Each round also times the bare scan of the table: the whole query's
-- time over the best scan is the x-scan column.  BitonicSort runs with
-- bitonic_sort.keep_memory as it is by default (a sort's memory kept for
-- the backend's next one): its run in a round takes what its runs of the
-- round before kept.  Last, BitonicSort in ordinary memory with nothing
-- kept (keep_memory 0: a backend's first sort): in each round a native run
-- (counted with the others) and the timed run; the native run before it
-- is what every other BitonicSort run follows too.
CREATE OR REPLACE FUNCTION pg_temp.compare(label text, q text, reps int DEFAULT 1) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  n record;
  b record;
  h record;
  pool bool := pg_temp.pool_pages() > 0;
  native_node text;
  bitonic_node text;
  native_node_ms float8 := 'Infinity';
  bitonic_node_ms float8 := 'Infinity';
  native_total_ms float8 := 'Infinity';
  bitonic_total_ms float8 := 'Infinity';
  pool_node_ms float8;
  pool_total_ms float8;
  f record;
  fresh_node_ms float8 := 'Infinity';
  fresh_total_ms float8 := 'Infinity';
  scan float8 := 'Infinity';
BEGIN
  IF pool THEN
    PERFORM set_config('bitonic_sort.enable', 'on', false);
    PERFORM set_config('enable_sort', 'off', false);
    PERFORM set_config('bitonic_sort.huge_pages', 'on', false);
    PERFORM pg_temp.time_sort(q);
  END IF;
  FOR r IN 1..reps LOOP
    PERFORM set_config('bitonic_sort.enable', 'off', false);
    PERFORM set_config('enable_sort', 'on', false);
    SELECT * INTO n FROM pg_temp.time_sort(q);
    PERFORM set_config('bitonic_sort.enable', 'on', false);
    PERFORM set_config('enable_sort', 'off', false);
    PERFORM set_config('bitonic_sort.huge_pages', 'off', false);
    SELECT * INTO b FROM pg_temp.time_sort(q);
    PERFORM set_config('bitonic_sort.huge_pages', 'on', false);
    IF pool THEN
      SELECT * INTO h FROM pg_temp.time_sort(q);
      pool_node_ms := least(coalesce(pool_node_ms, 'Infinity'), h.node_ms);
      pool_total_ms := least(coalesce(pool_total_ms, 'Infinity'), h.total_ms);
    END IF;
    scan := least(scan, pg_temp.scan_ms());
    native_node := n.node;
    bitonic_node := b.node;
    native_node_ms := least(native_node_ms, n.node_ms);
    bitonic_node_ms := least(bitonic_node_ms, b.node_ms);
    native_total_ms := least(native_total_ms, n.total_ms);
    bitonic_total_ms := least(bitonic_total_ms, b.total_ms);
  END LOOP;
  PERFORM set_config('bitonic_sort.huge_pages', 'off', false);
  PERFORM set_config('bitonic_sort.keep_memory', '0', false);
  FOR r IN 1..reps LOOP
    PERFORM set_config('bitonic_sort.enable', 'off', false);
    PERFORM set_config('enable_sort', 'on', false);
    SELECT * INTO n FROM pg_temp.time_sort(q);
    native_node_ms := least(native_node_ms, n.node_ms);
    native_total_ms := least(native_total_ms, n.total_ms);
    PERFORM set_config('bitonic_sort.enable', 'on', false);
    PERFORM set_config('enable_sort', 'off', false);
    SELECT * INTO f FROM pg_temp.time_sort(q);
    fresh_node_ms := least(fresh_node_ms, f.node_ms);
    fresh_total_ms := least(fresh_total_ms, f.total_ms);
  END LOOP;
  PERFORM set_config('bitonic_sort.keep_memory', '-1', false);
  PERFORM set_config('bitonic_sort.huge_pages', 'on', false);
  PERFORM set_config('enable_sort', 'on', false);
  INSERT INTO bench_results VALUES (label, (SELECT count(*) FROM bench), native_node, native_node_ms,
    bitonic_node, bitonic_node_ms, round((native_node_ms / nullif(bitonic_node_ms, 0))::numeric, 2),
    native_total_ms, bitonic_total_ms, round((native_total_ms / nullif(bitonic_total_ms, 0))::numeric, 2),
    pool_node_ms, round((native_node_ms / nullif(pool_node_ms, 0))::numeric, 2),
    pool_total_ms, round((native_total_ms / nullif(pool_total_ms, 0))::numeric, 2),
    scan, round((bitonic_total_ms / nullif(scan, 0))::numeric, 2),
    round((pool_total_ms / nullif(scan, 0))::numeric, 2),
    fresh_node_ms, round((native_node_ms / nullif(fresh_node_ms, 0))::numeric, 2),
    fresh_total_ms, round((fresh_total_ms / nullif(scan, 0))::numeric, 2));
END $$;
