-- bitonic_sort_info(): one row per backend.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;

SELECT backend, usable, details <> '' AS has_details FROM bitonic_sort_info() ORDER BY backend;
SELECT details ~ '^simd=(avx512|avx2|portable), threads=[0-9]+, cores=[0-9]+, algorithms=bitonic,adaptive(,vqsort)?, auto=' AS cpu_details
FROM bitonic_sort_info() WHERE backend = 'cpu';
SET bitonic_sort.cpu_threads = 3;
SELECT details ~ 'threads=3,' AS follows_setting FROM bitonic_sort_info() WHERE backend = 'cpu';
RESET bitonic_sort.cpu_threads;
-- the module is preloaded: its threads count in the server-wide budget
SELECT details ~ ', max_threads=[0-9]+ of all backends \([0-9]+ alive\), ' AS shared_thread_budget
FROM bitonic_sort_info() WHERE backend = 'cpu';
-- which large buffers ask for transparent huge pages, and what a fresh 4 kB
-- page costs here (measured once; auto chooses by it)
SELECT details ~ ', transparent_huge_pages=(always|mixed) \(auto; a fresh 4 kB page: ([0-9]+\.[0-9] us|unmeasured)\)$' AS huge_pages_auto
FROM bitonic_sort_info() WHERE backend = 'cpu';
SET bitonic_sort.transparent_huge_pages = never;
SELECT details ~ ', transparent_huge_pages=never \(set; a fresh 4 kB page: ([0-9]+\.[0-9] us|unmeasured)\)$' AS huge_pages_set
FROM bitonic_sort_info() WHERE backend = 'cpu';
RESET bitonic_sort.transparent_huge_pages;
SELECT setting::int > 0 AS has_threads, context FROM pg_settings WHERE name = 'bitonic_sort.max_threads';
SELECT pg_typeof(backend), pg_typeof(usable), pg_typeof(details) FROM bitonic_sort_info() LIMIT 1;
