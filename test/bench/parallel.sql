-- test/bench/parallel.sql — the comparison of bench-parallel.sh (pg_temp.run is in timing.sql).
CREATE TEMP TABLE bench_parallel (query text, n bigint, workers int, native_ms float8,
  native_plan text, native_parallel_ms float8, native_parallel_plan text, ours_ms float8,
  ours_plan text, ratio numeric, in_workers_ms float8, above_gather_ms float8);

-- compare(name, q, n, workers, reps): with up to `workers` workers (0:
-- serial), native and ours as the planner chooses at the default parallel
-- costs, and each with parallel plans made free (parallel_setup_cost and
-- parallel_tuple_cost 0) so that the workers are used: native's Gather
-- Merge over Sort, ours below Gather Merge (the node in the workers) and
-- above Gather (Gather Merge off, one sort in the leader).  ratio: native's
-- best of its two against ours as planned.
CREATE FUNCTION pg_temp.compare(name text, q text, n bigint, workers int, reps int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE b pg_temp.bench_parallel; r record; w text := 'max_parallel_workers_per_gather=' || workers;
  free text := ',parallel_setup_cost=0,parallel_tuple_cost=0';
BEGIN
  b.query := name; b.n := n; b.workers := workers;
  SELECT * INTO r FROM pg_temp.run(q, 'bitonic_sort.enable=off,' || w, reps);
  b.native_ms := r.ms; b.native_plan := r.plan;
  SELECT * INTO r FROM pg_temp.run(q, w, reps);
  b.ours_ms := r.ms; b.ours_plan := r.plan;
  IF workers > 0 THEN
    SELECT * INTO r FROM pg_temp.run(q, 'bitonic_sort.enable=off,' || w || free, reps);
    b.native_parallel_ms := r.ms; b.native_parallel_plan := r.plan;
    SELECT * INTO r FROM pg_temp.run(q, w || free, reps);
    b.in_workers_ms := r.ms;
    SELECT * INTO r FROM pg_temp.run(q, w || free || ',enable_gathermerge=off', reps);
    b.above_gather_ms := r.ms;
  END IF;
  b.ratio := round((least(b.native_ms, b.native_parallel_ms) / b.ours_ms)::numeric, 2);
  INSERT INTO pg_temp.bench_parallel SELECT b.*;
END $$;
