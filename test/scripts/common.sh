# test/scripts/common.sh — shared by the demo, test and bench scripts:
# dependency check, build + install, throwaway PostgreSQL clusters, and the
# benchmarks' table.  Source it; it defines functions only.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The PostgreSQL to build against and test: the system's 15 (Debian's
# packages), or the one whose pg_config PG_CONFIG names (make test
# PG_CONFIG=tmp/pg18/bin/pg_config, built by build-pg.sh).
if [ -n "${PG_CONFIG:-}" ] && [ "$PG_CONFIG" != pg_config ]; then
	PG_CONFIG=$(cd "$(dirname "$PG_CONFIG")" 2>/dev/null && pwd)/$(basename "$PG_CONFIG")
	[ -x "$PG_CONFIG" ] || { echo "PG_CONFIG=$PG_CONFIG is not an executable pg_config" >&2; exit 1; }
	PG_MAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
	PG_BIN=$("$PG_CONFIG" --bindir)
	PG_FROM_SOURCE=1
else
	PG_CONFIG=pg_config
	PG_MAJOR=15
	PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
	PG_FROM_SOURCE=
fi
export PG_CONFIG

# Stop with a message; the test driver also prints its summary line.
die() {
	echo "$*" >&2
	[ -n "${SUMMARY_ON_FAILURE:-}" ] && echo "0 passed, 1 failed"
	exit 1
}

# Debian packages the build and the tests need.
required_packages() {
	if [ -n "$PG_FROM_SOURCE" ]; then
		echo "make gcc g++ libhwy-dev"
	else
		echo "make gcc g++ postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR postgresql-client-$PG_MAJOR libhwy-dev"
	fi
}

# The packages among required_packages and $@ that are not installed, on one line.
missing_packages() {
	local p list=()
	for p in $(required_packages) "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || list+=("$p")
	done
	echo "${list[*]}"
}

# The module, for users who cannot write PostgreSQL's directories.
#
# Root (or a user who can write PostgreSQL's lib and share/extension
# directories, e.g. of a server built by build-pg.sh) builds and installs.
# Another user builds against, installs into and runs the clusters of a
# copy of PostgreSQL of their own in tmp/ (private_postgres), so that only
# missing packages need root.  Where no copy can be made, such a user uses
# the installed module when it is current, and otherwise gets one line,
# "run as root: ...", before anything is built.  Current
# means: bitonic_sort.so and bitonic_sort.control are installed, and the
# source id `make install` put beside them
# (share/extension/bitonic_sort.source-id: a hash of the Makefile, mk/hwy.mk,
# mk/cuda.mk, the control file, the install scripts, src/ and cuda/, and the
# CUDA mode; see mk/cuda.mk) equals this tree's (`make print-source-id`).
# The test driver also installs the emulated build (run-emu-regress.sh), so
# without a copy `make test` needs the rights even with a current module: it
# says "run as root: make -C DIR test".

# Whether we may write PostgreSQL's lib and share/extension directories.
can_install() {
	local libdir sharedir
	libdir=$("$PG_CONFIG" --pkglibdir 2>/dev/null) && sharedir=$("$PG_CONFIG" --sharedir 2>/dev/null) &&
		[ -w "$libdir" ] && [ -w "$sharedir/extension" ]
}

# This tree's source id ("<hash> <CUDA mode>"); fails without make or PGXS.
source_id() {
	make -C "$TOP" -s --no-print-directory print-source-id 2>/dev/null | grep -v '^bitonic_sort:'
}

# Whether PostgreSQL's directories hold this tree's module (see above).
module_current() {
	local libdir sharedir want have
	libdir=$("$PG_CONFIG" --pkglibdir 2>/dev/null) && sharedir=$("$PG_CONFIG" --sharedir 2>/dev/null) || return 1
	[ -f "$libdir/bitonic_sort.so" ] && [ -f "$sharedir/extension/bitonic_sort.control" ] || return 1
	have=$(cat "$sharedir/extension/bitonic_sort.source-id" 2>/dev/null) || return 1
	want=$(source_id) || return 1
	[ -n "$want" ] && [ "$have" = "$want" ]
}

# Whether the running script is the test driver (it installs two builds in turn).
installs_test_build() {
	[ "$(basename "$0")" = run-tests.sh ]
}

# What root must run for us: install the packages $1 (a list, maybe empty),
# then the module where it is not current; the whole test for the test driver.
root_command() {
	local missing=$1 cmd='' pg_config_arg=''
	[ -n "$PG_FROM_SOURCE" ] && pg_config_arg=" PG_CONFIG=$PG_CONFIG"
	if installs_test_build; then
		echo "make -C $TOP test$pg_config_arg"
		return
	fi
	[ -n "$missing" ] && cmd="apt-get install -y $missing"
	if ! can_install && ! module_current; then
		cmd="${cmd:+$cmd && }make -C $TOP install$pg_config_arg"
	fi
	echo "$cmd"
}

