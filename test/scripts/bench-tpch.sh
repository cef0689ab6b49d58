#!/usr/bin/env bash
# test/scripts/bench-tpch.sh — what `make bench-tpch` runs: the 22 TPC-H
# queries (test/bench/tpch/queries) on data generated in SQL
# (test/bench/tpch/generate.sql), each timed with the module off (native
# Sort) and on, in alternated rounds of the same run, on a throwaway cluster
# of its own (tmp/cluster-tpch; make test's is tmp/cluster).  Not a test:
# it exits non-zero only when a query's result with the module on differs
# from its result with it off (or a query fails).
#
# Times: EXPLAIN (ANALYZE, TIMING OFF) execution time (no planning, no
# transfer to the client; rows counted, not timed per node), in ms.  Each
# query first runs once with the module off and once on (the results
# compared; these also warm the caches), then BENCH_REPS rounds of one timed
# run each way, off first in odd rounds and on first in even ones.  Session
# settings: work_mem = BENCH_WORK_MEM, max_parallel_workers_per_gather = 2,
# jit = off.
#
# Results: the text output (unaligned, tab-separated) must be the same with
# the module on as off ("yes").  Where the specification's ORDER BY leaves
# ties, tied rows may come in another order: then the result still counts as
# equal ("ties") when the two outputs are the same multiset of rows AND
# their ORDER BY columns (a query file's "-- order keys:" line, output
# column numbers) are the same sequence — so a wrong order is still caught.
#
# "Slower": noise is taken from the spread of the alternated rounds: a query
# counts as slower with the module only if ours' best > native's median *
# 1.05 AND ours' median > native's worst (faster: the same, mirrored).
#
# Writes docs/bench/tpch-<date>-<commit>.tsv (machine, settings, a row per
# query; "-sf<SF>" before ".tsv" where BENCH_SF is not 1) and keeps each
# run's output and plans in tmp/bench/tpch.
#   BENCH_SF=1          scale factor (0.1 for a quick run)
#   BENCH_REPS=3        timed rounds per query
#   BENCH_QUERIES=regex only the queries whose name (q01..q22) matches
#   BENCH_WORK_MEM=256MB
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
SF=${BENCH_SF:-1}
REPS=${BENCH_REPS:-3}
QUERIES=${BENCH_QUERIES:-.}
WORK_MEM=${BENCH_WORK_MEM:-256MB}
TPCH=test/bench/tpch
OUT=tmp/bench/tpch
[[ "$SF" =~ ^[0-9]*\.?[0-9]+$ ]] || die "BENCH_SF=$SF is not a number"
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPS=$REPS is not a positive integer"

QLIST=()
for f in "$TPCH"/queries/q*.sql; do
	q=$(basename "$f" .sql)
	[[ "$q" =~ $QUERIES ]] && QLIST+=("$q")
