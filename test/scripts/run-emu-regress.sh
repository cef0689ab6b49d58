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
EMU_REGRESS="${EMU_REGRESS:-gpu_sort_basic gpu_sort_types gpu_sort_cuda_emu order_by_faults}"

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

rm -rf build/emu/results build/emu/regression.diffs
make -s -C build/emu USE_CUDA=emu installcheck REGRESS="$EMU_REGRESS" >tmp/regress-emu.log 2>&1
rc=$?
grep -E '^(test|ok|not ok) ' tmp/regress-emu.log | sed 's/^/emu: /' || cat tmp/regress-emu.log
pass=$(grep -cE '\.\.\. ok|^ok ' tmp/regress-emu.log)
fail=$(grep -cE '\.\.\. FAILED|\.\.\. failed|^not ok ' tmp/regress-emu.log)
if [ "$rc" -ne 0 ]; then
	[ -f build/emu/regression.diffs ] && { echo "== build/emu/regression.diffs"; cat build/emu/regression.diffs; }
	[ "$fail" -eq 0 ] && { cat tmp/regress-emu.log; fail=1; }
fi
echo "$pass $fail" >"$counts"
[ "$fail" -eq 0 ]
