#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-check-layers.sh: scripts/check-layers passes on the tree and fails,
# naming file, line and layers, on a copy with an include that goes up.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
check=$top/scripts/check-layers
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
t() {
	local name=$1
	shift
	if "$@"; then pass=$((pass + 1)); echo "ok - $name"
	else fail=$((fail + 1)); echo "not ok - $name"; fi
}
t "the tree keeps its layers" "$check" "$top"
copy() {
	rm -rf "$tmp/src" && mkdir -p "$tmp/src"
	(cd "$top" && cp -r --parents lib/common lib/core lib/base lib/red lib/mem lib/fti lib/scr \
		lib/include pmix prolog slurm-plugin flux-plugin cmd "$tmp/src/")
}
plant() { # plant FILE INCLUDE: add an include at the top of FILE in the copy
	sed -i "1a #include \"$2\"" "$tmp/src/$1"
}
expect_fail() { # expect_fail PATTERN: the check fails and says PATTERN
	! "$check" "$tmp/src" >"$tmp/out" 2>&1 && grep -q -- "$1" "$tmp/out" ||
		{ sed 's/^/    /' "$tmp/out"; return 1; }
}
# one copy for every case: each puts back the file it planted in (a fresh
# copy per case took minutes on a loaded 2-core machine)
copy
planted() { # planted NAME FILE HEADER PATTERN: the copy with FILE including HEADER fails
	plant "$2" "$3"
	t "$1" expect_fail "$4"
	cp "$top/$2" "$tmp/src/$2"
}
planted "core may not include prolog" lib/core/pfs.c lifecycle.h \
	'lib/core/pfs.c:2: includes prolog/lifecycle.h, but lib/core may use only: lib/common lib/core'
planted "prolog may not include the MPI library" prolog/node.c desc.h \
	'prolog/node.c:2: includes lib/base/desc.h'
planted "the library may not include prolog" lib/scr/api_init.c scavenge.h \
	'lib/scr/api_init.c:2: includes prolog/scavenge.h'
planted "cmd may not include the MPI library" cmd/scr.c scr_ctx.h \
	'cmd/scr.c:2: includes lib/base/scr_ctx.h'
planted "cmd may not include the library's API either" cmd/scr.c fetch.h \
	'cmd/scr.c:2: includes lib/scr/fetch.h'
planted "the redundancy schemes may not include the API" lib/red/red.c fetch.h \
	'lib/red/red.c:2: includes lib/scr/fetch.h, but lib/red may use only: lib/common lib/core lib/base lib/red'
planted "the library context may not include a scheme" lib/base/cache.c red.h \
	'lib/base/cache.c:2: includes lib/red/red.h, but lib/base may use only: lib/common lib/core pmix lib/base'
planted "the memory API may not include the FTI layer" lib/mem/mem.c fti_conf.h \
	'lib/mem/mem.c:2: includes lib/fti/fti_conf.h'
planted "the FTI layer may not reach past the memory API" lib/fti/fti.c redbg.h \
	'lib/fti/fti.c:2: includes lib/red/redbg.h, but lib/fti may use only: lib/common lib/core lib/mem lib/fti lib/include'
planted "an adapter may not include cmd" slurm-plugin/sched_slurm.c cmd.h \
	'slurm-plugin/sched_slurm.c:2: includes cmd/cmd.h'
planted "an unknown header is named" lib/common/io.c nosuch.h \
	'lib/common/io.c:2: "nosuch.h" is not a header of any layer'
t "the copy keeps its layers once every file is put back" "$check" "$tmp/src"
cp "$tmp/src/lib/core/pfs.h" "$tmp/src/prolog/pfs.h"
t "one header name in two layers is refused" expect_fail 'pfs.h is in both'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
