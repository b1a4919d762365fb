#!/usr/bin/env bash
# demo.sh BUILD_DIR: checkpoint/restart with a node failure, on simulated nodes.
#
# Five simulated nodes (each a UTS + mount namespace with its own hostname
# and private /tmp and /dev/shm).  An MPI application of 8 ranks on node1-4
# checkpoints through SCR into node-local /dev/shm, protected by XOR across
# nodes.  Then node3 dies and its storage is wiped; the job is relaunched on
# the three survivors plus the spare node5, SCR moves every rank's files to
# where the rank now runs, rebuilds node3's data from XOR, and the
# application restarts and verifies every byte.
set -euo pipefail
build=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
simnode=$top/tests/sim/simnode
app=$build/examples/scr_example
base=/var/tmp
dir=$(mktemp -d $base/scr-demo.XXXXXX)
pfs=$(mktemp -d $base/scr-demo-pfs.XXXXXX)
trap '"$simnode" stop "$dir"; rm -rf "$pfs"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { # run HOSTS ARGS...
	local hosts=$1
	shift
	(cd "$pfs" && "$simnode" mpirun "$dir" -np 8 --host "$hosts" -x SCR_JOB_ID=1001 \
		-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_CACHE_SIZE=2 -x SCR_DEBUG=1 \
		"$app" "$@") 2>&1 | grep -v 'plm:rsh: Warning: setpgid'
}

say "starting 5 simulated nodes (node5 is a spare)"
"$simnode" start "$dir" 5
for n in $("$simnode" nodes "$dir"); do
	printf '  %s: hostname %s\n' "$n" "$("$simnode" exec "$dir" "$n" hostname)"
done

say "run 1: 8 ranks on node1-4, checkpoints every 2 steps (XOR, sets of 4 across nodes)"
run node1:2,node2:2,node3:2,node4:2 --steps 6 --files 3 --size 4194304

say "what node2 holds in its node-local /dev/shm"
(cd "/dev/shm/scr-sim.$(basename "$dir")/node2" && find . -type f | sort | sed 's/^/  /')

say "node3 fails: all its processes are killed and its storage is wiped"
"$simnode" kill "$dir" node3
"$simnode" wipe "$dir" node3
"$simnode" alive "$dir" node3 || echo "  node3 is down"

say "run 2: relaunch on node1, node2, node4 and the spare node5"
run node1:2,node2:2,node4:2,node5:2 --steps 10 --files 3 --size 4194304 --expect-restart 6

say "the metadata SCR keeps (scr print of rank 4's filemap on node4)"
"$build/cmd/scr" print "/dev/shm/scr-sim.$(basename "$dir")/node4/$(id -un)/scr.1001/filemap_4.scrinfo" |
	head -24 | sed 's/^/  /'
say "demo finished: the job survived the loss of node3 and restarted from cache"
