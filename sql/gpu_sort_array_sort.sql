-- gpu_sort against PostgreSQL 18's own array_sort, the oracle of its
-- contract: every element type, NULLs, duplicates, DESC, NULLS FIRST/LAST
-- and the default, collations, NaN and -0, a two-dimensional array.  Before
-- 18 there is no array_sort: the test says so (expected/*_1.out).
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SELECT current_setting('server_version_num')::int >= 180000 AS has_array_sort \gset
\if :has_array_sort
CREATE COLLATION IF NOT EXISTS bs_oracle_en (provider = libc, locale = 'en_US.utf8');
CREATE TABLE bs_oracle_src AS
  SELECT i, hashint4(i) % 40 AS v FROM generate_series(1, 3000) i;
-- for one element type: gpu_sort against array_sort, descending or not,
-- NULLs placed by default (first only when descending), first or last;
-- returns the calls that differ (array_sort is strict: a NULL nulls_first
-- is not its default, so the default is the call without it)
CREATE FUNCTION bs_oracle(elem text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  differ int := 0;
  same bool;
BEGIN
  FOR d IN 0..1 LOOP
    FOR n IN 0..2 LOOP
      EXECUTE format($q$SELECT gpu_sort(a, %1$L%2$s) IS NOT DISTINCT FROM array_sort(a, %1$L%2$s)
                        FROM (SELECT array_agg(CASE WHEN v %% 13 = 0 THEN NULL ELSE %3$s END ORDER BY i) AS a
                              FROM bs_oracle_src) s$q$,
                     d = 1, (ARRAY['', ', false', ', true'])[n + 1], elem)
        INTO same;
      differ := differ + CASE WHEN same THEN 0 ELSE 1 END;
    END LOOP;
  END LOOP;
  RETURN differ;
END $$;
SELECT elem, bs_oracle(elem) AS calls_that_differ
FROM (VALUES
  ('v::int2'), ('v * 100000'), ('v::int8 * 1000000000000'), ('v / 3.0::float4'),
  ($e$CASE v % 9 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN '-0'::float8 WHEN 2 THEN 'Infinity'::float8
      WHEN 3 THEN '-Infinity'::float8 WHEN 4 THEN 0::float8 ELSE v / 7.0::float8 END$e$),
  ('v / 7.0'), ('md5(v::text)'), ('md5(v::text) COLLATE "C"'), ('md5(v::text) COLLATE bs_oracle_en'),
  ($e$(ARRAY['a', 'B', 'b', 'A', 'á', 'Ä', ' a'])[abs(v) % 7 + 1] COLLATE bs_oracle_en$e$),
  ('md5(v::text)::varchar(10)'), ('v::oid'), ('v % 2 = 0'), ($e$date '2024-02-29' + v$e$),
  ($e$timestamp '2024-02-29 12:00' + v * interval '7 hours'$e$),
  ($e$timestamptz '2024-02-29 12:00+00' + v * interval '7 hours'$e$), ('v * interval ''90 minutes'''),
  ('md5(v::text)::uuid'), ('decode(md5(v::text), ''hex'')'), ('int4range(v, v + abs(v % 3) + 1)'), ('(v, v % 3)::text'),
  ($e$('192.168.' || abs(v) || '.1')::inet$e$), ($e$jsonb_build_object('k', v)$e$)
) t(elem);
-- a two-dimensional array sorts along its first dimension, as array_sort's does
SELECT gpu_sort(a) = array_sort(a) AS two_dimensional, gpu_sort(a, true) = array_sort(a, true) AS two_dimensional_desc
FROM (SELECT ARRAY[[3, 1], [1, 9], [2, 2], [1, 2]] AS a) s;
DROP FUNCTION bs_oracle(text);
DROP TABLE bs_oracle_src;
DROP COLLATION bs_oracle_en;
\else
\echo array_sort arrived in PostgreSQL 18: nothing to compare with here
\endif
