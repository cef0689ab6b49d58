-- The hash aggregate's table is charged what it costs beyond the caches
-- (hash_cost.c) only by a group count the planner can stand behind: over
-- several correlated columns its estimate is a product of their distinct
-- counts (here 100,000 groups estimated, 2,000 real), and a charge by it
-- traded the HashAggregate for a slower sort (1.32x here).  The charge is
-- by the largest column alone, and only where it makes the node's plan the
-- cheapest.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '256MB';
CREATE TABLE grp_est AS
  SELECT i, i % 2000 AS a, (i % 2000) % 97 AS b, (i % 2000) % 89 AS c
  FROM generate_series(1, 1000000) i;
ANALYZE grp_est;
-- the plan's aggregate and sort nodes
CREATE FUNCTION grp_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ 'Aggregate|Sort' AND line !~ 'Sort Key|Group Key' THEN
      RETURN NEXT btrim(regexp_replace(line, '^\s*->\s*', ''));
    END IF;
  END LOOP;
END $$;
-- correlated columns: the native HashAggregate, with the module as without
SELECT grp_plan('SELECT a, b, c, count(*) FROM grp_est GROUP BY a, b, c');
SET bitonic_sort.enable = off;
SELECT grp_plan('SELECT a, b, c, count(*) FROM grp_est GROUP BY a, b, c');
RESET bitonic_sort.enable;
-- one column of a million groups: its estimate stands, and the node's sort wins
SELECT grp_plan('SELECT i, count(*) FROM grp_est GROUP BY i');
SELECT count(*), sum(n) FROM (SELECT a, b, c, count(*) AS n FROM grp_est GROUP BY a, b, c) s;
DROP FUNCTION grp_plan(text);
DROP TABLE grp_est;
