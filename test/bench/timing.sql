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

-- run(q, settings): q's best execution time of reps, in ms, under settings
-- (name=value,...), and the plan's top operators
CREATE OR REPLACE FUNCTION pg_temp.run(q text, settings text, reps int, OUT ms float8, OUT plan text)
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

-- pool_pages(): free 2 MB pages of the kernel's huge page pool that nobody
-- has reserved (HugePages_Free counts the default page size, and pages a
-- server's shared memory has reserved but not yet touched).
CREATE OR REPLACE FUNCTION pg_temp.pool_pages() RETURNS int LANGUAGE sql AS $$
  SELECT coalesce(pg_read_file('/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages', 0, 64, true)::int -
                  pg_read_file('/sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages', 0, 64, true)::int, 0) $$;
