-- sql/include/gpu_sort_cases.sql: gpu_sort against PostgreSQL's own ORDER
-- BY for every supported element type; included by the per-algorithm tests
-- after they set bitonic_sort.algorithm.  Every line must say t / zero failures.

-- true when gpu_sort agrees with unnest ... ORDER BY in all seven call forms
CREATE OR REPLACE FUNCTION sort_ok(a anyarray) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RETURN gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x)
     AND gpu_sort(a, true) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x DESC)
     AND gpu_sort(a, false, true) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x NULLS FIRST)
     AND gpu_sort(a, false, false) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x NULLS LAST)
     AND gpu_sort(a, true, true) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x DESC NULLS FIRST)
     AND gpu_sort(a, true, false) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x DESC NULLS LAST)
     AND gpu_sort(a, false, NULL) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x);
END $$;

SELECT setseed(0.25);
-- lengths 0..3, 2^k-1, 2^k, 2^k+1 and a few thousand; eleven distributions
CREATE TEMP TABLE src AS
SELECT n, dist,
       ARRAY(SELECT CASE dist
                WHEN 'random'     THEN (random() * 2e9)::int8 - 1000000000
                WHEN 'dups'       THEN (random() * 6)::int8 - 3
                WHEN 'all-equal'  THEN 7
                WHEN 'sorted'     THEN i * 3 - n
                WHEN 'reversed'   THEN n - i * 3
                WHEN 'organ-pipe' THEN abs(n / 2 - i)
                WHEN 'nulls-ends' THEN CASE WHEN i <= 2 OR i > n - 2 THEN NULL ELSE (random() * 1000)::int8 END
                WHEN 'nulls-mid'  THEN CASE WHEN i BETWEEN n / 3 AND n / 2 THEN NULL ELSE (random() * 1000)::int8 - 500 END
                WHEN 'nulls-some' THEN CASE WHEN random() < 0.2 THEN NULL ELSE (random() * 20)::int8 - 10 END
                WHEN 'all-null'   THEN NULL
                WHEN 'sorted-dups' THEN i / 5
             END
             FROM generate_series(1, n) i) AS a
FROM (VALUES (0), (1), (2), (3), (7), (8), (9), (15), (16), (17),
             (1023), (1024), (1025), (2047), (2048), (2049), (3000)) AS l(n),
     (VALUES ('random'), ('dups'), ('all-equal'), ('sorted'), ('reversed'),
             ('organ-pipe'), ('nulls-ends'), ('nulls-mid'), ('nulls-some'),
             ('all-null'), ('sorted-dups')) AS d(dist);

SELECT count(*) AS cases FROM src;

-- each type: values derived from the int8 cases, failures listed (none expected)
SELECT 'int2' AS type, count(*) FILTER (WHERE NOT sort_ok(ARRAY(SELECT (x % 32768)::int2 FROM unnest(a) x))) AS failures FROM src
UNION ALL
SELECT 'int4', count(*) FILTER (WHERE NOT sort_ok(ARRAY(SELECT x::int4 FROM unnest(a) x))) FROM src
UNION ALL
SELECT 'int8', count(*) FILTER (WHERE NOT sort_ok(ARRAY(SELECT x * 4294967311 FROM unnest(a) x))) FROM src
UNION ALL
SELECT 'float4', count(*) FILTER (WHERE NOT sort_ok(ARRAY(SELECT x::float4 / 7 FROM unnest(a) x))) FROM src
UNION ALL
SELECT 'float8', count(*) FILTER (WHERE NOT sort_ok(ARRAY(SELECT x::float8 / 7 FROM unnest(a) x))) FROM src
UNION ALL
SELECT 'bool', count(*) FILTER (WHERE NOT sort_ok(ARRAY(SELECT x % 2 = 0 FROM unnest(a) x))) FROM src
UNION ALL
SELECT 'oid', count(*) FILTER (WHERE NOT sort_ok(ARRAY(SELECT oid(x + 2000000000) FROM unnest(a) x))) FROM src
UNION ALL
SELECT 'date', count(*) FILTER (WHERE NOT sort_ok(ARRAY(SELECT date '2000-01-01' + (x % 1000000)::int4 FROM unnest(a) x))) FROM src
UNION ALL
SELECT 'time', count(*) FILTER (WHERE NOT sort_ok(ARRAY(SELECT time '00:00' + (x % 86400) * interval '1 second' FROM unnest(a) x))) FROM src
UNION ALL
SELECT 'timestamp', count(*) FILTER (WHERE NOT sort_ok(ARRAY(SELECT timestamp '2000-01-01' + x * interval '1 second' FROM unnest(a) x))) FROM src
UNION ALL
SELECT 'timestamptz', count(*) FILTER (WHERE NOT sort_ok(ARRAY(SELECT timestamptz '2000-01-01 00:00+00' + x * interval '1 second' FROM unnest(a) x))) FROM src;

-- extremes and special values of each type, mixed with NULLs
SELECT sort_ok('{32767,-32768,0,NULL,-1,1,32767,-32768}'::int2[]) AS int2_extremes,
       sort_ok('{2147483647,-2147483648,0,NULL,-1,1,2147483647}'::int4[]) AS int4_extremes,
       sort_ok('{9223372036854775807,-9223372036854775808,0,NULL,-1,1}'::int8[]) AS int8_extremes,
       sort_ok('{0,4294967295,2147483648,2147483647,1,NULL}'::oid[]) AS oid_extremes;
SELECT sort_ok(ARRAY['NaN', 'Infinity', '-Infinity', '-0', '0', '3.4e38', '-3.4e38', '1.4e-45', '-1.4e-45', NULL, 'NaN', '-0']::float4[]
               || ARRAY[-('NaN'::float4)]) AS float4_specials,
       sort_ok(ARRAY['NaN', 'Infinity', '-Infinity', '-0', '0', '1.7e308', '-1.7e308', '4.9e-324', '-4.9e-324', NULL, 'NaN', '-0']::float8[]
               || ARRAY[-('NaN'::float8)]) AS float8_specials;
SELECT sort_ok('{infinity,-infinity,4713-11-24 BC,5874897-12-31,2000-01-01,NULL}'::date[]) AS date_extremes,
       sort_ok('{24:00,00:00,23:59:59.999999,00:00:00.000001,NULL}'::time[]) AS time_extremes,
       sort_ok('{infinity,-infinity,4713-01-01 00:00 BC,294276-12-31 23:59:59,2000-01-01,NULL}'::timestamp[]) AS ts_extremes,
       sort_ok('{infinity,-infinity,4713-01-01 00:00+00 BC,294276-12-30 23:59:59+00,2000-01-01+00,NULL}'::timestamptz[]) AS tstz_extremes;

-- larger arrays, where the sort runs on several threads
SELECT sort_ok(ARRAY(SELECT (random() * 1e6)::int4 FROM generate_series(1, 200000))) AS int4_200k,
       sort_ok(ARRAY(SELECT CASE WHEN random() < 0.01 THEN NULL ELSE random() - 0.5 END FROM generate_series(1, 200000))) AS float8_200k,
       sort_ok(ARRAY(SELECT (random() * 1e12)::int8 FROM generate_series(1, 131073))) AS int8_2_17_plus_1;

-- with one thread only
SET bitonic_sort.cpu_threads = 1;
SELECT sort_ok(ARRAY(SELECT (random() * 1e6)::int8 FROM generate_series(1, 100000))) AS int8_100k_1_thread;
RESET bitonic_sort.cpu_threads;
