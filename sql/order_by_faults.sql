-- The test build only (make emu: bitonic_sort.test_fault, and a store that
-- names 16 MB of rows): the paths of the background threads that a release
-- build reaches only with a fault or 32 GB of rows.  Every result is checked
-- against PostgreSQL's own sort, and after every error the next sort of the
-- same session runs.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SET bitonic_sort.device = cpu;
SET bitonic_sort.cpu_threads = 2;
SET work_mem = '1GB';
-- keys unique but for NULLs; the queries compared break ties by id, since
-- PostgreSQL's own sort keeps no input order among ties
CREATE TABLE bs_fault AS
  SELECT i AS id, CASE WHEN i % 97 = 0 THEN NULL ELSE (i::int8 * 7919) % 1000003 END AS k,
         repeat(chr(97 + i % 26), 40) AS pad
  FROM generate_series(1, 400000) i;
ANALYZE bs_fault;
-- rows are placed by key range (on the ingest worker) from 128 MB of expected rows
CREATE FUNCTION bs_fault_rows() RETURNS SETOF bs_fault LANGUAGE plpgsql ROWS 4000000 AS
  $$BEGIN RETURN QUERY SELECT * FROM bs_fault; END$$;
-- the plan's BitonicSort lines that tell where the rows went
CREATE FUNCTION bs_fault_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  SET LOCAL enable_sort = off;
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, SUMMARY OFF, TIMING OFF) ' || q LOOP
    IF line ~ 'BitonicSort|Spilled:|Key Ranges:|Sort Parts:' THEN
      RETURN NEXT btrim(regexp_replace(line, '\d+(\.\d+)?', 'N', 'g'));
    END IF;
  END LOOP;
