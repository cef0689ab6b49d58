-- test/bench/external.sql — timing helpers for bench-external.sh.

-- ext_run(q, mem, mode): the query's execution time (EXPLAIN ANALYZE,
-- TIMING OFF: rows read, none sent) and its sort node's figures, at work_mem
-- mem, with mode 'native' (the module off, serial), 'native2' (the module
-- off, 2 parallel workers where the planner takes them) or 'ours' (the
-- module on, Sort disabled, serial).
CREATE OR REPLACE FUNCTION pg_temp.ext_run(q text, mem text, mode text,
  OUT ms float8, OUT node text, OUT peak_kb int, OUT runs int, OUT passes int, OUT disk_kb int)
LANGUAGE plpgsql AS $$
DECLARE plan jsonb; p jsonb;
BEGIN
  PERFORM set_config('work_mem', mem, true);
  PERFORM set_config('bitonic_sort.enable', CASE WHEN mode = 'ours' THEN 'on' ELSE 'off' END, true);
  PERFORM set_config('enable_sort', CASE WHEN mode = 'ours' THEN 'off' ELSE 'on' END, true);
  PERFORM set_config('max_parallel_workers_per_gather', CASE WHEN mode = 'native2' THEN '2' ELSE '0' END, true);
  EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
  ms := round((plan->0->>'Execution Time')::numeric, 1);
  p := plan->0->'Plan';
  WHILE p->>'Custom Plan Provider' IS DISTINCT FROM 'BitonicSort' AND p->>'Node Type' <> 'Sort'
        AND p->'Plans' IS NOT NULL LOOP
    p := p->'Plans'->0;
  END LOOP;
  node := coalesce(p->>'Custom Plan Provider', p->>'Node Type');
  peak_kb := coalesce((p->>'Peak Memory')::int, (p->>'Sort Space Used')::int);
  runs := (p->>'Runs')::int;
  passes := (p->>'Merge Passes')::int;
  disk_kb := (p->>'Disk')::int;
END $$;

-- ext_default_plan(q, mem): the sort the planner takes for q at work_mem
-- mem with PostgreSQL's defaults (the module on, Sort enabled, 2 workers
-- allowed): the first BitonicSort, Sort or hash aggregate from the top,
-- behind a Gather Merge where there is one.
CREATE OR REPLACE FUNCTION pg_temp.ext_default_plan(q text, mem text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE plan jsonb; p jsonb; above text := '';
BEGIN
  PERFORM set_config('work_mem', mem, true);
  PERFORM set_config('bitonic_sort.enable', 'on', true);
  PERFORM set_config('enable_sort', 'on', true);
  PERFORM set_config('max_parallel_workers_per_gather', '2', true);
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
  p := plan->0->'Plan';
  LOOP
    IF p->>'Custom Plan Provider' = 'BitonicSort' OR p->>'Node Type' = 'Sort' THEN
      RETURN above || coalesce(p->>'Custom Plan Provider', 'Sort');
    ELSIF p->>'Node Type' = 'Aggregate' AND p->>'Strategy' = 'Hashed' THEN
      RETURN above || 'HashAggregate';
    ELSIF p->>'Node Type' = 'Gather Merge' THEN
      above := 'Gather Merge > ';
    END IF;
    IF p->'Plans' IS NULL THEN
      RETURN above || (p->>'Node Type');
    END IF;
    p := p->'Plans'->0;
  END LOOP;
END $$;

-- ext_compare(label, q, mem, reps): native serial, native with 2 workers
-- and ours, alternated `reps` times, best of each; ours in memory
-- (work_mem 4GB) once per query, passed in as inmem_ms.
CREATE OR REPLACE FUNCTION pg_temp.ext_compare(label text, q text, mem text, reps int, inmem_ms float8)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  n1 float8 := 'Infinity'; n2 float8 := 'Infinity'; o float8 := 'Infinity';
  r record; ours record; native_node text;
BEGIN
  FOR i IN 1..reps LOOP
    r := pg_temp.ext_run(q, mem, 'native'); n1 := least(n1, r.ms); native_node := r.node;
    r := pg_temp.ext_run(q, mem, 'native2'); n2 := least(n2, r.ms);
    r := pg_temp.ext_run(q, mem, 'ours');
    IF r.ms < o THEN o := r.ms; ours := r; END IF;
  END LOOP;
  INSERT INTO bench_external VALUES (label, mem, n1, n2, least(n1, n2), o,
    round((least(n1, n2) / o)::numeric, 2), inmem_ms, round((o / inmem_ms)::numeric, 2),
    ours.node, pg_temp.ext_default_plan(q, mem), ours.peak_kb, ours.runs, ours.passes, ours.disk_kb);
END $$;
