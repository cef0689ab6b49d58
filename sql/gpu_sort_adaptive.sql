-- gpu_sort with the adaptive bitonic sorter against PostgreSQL's own ORDER BY:
-- the same cases as gpu_sort_types.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SET bitonic_sort.algorithm = adaptive;
SELECT gpu_sort(ARRAY[5, NULL, 1, 4, NULL, 2]), gpu_sort(ARRAY[5, NULL, 1, 4, NULL, 2], true);
SELECT gpu_sort('{0,-0,NaN,-Infinity,1,-0,0}'::float8[]);
\i sql/include/gpu_sort_cases.sql

-- a long adaptive sort can be cancelled too
CREATE TEMP TABLE big AS SELECT ARRAY(SELECT (random() * 1e9)::int4 FROM generate_series(1, 6000000)) AS a;
SET statement_timeout = '150ms';
SELECT cardinality(gpu_sort(a)) FROM big;
RESET statement_timeout;
SELECT gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x) AS big_sorted FROM big;

-- auto picks an algorithm by size; either way the answer is the same
SET bitonic_sort.algorithm = auto;
SELECT gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x) AS auto_sorted FROM big;
SELECT sort_ok(ARRAY(SELECT (random() * 100)::int4 FROM generate_series(1, 5000))) AS auto_small;
