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

-- gpu_sort_ms(table, algorithm): gpu_sort(a) of the one-row table's array
-- column a with bitonic_sort.algorithm = algorithm.
CREATE OR REPLACE FUNCTION pg_temp.gpu_sort_ms(tab text, algorithm text DEFAULT 'auto', reps int DEFAULT 3)
RETURNS float8 LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('bitonic_sort.algorithm', algorithm, true);
  RETURN pg_temp.best_ms(format('SELECT cardinality(gpu_sort(a)) FROM %I', tab), reps);
END $$;

-- native_ms(table): PostgreSQL's own sort of the same array,
-- ARRAY(SELECT x FROM unnest(a) x ORDER BY x).
CREATE OR REPLACE FUNCTION pg_temp.native_ms(tab text, reps int DEFAULT 3)
RETURNS float8 LANGUAGE sql AS $$
  SELECT pg_temp.best_ms(format('SELECT cardinality(ARRAY(SELECT x FROM unnest(a) x ORDER BY x)) FROM %I', tab), reps)
$$;
