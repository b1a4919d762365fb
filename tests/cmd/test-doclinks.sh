#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-doclinks.sh SRC: the project's documentation stands on its own.
#   - every relative link in README.md and docs/*.md ([text](path),
#     [text](path#anchor), [ref]: path) names a file or directory of the
#     repository (outside code blocks and code spans);
#   - no file of the repository links or refers to the design notes kept
#     outside it (the shared directory next to the checkout).
# Files of the repository: `git ls-files` (tracked, and new files not
# ignored) when SRC is a git checkout, else every file but build trees.
set -u
src=$(cd "$1" && pwd -P)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
notok() { fail=$((fail + 1)); echo "not ok - $1"; }

cd "$src" || exit 1
if git rev-parse --show-toplevel >/dev/null 2>&1; then
	git ls-files --cached --others --exclude-standard >"$tmp/files"
else
	find . -path './build*' -prune -o -path './_build*' -prune -o -path ./.git -prune \
		-o -type f -print | sed 's|^\./||' >"$tmp/files"
fi
sort -u -o "$tmp/files" "$tmp/files"
# directories of the repository: every parent of a file
awk -F/ '{ p = ""; for (i = 1; i < NF; i++) { p = p (i > 1 ? "/" : "") $i; print p } }' \
	"$tmp/files" | sort -u >"$tmp/dirs"
[ -s "$tmp/files" ] && ok "$(wc -l <"$tmp/files") files in the repository" ||
	notok "files in the repository"

# the link targets of a markdown file, one per line: code blocks (fenced, or
# indented four spaces after a blank line) and `code spans` are left out
md_links() {
	awk '
		/^[ \t]*```/ { fence = !fence; next }
		fence { next }
		/^    / && blank { next }
		{ blank = ($0 ~ /^[ \t]*$/) }
		{
			line = $0
			gsub(/`[^`]*`/, "", line)
			while (match(line, /\]\([^)]*\)/)) {
				print substr(line, RSTART + 2, RLENGTH - 3)
				line = substr(line, RSTART + RLENGTH)
			}
			if (match(line, /^ *\[[^]]+\]: *[^ ]+/)) {
				sub(/^ *\[[^]]+\]: */, "", line)
				sub(/ .*/, "", line)
				print line
			}
		}' "$1"
}

# normalize dir/target (no leading ./, a/../b is b); empty when it leaves
# the repository
resolve() {
	local path=$1 out=() part
	IFS=/ read -ra parts <<<"$path"
	for part in "${parts[@]}"; do
		case "$part" in
		"" | .) ;;
		..)
			[ "${#out[@]}" -eq 0 ] && return 0
			unset 'out[${#out[@]}-1]'
			;;
		*) out+=("$part") ;;
		esac
	done
	(IFS=/ && echo "${out[*]}")
}

mds=(README.md)
for f in docs/*.md; do
	[ -e "$f" ] && mds+=("$f")
done
nlinks=0
for md in "${mds[@]}"; do
	if ! grep -Fxq "$md" "$tmp/files"; then
		notok "$md is in the repository"
		continue
	fi
	dir=$(dirname "$md")
	while IFS= read -r link; do
		link=${link%% \"*} # [x](path "title")
		case "$link" in
		"" | \#* | http://* | https://* | mailto:* | ftp://*) continue ;;
		esac
		nlinks=$((nlinks + 1))
		target=${link%%#*}
		if [ "${target#/}" != "$target" ]; then
			notok "$md: link '$link' is absolute; use a path relative to $dir"
			continue
		fi
		rel=$(resolve "$dir/$target")
		if [ -z "$rel" ] && [ "$dir/$target" != "./" ]; then
			notok "$md: link '$link' leaves the repository"
		elif [ -z "$rel" ] || grep -Fxq "$rel" "$tmp/files" ||
			grep -Fxq "$rel" "$tmp/dirs"; then
			ok "$md: $link"
		else
			notok "$md: link '$link' ($rel) is not a file of the repository"
		fi
	done < <(md_links "$md")
done
[ "$nlinks" -gt 0 ] && ok "$nlinks relative links checked" || notok "relative links found"

# nothing refers to the notes outside the repository (spelled in two parts
# here, so this file does not find itself)
outside='/work/''shared'
sibling='\.\./''shared'
: >"$tmp/refs"
while IFS= read -r f; do
	[ -f "$f" ] || continue
	grep -IHn -e "$outside" -e "$sibling" -- "$f" >>"$tmp/refs" 2>/dev/null
done <"$tmp/files"
if [ -s "$tmp/refs" ]; then
	notok "no file refers to the notes outside the repository:"
	sed 's/^/#   /' "$tmp/refs"
else
	ok "no file refers to the notes outside the repository"
fi

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
