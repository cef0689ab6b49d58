-- bitonic_sort_info(): one row per backend.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;

SELECT backend, usable, details <> '' AS has_details FROM bitonic_sort_info() ORDER BY backend;
SELECT details ~ '^simd=(avx512|avx2|portable), threads=[0-9]+, cores=[0-9]+, algorithms=bitonic,adaptive(,vqsort)?, auto=' AS cpu_details
FROM bitonic_sort_info() WHERE backend = 'cpu';
SET bitonic_sort.cpu_threads = 3;
SELECT details ~ 'threads=3,' AS follows_setting FROM bitonic_sort_info() WHERE backend = 'cpu';
RESET bitonic_sort.cpu_threads;
SELECT pg_typeof(backend), pg_typeof(usable), pg_typeof(details) FROM bitonic_sort_info() LIMIT 1;
