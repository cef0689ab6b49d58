#!/usr/bin/env bash
# test/scripts/run-readme.sh COUNTS — the README stays true: every ```sql
# block of its "Getting started" and "Usage" sections runs, in order, in one
# psql session on a fresh database of the running test cluster, and what
# psql prints must be the plain ``` block right after it (a SQL block
# without one is run and must not fail).  Numbers that change from run to
# run (EXPLAIN ANALYZE's times, memory, disk, pages read) are masked on both
# sides.  Writes "passed failed" (a block each) to COUNTS.
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP"
counts=${1:-/dev/null}
work=$TOP/tmp/readme
rm -rf "$work"
mkdir -p "$work"
echo "0 1" >"$counts"

# The blocks: $work/N.sql and, where the README shows it, $work/N.out.
python3 - "$work" <<'PY' || exit 1
import re, sys
work = sys.argv[1]
text = open("README.md").read()
sections = re.split(r"^## ", text, flags=re.M)
wanted = [s for s in sections if s.startswith(("Getting started", "Usage"))]
n = 0
for section in wanted:
    blocks = re.findall(r"^```(\w*)\n(.*?)^```\n", section, flags=re.M | re.S)
    for i, (lang, body) in enumerate(blocks):
        if lang != "sql":
            continue
        n += 1
        open("%s/%03d.sql" % (work, n), "w").write(body)
        # a block whose output is PostgreSQL 15 to 17's (18 plans it otherwise)
        before = section.split("```sql\n" + body, 1)[0].rstrip("\n")
        if before.endswith("<!-- readme test: output of PostgreSQL 15 to 17 -->"):
            open("%s/%03d.until17" % (work, n), "w").close()
        if i + 1 < len(blocks) and blocks[i + 1][0] == "":
            # only where the output block follows the SQL block directly
            after = section.split("```sql\n" + body + "```\n", 1)[1]
            if after.lstrip("\n").startswith("```\n"):
                open("%s/%03d.out" % (work, n), "w").write(blocks[i + 1][1])
print("README: %d SQL blocks" % n)
PY

db=readme_check
psql -X -q -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" postgres >/dev/null || exit 1
# One session for all blocks, a marker line between them.
{
	for f in "$work"/*.sql; do
		echo "\\echo ==README-BLOCK $(basename "$f" .sql)=="
		cat "$f"
	done
} | PGOPTIONS="-c bitonic_sort.device=cpu" psql -X -d "$db" -v ON_ERROR_STOP=0 >"$work/all.out" 2>&1
psql -X -q -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" postgres >/dev/null

# Mask the numbers of the lines whose figures change from run to run, and
# drop the lines that only some machines print (parts sorted while emitting
# need two threads; pool and kept memory depend on the machine's state).
# A plan's row count then varies too, and the width of its header; 18
# prints row counts with two decimals.
mask() {
	local rows=''
	grep -q 'QUERY PLAN' "$1" && rows='s/^\([0-9]+ rows?\)$/(N rows)/'
	sed -E -e '/^ *(Sort Parts|Huge Page Memory|Reused Memory):/d' \
		-e '/(Time|time=|Memory|Disk|Batches|Heap Pages|Buffers|Key Ranges|Key Range Cuts)/ s/[0-9]+(\.[0-9]+)?/N/g' \
		-e 's/(rows=[0-9]+)\.00 /\1 /g' -e 's/^ +QUERY PLAN +$/QUERY PLAN/' -e 's/^-{10,}$/----------/' \
		-e "$rows" "$1"
}
version=$(psql -X -At -c "SHOW server_version_num" postgres)

pass=0
fail=0
awk -v dir="$work" '/^==README-BLOCK [0-9]+==$/ { f = dir "/" substr($2, 1, length($2) - 2) ".got"; next } f { print > f }' \
	"$work/all.out"
for f in "$work"/*.sql; do
	b=${f%.sql}
	touch "$b.got"
	# PostgreSQL 18 plans this block otherwise: it must run, its output is not compared
	[ -f "$b.until17" ] && [ "$version" -ge 180000 ] && rm -f "$b.out"
	if [ -f "$b.out" ] && ! diff -u <(mask "$b.out") <(mask "$b.got") >"$b.diff"; then
		echo "not ok - README block $(basename "$b"): output differs"
		head -40 "$b.diff" | sed 's/^/    /'
		fail=$((fail + 1))
	elif [ ! -f "$b.out" ] && grep -q '^ERROR:' "$b.got"; then
		echo "not ok - README block $(basename "$b"): an error"
		sed 's/^/    /' "$b.got" | head -20
		fail=$((fail + 1))
	else
		echo "ok - README block $(basename "$b")"
		pass=$((pass + 1))
	fi
done
echo "README blocks: $pass passed, $fail failed"
echo "$pass $fail" >"$counts"
