-- Past work_mem the node sorts its rows in runs that it writes to disk and
-- merges (runs.c): its Peak Memory, which counts the rows it holds, the
-- pairs, the sorters' scratch and the runs' buffers, stays within work_mem
-- plus a small fixed amount.  The planner is misled into expecting a third
-- of the rows, so the node's first run is sorted as an in-memory sort.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SET max_parallel_workers_per_gather = 0;
SET bitonic_sort.min_rows = 0;
SET bitonic_sort.keep_memory = 0;
CREATE TABLE spill_mem AS
  SELECT i, (i::int8 * 7919) % 1000003 AS a, ((i * 31) % 1009) / 7.0::float8 AS f,
         md5(i::text) AS t, CASE WHEN i % 101 = 0 THEN NULL ELSE i % 1000 END AS g
  FROM generate_series(1, 300000) i;
ANALYZE spill_mem;
-- whether the node ran and spilled, its Peak Memory within work_mem plus
-- 512 kB (the first block of rows, file buffers, the contexts' own), and rows
-- equal to the native sort's
CREATE FUNCTION spill_mem_check(q text) RETURNS TABLE (node boolean, spilled boolean, within_work_mem boolean, same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  plan json;
  ours text;
  native text;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
  plan := plan -> 0 -> 'Plan';
  WHILE plan ->> 'Custom Plan Provider' IS DISTINCT FROM 'BitonicSort' AND plan -> 'Plans' IS NOT NULL LOOP
    plan := plan -> 'Plans' -> 0;
  END LOOP;
  node := plan ->> 'Custom Plan Provider' = 'BitonicSort';
  spilled := (plan ->> 'Spilled')::boolean;
  within_work_mem := (plan ->> 'Peak Memory')::int <=
                     (SELECT setting::int FROM pg_settings WHERE name = 'work_mem') + 512;
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'')) FROM (%s) x', q) INTO ours;
  SET LOCAL bitonic_sort.enable = off;
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'')) FROM (%s) x', q) INTO native;
  same := ours = native;
  RETURN NEXT;
END $$;
SET work_mem = '16MB';
SELECT * FROM spill_mem_check('SELECT * FROM spill_mem WHERE (i % 7) < 10 ORDER BY f, i');
SELECT * FROM spill_mem_check('SELECT * FROM spill_mem WHERE (i % 7) < 10 ORDER BY t COLLATE "C"');
SELECT * FROM spill_mem_check('SELECT * FROM spill_mem WHERE (i % 7) < 10 ORDER BY g DESC NULLS LAST, i');
-- one column as keys alone: its runs are written from the sorted keys
SET work_mem = '1MB';
SELECT * FROM spill_mem_check('SELECT a FROM spill_mem WHERE (i % 7) < 10 ORDER BY a');
RESET work_mem;
-- the runs' temporary files are gone
SELECT count(*) AS temp_files_left FROM pg_ls_tmpdir();
DROP FUNCTION spill_mem_check(text);
DROP TABLE spill_mem;
