#!/usr/bin/env bash
# test/scripts/run-unit.sh BIN... — run unit test binaries, as many at once
# as there are cores (the longest first), print their TAP lines in the
# order given, and write "passed failed" counts to $UNIT_COUNTS (if set).
set -u
jobs=$(nproc 2>/dev/null || echo 1)
out_dir=$(mktemp -d)
trap 'rm -rf "$out_dir"' EXIT

# Run one binary: its output and exit status into $out_dir.
run_one() {
	local bin=$1 name
	name=$(basename "$bin")
	"$bin" >"$out_dir/$name.out" 2>&1
	echo $? >"$out_dir/$name.rc"
}

# The CUDA tests under the emulator take longest: start them first, the
# two longest (about a minute or two each) before the rest.
longest='/test_cuda_(cost|sort)$'
running=0
for bin in $(printf '%s\n' "$@" | grep -E "$longest") \
	$(printf '%s\n' "$@" | grep '/test_cuda_' | grep -vE "$longest") \
	$(printf '%s\n' "$@" | grep -v '/test_cuda_'); do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_one "$bin" &
	running=$((running + 1))
done
wait

passed=0 failed=0
for bin in "$@"; do
	name=$(basename "$bin")
	out=$(cat "$out_dir/$name.out")
	rc=$(cat "$out_dir/$name.rc")
	echo "$out" | grep -E '^(not )?ok - ' | sed "s|^|$name: |"
	echo "$out" | grep -E '^# ' | sed "s|^|$name: |"
	p=$(echo "$out" | grep -c '^ok - ')
	f=$(echo "$out" | grep -c '^not ok - ')
	echo "$out" | grep '^not ok - ' | sed "s|^|$name: |" >>"$out_dir/failures"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "$name: exited with status $rc"
		echo "$out" | tail -5
		echo "$name: exited with status $rc" >>"$out_dir/failures"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f))
done
# The failures once more, last, where the tail of a long log shows them.
if [ -s "$out_dir/failures" ]; then
	echo "unit tests that failed:"
	cat "$out_dir/failures"
fi
[ -n "${UNIT_COUNTS:-}" ] && echo "$passed $failed" >"$UNIT_COUNTS"
echo "unit tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
