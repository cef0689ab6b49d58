-- Settings that protect the server (memory a backend keeps, huge pages) are
-- the superuser's: a role without the privilege cannot lift them, a role
-- granted SET on one can, and the per-query settings stay every user's.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SELECT name, context FROM pg_settings WHERE name LIKE 'bitonic_sort.%'
  AND name NOT IN ('bitonic_sort.emu_fail', 'bitonic_sort.test_fault', 'bitonic_sort.gpu_memory_limit',
                   'bitonic_sort.gpu_min_pairs', 'bitonic_sort.gpu_pinned_memory')
  ORDER BY name;
CREATE ROLE bitonic_plain_user;
SET ROLE bitonic_plain_user;
SET bitonic_sort.huge_pages = on;
SET bitonic_sort.transparent_huge_pages = always;
SET bitonic_sort.keep_memory = '2000GB';
SET bitonic_sort.keep_memory_idle = '1h';
SET bitonic_sort.max_threads = 100;
-- what a query chooses for itself is the user's
SET bitonic_sort.cpu_threads = 1;
SET bitonic_sort.min_rows = 0;
SET bitonic_sort.device = cpu;
RESET bitonic_sort.cpu_threads;
RESET bitonic_sort.min_rows;
RESET bitonic_sort.device;
RESET ROLE;
-- an administrator may hand one of them to a role (PostgreSQL 15 and later)
GRANT SET ON PARAMETER bitonic_sort.keep_memory TO bitonic_plain_user;
SET ROLE bitonic_plain_user;
SET bitonic_sort.keep_memory = '8MB';
SHOW bitonic_sort.keep_memory;
RESET bitonic_sort.keep_memory;
RESET ROLE;
REVOKE SET ON PARAMETER bitonic_sort.keep_memory FROM bitonic_plain_user;
DROP ROLE bitonic_plain_user;
