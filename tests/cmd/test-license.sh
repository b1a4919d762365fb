#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-license.sh: scripts/check-license passes on the tree, and fails,
# naming the file, on a copy where a source file lacks the SPDX line or
# LICENSE is gone.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
check=$top/scripts/check-license
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
t() {
	local name=$1
	shift
	if "$@"; then pass=$((pass + 1)); echo "ok - $name"
	else fail=$((fail + 1)); echo "not ok - $name"; fi
}
copy() { # a copy that is not a git checkout: the check lists files with find
	rm -rf "$tmp/src" && mkdir -p "$tmp/src"
	(cd "$top" && cp -r --parents LICENSE lib/common scripts tests/fuzz/corpus/ini "$tmp/src/")
}
expect_fail() { # expect_fail PATTERN: the check fails and says PATTERN
	! "$check" "$tmp/src" >"$tmp/out" 2>&1 && grep -q -- "$1" "$tmp/out" ||
		{ sed 's/^/    /' "$tmp/out"; return 1; }
}
t "the tree carries the license" "$check" "$top"
copy
t "a copy of part of it too (no git)" "$check" "$tmp/src"
printf "no license here\n" >"$tmp/src/tests/fuzz/corpus/ini/plain.c"
t "fuzz corpora are data, not source" "$check" "$tmp/src"
copy
sed -i '/SPDX-License-Identifier/d' "$tmp/src/lib/common/kvtree.c"
t "a C file without the line fails, named" \
	expect_fail "lib/common/kvtree.c: no 'SPDX-License-Identifier: BSD-3-Clause' line"
copy
printf '#!/bin/sh\necho hi\n' >"$tmp/src/scripts/newtool"
t "a new script (#!, no extension) without it fails" expect_fail "scripts/newtool: no"
copy
printf 'cmake_minimum_required(VERSION 3.13)\n# SPDX-License-Identifier: MIT\n' \
	>"$tmp/src/lib/common/CMakeLists.txt"
t "another license's SPDX line is not ours" expect_fail "lib/common/CMakeLists.txt: no"
copy
printf '\n\n\n/* SPDX-License-Identifier: BSD-3-Clause */\n' >"$tmp/src/lib/common/late.h"
t "the line below line 3 does not count" expect_fail "lib/common/late.h: no"
copy
rm "$tmp/src/LICENSE"
t "a tree without LICENSE fails" expect_fail "LICENSE: missing"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
