#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-deb.sh: SCR as distribution packages, tested as installed, on a clean
# Debian machine (root).
#   1. copies the source tree into a scratch directory (the checkout is not
#      touched) and builds the Debian packages of packaging/debian with
#      dpkg-buildpackage -b -us -uc (the unit tests run in the build);
#      lintian finds no error or warning that packaging/debian does not
#      override (each override says why)
#   2. apt-get install ./*.deb, removes the copy and its build tree, and tests
#      the installed files alone: the example application built with
#      find_package(SCR) and with pkg-config, the Slurm cluster test's
#      cases that hang on what is installed where (SCR_INSTALLED=/usr
#      tests/cluster/test-slurm.sh; SCR_TEST_CASES= for all) and the README
#      demo (SCR_INSTALLED=/usr examples/demo-slurm.sh)
#   3. apt-get purge: every path the packages installed is gone, apart from
#      directories that other packages own too
#   4. rpmbuild -bb packaging/rpm/scr.spec from a tarball of the same tree:
#      the RPMs hold the same files as the Debian packages (filelist.sh maps
#      the known differences)
#   5. with flux-core found (SCR_FLUX_PREFIX, default /opt/flux; it is not in
#      Debian): the same builds with the Flux plugin (-Ppkg.scr.flux,
#      rpmbuild --with flux), linted and compared; skipped without it
# SCR_TEST_KEEP=1 keeps the scratch directory (and its logs).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/install
pkgs=(libscr0 libscr-dev scr slurm-scr-plugin)
flux_prefix=${SCR_FLUX_PREFIX:-/opt/flux}
export DEBIAN_FRONTEND=noninteractive
pass=0 fail=0 scratch="" installed=0 t0=$SECONDS
check() {
	local name=$1
	shift
	if "$@"; then pass=$((pass + 1)); echo "ok - $name"
	else fail=$((fail + 1)); echo "not ok - $name"; return 1; fi
}
bail() { echo "# $1: the steps after it cannot run"; echo "$pass passed, $fail failed"; exit 1; }
took() { echo "# $1: $((SECONDS - $2)) s"; }
logtail() { echo "--- last lines of $1:"; tail -"${2:-30}" "$1" | sed 's/^/    /'; }
. "$here/app.sh"

cleanup() {
	[ "$installed" = 1 ] && apt-get purge -y -q "${pkgs[@]}" >/dev/null 2>&1
	[ -n "$scratch" ] && [ -z "${SCR_TEST_KEEP:-}" ] && rm -rf "$scratch"
}

preflight() {
	local t p
	if [ "$(id -u)" != 0 ]; then echo "SKIPPED: needs root (apt-get install)"; exit 77; fi
	for t in dpkg-buildpackage lintian rpmbuild apt-get cmake; do
		command -v "$t" >/dev/null || { echo "not ok - $t is not installed (scripts/install-deps)"; exit 1; }
	done
	for p in "${pkgs[@]}" flux-scr-plugin; do
		case "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" in
		"" | un* | pn*) ;;
		*) echo "not ok - $p is installed already: this test installs and purges it"; exit 1 ;;
		esac
	done
}

# copy_tree DEST: the working tree as it is (uncommitted changes included),
# without build directories, VCS data and what .gitignore keeps out
copy_tree() {
	mkdir -p "$1" &&
		(cd "$top" && tar --exclude='./build*' --exclude='./_build*' --exclude=./.git \
			--exclude='./obj-*' --exclude=./debian --exclude=./tests/fuzz/work \
			--exclude=./bench/results -cf - .) | tar -xf - -C "$1"
}

# build_debs DIR [PROFILE]: dpkg-buildpackage in DIR (a copy of the tree)
build_debs() {
	local dir=$1 profile=${2:-}
	cp -r "$dir/packaging/debian" "$dir/debian" &&
		(cd "$dir" && dpkg-buildpackage -b -us -uc -j2 ${profile:+-P"$profile"}) \
			>"$dir.deb-build.log" 2>&1 || { logtail "$dir.deb-build.log" 40; return 1; }
}

# flux_debs DIR, flux_rpms TOPDIR: the same against flux-core at $flux_prefix
flux_debs() { (export PKG_CONFIG_PATH=$fluxpc DEB_BUILD_OPTIONS=nocheck && build_debs "$1" pkg.scr.flux); }
flux_rpms() { (export PKG_CONFIG_PATH=$fluxpc && build_rpms "$1" --with flux); }

