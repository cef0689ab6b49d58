-- test/bench/nodes.sql — the timing functions of bench-nodes.sh.
CREATE TEMP TABLE bench_nodes (query text, n bigint, native_ms float8, native_plan text,
  ours_ms float8, ours_plan text, ratio numeric, ours_sorted_ms float8, sorted_ratio numeric);

-- run(q, settings): q's best execution time of reps, in ms, under settings
-- (name=value,...), and the plan's top operators
CREATE FUNCTION pg_temp.run(q text, settings text, reps int, OUT ms float8, OUT plan text)
LANGUAGE plpgsql AS $$
DECLARE j json; kv text[]; s text; t float8; saved text[] := '{}';
BEGIN
  FOREACH s IN ARRAY string_to_array(settings, ',') LOOP
    kv := string_to_array(s, '=');
    saved := saved || ARRAY[kv[1], current_setting(kv[1])];
    PERFORM set_config(kv[1], kv[2], true);
  END LOOP;
  ms := NULL;
  FOR r IN 1..reps LOOP
    EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO j;
    t := (j -> 0 ->> 'Execution Time')::float8;
    ms := least(ms, t);
  END LOOP;
  -- the plan's operators, top down (our node by its name), for the table
  plan := left((SELECT string_agg(x, ' > ') FROM regexp_matches(j::text,
            '"(?:Node Type|Custom Plan Provider)": "([^"]+)"', 'g') AS m(a), unnest(m.a) AS x), 100);
  -- the settings back as they were (the session's: work_mem 4GB, jit off)
  FOR k IN REVERSE array_length(saved, 1) - 1 .. 1 BY 2 LOOP
    PERFORM set_config(saved[k], saved[k + 1], true);
  END LOOP;
END $$;

-- compare(name, q, n, reps): native's best of four plans against ours
CREATE FUNCTION pg_temp.compare(name text, q text, n bigint, reps int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE best pg_temp.bench_nodes; r record; v text;
BEGIN
  best.query := name; best.n := n;
  FOREACH v IN ARRAY ARRAY[
      'max_parallel_workers_per_gather=0',
      'max_parallel_workers_per_gather=2',
      'max_parallel_workers_per_gather=0,enable_hashagg=off,enable_hashjoin=off',
      'max_parallel_workers_per_gather=2,enable_hashagg=off,enable_hashjoin=off'] LOOP
    SELECT * INTO r FROM pg_temp.run(q, 'bitonic_sort.enable=off,' || v, reps);
    IF best.native_ms IS NULL OR r.ms < best.native_ms THEN
      best.native_ms := r.ms; best.native_plan := r.plan || ' [' || v || ']';
    END IF;
  END LOOP;
  SELECT * INTO r FROM pg_temp.run(q, 'max_parallel_workers_per_gather=0', reps);
  best.ours_ms := r.ms; best.ours_plan := r.plan;
  SELECT * INTO r FROM pg_temp.run(q, 'max_parallel_workers_per_gather=0,enable_hashagg=off,enable_hashjoin=off', reps);
  best.ours_sorted_ms := r.ms;
  best.ratio := round((best.native_ms / best.ours_ms)::numeric, 2);
  best.sorted_ratio := round((best.native_ms / best.ours_sorted_ms)::numeric, 2);
  INSERT INTO pg_temp.bench_nodes SELECT best.*;
END $$;
