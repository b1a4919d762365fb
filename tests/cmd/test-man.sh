#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-man.sh BUILD SCR: the man pages (man/*.scd, built with scdoc).
#   - every page of man/ was built and renders with `man -l` without a
#     single groff warning;
#   - every command `scr help` lists has its section in scr(1);
#   - scr.conf(5) lists every parameter `scr config --list` prints, with the
#     same default, and nothing else (the page is generated from the built
#     command, so this proves the generation ran from it);
#   - after `cmake --install BUILD --prefix X`, `man scr`, `man scr.conf`,
#     the other pages and their other names work with MANPATH=X/share/man.
set -u
build=$1
scr=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
mandir=$build/man
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
notok() { fail=$((fail + 1)); echo "not ok - $1"; }
check() { # check NAME COMMAND...: the command must succeed
	local name=$1
	shift
	if "$@"; then ok "$name"; else notok "$name"; fi
}
# man(1) as root hands formatting to the "man" user and its seccomp
# sandbox: keep both out of the way, the pages are what is tested
export MAN_DISABLE_SECCOMP=1 MANWIDTH=80 LC_ALL=C.UTF-8

# rendered text of a page file; groff's warnings (all of them: -ww) go to
# $tmp/warn.<page>
render() {
	local page=$1
	man -l --warnings=w "$mandir/$page" 2>"$tmp/warn.$page"
}

pages=()
for scd in "$src"/man/*.scd; do
	p=$(basename "$scd" .scd)
	pages+=("$p")
	if [ ! -s "$mandir/$p" ]; then
		notok "$p was built (no $mandir/$p: is scdoc installed?)"
		continue
	fi
	check "$p is roff from scdoc" grep -q '^\.TH ' "$mandir/$p"
	render "$p" >"$tmp/$p.txt"
	if [ -s "$tmp/warn.$p" ]; then
		notok "$p renders without warnings: $(head -3 "$tmp/warn.$p")"
	else
		ok "$p renders without warnings"
	fi
	# the page's NAME line, as man shows it
	check "$p has a NAME section" grep -q '^NAME$' "$tmp/$p.txt"
done
[ "${#pages[@]}" -ge 4 ] && ok "${#pages[@]} pages in man/" || notok "pages in man/"

# every command scr help lists, and --version, is a subsection of scr(1)
cmds=$("$scr" help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] && ok "scr help lists commands" || notok "scr help lists commands"
"$scr" help | grep -q -- '--version' && cmds="$cmds --version"
for c in $cmds; do
	# scdoc writes "## run [ARGS]" as .SS "run [ARGS]" or .SS run ...
	if grep -Eq "^\.SS \"?$c( |\"|$)" "$mandir/scr.1"; then
		ok "scr.1 documents scr $c"
	else
		notok "scr.1 documents scr $c (no '## $c' section in man/scr.1.scd)"
	fi
done

# scr.conf(5): the PARAMETERS section is the built command's table
awk '/^PARAMETERS$/ { on = 1; next } /^[A-Z]/ { on = 0 } on' "$tmp/scr.conf.5.txt" \
	>"$tmp/params.txt"
"$scr" config --list | tail -n +2 >"$tmp/list.txt"
[ -s "$tmp/list.txt" ] && ok "scr config --list prints parameters" ||
	notok "scr config --list prints parameters"
n=0 bad=0
while read -r name dflt _; do
	n=$((n + 1))
	if [ "$dflt" = "-" ]; then want="       $name"; else want="       $name (default: $dflt)"; fi
	if ! grep -Fxq -- "$want" "$tmp/params.txt"; then
		notok "scr.conf.5 lists '$want'"
		bad=$((bad + 1))
	fi
done <"$tmp/list.txt"
[ "$bad" -eq 0 ] && ok "scr.conf.5 lists all $n parameters with their defaults"
entries=$(grep -Ec '^       [A-Z][A-Z0-9_]*( \(default: .*\))?$' "$tmp/params.txt")
check "scr.conf.5 has no parameter the command lacks ($entries entries, $n parameters)" \
	test "$entries" -eq "$n"
# a description from the table, word for word (the generator's output)
d=$("$scr" config --list --format=scdoc | grep -c '^\*SCR\\_')
check "scr config --list --format=scdoc covers the table ($d)" \
	test "$d" -eq "$(grep -c '^SCR_' "$tmp/list.txt")"

# installed: man finds the pages by name in X/share/man.  DESTDIR keeps
# a build configured with absolute install directories (a Slurm PluginDir)
# from writing outside the temporary tree.
inst=/opt/scr-mantest
if DESTDIR=$tmp/root cmake --install "$build" --prefix "$inst" >"$tmp/install.log" 2>&1
then
	ok "cmake --install --prefix $inst (DESTDIR=$tmp/root)"
else
	notok "cmake --install: $(tail -3 "$tmp/install.log")"
fi
export MANPATH=$tmp/root$inst/share/man
for q in "scr:scr - run, relaunch" "scr.conf:scr.conf - SCR configuration" \
	"3 libscr:libscr - the SCR" "8 scr-plugins:scr-plugins, scr-prolog" \
	"scr_srun:scr - run, relaunch" "scr-epilog:scr-plugins, scr-prolog"; do
	args=${q%%:*} want=${q#*:}
	# shellcheck disable=SC2086 # "3 libscr" is two arguments
	out=$(man $args 2>&1)
	case "$out" in
	*"$want"*) ok "MANPATH=X/share/man man $args" ;;
	*) notok "MANPATH=X/share/man man $args: $(echo "$out" | head -2)" ;;
	esac
done

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
