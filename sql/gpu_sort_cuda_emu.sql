-- The CUDA backend end to end through SQL, built against the SIMT emulator
-- (make emu) and run by `make test` in a cluster of its own with
-- bitonic_sort.device = gpu: SQL -> host code -> emulated kernels.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;

SHOW bitonic_sort.device;
SELECT backend, usable, details ~ 'SIMT emulator' AS emulated
FROM bitonic_sort_info() WHERE backend = 'cuda';
-- device = auto below goes to the GPU from 65536 pairs, as set here (the
-- last section measures instead)
SET bitonic_sort.gpu_min_pairs = 65536;

-- both pair shapes (int4: 32-bit keys, int8/float8: 64-bit keys), sizes
-- around one and several tiles, duplicates, both directions, NULLs
CREATE TEMP TABLE sizes AS
SELECT n FROM unnest(ARRAY[0, 1, 2, 3, 2047, 2048, 2049, 4095, 4096, 4097, 10000, 70001]) n;
CREATE TEMP TABLE arrays AS
SELECT n,
       ARRAY(SELECT CASE WHEN i % 97 = 0 THEN NULL ELSE ((i * 7919) % 1009) - 500 END
             FROM generate_series(1, n) i)::int4[] AS a4,
       ARRAY(SELECT ((i::int8 * 2654435761) % 1000003 - 500000) * 4294967296
             FROM generate_series(1, n) i) AS a8,
       ARRAY(SELECT CASE i % 5 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN -0.0 ELSE sin(i) END
             FROM generate_series(1, n) i) AS af
FROM sizes;
SELECT n,
       gpu_sort(a4) = ARRAY(SELECT x FROM unnest(a4) x ORDER BY x) AS int4_asc,
       gpu_sort(a4, true) = ARRAY(SELECT x FROM unnest(a4) x ORDER BY x DESC) AS int4_desc,
       gpu_sort(a4, false, true) = ARRAY(SELECT x FROM unnest(a4) x ORDER BY x NULLS FIRST) AS int4_nulls_first,
       gpu_sort(a8) = ARRAY(SELECT x FROM unnest(a8) x ORDER BY x) AS int8_asc,
       gpu_sort(a8, true) = ARRAY(SELECT x FROM unnest(a8) x ORDER BY x DESC) AS int8_desc,
       gpu_sort(af) = ARRAY(SELECT x FROM unnest(af) x ORDER BY x) AS float8_asc
FROM arrays ORDER BY n;

-- the same through the adaptive kernels
SET bitonic_sort.algorithm = adaptive;
SELECT n,
       gpu_sort(a4) = ARRAY(SELECT x FROM unnest(a4) x ORDER BY x) AS int4_asc,
       gpu_sort(a4, true) = ARRAY(SELECT x FROM unnest(a4) x ORDER BY x DESC) AS int4_desc,
       gpu_sort(a8) = ARRAY(SELECT x FROM unnest(a8) x ORDER BY x) AS int8_asc,
       gpu_sort(af, true, false) = ARRAY(SELECT x FROM unnest(af) x ORDER BY x DESC NULLS LAST) AS float8_desc
FROM arrays ORDER BY n;
-- vqsort is a CPU sorter: device = gpu refuses it, auto sorts on the CPU
SET bitonic_sort.algorithm = vqsort;
SELECT gpu_sort(a4) FROM arrays WHERE n = 70001;
SET bitonic_sort.device = auto;
SELECT gpu_sort(a4) = ARRAY(SELECT x FROM unnest(a4) x ORDER BY x) AS vqsort_on_cpu FROM arrays WHERE n = 70001;
RESET bitonic_sort.device;
RESET bitonic_sort.algorithm;

-- a memory limit smaller than the input: chunks sorted on the device, merged on the host
SET bitonic_sort.gpu_memory_limit = '1MB';
SELECT gpu_sort(a8) = ARRAY(SELECT x FROM unnest(a8) x ORDER BY x) AS int8_in_chunks,
       gpu_sort(a4) = ARRAY(SELECT x FROM unnest(a4) x ORDER BY x) AS int4_in_chunks
FROM (SELECT array_agg(((i::int8 * 48271) % 2147483647)) AS a8,
             array_agg(((i::int8 * 48271) % 65521)::int4) AS a4
      FROM generate_series(1, 200000) i) s;
SELECT details ~ 'memory_limit=1 MB' AS limit_shown FROM bitonic_sort_info() WHERE backend = 'cuda';
RESET bitonic_sort.gpu_memory_limit;

-- every element type, one array across several tiles each
SELECT 'int2' AS type, gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x) AS asc_ok,
       gpu_sort(a, true, true) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x DESC NULLS FIRST) AS desc_ok
