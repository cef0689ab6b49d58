#!/usr/bin/env bash
# test/scripts/run-tests.sh — what `make test` runs: set-up (packages,
# build, install, throwaway cluster), pg_regress against that cluster, the
# README's examples (run-readme.sh), 16
# sessions sorting at once (run-concurrency.sh), ORDER BY on a table sharded
# over postgres_fdw (run-sharded.sh), the external sort on a full temp
# tablespace (run-temp-full.sh), the copy of PostgreSQL a user who is not
# root builds into (run-private-copy.sh); beside all these, at low priority, the C
# unit tests; then pg_regress again against the build with the emulated
# CUDA backend (run-emu-regress.sh); ends with one line "N passed, N failed".
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
# "== part (at N s)": where make test's time goes
t_start=$SECONDS
section() { echo "== $1 (at $((SECONDS - t_start)) s)"; }
# locales-all: the tests sort text in a real libc collation (en_US.utf8)
SUMMARY_ON_FAILURE=1 setup_all locales-all
# 128 MB of 2 MB pages: the tests of bitonic_sort.huge_pages take buffers from it
reserve_huge_pages 64

# The unit tests need no cluster, and the cluster's tests below leave about
# half of the cores idle: the unit tests (and the emulated CUDA build that
# run-emu-regress.sh installs later) are built and run beside them, at the
# lowest priority so that they take only what the cluster's tests leave;
# their output is shown in its place further down.
rm -f tmp/unit.counts tmp/unit.out tmp/emu-built
nice -n 19 bash -c 'make -s unit-build && { make -s emu >tmp/build-emu.log 2>&1; touch tmp/emu-built; } &&
	UNIT_COUNTS=tmp/unit.counts make -s unit' >tmp/unit.out 2>&1 &
unit_pid=$!

section "pg_regress"
rm -rf results regression.diffs regression.out
make -s installcheck >tmp/regress.log 2>&1
regress_rc=$?
cat tmp/regress.log | grep -E '^(test|     |ok|not ok|# )' || cat tmp/regress.log
# Every test named in REGRESS counts: one without an "ok" line failed.
r_total=$(make -s --no-print-directory print-regress 2>/dev/null | grep -v '^bitonic_sort:' | wc -w)
# "test x ... ok" (15), "ok 1 - x" (16 and later)
r_pass=$(grep -cE '(\.\.\. ok |^ok +[0-9]+ )' tmp/regress.log)
r_fail=$((r_total - r_pass))
if [ "$regress_rc" -ne 0 ] || [ "$r_fail" -ne 0 ]; then
	[ -f regression.diffs ] && { echo "== regression.diffs"; cat regression.diffs; }
	[ "$r_fail" -eq 0 ] && r_fail=1
	tail -5 tmp/regress.log
fi

section "the README's examples"
rm -f tmp/readme.counts
test/scripts/run-readme.sh tmp/readme.counts
read -r m_pass m_fail <tmp/readme.counts || { m_pass=0; m_fail=1; }

section "concurrent sorts"
rm -f tmp/conc.counts
test/scripts/run-concurrency.sh tmp/conc.counts
read -r c_pass c_fail <tmp/conc.counts || { c_pass=0; c_fail=1; }

section "sharded ORDER BY (postgres_fdw, a coordinator and two shards)"
rm -f tmp/sharded.counts
test/scripts/run-sharded.sh tmp/sharded.counts
read -r s_pass s_fail <tmp/sharded.counts || { s_pass=0; s_fail=1; }

rm -f tmp/full.counts
test/scripts/run-temp-full.sh tmp/full.counts
read -r f_pass f_fail <tmp/full.counts || { f_pass=0; f_fail=1; }

section "a user's copy of PostgreSQL"
rm -f tmp/copy.counts
test/scripts/run-private-copy.sh tmp/copy.counts
read -r p_pass p_fail <tmp/copy.counts || { p_pass=0; p_fail=1; }

# pg_regress against the emulated CUDA backend installs its own build:
# once the cluster's tests are done, beside the unit tests still running.
section "unit tests (pg_regress with the CUDA backend emulated runs beside the last of them)"
stop_cluster
rm -f tmp/emu.counts
# (not while the emulated build is still being built in the background)
while [ ! -f tmp/emu-built ] && kill -0 "$unit_pid" 2>/dev/null; do sleep 1; done
test/scripts/run-emu-regress.sh tmp/emu.counts >tmp/emu-regress.out 2>&1 &
emu_pid=$!
wait "$unit_pid"
cat tmp/unit.out
read -r u_pass u_fail <tmp/unit.counts || { u_pass=0; u_fail=1; }
wait "$emu_pid"

section "pg_regress, CUDA backend emulated"
cat tmp/emu-regress.out
read -r e_pass e_fail <tmp/emu.counts || { e_pass=0; e_fail=1; }

section "done"
echo "$((r_pass + m_pass + c_pass + s_pass + f_pass + p_pass + u_pass + e_pass)) passed, $((r_fail + m_fail + c_fail + s_fail + f_fail + p_fail + u_fail + e_fail)) failed"
[ $((r_fail + m_fail + c_fail + s_fail + f_fail + p_fail + u_fail + e_fail)) -eq 0 ]
