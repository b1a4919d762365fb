#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# demo.sh BUILD_DIR: checkpoint/restart with a node failure, on simulated nodes.
#
# Five simulated nodes (each a UTS + mount namespace with its own hostname
# and private /tmp and /dev/shm).  An MPI application of 8 ranks on node1-4
# checkpoints through SCR into node-local /dev/shm, protected by XOR across
# nodes.  Then node3 dies and its storage is wiped; the job is relaunched on
# the three survivors plus the spare node5, SCR moves every rank's files to
# where the rank now runs, rebuilds node3's data from XOR, and the
# application restarts and verifies every byte.  Checkpoints also go to the
# parallel file system (here a shared directory) every other time; finally
# every node's storage is lost and a new job restarts from the prefix.
set -euo pipefail
build=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
simnode=$top/tests/sim/simnode
app=$build/examples/scr_example
base=/var/tmp
dir=$(mktemp -d $base/scr-demo.XXXXXX)
pfs=$(mktemp -d $base/scr-demo-pfs.XXXXXX)
trap '"$simnode" stop "$dir"; rm -rf "$pfs" "$pfs.run1"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { # run JOBID HOSTS ARGS...
	local job=$1 hosts=$2
	shift 2
	(cd "$pfs" && "$simnode" mpirun "$dir" -np 8 --host "$hosts" -x SCR_JOB_ID=$job \
		-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_CACHE_SIZE=2 -x SCR_FLUSH=2 \
		-x SCR_LOG_ENABLE=1 -x SCR_DEBUG=1 "$app" "$@") 2>&1 | grep --line-buffered -v 'plm:rsh: Warning: setpgid'
}

say "starting 5 simulated nodes (node5 is a spare)"
"$simnode" start "$dir" 5
for n in $("$simnode" nodes "$dir"); do
	printf '  %s: hostname %s\n' "$n" "$("$simnode" exec "$dir" "$n" hostname)"
done

say "run 1: 8 ranks on node1-4, a checkpoint every 2 steps (XOR, sets of 4 across
   nodes), every 2nd checkpoint also flushed to the prefix $pfs"
run 1001 node1:2,node2:2,node3:2,node4:2 --steps 20 --files 3 --size 4194304 \
	--sleep-ms 250 >"$pfs.run1" 2>&1 &
runner=$!
until grep -q "checkpoint step.8 complete" "$pfs.run1"; do
	kill -0 $runner 2>/dev/null || { cat "$pfs.run1"; exit 1; }
	sleep 0.2
done
say "what node2 holds in its node-local /dev/shm"
(cd "$("$simnode" shm "$dir")/node2" && find . -type f | sort | sed 's/^/  /')

say "node3 fails in the middle of the run: its processes are killed, its storage wiped"
"$simnode" kill "$dir" node3
"$simnode" wipe "$dir" node3
wait $runner || true
grep -v 'plm:rsh' "$pfs.run1" | grep -E 'scr_example|SCR' | tail -4
"$simnode" alive "$dir" node3 || echo "  node3 is down; run 1 is dead"
rm -f "$pfs.run1"

say "run 2: relaunch on node1, node2, node4 and the spare node5"
run 1001 node1:2,node2:2,node4:2,node5:2 --steps 20 --files 3 --size 4194304

say "the metadata SCR keeps (scr print of rank 4's filemap on node4)"
"$build/cmd/scr" print "$("$simnode" shm "$dir")/node4/$(id -un)/scr.1001/filemap_4.scrinfo" |
	head -24 | sed 's/^/  /'
say "the prefix: datasets on the parallel file system"
(cd "$pfs" && ls -d .scr/scr.dataset.* && find ckpt -type f | sort | head -4) | sed 's/^/  /'
"$build/cmd/scr" print "$pfs/.scr/index.scr" | grep -A1 CURRENT | sed 's/^/  /'

say "disaster: every node's storage is lost; a new job (1002) starts on fresh nodes"
for n in node1 node2 node3 node4 node5; do "$simnode" wipe "$dir" $n; done
"$simnode" start-node "$dir" node3
run 1002 node1:2,node2:2,node3:2,node4:2 --steps 24 --files 3 --size 4194304 --expect-restart 20

say "the event log SCR keeps in the prefix (last lines)"
tail -n 6 "$pfs/.scr/log" | cut -c1-150 | sed 's/^/  /'
say "demo finished: the job survived the loss of node3 (restart from cache) and of every node (restart from the parallel file system)"