# Install missing packages as root; as another user, say in one line what
# root must run and stop.
ensure_packages() {
	local missing
	missing=$(missing_packages "$@")
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -eq 0 ]; then
		echo "== installing missing packages (apt-get): $missing"
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null ||
			{ apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null; } ||
			die "apt-get install $missing failed"
	else
		die "run as root: $(root_command "$missing")"
	fi
}

# Build the module with as many jobs as there are cores, saying what and
# how long first; on a terminal, a line counts the files compiled.
build_module() {
	local jobs archs n_c n_cu secs what log=$TOP/tmp/build.log
	jobs=$(nproc 2>/dev/null || echo 1)
	archs=$(make -C "$TOP" -s --no-print-directory print-cuda-archs 2>/dev/null | grep -v '^bitonic_sort:')
	# the compile commands make would run: C/C++ files, and .cu files for nvcc
	make -C "$TOP" -n all >"$log" 2>&1 || { cat "$log"; die "make -n all failed"; }
	n_cu=$(grep -cE '^[^ ]*nvcc .* -c ' "$log")
	n_c=$(($(grep -cE ' -c ' "$log") - n_cu))
	if [ $((n_c + n_cu)) -eq 0 ]; then
		echo "== the build is up to date"
	else
		what="$n_c C/C++ file$([ "$n_c" -eq 1 ] || echo s)"
		[ "$n_cu" -gt 0 ] && what="$what, $n_cu CUDA file$([ "$n_cu" -eq 1 ] || echo s) for $(echo "$archs" | sed -E 's/([0-9]+)/sm_\1/g') + PTX"
		# on the slower of the 2-core VMs measured: 0.8 s of a core per C/C++
		# file, 2.2 s per CUDA file and architecture; rounded up to 5 s
		secs=$(((n_c * 8 + n_cu * 22 * $(echo "$archs" | wc -w)) / 10 / jobs + 2))
		secs=$(((secs + 4) / 5 * 5))
		echo "== building ($what; about $secs s with $jobs jobs)"
	fi
	make -C "$TOP" --no-silent -j"$jobs" all 2>&1 | tee "$log" | show_progress $((n_c + n_cu))
	# on failure, the log without the commands
	[ "${PIPESTATUS[0]}" -eq 0 ] || { grep -vE ' -c ' "$log"; die "build failed (the whole log: $log)"; }
}

# Count the compile commands make prints, on one line of a terminal.
show_progress() {
	local total=$1 i=0 line file
	if [ ! -t 1 ] || [ "$total" -eq 0 ]; then
		cat >/dev/null
		return 0
	fi
	while IFS= read -r line; do
		case "$line" in
		*" -c "*)
			i=$((i + 1))
			file=
			[[ $line =~ \ -o\ ([^ ]+) ]] && file=${BASH_REMATCH[1]}
			printf '\r\033[K   [%d/%d] %s' "$i" "$total" "$file"
			;;
		esac
	done
	printf '\r\033[K'
}

# Link each entry of directory $1 into directory $2 that $2 does not hold
# yet, but the module's own files.
link_entries() {
	local f
	for f in "$1"/*; do
		case ${f##*/} in
		bitonic_sort*) ;;
		*) [ -e "$2/${f##*/}" ] || ln -s "$f" "$2/${f##*/}" || return 1 ;;
		esac
	done
}

# A copy in directory $1 of the PostgreSQL that $PG_CONFIG names, which
# this user may install the module into: the programs that find the
# installation from their own place (postgres, initdb, pg_ctl, pg_config)
# copied, its other programs, libraries, data files and headers linked, the
# module's files left out.  Made again when the installation changed (its
# programs, libraries or extensions).  Prints the copy's pg_config.
private_postgres() {
	local root=$1 bindir libdir sharedir stamp d f
	bindir=$("$PG_CONFIG" --bindir) && libdir=$("$PG_CONFIG" --pkglibdir) &&
		sharedir=$("$PG_CONFIG" --sharedir) || return 1
	stamp=$(ls -lL --time-style=+%s "$bindir" "$libdir" "$sharedir/extension" | md5sum)
	if [ "$(cat "$root/.stamp" 2>/dev/null)" != "$stamp" ]; then
		rm -rf "$root" && mkdir -p "$root$bindir" "$root$libdir" "$root$sharedir/extension" || return 1
		for f in postgres initdb pg_ctl pg_config; do
			cp -p "$bindir/$f" "$root$bindir/$f" || return 1
		done
		link_entries "$bindir" "$root$bindir" && link_entries "$libdir" "$root$libdir" &&
			link_entries "$sharedir/extension" "$root$sharedir/extension" &&
			link_entries "$sharedir" "$root$sharedir" || return 1
		# the headers, libraries, messages and settings, by their place (shortest first: one link covers the rest)
		for d in $("$PG_CONFIG" --includedir --pkgincludedir --includedir-server --libdir --localedir \
			--sysconfdir | awk '{ print length, $0 }' | sort -n | cut -d' ' -f2-); do
			[ -e "$root$d" ] || [ ! -e "$d" ] && continue
			mkdir -p "$(dirname "$root$d")" && ln -s "$d" "$root$d" || return 1
		done
		# the copy must find itself, not the installation it copies
		[ "$("$root$bindir/pg_config" --pkglibdir)" = "$root$libdir" ] || return 1
		echo "$stamp" >"$root/.stamp"
	fi
	echo "$root$bindir/pg_config"
}

