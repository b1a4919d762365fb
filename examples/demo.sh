#!/usr/bin/env bash
# demo.sh BUILD_DIR: the current demo.
# Starts 4 simulated nodes, runs an MPI job of 8 ranks across them, shows
# that each node has its own hostname and private node-local storage, then
# loses a node and relaunches on the survivors.  (The checkpoint/restart demo
# replaces this once libscr lands.)
set -euo pipefail
build=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
simnode=$top/tests/sim/simnode
dir=$(mktemp -d /var/tmp/scr-demo.XXXXXX)
trap '"$simnode" stop "$dir"' EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
say "starting 4 simulated nodes in $dir"
"$simnode" start "$dir" 4
for n in $("$simnode" nodes "$dir"); do
	printf '%s: hostname=%s, /tmp is %s\n' "$n" "$("$simnode" exec "$dir" "$n" hostname)" \
		"$dir/$n/tmp"
done
say "MPI job: 8 ranks on node[1-4]"
"$simnode" mpirun "$dir" -np 8 --host node1:2,node2:2,node3:2,node4:2 \
	"$build/tests/sim_smoke" 4
say "node3 fails: its processes are killed and its storage wiped"
"$simnode" kill "$dir" node3
"$simnode" wipe "$dir" node3
"$simnode" alive "$dir" node3 || echo "node3 is down"
say "relaunch: 6 ranks on the 3 survivors"
"$simnode" mpirun "$dir" -np 6 --host node1:2,node2:2,node4:2 "$build/tests/sim_smoke" 3
say "demo finished"
