#!/usr/bin/env bash
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
	(cd "$top" && cp -r --parents lib/common lib/core lib/scr lib/include pmix prolog \
		slurm-plugin flux-plugin cmd "$tmp/src/")
}
plant() { # plant FILE INCLUDE: add an include at the top of FILE in the copy
	sed -i "1a #include \"$2\"" "$tmp/src/$1"
}
expect_fail() { # expect_fail PATTERN: the check fails and says PATTERN
	! "$check" "$tmp/src" >"$tmp/out" 2>&1 && grep -q -- "$1" "$tmp/out" ||
		{ sed 's/^/    /' "$tmp/out"; return 1; }
}
copy
plant lib/core/pfs.c lifecycle.h
t "core may not include prolog" expect_fail 'lib/core/pfs.c:2: includes prolog/lifecycle.h, but lib/core may use only: lib/common lib/core'
copy
plant prolog/node.c desc.h
t "prolog may not include the MPI library" expect_fail 'prolog/node.c:2: includes lib/scr/desc.h'
copy
plant lib/scr/api_init.c scavenge.h
t "the library may not include prolog" expect_fail 'lib/scr/api_init.c:2: includes prolog/scavenge.h'
copy
plant cmd/scr.c scr_ctx.h
t "cmd may not include the MPI library" expect_fail 'cmd/scr.c:2: includes lib/scr/scr_ctx.h'
copy
plant slurm-plugin/sched_slurm.c cmd.h
t "an adapter may not include cmd" expect_fail 'slurm-plugin/sched_slurm.c:2: includes cmd/cmd.h'
copy
plant lib/common/io.c nosuch.h
t "an unknown header is named" expect_fail 'lib/common/io.c:2: "nosuch.h" is not a header of any layer'
copy
cp "$tmp/src/lib/core/pfs.h" "$tmp/src/prolog/pfs.h"
t "one header name in two layers is refused" expect_fail 'pfs.h is in both'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