# Build against, install into and run the clusters of a copy of PostgreSQL
# of this user's own (private_postgres) in directory $1, by default
# tmp/pgNN-private; false where none can be made.
use_private_postgres() {
	local dir=${1:-$TOP/tmp/pg$PG_MAJOR-private} copy
	copy=$(private_postgres "$dir") || return 1
	echo "== PostgreSQL's directories are not writable by $(id -un): using a copy of its own in $dir"
	PG_CONFIG=$copy
	PG_BIN=$("$PG_CONFIG" --bindir)
	PG_FROM_SOURCE=1
	export PG_CONFIG
	# a PG_CONFIG given on make's command line reaches the makes run from here
	# through MAKEFLAGS, where it would win over ours: it names the copy too
	MAKEFLAGS=$(printf '%s' "${MAKEFLAGS:-}" | sed -E "s|PG_CONFIG=[^ ]*|PG_CONFIG=$PG_CONFIG|g")
	export MAKEFLAGS
}

# The module in PostgreSQL's directories: built and installed where we may
# write them, or into a copy of PostgreSQL of this user's own; where no
# copy can be made, the installed module when current, else one line of
# what root must run (before anything is built).
build_and_install() {
	mkdir -p "$TOP/tmp"
	if ! can_install && [ "$(id -u)" -ne 0 ]; then
		use_private_postgres || echo "== no copy of PostgreSQL could be made in $TOP/tmp" >&2
	fi
	if ! can_install; then
		if ! installs_test_build && module_current; then
			echo "== using the installed module ($("$PG_CONFIG" --pkglibdir)/bitonic_sort.so, built from this tree)"
			return 0
		fi
		die "run as root: $(root_command "")"
	fi
	build_module
	echo "== installing into $("$PG_CONFIG" --pkglibdir)"
	make -C "$TOP" -s install >>"$TOP/tmp/build.log" 2>&1 || { cat "$TOP/tmp/build.log"; die "make install failed"; }
}

# Run a command as the cluster owner (postgres when we are root).
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# A TCP port on localhost that nothing listens on (nor has a socket in $1).
free_port() {
	local port
	for port in $(seq 54321 54421); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
		[ -e "${1:-/nonexistent}/.s.PGSQL.$port" ] && continue
		[ -e "/tmp/.s.PGSQL.$port" ] && continue
		echo "$port"
		return 0
	done
	die "no free port in 54321..54421"
}

# Create and start a throwaway cluster under ./tmp (settings in $CLUSTER_EXTRA_CONF
# are appended); exports PGHOST/PGPORT/PGUSER.
start_cluster() {
	CLUSTER_DIR=${CLUSTER_DIR:-$TOP/tmp/cluster}
	CLUSTER_DIR=$(make_cluster_dir "$CLUSTER_DIR") || die "cannot make $CLUSTER_DIR"
	PGPORT=$(free_port "$CLUSTER_DIR") || die "no free port"
	export PGPORT PGHOST=$CLUSTER_DIR PGDATABASE=postgres PGUSER=$(cluster_user)
	echo "== starting a throwaway cluster in $CLUSTER_DIR (port $PGPORT)"
	init_and_start_cluster "$CLUSTER_DIR" "$PGPORT" \
		"shared_preload_libraries = 'bitonic_sort'
${CLUSTER_EXTRA_CONF:-}"
	trap 'stop_cluster; restore_huge_pages' EXIT
}

# The role the throwaway clusters are created for: postgres when we are root.
cluster_user() {
	if [ "$(id -u)" -eq 0 ]; then echo postgres; else id -un; fi
}