FROM (SELECT array_agg((i * 7919 % 65536 - 32768)::int2) AS a FROM generate_series(1, 9001) i) s
UNION ALL
SELECT 'float4', gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x), gpu_sort(a, true, true) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x DESC NULLS FIRST)
FROM (SELECT array_agg(CASE WHEN i % 50 = 0 THEN NULL ELSE (sin(i) * 1000)::float4 END) AS a FROM generate_series(1, 9001) i) s
UNION ALL
SELECT 'bool', gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x), gpu_sort(a, true, true) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x DESC NULLS FIRST)
FROM (SELECT array_agg(i % 3 = 0) AS a FROM generate_series(1, 9001) i) s
UNION ALL
SELECT 'oid', gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x), gpu_sort(a, true, true) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x DESC NULLS FIRST)
FROM (SELECT array_agg(oid((i::int8 * 2654435761) % 4294967296)) AS a FROM generate_series(1, 9001) i) s
UNION ALL
SELECT 'date', gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x), gpu_sort(a, true, true) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x DESC NULLS FIRST)
FROM (SELECT array_agg(date '2000-01-01' + (i * 7919 % 20000)) AS a FROM generate_series(1, 9001) i) s
UNION ALL
SELECT 'time', gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x), gpu_sort(a, true, true) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x DESC NULLS FIRST)
FROM (SELECT array_agg(time '00:00' + (i * 7919 % 86400) * interval '1 second') AS a FROM generate_series(1, 9001) i) s
UNION ALL
SELECT 'timestamp', gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x), gpu_sort(a, true, true) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x DESC NULLS FIRST)
FROM (SELECT array_agg(timestamp '2000-01-01' + (i * 7919 % 100000) * interval '1 minute') AS a FROM generate_series(1, 9001) i) s
UNION ALL
SELECT 'timestamptz', gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x), gpu_sort(a, true, true) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x DESC NULLS FIRST)
FROM (SELECT array_agg(timestamptz '2000-01-01 UTC' - (i * 7919 % 100000) * interval '1 hour') AS a FROM generate_series(1, 9001) i) s;

-- a failed CUDA call: under device = gpu a clean error naming the call ...
SET bitonic_sort.emu_fail = 'launch:2';
SELECT gpu_sort(ARRAY[3, 1, 2]) AS one_launch_only;
SELECT cardinality(gpu_sort(a8))
FROM (SELECT array_agg(i::int8) AS a8 FROM generate_series(1, 5000) i) s;
SET bitonic_sort.emu_fail = 'alloc:1';
SELECT gpu_sort(ARRAY[3, 1, 2]);
-- ... and under device = auto a warning and the CPU's answer
SET bitonic_sort.device = auto;
SET bitonic_sort.emu_fail = 'copy:2';
SELECT gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x) AS fell_back
FROM (SELECT array_agg((i * 7919) % 100003) AS a FROM generate_series(1, 100000) i) s;
SET bitonic_sort.emu_fail = 'device:1';
SELECT gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x) AS fell_back
FROM (SELECT array_agg((i * 7919) % 100003) AS a FROM generate_series(1, 100000) i) s;
SET bitonic_sort.emu_fail = 'sideways:1';
SELECT gpu_sort(a) IS NOT NULL FROM (SELECT array_agg(i) AS a FROM generate_series(1, 100000) i) s;
RESET bitonic_sort.emu_fail;
RESET bitonic_sort.device;

-- equal elements keep their input order on the GPU too
SELECT gpu_sort('{0,-0,1,0,-0}'::float8[]);
SELECT gpu_sort(ARRAY[5, NULL, 1, 4, NULL, 2], true);

-- device = auto with a usable device: small inputs on the CPU, large on the GPU
SET bitonic_sort.device = auto;
SELECT gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x) AS auto_sorts
FROM (SELECT array_agg((i * 7919) % 100003) AS a FROM generate_series(1, 100000) i) s;
RESET bitonic_sort.device;

-- pairs the driver will not register are staged instead: no warning, same answer
SET bitonic_sort.emu_fail = 'register:1';
SELECT gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x) AS staged
FROM (SELECT array_agg((i * 7919) % 100003) AS a FROM generate_series(1, 100000) i) s;
RESET bitonic_sort.emu_fail;

