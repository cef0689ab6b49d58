-- test/bench/tpch/generate.sql — TPC-H data at scale factor :sf (psql -v
-- sf=1; default 1), generated in SQL into the empty tables of schema.sql,
-- for bench-tpch.sh.  Follows the TPC-H specification's rules (clause 4.2):
-- cardinalities, key ranges, value ranges and vocabularies, derived columns.
--
-- Randomness: every random value is pg_temp.rnd(key, stream, lo, hi), a hash
-- of the row's key under a seed named after the column (hashint8extended),
-- so the data are the same whatever the plan, the machine or the order in
-- which rows are made.  A lineitem's key is its order's number * 8 + its
-- line number.  Not dbgen's random streams: the values differ from dbgen's,
-- their distributions are the specification's.
--
-- Simplifications, all within the specification's ranges:
--   * comments: up to 40 words drawn from a list of 64 (not dbgen's grammar),
--     cut to a random length in the column's range (clause 4.2.2.10's
--     "text" of [min, max] characters);
--   * p_name: 5 distinct colours of the 92, every colour equally likely:
--     colours o, o + d, o + 2d, ... (mod 92) with d a random step coprime
--     to 92;
--   * o_custkey: uniform over the customer keys not divisible by 3 (a third
--     of the customers have no order, as in the specification);
--   * addresses: base64 of two md5 hashes, cut to [10, 40] characters.

\if :{?sf}
\else
\set sf 1
\endif
SET work_mem = '1GB';

-- Table cardinalities (clause 4.2.5).
SELECT floor(10000 * :sf)::bigint AS nsupp,
       floor(150000 * :sf)::bigint AS ncust,
       floor(200000 * :sf)::bigint AS npart,
       floor(1500000 * :sf)::bigint AS norders,
       greatest(floor(1000 * :sf), 1)::bigint AS nclerk
\gset

-- rnd(k, stream, lo, hi): a uniform integer in [lo, hi] for key k in stream.
CREATE FUNCTION pg_temp.rnd(k bigint, stream text, lo bigint, hi bigint)
RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
	SELECT lo + (hashint8extended(k, hashtext(stream)) & 9223372036854775807) % (hi - lo + 1)
$$;

-- pick(k, stream, list): one element of list, each equally likely.
CREATE FUNCTION pg_temp.pick(k bigint, stream text, list text[])
RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT list[1 + pg_temp.rnd(k, stream, 0, cardinality(list) - 1)]
$$;

