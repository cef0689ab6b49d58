-- Sort keys that PostgreSQL plans but could not compare until its Sort runs
-- (a btree family with the operators but no comparison function, as in
-- PostgreSQL's own equivclass test; a text key whose implicit collations
-- conflict) are left to the native Sort: planning, EXPLAIN and a subplan
-- that never runs raise no error with the module either.
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
SET bitonic_sort.min_rows = 0;
-- (the shell type's notices differ between versions)
SET client_min_messages = warning;
CREATE TYPE int8alias1;
CREATE FUNCTION int8alias1in(cstring) RETURNS int8alias1 STRICT IMMUTABLE LANGUAGE internal AS 'int8in';
CREATE FUNCTION int8alias1out(int8alias1) RETURNS cstring STRICT IMMUTABLE LANGUAGE internal AS 'int8out';
CREATE TYPE int8alias1 (input = int8alias1in, output = int8alias1out, like = int8);
RESET client_min_messages;
CREATE FUNCTION int8alias1eq(int8alias1, int8alias1) RETURNS bool STRICT IMMUTABLE LANGUAGE internal AS 'int8eq';
CREATE OPERATOR = (procedure = int8alias1eq, leftarg = int8alias1, rightarg = int8alias1, commutator = =, merges);
CREATE FUNCTION int8alias1lt(int8alias1, int8alias1) RETURNS bool STRICT IMMUTABLE LANGUAGE internal AS 'int8lt';
CREATE OPERATOR < (procedure = int8alias1lt, leftarg = int8alias1, rightarg = int8alias1);
CREATE FUNCTION int8alias1eq(int8, int8alias1) RETURNS bool STRICT IMMUTABLE LANGUAGE internal AS 'int8eq';
CREATE OPERATOR = (procedure = int8alias1eq, leftarg = int8, rightarg = int8alias1, restrict = eqsel, join = eqjoinsel, merges);
CREATE FUNCTION int8alias1cmp(int8, int8alias1) RETURNS int STRICT IMMUTABLE LANGUAGE internal AS 'btint8cmp';
ALTER OPERATOR FAMILY integer_ops USING btree ADD OPERATOR 3 = (int8alias1, int8alias1),
  OPERATOR 1 < (int8alias1, int8alias1), OPERATOR 3 = (int8, int8alias1), FUNCTION 1 int8alias1cmp (int8, int8alias1);
CREATE DOMAIN int8alias1_d AS int8alias1;
CREATE TABLE bs_alias (i int8, k int8alias1, d int8alias1_d);
INSERT INTO bs_alias SELECT g, g::text::int8alias1, g::text::int8alias1 FROM generate_series(1, 3) g;
CREATE TABLE bs_nocoll (i int, a text COLLATE "C", b text COLLATE "POSIX");
INSERT INTO bs_nocoll SELECT g, g::text, g::text FROM generate_series(1, 3) g;
ANALYZE bs_alias, bs_nocoll;
-- the plan's sort nodes and keys (the same lines on PostgreSQL 15 to 18)
CREATE FUNCTION bs_sorts(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ 'Sort|Merge Join' THEN
      RETURN NEXT btrim(regexp_replace(line, '^\s*->\s*', ''));
    END IF;
  END LOOP;
END $$;
SELECT bs_sorts('SELECT k FROM bs_alias ORDER BY k USING <');
SELECT bs_sorts('SELECT row_number() OVER (ORDER BY d USING <) FROM bs_alias');
SELECT bs_sorts('SELECT * FROM bs_alias x JOIN bs_alias y ON x.i = y.k');
SELECT bs_sorts('SELECT x FROM (SELECT a || b AS x FROM bs_nocoll) s ORDER BY x');
-- as a later sort key, in a subplan that never runs
SET enable_sort = off;
SELECT i, CASE WHEN i < 0 THEN (SELECT max(i) FROM (SELECT i, d FROM bs_alias ORDER BY i, d USING < OFFSET 0) s) END AS never,
  CASE WHEN i < 0 THEN (SELECT max(x) FROM (SELECT i, x FROM (SELECT i, a || b AS x FROM bs_nocoll) s ORDER BY i, x OFFSET 0) s) END AS never2
FROM bs_nocoll ORDER BY i;
RESET enable_sort;
-- the keys the node can sort are still its own
SELECT bs_sorts('SELECT i FROM bs_alias ORDER BY i');
SET client_min_messages = warning;
DROP FUNCTION bs_sorts(text);
DROP TABLE bs_alias, bs_nocoll;
DROP TYPE int8alias1 CASCADE;
RESET client_min_messages;
RESET bitonic_sort.min_rows;
