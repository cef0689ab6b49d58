# test/scripts/shards.sh — a sharded set-up of throwaway clusters on this
# machine, for demo-sharded.sh, run-sharded.sh and bench-sharded.sh: a
# coordinator and two shards, each with bitonic_sort preloaded, and on the
# coordinator a hash-partitioned table whose partitions are postgres_fdw
# foreign tables on the shards.  Source it after common.sh; it defines
# functions only.

SHARDS_ROOT=${SHARDS_ROOT:-$TOP/tmp/sharded}
SHARD_NAMES="coord shard1 shard2"

# Settings of every cluster of the set: the module preloaded; on the shards
# auto_explain is loaded into each session so that the coordinator's
# connections can log the plans of the queries pushed to them.
shard_conf() {
	echo "shared_preload_libraries = 'bitonic_sort'"
	echo "work_mem = '1GB'"
	echo "jit = off"
	[ "$1" != coord ] && echo "session_preload_libraries = 'auto_explain'"
	return 0
}

# Start the coordinator and the shards; sets <NAME>_DIR and <NAME>_PORT.
start_shards() {
	local name dir port
	for name in $SHARD_NAMES; do
		dir=$(make_cluster_dir "$SHARDS_ROOT/$name") || die "cannot make $SHARDS_ROOT/$name"
		port=$(free_port "$dir") || die "no free port"
		echo "== starting $name in $dir (port $port)"
		init_and_start_cluster "$dir" "$port" "$(shard_conf "$name")"
		printf -v "${name^^}_DIR" '%s' "$dir"
		printf -v "${name^^}_PORT" '%s' "$port"
	done
	trap stop_shards EXIT
}

# Stop every cluster of the set (runs on exit).
stop_shards() {
	local name dir
	for name in $SHARD_NAMES; do
		dir=${name^^}_DIR
		[ -n "${!dir:-}" ] && stop_cluster_at "${!dir}" fast
	done
	return 0
}

# psql on cluster $1 (coord, shard1, shard2), the rest of the arguments psql's.
on() {
	local dir=${1^^}_DIR port=${1^^}_PORT
	shift
	"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "${!dir}" -p "${!port}" -U "$(cluster_user)" \
		-d postgres "$@"
}

# The rows of the sharded table, ids 1..$1, as a SELECT over i (one formula
# for every cluster): keys with NULLs, ties, NaN, -0 and infinities, and text.
event_rows() {
	cat <<SQL
SELECT i::int8 AS id,
       CASE WHEN i % 97 = 0 THEN NULL ELSE (hashint8(i) % 100000) END AS a,
       CASE i % 1000 WHEN 1 THEN 'NaN' WHEN 2 THEN '-0' WHEN 3 THEN 'Infinity'
                     WHEN 4 THEN '-Infinity' WHEN 5 THEN NULL
                     ELSE hashint8(i + 7) / 1e6 END::float8 AS f,
       CASE WHEN i % 89 = 0 THEN NULL ELSE md5((i % 50000)::text) END AS t,
       repeat('x', 20) AS pad
FROM generate_series(1, $1) i
SQL
}

# Create the sharded table and load $1 rows: on the coordinator `events`,
# hash-partitioned on id into two foreign tables, one per shard, and
# `events_local`, the same rows in one plain table (the single-cluster
# answer).  Each shard makes its own rows, those of its partition: a local
# table partitioned the same way says which (satisfies_hash_partition).
create_sharded_table() {
	local rows=$1 name remainder=0
	for name in shard1 shard2; do
		on "$name" <<SQL || die "creating the shard table on $name failed"
CREATE EXTENSION bitonic_sort;
CREATE TABLE events_shard (id int8 NOT NULL, a int8, f float8, t text, pad text);
CREATE TABLE hash_of_id (id int8) PARTITION BY HASH (id);
INSERT INTO events_shard SELECT * FROM ($(event_rows "$rows")) r
  WHERE satisfies_hash_partition('hash_of_id'::regclass, 2, $remainder, id);
ANALYZE events_shard;
SQL
		remainder=$((remainder + 1))
	done
	on coord <<SQL || die "creating the sharded table failed"
CREATE EXTENSION bitonic_sort;
CREATE EXTENSION postgres_fdw;
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$SHARD1_DIR', port '$SHARD1_PORT', dbname 'postgres',
           options '-c auto_explain.log_min_duration=0', fetch_size '10000');
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$SHARD2_DIR', port '$SHARD2_PORT', dbname 'postgres',
           options '-c auto_explain.log_min_duration=0', fetch_size '10000');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1;
CREATE USER MAPPING FOR CURRENT_USER SERVER shard2;
CREATE TABLE events (id int8 NOT NULL, a int8, f float8, t text, pad text) PARTITION BY HASH (id);
CREATE FOREIGN TABLE events_1 PARTITION OF events FOR VALUES WITH (MODULUS 2, REMAINDER 0)
  SERVER shard1 OPTIONS (table_name 'events_shard');
CREATE FOREIGN TABLE events_2 PARTITION OF events FOR VALUES WITH (MODULUS 2, REMAINDER 1)
  SERVER shard2 OPTIONS (table_name 'events_shard');
CREATE TABLE events_local AS $(event_rows "$rows");
ANALYZE events_local;
ANALYZE events;
-- every row in the partition that holds its id, once (else a division by zero)
\o /dev/null
SELECT 1 / (count(*) = $rows AND count(DISTINCT id) = $rows)::int AS all_rows_once FROM events
  WHERE satisfies_hash_partition('events'::regclass, 2, CASE tableoid WHEN 'events_1'::regclass THEN 0 ELSE 1 END, id);
\o
SQL
}
