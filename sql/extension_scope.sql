-- The planner hooks act only where the extension is created: after DROP
-- EXTENSION the library (preloaded here) leaves every plan to PostgreSQL,
-- and CREATE EXTENSION brings the node back.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SET bitonic_sort.min_rows = 0;
CREATE TABLE ext_scope AS SELECT i, (i * 7919) % 1000 AS k FROM generate_series(1, 1000) i;
ANALYZE ext_scope;
-- the plan's first sort node
CREATE FUNCTION ext_scope_sort() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXPLAIN (COSTS OFF) SELECT * FROM ext_scope ORDER BY k LOOP
    IF line ~ 'Sort' THEN
      RETURN btrim(line);
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
SELECT ext_scope_sort();
DROP EXTENSION bitonic_sort;
SELECT ext_scope_sort();
-- loading the library again changes nothing without the extension
LOAD 'bitonic_sort';
SELECT ext_scope_sort();
SELECT count(*) FROM (SELECT * FROM ext_scope ORDER BY k) s;
CREATE EXTENSION bitonic_sort;
SELECT ext_scope_sort();
DROP FUNCTION ext_scope_sort();
DROP TABLE ext_scope;
RESET bitonic_sort.min_rows;