# Stop a cluster of ours left in $1 and make it again, empty; prints the
# directory used (one under /tmp where the postgres user cannot reach $1).
make_cluster_dir() {
	local dir=$1
	stop_cluster_at "$dir" immediate
	rm -rf "$dir"
	mkdir -p "$dir" || return 1
	if [ "$(id -u)" -eq 0 ]; then
		chown postgres: "$dir"
		if ! runuser -u postgres -- test -w "$dir"; then
			dir=$(mktemp -d /tmp/bitonic_sort.XXXXXX)
			chown postgres: "$dir"
		fi
	fi
	echo "$dir"
}

# initdb a cluster in $1/data listening on port $2 (TCP on localhost and a
# socket in $1), append the settings in $3, and start it.
init_and_start_cluster() {
	local dir=$1 port=$2 conf=$3
	as_owner "$PG_BIN/initdb" -D "$dir/data" -U "$(cluster_user)" -A trust -E UTF8 \
		--locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log"; die "initdb failed"; }
	cat >>"$dir/data/postgresql.conf" <<CONF
port = $port
listen_addresses = 'localhost'
unix_socket_directories = '$dir'
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 512MB
max_parallel_workers_per_gather = 0
huge_pages = off
$conf
CONF
	start_cluster_at "$dir"
}

# Start the cluster initialised in $1 (again, after a stop).
start_cluster_at() {
	# The server must not inherit our descriptors (a caller's lock, say).
	as_owner "$PG_BIN/pg_ctl" -D "$1/data" -l "$1/server.log" -w -t 60 start \
		>/dev/null 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- ||
		{ cat "$1/server.log"; die "the server in $1 did not start"; }
}

# Reserve a pool of at least $1 huge pages of 2 MB, for the tests of
# bitonic_sort.huge_pages (as root only; the pool goes back to its size on
# exit).  Without it those tests check that sorts use ordinary memory.
reserve_huge_pages() {
	local pool=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	if [ "$(id -u)" -ne 0 ] || [ ! -w "$pool" ]; then
		echo "== no huge page pool reserved (needs root): bitonic_sort.huge_pages is tested on ordinary memory"
		return 0
	fi
	HUGE_PAGES_BEFORE=$(cat "$pool")
	[ "$HUGE_PAGES_BEFORE" -ge "$1" ] || echo "$1" >"$pool"
	echo "== huge page pool: $(cat "$pool") pages of 2 MB (it had $HUGE_PAGES_BEFORE)"
}

# Give the pool back its size from before reserve_huge_pages (runs on exit).
restore_huge_pages() {
	[ -n "${HUGE_PAGES_BEFORE:-}" ] &&
		echo "$HUGE_PAGES_BEFORE" >/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	return 0
}

# Stop the throwaway cluster (runs on exit).
stop_cluster() {
	[ -n "${CLUSTER_DIR:-}" ] && stop_cluster_at "$CLUSTER_DIR" fast
	return 0
}

# Stop the cluster in $1, if it runs, in shutdown mode $2 (fast, immediate).
stop_cluster_at() {
	[ -f "$1/data/postmaster.pid" ] &&
		as_owner "$PG_BIN/pg_ctl" -D "$1/data" -m "$2" -w stop >/dev/null 2>&1
	return 0
}

# Prepare everything: packages, build, install, cluster.
setup_all() {
	mkdir -p "$TOP/tmp"
	ensure_packages "$@"
	build_and_install
	start_cluster
}

# The SQL that starts an ORDER BY benchmark's session: the extension, the
# timing helpers, and sorts in memory, serial, without JIT
# (bench-orderby.sh, bench-gpu-sql.sh).
orderby_bench_session_sql() {
	echo "CREATE EXTENSION bitonic_sort;"
	echo "\\i test/bench/timing.sql"
	echo "\\i test/bench/orderby.sql"
	echo "SET work_mem = '4GB';"
	echo "SET max_parallel_workers_per_gather = 0;"
	echo "SET bitonic_sort.min_rows = 0;"
	echo "SET jit = off;"
}

# The SQL that makes the benchmarks' table t of $1 random rows: int8 a,
# float8 f, md5 text s, int4 i (bench-nodes.sh, bench-parallel.sh).
bench_table_sql() {
	echo "CREATE TABLE t AS SELECT (random() * 1e18)::int8 AS a, random() AS f,"
	echo "  md5(g::text) AS s, (random() * 2e9 - 1e9)::int4 AS i FROM generate_series(1, $1) g;"
}

# Count one check of a test script: its group's label, its name, then the
# command that must succeed; prints a TAP line and adds to the caller's
# pass and fail counts (run-sharded.sh, run-temp-full.sh).
check_in() {
	local label=$1 name=$2
	shift 2
	if "$@"; then
		echo "ok - $label: $name"
		pass=$((pass + 1))
	else
		echo "not ok - $label: $name"
		fail=$((fail + 1))
	fi
}
