-- gpu_sort: literal results a reader can check by eye, argument defaults,
-- NULL and empty arrays, lower bounds, stability of equal elements.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;

SELECT gpu_sort(ARRAY[3, 1, 2]);
SELECT gpu_sort(ARRAY[5, NULL, 1, 4, NULL, 2]);
SELECT gpu_sort(ARRAY[5, NULL, 1, 4, NULL, 2], true);
SELECT gpu_sort(ARRAY[5, NULL, 1, 4, NULL, 2], false, true);
SELECT gpu_sort(ARRAY[5, NULL, 1, 4, NULL, 2], true, false);
SELECT gpu_sort(ARRAY[5, NULL, 1, 4, NULL, 2], descending => true, nulls_first => true);
SELECT gpu_sort(ARRAY[-32768, 32767, 0, -1]::int2[]);
SELECT gpu_sort(ARRAY[9223372036854775807, -9223372036854775808, 0, -1]::int8[]);
SELECT gpu_sort('{NaN,Infinity,-Infinity,0,-1.5,2.25,-0}'::float8[]);
SELECT gpu_sort(ARRAY['NaN', 'Infinity', '-Infinity', 0, -1.5, 2.25]::float4[], true);
SELECT gpu_sort(ARRAY[true, false, NULL, true, false]);
SELECT gpu_sort(ARRAY[4294967295, 0, 2147483648, 2147483647]::oid[]);
SELECT gpu_sort(ARRAY['2024-02-29', 'infinity', '-infinity', '1999-12-31']::date[]);
SELECT gpu_sort(ARRAY['24:00', '00:00', '12:30:00.5']::time[], true);
SELECT gpu_sort(ARRAY['2000-01-01 00:00:01', '-infinity', '1970-01-01']::timestamp[]);

-- -0 equals 0: equal elements keep their input order, in both directions
SELECT gpu_sort('{0,-0,1,0,-0}'::float8[]);
SELECT gpu_sort('{-0,0,-1,-0,0}'::float4[], true);
SELECT gpu_sort('{-0,0,-0}'::float8[], true, true);
-- every NaN, whatever its sign, sorts above Infinity
SELECT gpu_sort(ARRAY['NaN'::float8, -('NaN'::float8), 'Infinity', 1]);
SELECT gpu_sort(ARRAY['NaN'::float4, -('NaN'::float4), '-Infinity', 1], true);

-- NULL array, NULL element only, empty array
SELECT gpu_sort(NULL::int4[]) IS NULL AS null_in_null_out;
SELECT gpu_sort(ARRAY[NULL]::int4[]);
SELECT gpu_sort('{}'::int4[]);
SELECT gpu_sort('{}'::float8[], true, true);

-- the result keeps the input's lower bound
SELECT gpu_sort('[-2:2]={5,4,3,2,1}'::int4[]);
SELECT array_lower(gpu_sort('[7:9]={3,NULL,1}'::int8[]), 1) AS lower,
       array_upper(gpu_sort('[7:9]={3,NULL,1}'::int8[]), 1) AS upper;

-- works on table columns and inside other expressions
CREATE TEMP TABLE arrays (id int, a int4[]);
INSERT INTO arrays VALUES (1, '{3,2,1}'), (2, NULL), (3, '{}'), (4, '{1,NULL,-1}');
SELECT id, gpu_sort(a), gpu_sort(a, true) FROM arrays ORDER BY id;
SELECT (gpu_sort(ARRAY[10, 30, 20]))[2] AS middle;

-- device setting: cpu always works
SET bitonic_sort.device = cpu;
SELECT gpu_sort(ARRAY[2, 3, 1]);
RESET bitonic_sort.device;
