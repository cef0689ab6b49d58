#!/usr/bin/env bash
# test/scripts/build-pg.sh MAJOR — build PostgreSQL MAJOR (16, 17, 18) from
# Debian's source package into ./tmp/pg$MAJOR (server, contrib, headers),
# once: a second run finds it there and only prints its pg_config.  The
# source package comes from Debian's newer suites through an apt lists
# directory of its own (tmp/pg-apt), so the system's sources stay as they
# are.  As root, the build tools it needs are installed with apt-get; as
# another user it says what to install.  Prints the pg_config path last.
set -u
source "$(dirname "$0")/common.sh"
major=${1:?usage: build-pg.sh MAJOR}
prefix=$TOP/tmp/pg$major
if [ -x "$prefix/bin/pg_config" ] && [ -f "$prefix/.built" ]; then
	echo "$prefix/bin/pg_config"
	exit 0
fi
mkdir -p "$TOP/tmp"
ensure_build_tools() {
	local missing=() p
	for p in make gcc bison flex libicu-dev libxml2-dev zlib1g-dev pkg-config dpkg-dev xz-utils bzip2; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "Install first:  sudo apt-get install -y ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
}
ensure_build_tools >&2

# Debian's source package, from the first newer suite that has it
apt_dir=$TOP/tmp/pg-apt
src_dir=$TOP/tmp/pg-src/$major
mkdir -p "$apt_dir/lists/partial" "$src_dir"
for suite in trixie trixie-updates forky sid; do
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main"
done >"$apt_dir/sources.list"
apt_opts=(-q -o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists="$apt_dir/lists" -o Debug::NoDropPrivs=true -o APT::Sandbox::User=root)
if ! ls "$src_dir"/postgresql-"$major"_*.orig.tar.* >/dev/null 2>&1; then
	echo "== fetching Debian's source package postgresql-$major" >&2
	apt-get "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1 || { cat "$apt_dir/update.log" >&2; die "apt-get update of the source lists failed"; }
	(cd "$src_dir" && apt-get "${apt_opts[@]}" source --download-only "postgresql-$major") >"$apt_dir/source.log" 2>&1 ||
		{ cat "$apt_dir/source.log" >&2; die "no source package postgresql-$major in Debian's newer suites"; }
fi
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
