-- ORDER BY ... FOR UPDATE through the BitonicSort custom scan while another
-- transaction updates rows it is to lock: the locking session waits, then
-- rechecks the updated rows (EvalPlanQual) through the sort, and must return
-- every row, with its new values, in the order PostgreSQL's own sort gives.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE TABLE bs_lock (id int PRIMARY KEY, k int8, v int);
INSERT INTO bs_lock SELECT i, (i * 7919) % 1009, 0 FROM generate_series(1, 100000) i;
ANALYZE bs_lock;

-- a second session, which sorts with BitonicSort
SELECT dblink_connect('bs_lock', format('host=%s port=%s dbname=%s user=%s options=-cenable_sort=off',
  split_part(current_setting('unix_socket_directories'), ',', 1),
  current_setting('port'), current_database(), current_user));
SELECT * FROM dblink('bs_lock', 'EXPLAIN (COSTS OFF) SELECT * FROM bs_lock ORDER BY k, id FOR UPDATE') AS p(plan text);

-- wait until the second session is blocked on a row lock
CREATE FUNCTION bs_lock_wait() RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..3000 LOOP
    IF EXISTS (SELECT FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ~ 'FOR UPDATE') THEN
      RETURN true;
    END IF;
    PERFORM pg_sleep(0.01);
  END LOOP;
  RETURN false;
END $$;

-- stored columns only (the node's own slot)
BEGIN;
UPDATE bs_lock SET v = v + 1 WHERE id IN (3, 10);
SELECT dblink_send_query('bs_lock',
  'SELECT count(*), sum(v), md5(string_agg(id::text, '','')) FROM (SELECT * FROM bs_lock ORDER BY k, id FOR UPDATE) s');
SELECT bs_lock_wait() AS blocked;
COMMIT;
CREATE TEMP TABLE bs_lock_got AS
  SELECT * FROM dblink_get_result('bs_lock') AS r(n bigint, s bigint, ids text);
SELECT * FROM dblink_get_result('bs_lock') AS r(n bigint, s bigint, ids text);
SELECT g.n, g.s, g.ids = e.ids AS same_order
  FROM bs_lock_got g, (SELECT md5(string_agg(id::text, ',' ORDER BY k, id)) AS ids FROM bs_lock) e;

-- a computed output column (the node projects)
BEGIN;
UPDATE bs_lock SET v = v + 1 WHERE id IN (3, 10);
SELECT dblink_send_query('bs_lock',
  'SELECT count(*), sum(w), md5(string_agg(id::text, '','')) FROM (SELECT id, v * 10 AS w FROM bs_lock ORDER BY k DESC, id FOR UPDATE) s');
SELECT bs_lock_wait() AS blocked;
COMMIT;
TRUNCATE bs_lock_got;
INSERT INTO bs_lock_got
  SELECT * FROM dblink_get_result('bs_lock') AS r(n bigint, s bigint, ids text);
SELECT * FROM dblink_get_result('bs_lock') AS r(n bigint, s bigint, ids text);
SELECT g.n, g.s, g.ids = e.ids AS same_order
  FROM bs_lock_got g, (SELECT md5(string_agg(id::text, ',' ORDER BY k DESC, id)) AS ids FROM bs_lock) e;

SELECT dblink_disconnect('bs_lock');
DROP TABLE bs_lock;
DROP FUNCTION bs_lock_wait();
