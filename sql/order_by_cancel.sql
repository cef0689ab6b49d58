-- A cancel while a worker thread sorts the parts of an ORDER BY (one exact
-- 64-bit key, read front to back, two threads): the node stops after the
-- part being sorted instead of sorting every part left, gives its memory
-- back, and the session's next sort runs.  A second session (dblink) runs
-- the sort with the bitonic network, slow enough here for the parts to take
-- about a second; this session cancels it as soon as pg_stat_activity shows
-- it waiting for a part (wait_event_type Extension), which is certain to
-- happen while parts remain, and times the cancel in its own clock.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
CREATE EXTENSION IF NOT EXISTS dblink;
RESET client_min_messages;
CREATE TABLE bs_cancel AS
  SELECT i AS id, hashint4(i)::int8 AS k FROM generate_series(1, 4000000) i;
ANALYZE bs_cancel;
SELECT dblink_connect('bs_cancel', format('host=%s port=%s dbname=%s user=%s options=''%s''',
  split_part(current_setting('unix_socket_directories'), ',', 1),
  current_setting('port'), current_database(), current_user,
  '-cenable_sort=off -cbitonic_sort.cpu_threads=2 -cbitonic_sort.algorithm=bitonic -cwork_mem=1GB'));
SELECT line FROM dblink('bs_cancel',
  'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, SUMMARY OFF, TIMING OFF) SELECT k FROM bs_cancel ORDER BY k') AS p(line text)
  WHERE line ~ 'BitonicSort|Sort Parts';

-- the second session's private memory (RssAnon, kB) as its kernel counts
-- it, less what it keeps for its next sort as memory the kernel may reclaim
-- (LazyFree: bitonic_sort.keep_memory, on by default)
CREATE FUNCTION bs_cancel_rss() RETURNS bigint LANGUAGE sql AS $$
  SELECT rss FROM dblink('bs_cancel',
    $q$SELECT substring(pg_read_file('/proc/self/status') FROM 'RssAnon:\s+(\d+)')::bigint -
              coalesce(substring(pg_read_file('/proc/self/smaps_rollup', 0, 65536, true) FROM 'LazyFree:\s+(\d+)')::bigint, 0)$q$) AS r(rss bigint)
$$;
-- whether the second session's anonymous memory is back within 32 MB of
-- rss_before within 5 s: memory of 2 MB and more outside the huge page pool
-- is unmapped on a thread after the sort (large_alloc.c), not before the
-- session answers
CREATE FUNCTION bs_cancel_memory_back(rss_before bigint) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..500 LOOP
    IF bs_cancel_rss() - rss_before < 32 * 1024 THEN
      RETURN true;
    END IF;
    PERFORM pg_sleep(0.01);
  END LOOP;
  RETURN false;
END $$;
-- cancel the second session once it waits for a part; the time from the
-- cancel until the session answers again
CREATE FUNCTION bs_cancel_in_parts(other int) RETURNS interval LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
BEGIN
  FOR i IN 1..30000 LOOP
    PERFORM pg_stat_clear_snapshot();
    IF EXISTS (SELECT FROM pg_stat_activity WHERE pid = other AND wait_event_type = 'Extension') THEN
      t0 := clock_timestamp();
      PERFORM pg_cancel_backend(other);
      PERFORM * FROM dblink_get_result('bs_cancel', false) AS r(n bigint, s numeric);
      PERFORM * FROM dblink_get_result('bs_cancel', false) AS r(n bigint, s numeric);
      -- the error reaches the client before the abort's clean-up: time until
      -- the session answers again
      PERFORM * FROM dblink('bs_cancel', 'SELECT 1') AS r(one int);
      RETURN clock_timestamp() - t0;
    END IF;
    PERFORM pg_sleep(0.001);
  END LOOP;
  RETURN NULL;
END $$;

CREATE TEMP TABLE bs_other AS
  SELECT pid, bs_cancel_rss() AS rss_before FROM dblink('bs_cancel', 'SELECT pg_backend_pid()') AS r(pid int);
SELECT dblink_send_query('bs_cancel', 'SELECT count(*), sum(k) FROM (SELECT k FROM bs_cancel ORDER BY k) s');
CREATE TEMP TABLE bs_latency AS SELECT bs_cancel_in_parts(pid) AS latency FROM bs_other;
-- the whole parts sort takes about a second here; a stop waits for one part
SELECT latency IS NOT NULL AS cancelled_in_parts, latency < interval '250 ms' AS stopped_at_once
  FROM bs_latency;
-- what the sort held (about 100 MB of rows and pairs) is given back
SELECT bs_cancel_memory_back(rss_before) AS memory_back FROM bs_other;
-- and the session sorts again
SELECT * FROM dblink('bs_cancel', 'SELECT count(*), sum(k) = (SELECT sum(k) FROM bs_cancel) FROM (SELECT k FROM bs_cancel ORDER BY k) s')
  AS r(n bigint, same_sum bool);

SELECT dblink_disconnect('bs_cancel');
DROP FUNCTION bs_cancel_in_parts(int);
DROP FUNCTION bs_cancel_memory_back(bigint);
DROP FUNCTION bs_cancel_rss();
DROP TABLE bs_cancel;
