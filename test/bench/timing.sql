-- test/bench/timing.sql — timing helpers shared by the demo and benchmarks.
-- best_ms(query, reps): the best wall time in ms of `reps` runs of query.
CREATE OR REPLACE FUNCTION pg_temp.best_ms(q text, reps int DEFAULT 3)
RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
  best float8 := 'Infinity';
BEGIN
  FOR r IN 1..reps LOOP
    t0 := clock_timestamp();
    EXECUTE q;
    best := least(best, extract(epoch FROM clock_timestamp() - t0) * 1000);
  END LOOP;
  RETURN round(best::numeric, 1);
END $$;

-- array_vs_native(table): gpu_sort(a) against ARRAY(SELECT ... ORDER BY) on
-- the one-row table's array column a, same run, same array.
CREATE OR REPLACE FUNCTION pg_temp.array_vs_native(tab text, reps int DEFAULT 3,
  OUT gpu_sort_ms float8, OUT native_ms float8, OUT speedup numeric)
LANGUAGE plpgsql AS $$
BEGIN
  gpu_sort_ms := pg_temp.best_ms(format('SELECT cardinality(gpu_sort(a)) FROM %I', tab), reps);
  native_ms := pg_temp.best_ms(format('SELECT cardinality(ARRAY(SELECT x FROM unnest(a) x ORDER BY x)) FROM %I', tab), reps);
  speedup := round((native_ms / gpu_sort_ms)::numeric, 2);
END $$;