# lint CHANGES: lintian fails on any error or warning not overridden
lint() {
	lintian --fail-on error,warning -I --pedantic "$1" >"$1.lintian" 2>&1
	local rc=$?
	grep -v '^running with root' "$1.lintian" | sed 's/^/# lintian: /'
	return $rc
}

# build_rpms TOPDIR [--with flux]: rpmbuild -bb from the tarball in
# TOPDIR/SOURCES.  --nodeps: BuildRequires name RPM packages, and this
# machine's rpm database is empty although the Debian packages provide all
# of it.  --nocheck: the Debian build ran the same unit tests on this tree.
build_rpms() {
	local topdir=$1
	shift
	# --nocheck: no unit tests run here, so none are built (--without tests)
	rpmbuild -bb --nodeps --nocheck --without tests --define "_topdir $topdir" "$@" \
		"$top/packaging/rpm/scr.spec" >"$topdir.log" 2>&1 || { logtail "$topdir.log" 40; return 1; }
}

# same_files DEBS... -- RPMS...: the two packagings install the same files
same_files() {
	local debs=() rpms=()
	while [ "$1" != -- ]; do debs+=("$1"); shift; done
	shift
	rpms=("$@")
	"$here/filelist.sh" deb "${debs[@]}" >"$scratch/files.deb" &&
		"$here/filelist.sh" rpm "${rpms[@]}" >"$scratch/files.rpm" || return 1
	grep -q '^slurm {slurmdir}/scr.so$' "$scratch/files.deb" &&
		grep -q '^libs {libdir}/libscr.so.0$' "$scratch/files.deb" ||
		{ echo "--- the Debian file list lacks the plugin or the library:"; cat "$scratch/files.deb"; return 1; }
	diff -u "$scratch/files.deb" "$scratch/files.rpm" | sed 's/^/    /'
	cmp -s "$scratch/files.deb" "$scratch/files.rpm"
}

# deb_file PKG: the .deb of PKG built into $scratch
deb_file() { echo "$scratch/${1}_${version}_${arch}.deb"; }

# deb_has DEB PATH...: the package file lists every PATH (whole listing
# read first: grep -q on the pipe would cut dpkg-deb off)
deb_has() {
	local list p
	list=$(dpkg-deb -c "$1" | awk '{ print $6 }') || return 1
	shift
	for p; do
		grep -qx "\.$p" <<<"$list" || { echo "--- $p is not in the package"; return 1; }
	done
}

# deb_cat DEB PATH: the content of PATH in the package file
deb_cat() { dpkg-deb --fsys-tarfile "$1" | tar -xOf - ".$2"; }

# only comments and blank lines in FILE of package file DEB
all_commented() {
	local body
	body=$(deb_cat "$1" "$2") || return 1
	! printf '%s\n' "$body" | grep -Ev '^[[:space:]]*(#|$)'
}

# deb_line DEB PATH REGEX: a line of PATH in the package file matches
deb_line() {
	local body
	body=$(deb_cat "$1" "$2") || return 1
	grep -Eq -- "$3" <<<"$body" || { echo "--- $2 has no line /$3/:"; sed 's/^/    /' <<<"$body"; return 1; }
}

# the paths of LIST still there, but for directories other packages own
leftovers() {
	local p
	while read -r p; do
		[ "$p" = /. ] && continue
		[ -e "$p" ] || [ -L "$p" ] || continue
		[ -d "$p" ] && [ ! -L "$p" ] && dpkg -S "$p" >/dev/null 2>&1 && continue
		echo "$p"
	done <"$1"
}

preflight
trap cleanup EXIT
# the installed packages are found where the system looks, by everything
unset CMAKE_PREFIX_PATH PKG_CONFIG_PATH LD_LIBRARY_PATH
scratch=$(mktemp -d /var/tmp/scr-deb.XXXXXX)
arch=$(dpkg --print-architecture)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
version=$(sed -n 's/^project(scr VERSION \([0-9.]*\).*/\1/p' "$top/CMakeLists.txt")
src=$scratch/scr-$version

# ---- 1. build and lint
check "debian/changelog's version is project(VERSION) $version" \
	test "$(dpkg-parsechangelog -l "$top/packaging/debian/changelog" -S Version)" = "$version"
