-- gpu_sort on element types without an exact key (text, numeric, uuid, ...)
-- and on multi-dimensional arrays, against PostgreSQL's own ORDER BY.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;

-- literal results a reader can check
SELECT gpu_sort(ARRAY['b', 'a', NULL, 'B', 'a']::text[]);
SELECT gpu_sort(ARRAY['b', 'a', NULL, 'B']::text[] COLLATE "C", true);
SELECT gpu_sort(ARRAY[1.5, 'NaN', -2, NULL, 0.50]::numeric[], false, true);
SELECT gpu_sort('{{3,2},{1,0},{1,-1}}'::int4[]);
SELECT gpu_sort('[0:2][5:6]={{3,2},{1,NULL},{1,0}}'::int4[], true);
SELECT gpu_sort('{{{2,1},{0,0}},{{1,9},{9,9}}}'::int4[]);
SELECT gpu_sort('{{b,a},{a,z}}'::text[]);

-- true when gpu_sort agrees with ORDER BY over the elements in all four
-- directions (elements read by subscript: unnest would turn a NULL composite
-- into a row of NULLs)
CREATE FUNCTION check_generic(a anyarray) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RETURN gpu_sort(a) = ARRAY(SELECT a[k] FROM generate_subscripts(a, 1) k ORDER BY a[k])
     AND gpu_sort(a, true) = ARRAY(SELECT a[k] FROM generate_subscripts(a, 1) k ORDER BY a[k] DESC)
     AND gpu_sort(a, false, true) = ARRAY(SELECT a[k] FROM generate_subscripts(a, 1) k ORDER BY a[k] NULLS FIRST)
     AND gpu_sort(a, true, false) = ARRAY(SELECT a[k] FROM generate_subscripts(a, 1) k ORDER BY a[k] DESC NULLS LAST);
END $$;
CREATE TYPE gs_pair AS (p int, q text);
CREATE TABLE gs AS SELECT i,
  CASE WHEN i % 9 = 0 THEN NULL ELSE substr(md5((i % 300)::text), 1, 1 + i % 6) || CASE WHEN i % 4 = 0 THEN 'É' ELSE 'e' END END AS t,
  CASE WHEN i % 7 = 0 THEN NULL WHEN i % 50 = 1 THEN 'NaN' ELSE ((i * 7919) % 2001 - 1000) / 7.0 END AS n,
  CASE WHEN i % 6 = 0 THEN NULL ELSE md5((i % 500)::text)::uuid END AS u,
  CASE WHEN i % 8 = 0 THEN NULL ELSE decode(substr(md5((i % 99)::text), 1, 2 * (i % 4)), 'hex') END AS by,
  CASE WHEN i % 5 = 0 THEN NULL ELSE ((i * 13) % 400) * interval '1 hour' + (i % 3) * interval '1 month' END AS iv,
  CASE WHEN i % 10 = 0 THEN NULL ELSE ROW(i % 6, chr(97 + i % 4))::gs_pair END AS rc
FROM generate_series(1, 3000) i;
SELECT check_generic(array_agg(t)) AS text_default,
       check_generic(array_agg(t COLLATE "C")) AS text_c,
       check_generic(array_agg(t COLLATE "und-x-icu")) AS text_icu,
       check_generic(array_agg(t::varchar)) AS varchar,
       check_generic(array_agg(t::char(4))) AS bpchar,
       check_generic(array_agg(n)) AS numeric,
       check_generic(array_agg(u)) AS uuid,
       check_generic(array_agg(by)) AS bytea,
       check_generic(array_agg(iv)) AS interval,
       check_generic(array_agg(rc)) AS composite
FROM gs;
-- short arrays, every length around powers of two
SELECT count(*) FILTER (WHERE check_generic(a)) AS agree, count(*) AS arrays
FROM (SELECT n, (SELECT array_agg(t) FROM gs WHERE i <= n) a FROM generate_series(1, 70) n) s;

-- multi-dimensional: sub-arrays along the first dimension, ordered as arrays
CREATE FUNCTION check_md(a anyarray) RETURNS boolean LANGUAGE sql AS $$
  SELECT gpu_sort(a) = (SELECT array_agg(s ORDER BY s)
                        FROM (SELECT ARRAY(SELECT unnest(a[k:k])) s
                              FROM generate_subscripts(a, 1) k) x)
     AND gpu_sort(a, true) = (SELECT array_agg(s ORDER BY s DESC)
                              FROM (SELECT ARRAY(SELECT unnest(a[k:k])) s
                                    FROM generate_subscripts(a, 1) k) x)
$$;
SELECT check_md(array_agg(ARRAY[i % 5, (i * 7) % 3, CASE WHEN i % 4 = 0 THEN NULL ELSE i % 2 END])) AS int_2d,
       check_md(array_agg(ARRAY[t, md5(i::text)])) AS text_2d
FROM gs WHERE t IS NOT NULL;
-- the lower bounds of every dimension are kept
SELECT array_dims(gpu_sort('[3:4][-1:0]={{2,2},{1,1}}'::int4[]));
