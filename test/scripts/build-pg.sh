#!/usr/bin/env bash
# test/scripts/build-pg.sh MAJOR — PostgreSQL MAJOR (16, 17, 18) for the
# tests, under ./tmp, once: a second run finds it there and only prints its
# pg_config.  Prints the pg_config path last.
#
#  - Built from Debian's source package, from the first of Debian's newer
#    suites that has it, into ./tmp/pg$MAJOR (server, contrib, headers).
#  - Where the archive does not serve the source files (17: trixie's index
#    names postgresql-17, its files answer 404), Debian trixie's binary
#    packages instead: PostgreSQL's and every shared library they need,
#    glibc included, unpacked into ./tmp/pg${MAJOR}root.  patchelf points
#    PostgreSQL's executables at trixie's dynamic loader and all of its ELF
#    files at the unpacked libraries (RPATH), so they run on this older
#    system.  The layout under that root is Debian's, and PostgreSQL finds
#    its directories relative to its executables: pg_config names the
#    directories under the root, and `make install` writes there.
#
# apt works on lists directories of its own (tmp/pg-apt, tmp/pg-apt-bin), so
# the system's sources stay as they are.  As root, the tools it needs are
# installed with apt-get; as another user it says what to install.
set -u
source "$(dirname "$0")/common.sh"
major=${1:?usage: build-pg.sh MAJOR}
prefix=$TOP/tmp/pg$major
root=$TOP/tmp/pg${major}root
root_pg_config=$root/usr/lib/postgresql/$major/bin/pg_config
if [ -x "$prefix/bin/pg_config" ] && [ -f "$prefix/.built" ]; then
	echo "$prefix/bin/pg_config"
	exit 0
fi
# Running it checks that the root is still where its executables were pointed.
if [ -f "$root/.built" ] && "$root_pg_config" --version >/dev/null 2>&1; then
	echo "$root_pg_config"
	exit 0
fi
mkdir -p "$TOP/tmp"

# Install the Debian packages named that are missing (as root), or say what to install.
ensure_tools() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "run as root: apt-get install -y ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
}

