#!/usr/bin/env bash
# test/scripts/run-private-copy.sh COUNTS — the copy of PostgreSQL that a
# user who cannot write PostgreSQL's directories builds into
# (private_postgres in common.sh; part of make test, no cluster needed):
# the copy's pg_config names the copy's directories, its postgres is the
# installation's, the module's files are left out of it, the module
# installs into it without touching the installation, a second call keeps
# it, and a PG_CONFIG given on make's command line is turned to it.
# Writes "passed failed" to COUNTS.
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
counts=${1:-/dev/null}
echo "0 1" >"$counts"
pass=0
fail=0
root=$TOP/tmp/pg-copy-test
log=$TOP/tmp/private-copy.log
system_lib=$("$PG_CONFIG" --pkglibdir)
system_share=$("$PG_CONFIG" --sharedir)

# Count one check: its name, then the command that must succeed.
check() {
	check_in "private copy" "$@"
}

# Whether the copy ($1: its pg_config) holds no file of the module.
module_left_out() {
	! compgen -G "$("$1" --pkglibdir)/bitonic_sort*" >/dev/null &&
		! compgen -G "$("$1" --sharedir)/extension/bitonic_sort*" >/dev/null
}

# Whether the copy's pg_config ($1) names the copy's directories.
names_the_copy() {
	local opt
	for opt in --bindir --pkglibdir --sharedir; do
		[[ $("$1" $opt) == "$root"/* ]] || return 1
	done
}

# The inode of file $1.
inode() {
	stat -c %i "$1" 2>/dev/null
}

rm -rf "$root"
copy=$(private_postgres "$root" 2>"$log")
check "made, its pg_config in it" test -n "$copy" -a -x "$copy"
copy_bin=$(dirname "$copy")
copy_lib=$("$copy" --pkglibdir)
check "its pg_config names its own directories" names_the_copy "$copy"
check "its postgres is the installation's" \
	test "$("$copy_bin/postgres" -V)" = "$("$PG_BIN/postgres" -V)"
check "the module's files are not linked into it" module_left_out "$copy"
system_so=$(inode "$system_lib/bitonic_sort.so")
make -s install PG_CONFIG="$copy" >>"$log" 2>&1
check "the module installs into it" test -f "$copy_lib/bitonic_sort.so" -a ! -L "$copy_lib/bitonic_sort.so"
check "the installation's module is untouched" test "$(inode "$system_lib/bitonic_sort.so")" = "$system_so"
check "the installation's extensions are linked" test -L "$("$copy" --sharedir)/extension/plpgsql.control" \
	-a -f "$system_share/extension/plpgsql.control"
copied=$(inode "$copy_bin/postgres")
check "a second call keeps it" test "$(private_postgres "$root")" = "$copy" -a "$(inode "$copy_bin/postgres")" = "$copied"
check "a PG_CONFIG on make's command line is turned to the copy" bash -c '
	source test/scripts/common.sh
	MAKEFLAGS=" -- PG_CONFIG=/nowhere/pg_config"
	use_private_postgres "$1" >/dev/null &&
		[[ $MAKEFLAGS == *"PG_CONFIG=$PG_CONFIG"* && $MAKEFLAGS != */nowhere/* && $PG_CONFIG == "$1"/* ]]' _ "$root-make"
rm -rf "$root" "$root-make"
echo "$pass $fail" >"$counts"