check "scr.spec's Version is $version" grep -Eq "^Version:[[:space:]]+$version\$" "$top/packaging/rpm/scr.spec"
check "a copy of the source tree in $scratch" copy_tree "$src" || bail "no copy"
mkdir -p "$scratch/rpm/SOURCES"
tar -C "$scratch" -czf "$scratch/rpm/SOURCES/scr-$version.tar.gz" "scr-$version"
t=$SECONDS
# scripts/test sets DEB_BUILD_OPTIONS=nocheck: its gcc lane ran the unit
# tests on the same source moments before
what="unit tests included"
case " ${DEB_BUILD_OPTIONS:-} " in *" nocheck "*) what="unit tests left out: DEB_BUILD_OPTIONS=nocheck" ;; esac
check "dpkg-buildpackage -b -us -uc builds the packages ($what)" build_debs "$src" ||
	bail "no packages"
took "Debian build" $t
for p in "${pkgs[@]}"; do
	check "$p built" test -f "$(deb_file "$p")"
done
check "no flux-scr-plugin without the build profile pkg.scr.flux" test ! -e "$(deb_file flux-scr-plugin)"
check "lintian: no error or warning that packaging/debian does not override" \
	lint "$scratch/scr_${version}_${arch}.changes"
debs=()
for p in "${pkgs[@]}"; do debs+=("$(deb_file "$p")"); done
check "libscr0 holds libscr.so.0 and libscrf.so.0" \
	deb_has "$(deb_file libscr0)" "/usr/lib/$ma/libscr.so.0" "/usr/lib/$ma/libscrf.so.0"
check "slurm-scr-plugin puts both plugins in Slurm's PluginDir /usr/lib/$ma/slurm-wlm" \
	deb_has "$(deb_file slurm-scr-plugin)" "/usr/lib/$ma/slurm-wlm/scr.so" "/usr/lib/$ma/slurm-wlm/job_submit_scr.so"
check "plugstack.conf.d/scr.conf enables nothing: every line is a comment" \
	all_commented "$(deb_file slurm-scr-plugin)" /etc/slurm/plugstack.conf.d/scr.conf
check "and its commented line names the installed plugin" \
	deb_line "$(deb_file slurm-scr-plugin)" /etc/slurm/plugstack.conf.d/scr.conf "^#optional /usr/lib/$ma/slurm-wlm/scr\.so "
check "slurm-scr-plugin depends on the Slurm release it was built for" sh -c \
	'dpkg-deb -f "$1" Depends | grep -Eq "slurm-wlm-basic-plugins \(>= [0-9]+\.[0-9]+\)"' sh "$(deb_file slurm-scr-plugin)"

# ---- 2. install, and test the installed files alone
t=$SECONDS
installed=1
check "apt-get install ./*.deb" sh -c 'apt-get install -y -q --no-install-recommends "$@" >"$0" 2>&1 || { tail -20 "$0"; exit 1; }' \
	"$scratch/apt-install.log" "${debs[@]}" || bail "not installed"
dpkg -L "${pkgs[@]}" | sort -u >"$scratch/installed.list"
rm -rf "$src"
echo "# the source copy and its build tree are gone: what runs now is what the packages installed"
check "scr on PATH is the installed /usr/bin/scr, version $version" \
	sh -c '[ "$(command -v scr)" = /usr/bin/scr ] && dpkg -S /usr/bin/scr | grep -q "^scr:" && scr --version | grep -q "$1"' sh "$version"
check "man finds scr(1), libscr(3), scr.conf(5) and scr-prolog(8)" \
	sh -c 'for p in "1 scr" "3 libscr" "5 scr.conf" "8 scr-prolog"; do man -w $p >/dev/null || { echo "no man page $p"; exit 1; }; done'
app_checks "$scratch/app" cc "" "/usr/lib/$ma/cmake/SCR"
took "install and the example application" $t

t=$SECONDS
# the cases that depend on what is installed where: the options and the
# job_submit plugin (e, g), the prolog's drain and purge (c), scavenge,
# index and fetch by the installed tools (b, f), the epilog's refusal of a
# symbolic link (d).  The relaunches (a: on the spare, h: past a step Slurm
# keeps, i: a rank dying alone, s: a launch that never starts) are scr run's and the library's; they run in
# cluster_slurm_san from the build tree, and the demo below relaunches on
# the spare from these packages.  SCR_TEST_CASES= (empty) runs them all.
SCR_TEST_CASES=${SCR_TEST_CASES-e g c b f d} SCR_INSTALLED=/usr \
	bash "$top/tests/cluster/test-slurm.sh" >"$scratch/slurm.log" 2>&1
