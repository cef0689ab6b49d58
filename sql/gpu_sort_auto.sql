-- gpu_sort with bitonic_sort.algorithm = auto against PostgreSQL's own ORDER
-- BY, for every supported element type, many lengths and distributions, all
-- four descending/nulls_first combinations (and the defaults).  On the CPU
-- auto is vqsort, and int8, time, timestamp and timestamptz are sorted as
-- their keys alone (each value XOR a constant, in the result's own memory).
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SET bitonic_sort.algorithm = auto;
\i sql/include/gpu_sort_cases.sql

-- keys alone on every thread: 300K int8 with ties, NULLs and both extremes
SELECT sort_ok(ARRAY(SELECT CASE WHEN i % 1000 = 0 THEN NULL
                                 WHEN i % 7 = 0 THEN 9223372036854775807
                                 WHEN i % 11 = 0 THEN -9223372036854775808
                                 ELSE (i::int8 * 7919) % 100003 - 50000 END
                     FROM generate_series(1, 300000) i)) AS int8_keys_alone_300k;
