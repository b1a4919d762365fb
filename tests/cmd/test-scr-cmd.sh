#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-scr-cmd.sh SCR: the scr command's print, config, help and version.
# The kvtree files here are written byte by byte from the description in
# guide 2.3.4 (printf + gzip's CRC32), independent of our writer.
set -u
scr=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0
check() { # check NAME COMMAND...: the command must succeed
	local name=$1
	shift
	if "$@"; then pass=$((pass + 1)); echo "ok - $name"
	else fail=$((fail + 1)); echo "not ok - $name"; fi
}
be32() { printf "\\x$(printf %02x $(($1 >> 24 & 255)))\\x$(printf %02x $(($1 >> 16 & 255)))\\x$(printf %02x $(($1 >> 8 & 255)))\\x$(printf %02x $(($1 & 255)))"; }

# {"RANK": {"0": {"FILES": {"2": {}}}}, "KEY WITH SPACE": {}}
data() {
	be32 2
	printf 'RANK\0'; be32 1
	printf '0\0'; be32 1
	printf 'FILES\0'; be32 1
	printf '2\0'; be32 0
	printf 'KEY WITH SPACE\0'; be32 0
}
datalen=$(data | wc -c)
# header + data + CRC
total=$((20 + datalen + 4))
{ be32 $((0x951fc3f5)); printf '\0\1\0\1'; be32 0; be32 $total; be32 1; data; } >"$dir/body"
# gzip's trailer holds the CRC32 (zlib's) little-endian: reverse it
crc=$(gzip -c <"$dir/body" | tail -c 8 | head -c 4 | od -An -tu4 | tr -d ' ')
{ cat "$dir/body"; be32 "$crc"; } >"$dir/good.scr"
# the same without a CRC (flags 0)
{ be32 $((0x951fc3f5)); printf '\0\1\0\1'; be32 0; be32 $((20 + datalen)); be32 0; data; } >"$dir/nocrc.scr"

expected='RANK
  0
    FILES
      2
KEY WITH SPACE'
check "print a spec-conforming file" test "$("$scr" print "$dir/good.scr")" = "$expected"
check "print a file without CRC" test "$("$scr" print "$dir/nocrc.scr")" = "$expected"

# damaged files: exit 1 with exactly one line naming the file
bad() { # bad NAME FILE PATTERN
	local out rc
	out=$("$scr" print "$2" 2>&1 >/dev/null)
	rc=$?
	check "$1: exit 1" test $rc -eq 1
	check "$1: one line" test "$(printf '%s\n' "$out" | wc -l)" -eq 1
	check "$1: names file and cause ($out)" \
		sh -c 'case "$1" in *"$2"*"$3"*) exit 0;; *) exit 1;; esac' sh "$out" "$2" "$3"
}
head -c $((total - 5)) "$dir/good.scr" >"$dir/trunc.scr"
bad truncated "$dir/trunc.scr" "truncated"
{ cat "$dir/good.scr"; printf 'x'; } >"$dir/long.scr"
bad "trailing data" "$dir/long.scr" "trailing data"
cp "$dir/good.scr" "$dir/flip.scr"
printf 'X' | dd of="$dir/flip.scr" bs=1 seek=30 conv=notrunc 2>/dev/null
bad "flipped byte" "$dir/flip.scr" "CRC32 mismatch"
head -c 5000 /dev/urandom >"$dir/garbage.scr"
bad garbage "$dir/garbage.scr" "not an SCR kvtree file"
: >"$dir/empty.scr"
bad "empty file" "$dir/empty.scr" "truncated"
bad missing "$dir/missing.scr" "No such file"
bad directory "$dir" "not a regular file"
ln -s "$dir/good.scr" "$dir/link.scr"
bad symlink "$dir/link.scr" "symbolic link"
"$scr" print "$dir/good.scr" "$dir/missing.scr" >/dev/null 2>&1
check "several files, one bad: exit 1" test $? -eq 1

# usage errors
"$scr" print >/dev/null 2>&1
check "print without a file: exit 2" test $? -eq 2
"$scr" frobnicate >/dev/null 2>&1
check "unknown command: exit 2" test $? -eq 2
check "--version" sh -c '"$1" --version | grep -q "^scr [0-9]"' sh "$scr"
check "help lists print" sh -c '"$1" help | grep -q "print"' sh "$scr"

# config
check "config --list has SCR_FLUSH" sh -c '"$1" config --list | grep -q "^SCR_FLUSH "' sh "$scr"
check "config --list marks system-only" \
	sh -c '"$1" config --list | grep "^SCR_CNTL_BASE" | grep -q "system only"' sh "$scr"
printf 'SCR_CACHE_SIZE=3\nCKPT=0 TYPE=XOR SET_SIZE=4\nSCR_NOPE=1\n' >"$dir/sys.conf"
out=$(env -u SCR_CACHE_SIZE SCR_CONF_FILE=/nonexistent "$scr" config --system-file "$dir/sys.conf" SCR_CACHE_SIZE 2>&1)
check "config shows value and system source ($out)" \
	sh -c 'case "$1" in *"SCR_CACHE_SIZE=3"*"system config file $2"*) exit 0;; *) exit 1;; esac' sh "$out" "$dir/sys.conf"
check "config warns about an unknown key with file:line" \
	sh -c 'case "$1" in *"sys.conf:3: unknown parameter '"'"'SCR_NOPE'"'"'"*) exit 0;; *) exit 1;; esac' sh "$out"
out=$(SCR_CACHE_SIZE=7 SCR_CONF_FILE=/nonexistent "$scr" config --system-file "$dir/sys.conf" SCR_CACHE_SIZE 2>/dev/null)
check "environment overrides ($out)" sh -c 'case "$1" in *"=7"*environment*) exit 0;; *) exit 1;; esac' sh "$out"
out=$(SCR_CONF_FILE=/nonexistent "$scr" config --system-file "$dir/sys.conf" CKPT 2>/dev/null)
check "descriptor shown ($out)" sh -c 'case "$1" in *"CKPT=0 TYPE=XOR SET_SIZE=4"*) exit 0;; *) exit 1;; esac' sh "$out"
out=$(SCR_CONF_FILE=/nonexistent "$scr" config --system-file "$dir/sys.conf" SCR_FETCH 2>/dev/null)
check "default shown ($out)" sh -c 'case "$1" in *"SCR_FETCH=1"*default*) exit 0;; *) exit 1;; esac' sh "$out"
"$scr" config --system-file "$dir/sys.conf" NOT_A_PARAM >/dev/null 2>&1
check "unknown parameter: exit 1" test $? -eq 1

# a halt time no calendar holds (the halt file is the user's) is listed raw
mkdir -p "$dir/halt"
"$scr" halt --prefix "$dir/halt" --before @9223372036854775000 >/dev/null 2>&1
out=$("$scr" halt --prefix "$dir/halt" --list 2>&1)
check "halt --list: ExitBefore past any calendar ($out)" \
	sh -c 'case "$1" in *"ExitBefore: out of range (9223372036854775000)"*) exit 0;; *) exit 1;; esac' sh "$out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
