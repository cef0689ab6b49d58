#!/usr/bin/env bash
# test/scripts/run-sharded.sh COUNTS — ORDER BY on a table sharded over
# postgres_fdw (part of make test): a coordinator and two shards of its own
# (shards.sh), 200k rows hash-partitioned over the shards and the same rows
# in one plain table on the coordinator.  Checks that the sharded ORDER BY
# gives the single-cluster answer row for row (NULLs, DESC, NaN, -0, text in
# the shards' collation and in one that cannot be pushed down), that the
# coordinator pushes the ORDER BY to the shards rather than sorting, that
# each shard runs the pushed query through BitonicSort, that a shard which
# goes away mid-query is a clear error and nothing else breaks, and that a
# shard without the module sorts natively.  Writes "passed failed" to COUNTS.
set -u
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/shards.sh"
cd "$TOP"
counts=${1:-/dev/null}
echo "0 1" >"$counts"
out=$TOP/tmp/sharded-out
pass=0
fail=0

# Count one check: its name, then the command that must succeed.
check() {
	check_in "sharded" "$@"
}

# The query's rows on the sharded table and on the single-cluster one are the same, in the same order.
same_as_one_cluster() {
	local cols=$1 keys=$2
	on coord -At -c "SELECT $cols FROM events ORDER BY $keys" >"$out/sharded.txt" &&
		on coord -At -c "SELECT $cols FROM events_local ORDER BY $keys" >"$out/local.txt" &&
		[ "$(wc -l <"$out/local.txt")" -eq 200000 ] &&
		cmp -s "$out/sharded.txt" "$out/local.txt"
}

# The coordinator's plan for ORDER BY keys merges the shards' sorted rows:
# Merge Append, each remote query with the ORDER BY, no sort of its own.
coordinator_pushes() {
	local keys=$1 remote=$2 plan
	plan=$(on coord -At -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM events ORDER BY $keys") || return 1
	echo "$plan" >"$out/plan.txt"
	grep -q '^Merge Append' <<<"$plan" &&
		[ "$(grep -c "Remote SQL: .* ORDER BY $remote\$" <<<"$plan")" -eq 2 ] &&
		! grep -qE 'BitonicSort|^ *(->  )?Sort$' <<<"$plan"
}

# Where the ORDER BY cannot go to the shards (a collation they might not
# share), the coordinator sorts with BitonicSort over the unsorted rows.
coordinator_sorts() {
	local plan
	plan=$(on coord -At -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM events ORDER BY $1") || return 1
	grep -q '^Custom Scan (BitonicSort)' <<<"$plan" && ! grep -q 'Remote SQL: .*ORDER BY' <<<"$plan"
}

# The shard's log (auto_explain) shows the pushed cursor query planned with $2.
shard_ran() {
	local dir=${1^^}_DIR
	grep -A3 'Query Text: DECLARE c[0-9]* CURSOR FOR' "${!dir}/server.log" |
		grep -A2 'ORDER BY a ASC NULLS LAST, id ASC NULLS LAST' | grep -q "$2"
}

# A shard stopped between two FETCHes of an open cursor: the coordinator
# reports a connection error for that FETCH, keeps running, and still
# answers from the other shard and from its own tables.
shard_goes_away() {
	local started stop_cmd
	started=$(on coord -At -c "SELECT pg_postmaster_start_time()") || return 1
	stop_cmd="$PG_BIN/pg_ctl -D $SHARD2_DIR/data -m immediate stop"
	[ "$(id -u)" -eq 0 ] && stop_cmd="runuser -u postgres -- $stop_cmd"
	on coord -v ON_ERROR_STOP=0 >"$out/away.out" 2>"$out/away.err" <<SQL
BEGIN;
DECLARE c CURSOR FOR SELECT * FROM events ORDER BY a, id;
FETCH 100 FROM c;
\\! $stop_cmd >/dev/null
FETCH ALL FROM c;
ROLLBACK;
SQL
	grep -qE 'ERROR:  (server closed the connection unexpectedly|could not receive data from server)' \
		"$out/away.err" &&
		[ "$(on coord -At -c "SELECT pg_postmaster_start_time()")" = "$started" ] &&
		[ "$(on coord -At -c "SELECT count(*) FROM events_1")" -gt 0 ] &&
		[ "$(on coord -At -c "SELECT count(*) FROM events_local")" -eq 200000 ] &&
		on coord -At -c "SELECT count(*) FROM events" 2>&1 | grep -q 'could not connect to server "shard2"'
}

# Start shard2 again without the module: neither preloaded nor in its catalog.
restart_shard2_without_module() {
	echo "shared_preload_libraries = ''" >>"$SHARD2_DIR/data/postgresql.conf"
	start_cluster_at "$SHARD2_DIR" && on shard2 -c "DROP EXTENSION bitonic_sort"
}

mkdir -p "$out"
start_shards
echo "== loading 200000 rows into the sharded table and the single-cluster one"
create_sharded_table 200000

check "coordinator pushes ORDER BY a, id to both shards" \
	coordinator_pushes "a, id" "a ASC NULLS LAST, id ASC NULLS LAST"
check "coordinator pushes ORDER BY f DESC, id" \
	coordinator_pushes "f DESC, id" "f DESC NULLS FIRST, id ASC NULLS LAST"
check "coordinator pushes ORDER BY t NULLS FIRST, id" \
	coordinator_pushes "t NULLS FIRST, id" "t ASC NULLS FIRST, id ASC NULLS LAST"
for keys in "a, id" "a DESC, id" "a NULLS FIRST, id DESC" "f, id" "f DESC NULLS LAST, id" \
	"t, id" "t DESC, a, id" "a, f DESC, t, id" 't COLLATE "en_US", id' 't COLLATE "en_US" DESC, id'; do
	check "ORDER BY $keys: sharded = one cluster, row for row" same_as_one_cluster "*" "$keys"
done
check "ORDER BY a alone (ties): the same keys in the same order" same_as_one_cluster "a" "a"
check 'ORDER BY t COLLATE "en_US": not pushed down, the coordinator sorts with BitonicSort' \
	coordinator_sorts 't COLLATE "en_US", id'
check "shard1 ran the pushed ORDER BY through BitonicSort" shard_ran shard1 'Custom Scan (BitonicSort)'
check "shard2 ran the pushed ORDER BY through BitonicSort" shard_ran shard2 'Custom Scan (BitonicSort)'

on coord -q -c "ALTER SERVER shard1 OPTIONS (ADD use_remote_estimate 'true')" \
	-c "ALTER SERVER shard2 OPTIONS (ADD use_remote_estimate 'true')" || fail=$((fail + 1))
check "with use_remote_estimate, still pushed (not undercut by the coordinator's sort)" \
	coordinator_pushes "a, id" "a ASC NULLS LAST, id ASC NULLS LAST"
check "with use_remote_estimate: sharded = one cluster" same_as_one_cluster "*" "a DESC, id"

check "a shard that goes away mid-query: a clear error, the coordinator keeps running" shard_goes_away
check "the shard starts again without the module" restart_shard2_without_module
check "shard without the module: sharded = one cluster" same_as_one_cluster "*" "a, id"
check "shard without the module: the ORDER BY still pushed" \
	coordinator_pushes "a, id" "a ASC NULLS LAST, id ASC NULLS LAST"
check "shard without the module sorted natively" shard_ran shard2 'Sort  (cost'

stop_shards
echo "$pass $fail" >"$counts"
[ "$fail" -eq 0 ]
