#!/usr/bin/env bash
# test/scripts/run-emu-regress.sh COUNTS — pg_regress through the CUDA host
# code and kernels on a machine without a GPU: builds the extension against
# the SIMT emulator (make emu), installs it, runs the gpu_sort tests in a
# throwaway cluster of its own with bitonic_sort.device = gpu, writes
# "passed failed" to COUNTS, and installs the regular build again on the way
# out (whatever happened).  Run it under the same install lock as make test.
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
counts=${1:-/dev/null}
# Not gpu_sort_errors: its 8M-element sort to cancel takes minutes in the
# emulator, and a GPU sort is not interruptible.  order_by_faults needs the
# test build's fault injection and its 16 MB store (bitonic_sort.h).
# (EMU_REGRESS_ONLY names tests to run alone instead: a developer's run.)

# Stop our cluster and put the regular build back into PostgreSQL's directories.
restore() {
	stop_cluster
	make -s install >>tmp/build.log 2>&1 || echo "reinstalling the regular build failed: see tmp/build.log" >&2
}

echo "0 1" >"$counts"
make -s emu >tmp/build-emu.log 2>&1 || { cat tmp/build-emu.log; exit 1; }
trap restore EXIT
make -s emu-install >>tmp/build-emu.log 2>&1 || { cat tmp/build-emu.log; exit 1; }
CLUSTER_DIR=$TOP/tmp/cluster-emu
CLUSTER_EXTRA_CONF="bitonic_sort.device = gpu"
start_cluster
trap restore EXIT

# One group of tests: pg_regress in a database and an output folder of its
# own (build/emu/out-NAME), its log in tmp/regress-emu-NAME.log.
run_group() {
	local name=$1 opts=$2 tests=$3
	rm -rf "build/emu/out-$name"
	make -s -C build/emu USE_CUDA=emu installcheck REGRESS="$tests" \
		REGRESS_OPTS="--dbname=emu_$name --outputdir=out-$name $opts" >"tmp/regress-emu-$name.log" 2>&1
}

# gpu_sort_types takes two minutes in the emulator, on one core: it runs
# beside the others, with the extension made for it as gpu_sort_basic
# makes it for the rest, and a work_mem that keeps its native sorts off
# the disk, where order_by_faults counts the temporary files.
rm -f tmp/regress-emu-*.log
if [ -n "${EMU_REGRESS_ONLY:-}" ]; then
	run_group only "" "$EMU_REGRESS_ONLY"
else
	PGOPTIONS="-c work_mem=64MB" run_group types --load-extension=bitonic_sort gpu_sort_types &
	types_pid=$!
	run_group rest "" "gpu_sort_basic gpu_sort_cuda_emu order_by_faults"
	wait "$types_pid"
fi
pass=0 fail=0
for log in tmp/regress-emu-*.log; do
	name=$(basename "$log" .log)
	name=${name#regress-emu-}
	grep -E '^(test|ok|not ok) ' "$log" | sed 's/^/emu: /' || cat "$log"
	p=$(grep -cE '\.\.\. ok|^ok ' "$log")
	f=$(grep -cE '\.\.\. FAILED|\.\.\. failed|^not ok ' "$log")
	if ! grep -qE 'All [0-9]+ tests passed' "$log"; then
		[ -f "build/emu/out-$name/regression.diffs" ] &&
			{ echo "== build/emu/out-$name/regression.diffs"; cat "build/emu/out-$name/regression.diffs"; }
		[ "$f" -eq 0 ] && { cat "$log"; f=1; }
	fi
	pass=$((pass + p)) fail=$((fail + f))
done
echo "$pass $fail" >"$counts"
[ "$fail" -eq 0 ]
