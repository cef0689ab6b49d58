#!/usr/bin/env bash
# test/scripts/bench-record.sh NAME COMMAND [SETTINGS] — keeps a benchmark's results
# as data: tmp/bench/NAME.csv (what the bench script wrote) goes to
# docs/bench/NAME-<date>-<time>-<commit>.csv behind a header of '#' lines
# (the bench, the command that made it with the BENCH_* variables set,
# date, commit, machine, PostgreSQL, settings).
# test/scripts/bench-render.py turns the newest file of each bench into
# docs/benchmarks.md.  The bench scripts call it as their last step.
set -u
cd "$(dirname "$0")/../.."
name=${1:?usage: bench-record.sh NAME COMMAND [SETTINGS]}
command=${2:?usage: bench-record.sh NAME COMMAND [SETTINGS]}
settings=${3:-}
src=tmp/bench/$name.csv
[ -s "$src" ] || { echo "bench-record: no $src" >&2; exit 1; }
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- src cuda sql test 2>/dev/null || commit="$commit+"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
pg=$(psql -X -At -c 'SHOW server_version' 2>/dev/null || "${PG_CONFIG:-pg_config}" --version)
env_settings=$(env | grep '^BENCH_' | sort | tr '\n' ' ')
mkdir -p docs/bench
out=docs/bench/$name-$(date -u +%F-%H%M)-${commit%+}.csv
{
	echo "# bench: $name"
	echo "# command: ${env_settings}$command"
	echo "# date: $(date -u '+%F %H:%M') UTC"
	echo "# commit: $commit"
	echo "# machine: $(uname -m), ${cpu:-unknown CPU}, $(nproc) cores, $mem"
	echo "# postgresql: $pg"
	echo "# settings: $settings"
	cat "$src"
} >"$out"
echo "== results kept in $out"