-- gpu_sort builds a GPU sort's pairs in the backend's page-locked buffer
-- (bitonic_sort.gpu_pinned_memory, the superuser's): held after the sort,
-- given back by it (and by an ERROR), freed when the setting falls below it;
-- pairs larger than the setting are registered for their sort, as before
-- (float8's 70001 pairs: 1.1 MB; int8's keys alone take half that)
SELECT context FROM pg_settings WHERE name = 'bitonic_sort.gpu_pinned_memory';
SET bitonic_sort.gpu_pinned_memory = 0;
SELECT substring(details from 'pinned=[^,]*') AS pinned FROM bitonic_sort_info() WHERE backend = 'cuda';
RESET bitonic_sort.gpu_pinned_memory;
SELECT n, gpu_sort(a8) = ARRAY(SELECT x FROM unnest(a8) x ORDER BY x) AS int8_pinned,
       gpu_sort(a4, true) = ARRAY(SELECT x FROM unnest(a4) x ORDER BY x DESC) AS int4_pinned,
       gpu_sort(af) = ARRAY(SELECT x FROM unnest(af) x ORDER BY x) AS float8_pinned
FROM arrays WHERE n IN (4097, 70001) ORDER BY n;
SELECT substring(details from 'pinned=[^,]*') AS pinned FROM bitonic_sort_info() WHERE backend = 'cuda';
SET bitonic_sort.emu_fail = 'launch:1';
SELECT cardinality(gpu_sort(a8)) FROM arrays WHERE n = 70001;
RESET bitonic_sort.emu_fail;
SELECT substring(details from 'pinned=[^,]*') AS after_error FROM bitonic_sort_info() WHERE backend = 'cuda';
SET bitonic_sort.gpu_pinned_memory = '1MB';
SELECT substring(details from 'pinned=[^,]*') AS limit_lowered FROM bitonic_sort_info() WHERE backend = 'cuda';
SELECT gpu_sort(af) = ARRAY(SELECT x FROM unnest(af) x ORDER BY x) AS larger_than_setting_registered
FROM arrays WHERE n = 70001;
SELECT substring(details from 'pinned=[^,]*') AS pinned FROM bitonic_sort_info() WHERE backend = 'cuda';
RESET bitonic_sort.gpu_pinned_memory;

-- device = auto with a usable device: 64-bit keys sorted alone go to the
-- GPU as 8-byte elements where it takes that shape (from 65536 here), as
-- pairs go; a failed GPU sort of them falls back to the CPU as pairs do;
-- where the GPU is taken from a larger size they stay on the CPU (vqsort)
SET bitonic_sort.device = auto;
SET enable_sort = off;
CREATE TABLE emu_keys AS SELECT ((i * 7919) % 100003)::int8 AS a, i AS id FROM generate_series(1, 100000) i;
ANALYZE emu_keys;
EXPLAIN (COSTS OFF) SELECT a FROM emu_keys ORDER BY a;
EXPLAIN (COSTS OFF) SELECT a, id FROM emu_keys ORDER BY a;
SELECT array_agg(a) = (SELECT array_agg(a ORDER BY a) FROM emu_keys) AS keys_alone_sorted
FROM (SELECT a FROM emu_keys ORDER BY a) s;
-- (the failed sort alone in its statement: PostgreSQL 16 and later sort an
-- ordered aggregate's input too)
SET bitonic_sort.emu_fail = 'launch:1';
CREATE TEMP TABLE emu_desc AS SELECT a FROM emu_keys ORDER BY a DESC;
RESET bitonic_sort.emu_fail;
SELECT array_agg(a) = (SELECT array_agg(a ORDER BY a DESC) FROM emu_keys) AS keys_alone_fell_back
FROM emu_desc;
SET bitonic_sort.gpu_min_pairs = 1000000;
EXPLAIN (COSTS OFF) SELECT a FROM emu_keys ORDER BY a;
SET bitonic_sort.gpu_min_pairs = 65536;
DROP TABLE emu_keys;
RESET enable_sort;
RESET bitonic_sort.device;

-- device = auto measuring: the emulated GPU is more than ten times slower
-- than the CPU at 2^16 pairs, so auto keeps every size on the CPU and says
-- why, in EXPLAIN and in bitonic_sort_info()
RESET bitonic_sort.gpu_min_pairs;
SET bitonic_sort.device = auto;
SET enable_sort = off;
SELECT details ~ 'auto: not measured yet' AS not_measured_yet FROM bitonic_sort_info() WHERE backend = 'cuda';
CREATE TABLE emu_auto AS SELECT (i * 7919) % 100003 AS a, i AS id FROM generate_series(1, 100000) i;
ANALYZE emu_auto;
EXPLAIN (COSTS OFF) SELECT a, id FROM emu_auto ORDER BY a;
SELECT details ~ 'auto: packed pairs: GPU never \(ms cpu/gpu: 2\^16 [0-9.]+/[0-9.]+\)$' AS measured
FROM bitonic_sort_info() WHERE backend = 'cuda';
SELECT array_agg(a ORDER BY a) = (SELECT array_agg(a) FROM (SELECT a FROM emu_auto ORDER BY a) s) AS sorted_on_cpu
FROM emu_auto;
DROP TABLE emu_auto;
RESET enable_sort;
RESET bitonic_sort.device;
