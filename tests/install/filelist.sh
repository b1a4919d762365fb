#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# filelist.sh deb|rpm PACKAGE_FILE...: what the packages install, one
# "<part> <path>" line per file or symlink (directories left out), in a form
# that is the same for the Debian and the RPM packages of one build, so
# test-deb.sh can diff the two.  The known differences are mapped here:
#
#   part          Debian             RPM
#   libs          libscr0            scr-libs
#   devel         libscr-dev         scr-devel
#   scr           scr                scr
#   slurm         slurm-scr-plugin   scr-slurm
#   flux          flux-scr-plugin    scr-flux
#
#   {slurmdir}    /usr/lib/<multiarch>/slurm-wlm   /usr/lib64/slurm
#   {libdir}      /usr/lib/<multiarch>             /usr/lib64
#   {docdir}      /usr/share/doc/<package>         /usr/share/doc/<name>[-<version>]
#   .gz           man pages and docs: Debian compresses them (dh_compress), the
#                 RPM as built here does not: the suffix is dropped
#
# Left out as belonging to one packaging system only: Debian's
# copyright and changelog.gz in each doc dir (policy; the RPM keeps its
# changelog in the header), lintian overrides, dbgsym packages; the RPM's
# /usr/lib/.build-id links, its %license files under /usr/share/licenses
# (what Debian's copyright files hold) and debuginfo/debugsource packages.
set -euo pipefail
kind=${1:?usage: filelist.sh deb|rpm PACKAGE_FILE...}
shift

deb_part() {
	case "$1" in
	libscr0) echo libs ;;
	libscr-dev) echo devel ;;
	scr) echo scr ;;
	slurm-scr-plugin) echo slurm ;;
	flux-scr-plugin) echo flux ;;
	*) echo "filelist.sh: unknown Debian package $1" >&2; return 1 ;;
	esac
}
rpm_part() {
	case "$1" in
	scr-libs) echo libs ;;
	scr-devel) echo devel ;;
	scr) echo scr ;;
	scr-slurm) echo slurm ;;
	scr-flux) echo flux ;;
	*) echo "filelist.sh: unknown RPM package $1" >&2; return 1 ;;
	esac
}

# "MODE PATH" lines of one package file
deb_entries() { dpkg-deb -c "$1" | awk '{ p = $6; sub(/^\./, "", p); print $1, p }'; }
rpm_entries() { rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" 2>/dev/null; }

# the MODE PATH lines of package file $2 of kind $1 with the paths mapped
entries() {
	local ma
	case "$1" in
	deb)
		ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
		deb_entries "$2" | sed -e "s|^\([^ ]*\) /usr/lib/$ma/slurm-wlm/|\1 {slurmdir}/|" \
			-e "s|^\([^ ]*\) /usr/lib/$ma/|\1 {libdir}/|" \
			-e '\|/usr/share/doc/[^/]*/copyright$|d' -e '\|/usr/share/doc/[^/]*/changelog\.gz$|d' \
			-e '\|/usr/share/lintian/|d'
		;;
	rpm)
		rpm_entries "$2" | sed -e 's|^\([^ ]*\) /usr/lib64/slurm/|\1 {slurmdir}/|' \
			-e 's|^\([^ ]*\) /usr/lib64/|\1 {libdir}/|' -e '\|/usr/lib/\.build-id/|d' \
			-e '\|/usr/share/licenses/|d'
		;;
	esac
}

for f in "$@"; do
	case "$kind" in
	deb) name=$(dpkg-deb -f "$f" Package) ;;
	rpm) name=$(rpm -qp --qf '%{NAME}' "$f" 2>/dev/null) ;;
	*) echo "filelist.sh: deb or rpm, not $kind" >&2; exit 1 ;;
	esac
	case "$name" in *-dbgsym | *-debuginfo | *-debugsource) continue ;; esac
	part=$("${kind}_part" "$name")
	entries "$kind" "$f" | grep -v '^d' | sed -e 's|^[^ ]* ||' \
		-e 's|^/usr/share/doc/[^/]*/|{docdir}/|' \
		-e '\|^/usr/share/man/|s|\.gz$||' -e '\|^{docdir}/|s|\.gz$||' \
		-e "s|^|$part |"
done | sort