# apt_lists DIR LINE...: write the sources LINEs into DIR, update DIR's own
# lists from them, and set apt_opts for apt-get and apt-cache to use them.
apt_lists() {
	local dir=$1
	shift
	mkdir -p "$dir/lists/partial"
	printf '%s\n' "$@" >"$dir/sources.list"
	apt_opts=(-q -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$dir/lists" -o Debug::NoDropPrivs=true -o APT::Sandbox::User=root)
	apt-get "${apt_opts[@]}" update >"$dir/update.log" 2>&1 ||
		{ cat "$dir/update.log" >&2; die "apt-get update of the lists in $dir failed"; }
}

archive="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian"

# Build Debian's source package into $prefix; returns 1, having built
# nothing, where no suite's source files can be fetched.
from_source() {
	local src_dir=$TOP/tmp/pg-src/$major suite lines=() tarball
	mkdir -p "$src_dir"
	if ! ls "$src_dir"/postgresql-"$major"_*.orig.tar.* >/dev/null 2>&1; then
		echo "== fetching Debian's source package postgresql-$major" >&2
		for suite in trixie trixie-updates forky sid; do
			lines+=("deb-src $archive $suite main")
		done
		apt_lists "$TOP/tmp/pg-apt" "${lines[@]}"
		if ! (cd "$src_dir" && apt-get "${apt_opts[@]}" source --download-only "postgresql-$major") \
			>"$TOP/tmp/pg-apt/source.log" 2>&1; then
			echo "== the source package postgresql-$major cannot be fetched ($(grep -m1 -E '^(E|Err):' "$TOP/tmp/pg-apt/source.log"))" >&2
			return 1
		fi
	fi
	ensure_tools make gcc bison flex libicu-dev libxml2-dev zlib1g-dev pkg-config dpkg-dev xz-utils bzip2 >&2
	tarball=$(ls "$src_dir"/postgresql-"$major"_*.orig.tar.* | head -1)
	rm -rf "$src_dir/build"
	mkdir -p "$src_dir/build"
	tar -xf "$tarball" -C "$src_dir/build" --strip-components=1

	echo "== building PostgreSQL $major into $prefix (minutes)" >&2
	(cd "$src_dir/build" &&
		./configure --prefix="$prefix" --with-icu --with-libxml --without-readline >"$src_dir/configure.log" 2>&1 &&
		make -j"$(nproc)" -s world-bin >"$src_dir/build.log" 2>&1 &&
		make -s install-world-bin >"$src_dir/install.log" 2>&1) ||
		{ tail -30 "$src_dir"/*.log >&2; die "building PostgreSQL $major failed (logs in $src_dir)"; }
	rm -rf "$src_dir/build"
	touch "$prefix/.built"
	echo "$prefix/bin/pg_config"
}

# The shared-library packages (Section libs) that the packages named depend
# on, recursively, one a line.
lib_closure() {
	local level=("$@") next=() seen=" " p
	while [ ${#level[@]} -gt 0 ]; do
		mapfile -t next < <(apt-cache "${apt_opts[@]}" depends --no-recommends --no-suggests --no-conflicts \
			--no-breaks --no-replaces --no-enhances "${level[@]}" | awk '$1 ~ /Depends:$/ && $2 !~ /^</ { print $2 }' | sort -u)
		level=()
		[ ${#next[@]} -eq 0 ] && break
		for p in $(apt-cache "${apt_opts[@]}" show --no-all-versions "${next[@]}" 2>/dev/null |
			awk '/^Package:/ { p = $2 } /^Section: (old)?libs$/ { print p }'); do
			case $seen in *" $p "*) continue ;; esac
			seen+="$p "
			level+=("$p")
			echo "$p"
		done
	done
}

# MK: a Makefile.global configured for another suite's compilers (trixie's
# gcc 14): drop from its CFLAGS and CXXFLAGS the flags that this system's
# compilers reject (g++ 12 has no -fexcess-precision=standard for C++).
fit_flags_to_compilers() {
	local mk=$1 spec var lang compiler flag kept dropped=()
	for spec in CFLAGS:c:CC CXXFLAGS:c++:CXX; do
		IFS=: read -r var lang compiler <<<"$spec"
		compiler=$(sed -n "s/^$compiler = //p" "$mk")
		kept=()
		for flag in $(sed -n "s/^$var = //p" "$mk"); do
			# with the flags kept before it (-Werror=format-security needs -Wall's -Wformat)
			if $compiler "${kept[@]}" "$flag" -x "$lang" -c -o /dev/null /dev/null 2>/dev/null; then
				kept+=("$flag")
			else
				dropped+=("$flag ($var)")
			fi
		done
		sed -i "s|^$var = .*|$var = ${kept[*]}|" "$mk"
	done
	[ ${#dropped[@]} -eq 0 ] || echo "== this system's compilers lack, dropped from $mk: ${dropped[*]}" >&2
}

# Unpack trixie's binary packages of PostgreSQL and the libraries they need
# into $root and point PostgreSQL's ELF files at them.
from_binaries() {
	local suite=trixie debs=$TOP/tmp/pg-debs/$major pkgs libs=() deb ld libdir f out
	pkgs=("postgresql-$major" "postgresql-client-$major" "postgresql-server-dev-$major")
	ensure_tools patchelf >&2
	echo "== fetching $suite's binary packages of PostgreSQL $major and the libraries they need" >&2
	apt_lists "$TOP/tmp/pg-apt-bin" "deb $archive $suite main"
	apt-cache "${apt_opts[@]}" show "${pkgs[@]}" >/dev/null 2>&1 ||
		die "no source files of postgresql-$major to fetch, and $suite has no binary packages of it either"
	mapfile -t libs < <(lib_closure "${pkgs[@]}")
	rm -rf "$debs" "$root"
	mkdir -p "$debs" "$root"
	(cd "$debs" && apt-get "${apt_opts[@]}" download "${pkgs[@]}" "${libs[@]}") >"$debs.log" 2>&1 ||
		{ cat "$debs.log" >&2; die "no binary packages of PostgreSQL $major in $suite (log: $debs.log)"; }
	for deb in "$debs"/*.deb; do
		dpkg-deb -x "$deb" "$root" || die "dpkg-deb -x $deb failed"
	done
	rm -rf "$debs"

	# trixie's dynamic loader, named as this system's is (ld-linux-x86-64.so.2 on amd64)
	ld=$(find "$root" -type f -name "$(basename "$(patchelf --print-interpreter /bin/sh)")" | head -1)
	[ -n "$ld" ] || die "$suite's libc6 holds no dynamic loader named like this system's"
	libdir=$(dirname "$ld")
	echo "== pointing PostgreSQL $major's executables at $suite's glibc in $libdir" >&2
	# DT_RPATH, not DT_RUNPATH: it also applies to the libraries' own
	# dependencies (libssl's libcrypto, say), which would otherwise come from
	# the system's directories.  A library's own RUNPATH hides it from that
	# library's dependencies: where one has one (libLLVM's $ORIGIN/../lib),
	# it names the unpacked libraries instead.
	for f in "$libdir"/*.so*; do
		[ -f "$f" ] && [ ! -L "$f" ] && [ -n "$(patchelf --print-rpath "$f" 2>/dev/null)" ] || continue
		patchelf --set-rpath "$libdir" "$f" || die "patchelf --set-rpath $f failed"
	done
	while IFS= read -r -d '' f; do
		patchelf --print-rpath "$f" >/dev/null 2>&1 || continue # not a dynamically linked ELF file
		if patchelf --print-interpreter "$f" >/dev/null 2>&1; then
			patchelf --set-interpreter "$ld" "$f" || die "patchelf --set-interpreter $f failed"
		fi
		patchelf --force-rpath --set-rpath "$libdir" "$f" || die "patchelf --set-rpath $f failed"
		# Every library it needs must now come from the root.
		out=$("$ld" --list "$f" 2>&1) || die "$f does not load: $(tr -s '\n' ' ' <<<"$out")"
		if grep -E 'not found|=> /' <<<"$out" | grep -qv "=> $root/"; then
			die "$f needs libraries the root lacks: $(grep -E 'not found|=> /' <<<"$out" | grep -v "=> $root/" | tr -s ' \t\n' ' ')"
		fi
	done < <(find "$root/usr/lib/postgresql/$major" -type f -print0)
	[ "$("$root_pg_config" --pkglibdir)" = "$root/usr/lib/postgresql/$major/lib" ] ||
		die "$root_pg_config does not name the directories under $root"
	fit_flags_to_compilers "$root/usr/lib/postgresql/$major/lib/pgxs/src/Makefile.global"
	touch "$root/.built"
	echo "$root_pg_config"
}

from_source || from_binaries
