-- A cancel stops gpu_sort at once at every point of its run (issue 44):
-- arrays of millions of text elements (in "C" and in a libc collation,
-- en_US), int8, float8 and numeric are sorted in a second session (dblink)
-- under a statement_timeout of a fifth, ..., four fifths of the time the
-- whole sort takes there, and this session times in its own clock how long
-- after the timeout the other session answers again (the error reaches the
-- client before the abort's clean-up: the next command waits for it).
-- Every cancel must be back within 250 ms, or an eighth of the whole sort
-- where a slow machine makes that more.  Before the fix a text array was
-- sorted for seconds with cancels up to a second late: its result was
-- built in one call of half a second (construct_md_array) and text in
-- en_US compared in stretches of 100-200 ms of strcoll on each thread.
-- Then the same sorts, without a timeout, in the session cancelled so
-- often, equal ORDER BY's.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE COLLATION IF NOT EXISTS bs_cancel_en (provider = libc, locale = 'en_US.utf8');
RESET client_min_messages;

-- stored uncompressed: decompressing an array, before gpu_sort runs, is one
-- call of PostgreSQL's own that no cancel interrupts
CREATE TABLE bs_cancel_arrays (t text[], s text[], i8 int8[], f8 float8[], n numeric[]);
ALTER TABLE bs_cancel_arrays ALTER t SET STORAGE EXTERNAL, ALTER s SET STORAGE EXTERNAL,
  ALTER i8 SET STORAGE EXTERNAL, ALTER f8 SET STORAGE EXTERNAL, ALTER n SET STORAGE EXTERNAL;
INSERT INTO bs_cancel_arrays SELECT
  (SELECT array_agg(md5(i::text)) FROM generate_series(1, 4000000) i),
  (SELECT array_agg(md5(i::text)) FROM generate_series(1, 1000000) i),
  (SELECT array_agg(hashint8(i)) FROM generate_series(1, 8000000) i),
  (SELECT array_agg(hashint8(i) / 1e15::float8) FROM generate_series(1, 4000000) i),
  (SELECT array_agg((hashint4(i) / 1000.0)::numeric(12, 3)) FROM generate_series(1, 1000000) i);

SELECT dblink_connect('bs_cancel', format('host=%s port=%s dbname=%s user=%s',
  split_part(current_setting('unix_socket_directories'), ',', 1),
  current_setting('port'), current_database(), current_user));

-- milliseconds q takes in the second session, run to its end
CREATE FUNCTION bs_cancel_whole_ms(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  PERFORM * FROM dblink('bs_cancel', q) AS r(x text);
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;
-- q run in the second session under statement_timeout = timeout_ms: how
-- many milliseconds after the timeout that session answers again; NULL
-- where the timeout did not cancel q (it ended first)
CREATE FUNCTION bs_cancel_late_ms(q text, timeout_ms int) RETURNS float8 LANGUAGE plpgsql
  SET client_min_messages = warning AS $$
DECLARE
  t0 timestamptz;
  cancelled bool;
BEGIN
  PERFORM dblink_exec('bs_cancel', format('SET statement_timeout = %s', timeout_ms));
  t0 := clock_timestamp();
  PERFORM dblink_send_query('bs_cancel', q);
  PERFORM * FROM dblink_get_result('bs_cancel', false) AS r(x text);
  cancelled := dblink_error_message('bs_cancel') LIKE '%statement timeout%';
  PERFORM * FROM dblink_get_result('bs_cancel', false) AS r(x text);
  PERFORM dblink_exec('bs_cancel', 'RESET statement_timeout');
  RETURN CASE WHEN cancelled THEN extract(epoch FROM clock_timestamp() - t0) * 1000 - timeout_ms END;
END $$;
-- 'ok' where q, timed out at 1/5 ... 4/5 of its whole time (the shorter of
-- two runs), was cancelled twice at least and always back within 250 ms,
-- or an eighth of the whole time when that is more; else what was seen
CREATE FUNCTION bs_cancel_sweep(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  whole float8;
  late float8;
  latest float8 := 0;
  cancels int := 0;
BEGIN
  whole := least(bs_cancel_whole_ms(q), bs_cancel_whole_ms(q));
  FOR i IN 1..4 LOOP
    late := bs_cancel_late_ms(q, greatest(1, round(whole * i / 5))::int);
    IF late IS NOT NULL THEN
      cancels := cancels + 1;
      latest := greatest(latest, late);
    END IF;
  END LOOP;
  IF cancels >= 2 AND latest < greatest(250, whole / 8) THEN
    RETURN 'ok';
  END IF;
  RETURN format('%s of 4 cancelled, the latest %s ms after its timeout; the whole sort takes %s ms',
                cancels, round(latest), round(whole));
END $$;

SELECT label, bs_cancel_sweep(q) AS cancels
FROM (VALUES
  (1, 'text "C", 4M', 'SELECT (gpu_sort(t COLLATE "C"))[2] FROM bs_cancel_arrays'),
  (2, 'text en_US, 1M', 'SELECT (gpu_sort(s COLLATE bs_cancel_en))[2] FROM bs_cancel_arrays'),
  (3, 'int8, 8M', 'SELECT (gpu_sort(i8))[2] FROM bs_cancel_arrays'),
  (4, 'float8, 4M', 'SELECT (gpu_sort(f8))[2] FROM bs_cancel_arrays'),
  (5, 'numeric, 1M', 'SELECT (gpu_sort(n))[2] FROM bs_cancel_arrays')
) v(i, label, q) ORDER BY i;

-- the cancelled session sorts right: gpu_sort against the native ORDER BY,
-- on the first 200,000 elements of each array (gpu_sort_types covers the
-- orders at every size; here it is the session that is checked)
SELECT dblink_exec('bs_cancel', 'SET bitonic_sort.enable = off');
SELECT dblink_exec('bs_cancel', 'SET work_mem = ''256MB''');
SELECT * FROM dblink('bs_cancel', $q$
  SELECT gpu_sort(t COLLATE "C") = ARRAY(SELECT x FROM unnest(t) x ORDER BY x COLLATE "C"),
         gpu_sort(s COLLATE bs_cancel_en) = ARRAY(SELECT x FROM unnest(s) x ORDER BY x COLLATE bs_cancel_en),
         gpu_sort(i8) = ARRAY(SELECT x FROM unnest(i8) x ORDER BY x),
         gpu_sort(f8) = ARRAY(SELECT x FROM unnest(f8) x ORDER BY x),
         gpu_sort(n) = ARRAY(SELECT x FROM unnest(n) x ORDER BY x)
  FROM (SELECT t[1:200000] AS t, s[1:200000] AS s, i8[1:200000] AS i8, f8[1:200000] AS f8,
               n[1:200000] AS n FROM bs_cancel_arrays) a$q$)
  AS r(text_c bool, text_en bool, int8 bool, float8 bool, numeric bool);

SELECT dblink_disconnect('bs_cancel');
DROP FUNCTION bs_cancel_sweep(text);
DROP FUNCTION bs_cancel_late_ms(text, int);
DROP FUNCTION bs_cancel_whole_ms(text);
DROP TABLE bs_cancel_arrays;
DROP COLLATION bs_cancel_en;