done
[ ${#QLIST[@]} -gt 0 ] || die "BENCH_QUERIES=$QUERIES matches no query"

# A cluster of our own: make_cluster_dir stops and empties the directory it
# is given, and make test's (tmp/cluster) may be in use.  No autovacuum
# during the timings (the load ends with VACUUM ANALYZE).
CLUSTER_DIR=$TOP/tmp/cluster-tpch
CLUSTER_EXTRA_CONF="autovacuum = off
max_wal_size = 8GB"
setup_all
rm -rf "$OUT"
mkdir -p "$OUT" docs/bench
PSQL=(psql -X -q -A -t -F $'\t' -v ON_ERROR_STOP=1 -v sf="$SF")

echo "== loading TPC-H at scale factor $SF (generate.sql)"
t0=$SECONDS
"${PSQL[@]}" >"$OUT/load.log" 2>&1 <<SQL || { cat "$OUT/load.log"; die "loading failed"; }
CREATE EXTENSION bitonic_sort;
SET bitonic_sort.enable = off;  -- the data do not depend on the module
\i $TPCH/schema.sql
\i $TPCH/generate.sql
VACUUM ANALYZE;
CHECKPOINT;
SQL
LOAD_S=$((SECONDS - t0))
echo "   loaded in $LOAD_S s:" $("${PSQL[@]}" -F '=' -R ' ' -c "
	SELECT t, n FROM (VALUES (1, 'region', (SELECT count(*) FROM region)),
		(2, 'nation', (SELECT count(*) FROM nation)), (3, 'supplier', (SELECT count(*) FROM supplier)),
		(4, 'customer', (SELECT count(*) FROM customer)), (5, 'part', (SELECT count(*) FROM part)),
		(6, 'partsupp', (SELECT count(*) FROM partsupp)), (7, 'orders', (SELECT count(*) FROM orders)),
		(8, 'lineitem', (SELECT count(*) FROM lineitem))) AS v(i, t, n) ORDER BY i")

# The psql script for query $1: results and plans each way, then the rounds.
query_script() {
	local q=$1 body r m order
	# the query without its comment lines and final semicolon
	body=$(grep -v '^[[:space:]]*--' "$TPCH/queries/$q.sql" | sed -e 's/;[[:space:]]*$//')
	echo "SET work_mem = '$WORK_MEM';"
	echo "SET max_parallel_workers_per_gather = 2;"
	echo "SET jit = off;"
	for m in off on; do
		echo "SET bitonic_sort.enable = $m;"
		echo "\\o $OUT/$q.$m.out"
		echo "$body;"
		echo "\\o $OUT/$q.$m.plan"
		echo "EXPLAIN (COSTS OFF) $body;"
	done
	for r in $(seq 1 "$REPS"); do
		order="off on"
		[ $((r % 2)) -eq 0 ] && order="on off"
		for m in $order; do
			echo "SET bitonic_sort.enable = $m;"
			echo "\\o $OUT/$q.$m.$r.json"
			echo "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) $body;"
		done
	done
	echo "\\o"
}

# The execution times of query $1 with the module $2, one a line.
times_of() {
	local r
	for r in $(seq 1 "$REPS"); do
		grep -o '"Execution Time": [0-9.]*' "$OUT/$1.$2.$r.json" | awk '{ print $3 }'
	done
}

# "best median worst" of the numbers on stdin.
stats() {
	sort -g | awk '{ a[NR] = $1 }
		END { m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		      printf "%.1f %.1f %.1f\n", a[1], m, a[NR] }'
}

# Whether query $1's outputs off and on are the same: yes, ties (see the
# header) or NO.
same_result() {
	local off=$OUT/$1.off.out on=$OUT/$1.on.out keys
	if cmp -s "$off" "$on"; then echo yes; return; fi
	keys=$(sed -n 's/^-- order keys:[[:space:]]*//p' "$TPCH/queries/$1.sql" | tr -d ' ')
	if [ -n "$keys" ] &&
		cmp -s <(LC_ALL=C sort "$off") <(LC_ALL=C sort "$on") &&
		cmp -s <(cut -f "$keys" "$off") <(cut -f "$keys" "$on"); then
		echo ties
	else
		echo NO
	fi
}

HOST_CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=
[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && DIRTY=" (with uncommitted changes)"
PG_VERSION=$("${PSQL[@]}" -c "SHOW server_version")
# (a scale factor other than 1 named in the file's name: a quick run does
# not overwrite the day's full one)
TSV=docs/bench/tpch-$(date +%F)-$COMMIT.tsv
[ "$SF" != 1 ] && TSV=docs/bench/tpch-$(date +%F)-$COMMIT-sf$SF.tsv
SETTINGS="sf=$SF reps=$REPS work_mem=$WORK_MEM max_parallel_workers_per_gather=2 jit=off shared_buffers=512MB"
{
	echo "# TPC-H queries, module off (native) and on: test/scripts/bench-tpch.sh"
	echo "# command: BENCH_SF=$SF BENCH_REPS=$REPS BENCH_WORK_MEM=$WORK_MEM make bench-tpch"
	echo "# machine: $(uname -m), $HOST_CPU, $(nproc) cores"
	echo "# date: $(date '+%F %T %z')"
	echo "# commit: $COMMIT$DIRTY"
	echo "# postgresql: $PG_VERSION"
	echo "# settings: $SETTINGS"
	echo "# times: EXPLAIN (ANALYZE, TIMING OFF) execution time, ms; load $LOAD_S s"
	printf 'query\tnative_best_ms\tnative_median_ms\tnative_worst_ms\tours_best_ms\tours_median_ms\tours_worst_ms\tratio_median\tratio_best\tnode_used\tplan\tresult_equal\tverdict\tnative_ms\tours_ms\tresult_md5\n'
} >"$TSV"

echo "== ${#QLIST[@]} queries, rounds: $REPS ($SETTINGS)"
ROWS=()
SLOWER=()
FASTER=()
MISMATCH=()
for q in "${QLIST[@]}"; do
	query_script "$q" | "${PSQL[@]}" >"$OUT/$q.log" 2>&1 || { cat "$OUT/$q.log"; die "$q failed"; }
	read -r nb nm nw < <(times_of "$q" off | stats)
	read -r ob om ow < <(times_of "$q" on | stats)
	ratio_m=$(awk -v o="$om" -v n="$nm" 'BEGIN { printf "%.2f", o / n }')
	ratio_b=$(awk -v o="$ob" -v n="$nb" 'BEGIN { printf "%.2f", o / n }')
	node=no
	grep -q 'BitonicSort' "$OUT/$q.on.plan" && node=yes
	plan=same
	cmp -s "$OUT/$q.off.plan" "$OUT/$q.on.plan" || plan=differs
	equal=$(same_result "$q")
	[ "$equal" = NO ] && MISMATCH+=("$q")
	verdict=same
	note=
	[ "$plan" = same ] && note=", same plan: noise"
	if awk -v ob="$ob" -v om="$om" -v nm="$nm" -v nw="$nw" 'BEGIN { exit !(ob > nm * 1.05 && om > nw) }'; then
		verdict=slower
		SLOWER+=("$q ($ratio_m$note)")
	elif awk -v nb="$nb" -v nm="$nm" -v om="$om" -v ow="$ow" 'BEGIN { exit !(nb > om * 1.05 && nm > ow) }'; then
		verdict=faster
		FASTER+=("$q ($ratio_m$note)")
	fi
	echo "   $q: native $nm ms, ours $om ms ($ratio_m), node $node, plan $plan, result $equal"
	ROWS+=("$(printf '%-5s | %9s %9s | %9s %9s | %6s %6s | %-4s | %-7s | %s' \
		"$q" "$nb" "$nm" "$ob" "$om" "$ratio_m" "$ratio_b" "$node" "$plan" "$equal")")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$q" "$nb" "$nm" "$nw" "$ob" "$om" "$ow" "$ratio_m" "$ratio_b" "$node" "$plan" "$equal" "$verdict" \
		"$(times_of "$q" off | paste -sd,)" "$(times_of "$q" on | paste -sd,)" \
		"$(md5sum <"$OUT/$q.off.out" | cut -c1-32)" >>"$TSV"
done

echo
echo "TPC-H at SF $SF, rounds: $REPS, $(uname -m) $HOST_CPU ($(nproc) cores), commit $COMMIT$DIRTY"
echo "times in ms (EXPLAIN ANALYZE, TIMING OFF); ratio = ours / native (below 1: ours faster)"
printf '%-5s | %9s %9s | %9s %9s | %6s %6s | %-4s | %-7s | %s\n' \
	query "native" "" "ours" "" "ratio" "" "node" "plan" "result" \
	"" best median best median median best used "on/off" equal
printf '%s\n' "${ROWS[@]}"
echo
echo "slower with the module on (ours' best > native's median * 1.05 and ours' median > native's worst):" \
	"${SLOWER[*]:-none}"
echo "faster with the module on (the same, mirrored): ${FASTER[*]:-none}"
for s in "${SLOWER[@]}"; do
	q=${s%% *}
	echo
	if cmp -s "$OUT/$q.off.plan" "$OUT/$q.on.plan"; then
		echo "-- $q: the same plan with the module on and off (the difference is noise)"
	else
		echo "-- $q: plan with the module off ($OUT/$q.off.plan), then on"
		cat "$OUT/$q.off.plan"
		echo "--"
		cat "$OUT/$q.on.plan"
	fi
done
echo
echo "results: $TSV"
if [ ${#MISMATCH[@]} -gt 0 ]; then
	echo "RESULT MISMATCH with the module on: ${MISMATCH[*]} (outputs in $OUT)" >&2
	exit 1
fi
exit 0
