-- The ORDER BY hook reads only the ordered relation's own paths: the
-- planner adds input paths that come sorted to it and frees those a
-- cheaper path displaces while the input relation still lists them.  A new
-- session whose first planned query is such an ORDER BY (a Gather Merge
-- displacing the sorted paths) crashed the backend when the hook walked
-- the input's paths.  The node now wins that ORDER BY (1M rows past
-- work_mem: 155 ms against the Gather Merge's 312), but the Gather Merge
-- path is still made and still displaces the sorted ones first.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
CREATE TABLE ordered_paths AS
  SELECT i AS id, ('x' || substr(h, 1, 16))::bit(64)::int8 AS k, h AS t
  FROM generate_series(1, 1000000) AS i, md5(i::text) AS h;
CREATE INDEX ON ordered_paths (id);
ANALYZE ordered_paths;
\c
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT * FROM ordered_paths ORDER BY k;
EXPLAIN (COSTS OFF) SELECT * FROM ordered_paths ORDER BY id;
-- with room in work_mem and no workers, the node
SET work_mem = '256MB';
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT * FROM ordered_paths ORDER BY k;
RESET work_mem;
RESET max_parallel_workers_per_gather;
DROP TABLE ordered_paths;
