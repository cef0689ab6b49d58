#!/usr/bin/env bash
# test/scripts/run-temp-full.sh COUNTS — BitonicSort's external sort on a
# full disk (part of make test, against the cluster run-tests.sh started):
# a temp tablespace on a 4 MB tmpfs, too small for the sort's runs (the
# error comes while runs are written) and, in a second query, big enough
# for the runs but not for the final merge a scroll cursor keeps (the error
# comes while runs are merged).  Each must be a clean ERROR with SQLSTATE
# 53100 naming "No space left on device", leave no temporary file in the
# tablespace or in base/pgsql_tmp, and the next sort of the same session
# must give the native sort's answer.  Mounting needs root (and a system
# that allows it): without, it says so and counts nothing.  Writes "passed
# failed" to COUNTS.
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
counts=${1:-/dev/null}
echo "0 1" >"$counts"
pass=0
fail=0

if [ "$(id -u)" -ne 0 ]; then
	echo "== a full temp tablespace: not tested (mounting a 4 MB tmpfs needs root; run make test as root to include it)"
	echo "0 0" >"$counts"
	exit 0
fi
space=$PGHOST/full_temp
log=$TOP/tmp/temp-full.log
mkdir -p "$space"
if ! mount -t tmpfs -o size=4m,mode=0700 tmpfs "$space" 2>"$log"; then
	echo "== a full temp tablespace: not tested (mounting a tmpfs was refused here: $(cat "$log"))"
	echo "0 0" >"$counts"
	exit 0
fi
chown postgres: "$space"
trap 'psql -X -q -c "DROP TABLE IF EXISTS bs_full" -c "DROP TABLESPACE IF EXISTS bs_full" >/dev/null 2>&1; umount "$space"' EXIT

# Count one check: its name, then the command that must succeed.
check() {
	check_in "temp full" "$@"
}

# 60,000 rows of about 70 bytes: runs of about 4.6 MB at work_mem 64kB;
# the 12,000 of them with id % 5 = 0, each twice, make about 3.2 MB of runs
# at their peak (five merge passes at 64kB: a merge's output beside its inputs)
psql -X -q -v ON_ERROR_STOP=1 >"$log" 2>&1 <<SQL || { cat "$log"; exit 1; }
CREATE EXTENSION IF NOT EXISTS bitonic_sort;
CREATE TABLESPACE bs_full LOCATION '$space';
DROP TABLE IF EXISTS bs_full;
CREATE TABLE bs_full AS
  SELECT i AS id, (hashint4(i) % 5000)::int8 AS k, md5(i::text) AS t
  FROM generate_series(1, 60000) i;
ANALYZE bs_full;
SQL

# One session: the failing sort, what is left on disk, then the next sort
# against the native one.  Prints "phase: <what it reached>" lines.
session() {
	local query=$1 fetch=$2
	psql -X -At -v VERBOSITY=verbose 2>&1 <<SQL
SET bitonic_sort.min_rows = 0;
SET enable_sort = off;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '64kB';
SET temp_tablespaces = bs_full;
BEGIN;
DECLARE c SCROLL CURSOR FOR $query;
$fetch
ROLLBACK;
SELECT 'left in the tablespace: ' || count(*) FROM pg_ls_tmpdir((SELECT oid FROM pg_tablespace WHERE spcname = 'bs_full'));
SELECT 'left in base: ' || count(*) FROM pg_ls_tmpdir();
RESET temp_tablespaces;
SELECT 'ours: ' || md5(string_agg(format('%s|%s|%s', id, k, t), ',')) FROM ($query) s;
SET bitonic_sort.enable = off;
SET enable_sort = on;
SELECT 'native: ' || md5(string_agg(format('%s|%s|%s', id, k, t), ',')) FROM ($query) s;
SQL
}

# The error is a disk-full ERROR from the temp file layer, with nothing left
# and the next sort right.
disk_full_checks() {
	local label=$1 out=$2
	echo "$out" >>"$log"
	check "$label: ERROR 53100, No space left on device" \
		grep -qE '^ERROR:  53100: .*No space left on device' <<<"$out"
	check "$label: no temporary file left in the tablespace" grep -qx 'left in the tablespace: 0' <<<"$out"
	check "$label: no temporary file left in base/pgsql_tmp" grep -qx 'left in base: 0' <<<"$out"
	local ours native
	ours=$(sed -n 's/^ours: //p' <<<"$out")
	native=$(sed -n 's/^native: //p' <<<"$out")
	check "$label: the next sort equals the native one" test -n "$ours" -a "$ours" = "$native"
}

echo "== a full temp tablespace (4 MB tmpfs)"
# the runs alone overflow the 4 MB
disk_full_checks "writing runs" \
	"$(session 'SELECT * FROM bs_full ORDER BY t, id' 'FETCH 1 FROM c;')"
check "writing runs: the external sort was the one writing" \
	grep -q 'Spilled: true' <<<"$(psql -X -At -c "SET bitonic_sort.min_rows = 0" -c "SET enable_sort = off" \
		-c "SET work_mem = '64kB'" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT * FROM bs_full ORDER BY t, id")"
# the runs fit; the final merge a scroll cursor keeps on disk does not
merged='SELECT * FROM bs_full, generate_series(1, 2) g WHERE id % 5 = 0 ORDER BY k, id, g'
disk_full_checks "merging runs" "$(session "$merged" 'FETCH LAST FROM c;')"
check "merging runs: its runs alone fit (without the cursor it sorts in the tablespace)" \
	grep -q 'Spilled: true' <<<"$(psql -X -At -c "SET bitonic_sort.min_rows = 0" -c "SET enable_sort = off" \
		-c "SET work_mem = '64kB'" -c "SET temp_tablespaces = bs_full" \
		-c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $merged" 2>&1)"

echo "$pass $fail" >"$counts"
echo "temp full: $pass passed, $fail failed"
