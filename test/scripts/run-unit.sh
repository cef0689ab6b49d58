#!/usr/bin/env bash
# test/scripts/run-unit.sh BIN... — run unit test binaries, print their TAP
# lines, and write "passed failed" counts to $UNIT_COUNTS (if set).
set -u
passed=0 failed=0
for bin in "$@"; do
	out=$("$bin" 2>&1)
	rc=$?
	echo "$out" | grep -E '^(not )?ok - ' | sed "s|^|$(basename "$bin"): |"
	echo "$out" | grep -E '^# ' | sed "s|^|$(basename "$bin"): |"
	p=$(echo "$out" | grep -c '^ok - ')
	f=$(echo "$out" | grep -c '^not ok - ')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "$(basename "$bin"): exited with status $rc"
		echo "$out" | tail -5
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f))
done
[ -n "${UNIT_COUNTS:-}" ] && echo "$passed $failed" >"$UNIT_COUNTS"
echo "unit tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