-- word(i): word i (0..63) of the comments' list.
CREATE FUNCTION pg_temp.word(i bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT ('{packages,requests,accounts,deposits,foxes,ideas,theodolites,pinto,
	          beans,instructions,dependencies,excuses,platelets,asymptotes,courts,
	          dolphins,sleep,wake,are,cajole,haggle,nag,use,boost,detect,
	          integrate,maintain,print,furious,sly,careful,blithe,quick,fluffy,
	          slow,quiet,ruthless,thin,close,dogged,daring,bold,silent,special,
	          pending,unusual,express,regular,final,ironic,even,furiously,slyly,
	          carefully,blithely,quickly,fluffily,quietly,finally,about,above,
	          against,along,among}'::text[])[1 + i]
$$;
DO $$ BEGIN
	IF pg_temp.word(63) IS NULL OR pg_temp.word(64) IS NOT NULL THEN
		RAISE 'the word list must have 64 words';
	END IF;
END $$;

-- words(h): ten words, from the ten low 6-bit fields of h.
CREATE FUNCTION pg_temp.words(h bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT pg_temp.word(h & 63) || ' ' || pg_temp.word(h >> 6 & 63) || ' ' ||
	       pg_temp.word(h >> 12 & 63) || ' ' || pg_temp.word(h >> 18 & 63) || ' ' ||
	       pg_temp.word(h >> 24 & 63) || ' ' || pg_temp.word(h >> 30 & 63) || ' ' ||
	       pg_temp.word(h >> 36 & 63) || ' ' || pg_temp.word(h >> 42 & 63) || ' ' ||
	       pg_temp.word(h >> 48 & 63) || ' ' || pg_temp.word(h >> 54 & 63)
$$;

-- text(k, stream, lo, hi): a comment of lo..hi characters (ten words make
-- 40 to 130 characters, 80 on average; as many tens as hi needs).
CREATE FUNCTION pg_temp.text(k bigint, stream text, lo int, hi int)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT left(pg_temp.words(hashint8extended(k, hashtext(stream || ' 1')))
	            || CASE WHEN hi > 50 THEN ' ' || pg_temp.words(hashint8extended(k, hashtext(stream || ' 2'))) ELSE '' END
	            || CASE WHEN hi > 110 THEN ' ' || pg_temp.words(hashint8extended(k, hashtext(stream || ' 3'))) ELSE '' END
	            || CASE WHEN hi > 170 THEN ' ' || pg_temp.words(hashint8extended(k, hashtext(stream || ' 4'))) ELSE '' END,
	            pg_temp.rnd(k, stream, lo, hi)::int)
$$;

-- vstr(k, stream, lo, hi): a random string of lo..hi (at most 43) letters,
-- digits, commas and spaces (clause 4.2.2.7's v-string).
CREATE FUNCTION pg_temp.vstr(k bigint, stream text, lo int, hi int)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT left(translate(encode(decode(md5(stream || k) || md5(k || stream), 'hex'), 'base64'), '+/', ', '),
	            pg_temp.rnd(k, stream, lo, hi)::int)
$$;

-- phone(k, stream, nation): 'CC-AAA-EEE-NNNN' with country code nation + 10
-- (clause 4.2.2.9).
CREATE FUNCTION pg_temp.phone(k bigint, stream text, nation int)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT (nation + 10) || '-' || pg_temp.rnd(k, stream || ' a', 100, 999)
	       || '-' || pg_temp.rnd(k, stream || ' e', 100, 999)
	       || '-' || pg_temp.rnd(k, stream || ' n', 1000, 9999)
$$;

-- retailprice(p): part p's retail price (clause 4.2.3).
CREATE FUNCTION pg_temp.retailprice(p bigint) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$
	SELECT (90000 + (p / 10) % 20001 + 100 * (p % 1000)) / 100.0
$$;

-- supplier_of(p, j, nsupp): the j-th (0..3) supplier of part p (clause 4.2.3).
CREATE FUNCTION pg_temp.supplier_of(p bigint, j bigint, nsupp bigint)
RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
	SELECT (p + j * (nsupp / 4 + (p - 1) / nsupp)) % nsupp + 1
$$;

-- orderkey(i): the i-th order's key; keys are sparse, only the first 8 of
-- every 32 are used (clause 4.2.3): 1..7, 32..39, 64..71, ...
CREATE FUNCTION pg_temp.orderkey(i bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
	SELECT (i >> 3 << 5) | (i & 7)
$$;

-- orderdate(i): uniform in [1992-01-01, 1998-12-31 - 151 days].
CREATE FUNCTION pg_temp.orderdate(i bigint) RETURNS date LANGUAGE sql IMMUTABLE AS $$
	SELECT date '1992-01-01' + pg_temp.rnd(i, 'o_orderdate', 0, date '1998-12-31' - 151 - date '1992-01-01')::int
$$;

-- region and nation: the specification's fixed lists (clause 4.2.3).
INSERT INTO region
SELECT r, name, pg_temp.text(r, 'r_comment', 31, 115)
FROM unnest('{AFRICA,AMERICA,ASIA,EUROPE,MIDDLE EAST}'::text[]) WITH ORDINALITY AS x(name, r1),
     LATERAL (SELECT r1 - 1 AS r) AS k;

INSERT INTO nation
SELECT n, name, region, pg_temp.text(n, 'n_comment', 31, 114)
FROM (VALUES (0, 'ALGERIA', 0), (1, 'ARGENTINA', 1), (2, 'BRAZIL', 1), (3, 'CANADA', 1),
             (4, 'EGYPT', 4), (5, 'ETHIOPIA', 0), (6, 'FRANCE', 3), (7, 'GERMANY', 3),
             (8, 'INDIA', 2), (9, 'INDONESIA', 2), (10, 'IRAN', 4), (11, 'IRAQ', 4),
             (12, 'JAPAN', 2), (13, 'JORDAN', 4), (14, 'KENYA', 0), (15, 'MOROCCO', 0),
             (16, 'MOZAMBIQUE', 0), (17, 'PERU', 1), (18, 'CHINA', 2), (19, 'ROMANIA', 3),
             (20, 'SAUDI ARABIA', 4), (21, 'VIETNAM', 2), (22, 'RUSSIA', 3),
             (23, 'UNITED KINGDOM', 3), (24, 'UNITED STATES', 1)) AS v(n, name, region);

-- supplier: SF * 10,000.  SF * 10 of them (expected) have "Customer ...
-- Complaints" (half) or "Customer ... Recommends" written over their
-- comment, the words a random distance apart (Q16 excludes the former).
INSERT INTO supplier
SELECT s, 'Supplier#' || lpad(s::text, 9, '0'), pg_temp.vstr(s, 's_address', 10, 40),
       nation, pg_temp.phone(s, 's_phone', nation),
       pg_temp.rnd(s, 's_acctbal', -99999, 999999) / 100.0,
       CASE WHEN pg_temp.rnd(s, 's_bbb', 1, 10000) <= 10
            THEN overlay(overlay(c placing 'Customer ' from off + 1)
                         placing CASE WHEN pg_temp.rnd(s, 's_bbb_kind', 0, 1) = 0 THEN 'Complaints' ELSE 'Recommends' END
                         from off + 9 + noise + 1)
            ELSE c END
FROM generate_series(1, :nsupp) AS s,
     LATERAL (SELECT pg_temp.rnd(s, 's_nationkey', 0, 24)::int AS nation,
                     pg_temp.text(s, 's_comment', 25, 100) AS c) AS a,
     LATERAL (SELECT pg_temp.rnd(s, 's_bbb_noise', 0, greatest(length(c) - 19, 0))::int AS noise) AS b,
     LATERAL (SELECT pg_temp.rnd(s, 's_bbb_offset', 0, greatest(length(c) - 19 - noise, 0))::int AS off) AS d;

-- part: SF * 200,000.
INSERT INTO part
SELECT p,
       (SELECT string_agg((ARRAY['almond','antique','aquamarine','azure','beige','bisque','black',
                 'blanched','blue','blush','brown','burlywood','burnished','chartreuse','chiffon',
                 'chocolate','coral','cornflower','cornsilk','cream','cyan','dark','deep','dim',
                 'dodger','drab','firebrick','floral','forest','frosted','gainsboro','ghost',
                 'goldenrod','green','grey','honeydew','hot','indian','ivory','khaki','lace',
                 'lavender','lawn','lemon','light','lime','linen','magenta','maroon','medium',
                 'metallic','midnight','mint','misty','moccasin','navajo','navy','olive','orange',
                 'orchid','pale','papaya','peach','peru','pink','plum','powder','puff','purple',
                 'red','rose','rosy','royal','saddle','salmon','sandy','seashell','sienna','sky',
                 'slate','smoke','snow','spring','steel','tan','thistle','tomato','turquoise',
                 'violet','wheat','white','yellow'])[1 + (first + j * step) % 92], ' ' ORDER BY j)
        FROM generate_series(0, 4) AS j),
       'Manufacturer#' || m, 'Brand#' || m || b,
       pg_temp.pick(p, 'p_type 1', '{STANDARD,SMALL,MEDIUM,LARGE,ECONOMY,PROMO}') || ' ' ||
       pg_temp.pick(p, 'p_type 2', '{ANODIZED,BURNISHED,PLATED,POLISHED,BRUSHED}') || ' ' ||
       pg_temp.pick(p, 'p_type 3', '{TIN,NICKEL,BRASS,STEEL,COPPER}'),
       pg_temp.rnd(p, 'p_size', 1, 50),
       pg_temp.pick(p, 'p_container 1', '{SM,LG,MED,JUMBO,WRAP}') || ' ' ||
       pg_temp.pick(p, 'p_container 2', '{CASE,BOX,BAG,JAR,PKG,PACK,CAN,DRUM}'),
       pg_temp.retailprice(p),
       pg_temp.text(p, 'p_comment', 5, 22)
FROM generate_series(1, :npart) AS p,
     LATERAL (SELECT pg_temp.rnd(p, 'p_mfgr', 1, 5) AS m, pg_temp.rnd(p, 'p_brand', 1, 5) AS b,
                     pg_temp.rnd(p, 'p_name', 0, 91) AS first,
                     -- the 44 steps in 1..91 coprime to 92: five distinct colours
                     ('{1,3,5,7,9,11,13,15,17,19,21,25,27,29,31,33,35,37,39,41,43,45,47,49,51,53,
                        55,57,59,61,63,65,67,71,73,75,77,79,81,83,85,87,89,91}'::int[])
                       [1 + pg_temp.rnd(p, 'p_name step', 0, 43)] AS step) AS a;

-- partsupp: 4 suppliers a part, SF * 800,000; row n is part n / 4 + 1's
-- supplier n % 4.
INSERT INTO partsupp
SELECT n / 4 + 1, pg_temp.supplier_of(n / 4 + 1, n % 4, :nsupp),
       pg_temp.rnd(n, 'ps_availqty', 1, 9999),
       pg_temp.rnd(n, 'ps_supplycost', 100, 100000) / 100.0,
       pg_temp.text(n, 'ps_comment', 49, 198)
FROM generate_series(0, :npart * 4 - 1) AS n;

-- customer: SF * 150,000.
INSERT INTO customer
SELECT c, 'Customer#' || lpad(c::text, 9, '0'), pg_temp.vstr(c, 'c_address', 10, 40),
       nation, pg_temp.phone(c, 'c_phone', nation),
       pg_temp.rnd(c, 'c_acctbal', -99999, 999999) / 100.0,
       pg_temp.pick(c, 'c_mktsegment', '{AUTOMOBILE,BUILDING,FURNITURE,MACHINERY,HOUSEHOLD}'),
       pg_temp.text(c, 'c_comment', 29, 116)
FROM generate_series(1, :ncust) AS c,
     LATERAL (SELECT pg_temp.rnd(c, 'c_nationkey', 0, 24)::int AS nation) AS a;

-- lineitem: 1 to 7 lines for each of the SF * 1,500,000 orders (about SF *
-- 6,000,000 rows), in order key order.  Ship date 1..121 days after the
-- order date, commit date 30..90 days after it, receipt date 1..30 days
-- after shipping; returned (R or A) if received by 1995-06-17 (the
-- specification's CURRENTDATE), else N; status O if shipped after it, else F.
INSERT INTO lineitem
SELECT pg_temp.orderkey(i), partkey, pg_temp.supplier_of(partkey, pg_temp.rnd(k, 'l_suppkey', 0, 3), :nsupp),
       n, quantity, quantity * pg_temp.retailprice(partkey),
       pg_temp.rnd(k, 'l_discount', 0, 10) / 100.0,
       pg_temp.rnd(k, 'l_tax', 0, 8) / 100.0,
       CASE WHEN receiptdate <= date '1995-06-17' THEN pg_temp.pick(k, 'l_returnflag', '{R,A}') ELSE 'N' END,
       CASE WHEN shipdate > date '1995-06-17' THEN 'O' ELSE 'F' END,
       shipdate, commitdate, receiptdate,
       pg_temp.pick(k, 'l_shipinstruct', '{DELIVER IN PERSON,COLLECT COD,NONE,TAKE BACK RETURN}'),
       pg_temp.pick(k, 'l_shipmode', '{REG AIR,AIR,RAIL,SHIP,TRUCK,MAIL,FOB}'),
       pg_temp.text(k, 'l_comment', 10, 43)
FROM generate_series(1, :norders) AS i,
     LATERAL generate_series(1, pg_temp.rnd(i, 'o_lines', 1, 7)::int) AS n,
     LATERAL (SELECT i * 8 + n AS k) AS a,
     LATERAL (SELECT pg_temp.rnd(k, 'l_partkey', 1, :npart) AS partkey,
                     pg_temp.rnd(k, 'l_quantity', 1, 50) AS quantity,
                     pg_temp.orderdate(i) + pg_temp.rnd(k, 'l_shipdate', 1, 121)::int AS shipdate,
                     pg_temp.orderdate(i) + pg_temp.rnd(k, 'l_commitdate', 30, 90)::int AS commitdate) AS b,
     LATERAL (SELECT shipdate + pg_temp.rnd(k, 'l_receiptdate', 1, 30)::int AS receiptdate) AS c;

-- orders: SF * 1,500,000, from their lines: status F if every line's is F,
-- O if every line's is O, else P; total price the sum over the lines of
-- extendedprice * (1 - discount) * (1 + tax), in cents truncated as dbgen
-- does.  o_orderkey -> the order's number i inverts orderkey(i).
INSERT INTO orders
SELECT okey, r + (r - 1) / 2,       -- the r-th key not divisible by 3
       CASE WHEN nf = nlines THEN 'F' WHEN nf = 0 THEN 'O' ELSE 'P' END,
       total, pg_temp.orderdate(i),
       pg_temp.pick(i, 'o_orderpriority', '{1-URGENT,2-HIGH,3-MEDIUM,4-NOT SPECIFIED,5-LOW}'),
       'Clerk#' || lpad(pg_temp.rnd(i, 'o_clerk', 1, :nclerk)::text, 9, '0'),
       0,
       pg_temp.text(i, 'o_comment', 19, 78)
FROM (SELECT l_orderkey AS okey, count(*) AS nlines,
             count(*) FILTER (WHERE l_linestatus = 'F') AS nf,
             sum(trunc(trunc(l_extendedprice * (100 - 100 * l_discount)) * (100 + 100 * l_tax) / 100)) / 100 AS total
      FROM lineitem GROUP BY l_orderkey) AS g,
     LATERAL (SELECT (okey >> 5 << 3) | (okey & 7) AS i) AS a,
     LATERAL (SELECT pg_temp.rnd(i, 'o_custkey', 1, :ncust - :ncust / 3) AS r) AS b
ORDER BY okey;

RESET work_mem;