END $$;
-- count and digest of a query with BitonicSort against the native Sort's
CREATE FUNCTION bs_fault_compare(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  a text;
  b text;
BEGIN
  SET LOCAL enable_sort = off;
  EXECUTE format('SELECT count(*) || '' rows, '' || md5(string_agg(x::text, E''\n'')) FROM (%s) x', q) INTO a;
  SET LOCAL bitonic_sort.enable = off;
  SET LOCAL enable_sort = on;
  EXECUTE format('SELECT count(*) || '' rows, '' || md5(string_agg(x::text, E''\n'')) FROM (%s) x', q) INTO b;
  RETURN CASE WHEN a = b THEN 'same: ' || split_part(a, ',', 1) ELSE 'different: ' || a || ' against ' || b END;
END $$;

-- the locators run out while the ingest worker places rows: every row held,
-- staged or handed to the worker goes to a run of the external sort, none is lost
SELECT * FROM bs_fault_plan('SELECT * FROM bs_fault_rows() ORDER BY k');
SELECT bs_fault_compare('SELECT * FROM bs_fault_rows() ORDER BY k, id') AS locators_out_placed;
SELECT bs_fault_compare('SELECT * FROM bs_fault_rows() ORDER BY k DESC NULLS LAST, id') AS locators_out_placed_desc;
-- and without the worker (one thread), rows stored in input order
SET bitonic_sort.cpu_threads = 1;
SELECT * FROM bs_fault_plan('SELECT * FROM bs_fault ORDER BY k');
SELECT bs_fault_compare('SELECT * FROM bs_fault ORDER BY k, id') AS locators_out;
RESET bitonic_sort.cpu_threads;
SET bitonic_sort.cpu_threads = 2;

-- the part sorter's worker fails: a clean error at emit, then the same sort
-- runs (id + 0 rides along: k alone would be sorted as keys alone, in no
-- parts, and a column of the table would have the node keep whole rows,
-- more than the test build's 16 MB)
SELECT * FROM bs_fault_plan('SELECT k, id + 0 FROM bs_fault WHERE id <= 300000 ORDER BY k');
SET bitonic_sort.test_fault = part_sort;
SET enable_sort = off;
SELECT count(*) FROM (SELECT k, id + 0 FROM bs_fault WHERE id <= 300000 ORDER BY k) s;
RESET enable_sort;
RESET bitonic_sort.test_fault;
SELECT bs_fault_compare('SELECT k FROM bs_fault WHERE id <= 300000 ORDER BY k') AS after_part_sort_fault;

-- an error while the ingest worker places a buffer: the worker is joined
-- before the memory goes, then the same sort runs
SET bitonic_sort.test_fault = ingest;
SET enable_sort = off;
SELECT count(*) FROM (SELECT * FROM bs_fault_rows() ORDER BY k) s;
RESET enable_sort;
RESET bitonic_sort.test_fault;
SELECT bs_fault_compare('SELECT * FROM bs_fault_rows() ORDER BY k, id') AS after_ingest_fault;
-- an error of the input itself while the worker places rows (no fault needed)
SET enable_sort = off;
SELECT count(*), sum(r) FROM (SELECT id, k, 1 / (id - 90000) AS r FROM bs_fault_rows() ORDER BY k) s;
RESET enable_sort;
SELECT bs_fault_compare('SELECT * FROM bs_fault_rows() ORDER BY k, id') AS after_input_error;

-- a fault in the external sort's file I/O: the sort ends in a clean
-- error naming the temporary file (SQLSTATE and message as a notice),
-- nothing is left on disk, and the same sort then runs right
-- bs_fault_explain(q): EXPLAIN ANALYZE of q in JSON, the native Sort disabled
CREATE FUNCTION bs_fault_explain(q text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
  SET LOCAL enable_sort = off;
  EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
  RETURN plan;
END $$;
CREATE FUNCTION bs_fault_file_io(fault text, both_ends_run_size text DEFAULT '0')
RETURNS TABLE (temp_files_left bigint, after_fault text)
LANGUAGE plpgsql AS $f$
BEGIN
  PERFORM set_config('bitonic_sort.test_fault', fault, true);
  PERFORM set_config('enable_sort', 'off', true);
  -- runs of 1 MB written from both ends too (by default from 24 MB)
  PERFORM set_config('bitonic_sort.both_ends_run_size', both_ends_run_size, true);
  BEGIN
    PERFORM count(*) FROM (SELECT * FROM bs_fault ORDER BY k) s;
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'SQLSTATE %: %', SQLSTATE,
      regexp_replace(SQLERRM, 'pgsql_tmp[0-9.]+', 'pgsql_tmpN', 'g');
  END;
  PERFORM set_config('bitonic_sort.test_fault', 'none', true);
  PERFORM set_config('enable_sort', 'on', true);
  temp_files_left := (SELECT count(*) FROM pg_ls_tmpdir());
  after_fault := bs_fault_compare('SELECT * FROM bs_fault ORDER BY k, id');
  RETURN NEXT;
END $f$;
SET work_mem = '1MB';
-- the thread that reads the merge's runs ahead fails its reads (the thread
-- is stopped before its descriptors are closed; runs read into buffers:
-- by default these many runs at 1MB are read mapped, below)
SET bitonic_sort.map_runs = off;
SELECT * FROM bs_fault_file_io('read_ahead');
RESET bitonic_sort.map_runs;
-- runs planned to be read mapped (more runs expected than read buffers
-- of a block take) that cannot be: the merges read them through buffers
-- of the memory the plan left them (2 kB each at least), read ahead, and
-- the rows are the same; EXPLAIN counts no run read mapped
SET bitonic_sort.test_fault = run_map;
SELECT bs_fault_compare('SELECT * FROM bs_fault ORDER BY k DESC, id') AS runs_not_mapped;
SELECT (p -> 0 -> 'Plan' ->> 'Runs Read Mapped')::int = 0 AS none_mapped,
       (p -> 0 -> 'Plan' ->> 'Runs')::int > 1 AS several_runs
FROM bs_fault_explain('SELECT * FROM bs_fault ORDER BY k') p;
RESET bitonic_sort.test_fault;
SELECT (p -> 0 -> 'Plan' ->> 'Runs Read Mapped')::int > 0 AS mapped_without_fault
FROM bs_fault_explain('SELECT * FROM bs_fault ORDER BY k') p;
-- a run written from both ends fails its writes (the helper gathers and
-- writes one end on another thread; the error is raised once both ends
-- stop)
SELECT * FROM bs_fault_file_io('run_write');
-- a run written behind the input fails its writes (at 4MB: at 1MB the
-- runs, halved, would pass one merge's order and are written in place;
-- the first run is written in place by the backend; the error is raised
-- when the node waits for the thread, at its next run)
SET work_mem = '4MB';
SELECT * FROM bs_fault_file_io('run_write', '24MB');
SET work_mem = '1GB';

-- the same from a heap table: the worker copies each row out of its page,
-- which stays pinned until then.  A spill stages the rows still in
-- pinned pages; an error's abort drops the pins (a pin left would warn of a
-- leak at the next commit).  The planner is told of 4M rows, so that the
-- worker places them.
CREATE TABLE bs_fault_heap AS SELECT * FROM bs_fault;
ANALYZE bs_fault_heap;
UPDATE pg_class SET reltuples = 4000000 WHERE oid = 'bs_fault_heap'::regclass;
SELECT * FROM bs_fault_plan('SELECT * FROM bs_fault_heap ORDER BY k');
SELECT bs_fault_compare('SELECT * FROM bs_fault_heap ORDER BY k DESC NULLS LAST, id') AS heap_locators_out_placed;
SET bitonic_sort.test_fault = ingest;
SET enable_sort = off;
SELECT count(*) FROM (SELECT * FROM bs_fault_heap ORDER BY k) s;
RESET enable_sort;
RESET bitonic_sort.test_fault;
SELECT bs_fault_compare('SELECT * FROM bs_fault_heap ORDER BY k, id') AS heap_after_ingest_fault;
SET enable_sort = off;
SELECT count(*) FROM (SELECT * FROM bs_fault_heap WHERE 1 / (id - 90000) <> 2 ORDER BY k) s;
RESET enable_sort;
SELECT bs_fault_compare('SELECT * FROM bs_fault_heap WHERE id % 3 = 0 ORDER BY k, id') AS heap_after_input_error;
-- the same error inside a PL/pgSQL exception block, twenty times: the
-- subtransaction's abort drops the pins before the node's memory (and the
-- stop callback with it) goes, so its abort callback stops the worker
-- first (the test build warns of a worker still running past the pins)
SET enable_sort = off;
DO $$
DECLARE
  caught int := 0;
BEGIN
  FOR round IN 1..20 LOOP
    BEGIN
      PERFORM count(*) FROM (SELECT * FROM bs_fault_heap WHERE 1 / (id - 90000 - round * 997) <> 2 ORDER BY k) s;
    EXCEPTION WHEN division_by_zero THEN
      caught := caught + 1;
    END;
  END LOOP;
  RAISE NOTICE 'errors caught: %', caught;
END $$;
RESET enable_sort;
SELECT bs_fault_compare('SELECT * FROM bs_fault_heap ORDER BY k, id') AS heap_after_subxact_errors;
DROP TABLE bs_fault_heap;

DROP FUNCTION bs_fault_compare(text);
DROP FUNCTION bs_fault_plan(text);
DROP FUNCTION bs_fault_rows();
DROP TABLE bs_fault;
