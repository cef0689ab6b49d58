-- gpu_sort: what it refuses, with which error.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
\set VERBOSITY default

-- element types with no btree ordering at all
SELECT gpu_sort(ARRAY[point(1, 2), point(0, 0)]);
SELECT gpu_sort(ARRAY['<a/>', '<b/>']::xml[]);
SELECT gpu_sort('{{"(1,2)"},{"(0,0)"}}'::point[]);
-- a NULL direction
SELECT gpu_sort(ARRAY[1, 2], NULL);
-- not an array at all
SELECT gpu_sort(42);
-- bad settings
SET bitonic_sort.device = tpu;
SET bitonic_sort.algorithm = quicksort;
SET bitonic_sort.cpu_threads = 0;
SET bitonic_sort.no_such_setting = 1;
-- still fine afterwards
SELECT gpu_sort(ARRAY[2, 1]);

-- a long sort can be cancelled
-- (the array is built first, so the timeout fires inside the sort itself)
CREATE TEMP TABLE big AS SELECT ARRAY(SELECT (random() * 1e9)::int8 FROM generate_series(1, 8000000)) AS a;
SET bitonic_sort.algorithm = bitonic;
SET statement_timeout = '150ms';
SELECT cardinality(gpu_sort(a)) FROM big;
RESET statement_timeout;
RESET bitonic_sort.algorithm;
SELECT cardinality(gpu_sort(a)) FROM big;