rc=$?
sed 's/^/    /' "$scratch/slurm.log"
check "the Slurm cluster test ran in installed mode (plugin from /usr/lib/$ma/slurm-wlm)" \
	grep -q "^# installed mode: /usr/lib/$ma/slurm-wlm/scr.so" "$scratch/slurm.log"
check "the Slurm cluster test passes against the installed packages (exit $rc)" test $rc = 0
took "Slurm cluster test" $t
t=$SECONDS
# the demo bounds its own waits (and prints where things stood); the
# timeout is for a wait it does not know of, so that this script, not
# CTest's limit, reports it
SCR_INSTALLED=/usr timeout -k 20 1200 bash "$top/examples/demo-slurm.sh" >"$scratch/demo.log" 2>&1
rc=$?
[ $rc = 124 ] && echo "# the demo did not end in 1200 s"
check "the README demo runs on the installed packages (SCR_INSTALLED=/usr examples/demo-slurm.sh)" \
	sh -c '[ "$1" = 0 ] && grep -q "^demo: ok" "$2" || { tail -150 "$2"; exit 1; }' sh $rc "$scratch/demo.log"
took "demo" $t

# ---- 3. purge: nothing left behind
check "apt-get purge" sh -c 'apt-get purge -y -q "$@" >"$0" 2>&1 || { tail -20 "$0"; exit 1; }' \
	"$scratch/apt-purge.log" "${pkgs[@]}"
installed=0
check "dpkg knows none of the packages any more (no config-files state)" sh -c \
	'for p; do s=$(dpkg-query -W -f="\${db:Status-Abbrev}" "$p" 2>/dev/null); case "$s" in ""|un*|pn*) ;; *) echo "$p: $s"; exit 1 ;; esac; done' \
	sh "${pkgs[@]}"
leftovers "$scratch/installed.list" >"$scratch/leftovers"
check "every path the packages installed is gone ($(wc -l <"$scratch/installed.list") listed; shared directories stay)" \
	sh -c '[ ! -s "$1" ] || { sed "s/^/    left: /" "$1"; exit 1; }' sh "$scratch/leftovers"

# ---- 4. the RPMs: same files
t=$SECONDS
check "rpmbuild -bb packaging/rpm/scr.spec from a tarball of the tree" build_rpms "$scratch/rpm"
took "RPM build" $t
check "rpm -qlp lists the files dpkg-deb -c lists, package by package (tests/install/filelist.sh)" \
	same_files "${debs[@]}" -- "$scratch"/rpm/RPMS/*/*.rpm

# ---- 5. the Flux plugin, when flux-core is there to build it against
fluxpc=$flux_prefix/lib/pkgconfig
if [ -f "$fluxpc/flux-core.pc" ]; then
	t=$SECONDS
	fsrc=$scratch/flux/scr-$version
	copy_tree "$fsrc" && mkdir -p "$scratch/flux/rpm/SOURCES" &&
		tar -C "$scratch/flux" -czf "$scratch/flux/rpm/SOURCES/scr-$version.tar.gz" "scr-$version"
	check "with -Ppkg.scr.flux and flux-core from $flux_prefix: flux-scr-plugin is built too" \
		flux_debs "$fsrc"
	fdeb=$scratch/flux/flux-scr-plugin_${version}_${arch}.deb
	check "flux-scr-plugin holds the shell plugin" deb_has "$fdeb" "/usr/lib/$ma/flux/shell/plugins/scr.so"
	check "its example shell rc file loads it from there" \
		deb_line "$fdeb" /usr/share/scr/flux/scr-shell.lua "file = \"/usr/lib/$ma/flux/shell/plugins/scr\.so\""
	check "lintian on the Flux build: no error or warning not overridden" lint "$scratch/flux/scr_${version}_${arch}.changes"
	check "rpmbuild --with flux" flux_rpms "$scratch/flux/rpm"
	fdebs=()
	for p in "${pkgs[@]}" flux-scr-plugin; do fdebs+=("$scratch/flux/${p}_${version}_${arch}.deb"); done
	check "with Flux too, the RPMs hold the files the Debian packages hold" \
		same_files "${fdebs[@]}" -- "$scratch"/flux/rpm/RPMS/*/*.rpm
	took "Flux variant" $t
else
	echo "ok - # SKIP no flux-core at $flux_prefix (SCR_FLUX_PREFIX): the Flux package is not built"
fi

took "test-deb.sh" $t0
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
