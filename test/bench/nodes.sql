-- test/bench/nodes.sql — the comparison of bench-nodes.sh (pg_temp.run is in timing.sql).
CREATE TEMP TABLE bench_nodes (query text, n bigint, native_ms float8, native_plan text,
  ours_ms float8, ours_plan text, ratio numeric, ours_sorted_ms float8, sorted_ratio numeric);

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
