#!/usr/bin/env bash
# test/scripts/demo-sharded.sh — what `make demo-sharded` runs: set-up
# (packages, build, install), then a coordinator and two shard clusters on
# this machine (shards.sh) with a table hash-partitioned over the shards
# through postgres_fdw, and the plans of a sharded ORDER BY: on the
# coordinator the remote ORDER BY under Merge Append, on each shard the
# pushed query through BitonicSort (auto_explain's log of it).
set -u
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/shards.sh"
cd "$TOP"
rows=${DEMO_ROWS:-400000}
mkdir -p "$TOP/tmp"
ensure_packages locales-all
build_and_install
start_shards
echo "== loading $rows rows: events on the coordinator, hash-partitioned on id over shard1 and shard2"
create_sharded_table "$rows"

on coord <<'SQL'
\pset footer off
\echo '== the coordinator: the shards sort (Remote SQL ... ORDER BY), the coordinator merges'
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM events ORDER BY a, id;
\timing on
SELECT count(*) FROM (SELECT * FROM events ORDER BY a, id OFFSET 0) s;
\timing off
\echo '== the same rows on one cluster: BitonicSort sorts all of them'
EXPLAIN (COSTS OFF) SELECT * FROM events_local ORDER BY a, id;
\echo '== a collation the shards may not share cannot be pushed down: the coordinator sorts'
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM events ORDER BY t COLLATE "en_US", id;
SQL
[ $? -eq 0 ] || die "the demo's queries failed"

for name in shard1 shard2; do
	dir=${name^^}_DIR
	echo "== $name: the pushed query, as auto_explain logged it"
	grep -A7 'Query Text: DECLARE c[0-9]* CURSOR FOR' "${!dir}/server.log" |
		grep -B1 -A5 'ORDER BY a ASC NULLS LAST, id ASC NULLS LAST' | sed 's/^\t/  /' | head -8
done
echo "== stopping the clusters"
