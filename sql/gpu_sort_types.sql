-- gpu_sort with the standard bitonic sorter against PostgreSQL's own ORDER BY,
-- for every supported element type, many lengths and distributions, all four
-- descending/nulls_first combinations (and the defaults).
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SET bitonic_sort.algorithm = bitonic;
\i sql/include/gpu_sort_cases.sql
