#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-smoke.sh SMOKE: the simulated-node harness end to end.
# 8 ranks on 4 nodes with private /tmp and /dev/shm; then kill and wipe a
# node and check a launch onto it fails fast, and that stop leaves nothing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
simnode=$here/simnode
smoke=$1
base=${SCR_SIM_BASE:-/var/tmp}
dir=$(mktemp -d "$base/scr-sim-smoke.XXXXXX")
pdir="" # the pinned nodes' state, below
trap '"$simnode" stop "$dir"; [ -z "$pdir" ] || "$simnode" stop "$pdir"' EXIT
pass=0 fail=0
check() {
	local name=$1
	shift
	if "$@"; then pass=$((pass + 1)); echo "ok - $name"
	else fail=$((fail + 1)); echo "not ok - $name"; fi
}

check "start 4 nodes" "$simnode" start "$dir" 4
check "hostnames" test "$("$simnode" exec "$dir" node3 hostname)" = node3
check "8 ranks on 4 nodes" timeout 120 "$simnode" mpirun "$dir" -np 8 \
	--host node1:2,node2:2,node3:2,node4:2 "$smoke" 4
# a rank that exits 0 without MPI_Finalize fails the launch (exitguard.c)
start=$(date +%s) rc=0
timeout 120 "$simnode" mpirun "$dir" -np 4 --host node1:2,node2:2 -x SMOKE_QUIT_EARLY=3 \
	"$smoke" 2 >"$dir/quit.out" 2>&1 || rc=$?
check "a rank leaving without MPI_Finalize fails the launch (rc=$rc)" test $rc -ne 0 -a $rc -ne 124
check "and says which" grep -q "exitguard: pid [0-9]* on node2: exit status 0 after MPI_Init without MPI_Finalize" "$dir/quit.out"
check "and fails fast ($(($(date +%s) - start)) s)" test $(($(date +%s) - start)) -lt 60

"$simnode" exec "$dir" node2 sh -c 'echo data > /tmp/keep; echo data > /dev/shm/keep
	mkdir -p /tmp/d/e /dev/shm/d && echo data > /tmp/d/e/f'
check "node-local file on the node's directory" test -s "$dir/node2/tmp/keep"
check "node-local file invisible on the host" test ! -e /tmp/keep

"$simnode" kill "$dir" node2
check "killed node is down" sh -c '! "$1" alive "$2" node2' sh "$simnode" "$dir"
check "exec on a killed node fails" sh -c '! "$1" exec "$2" node2 true 2>/dev/null' sh "$simnode" "$dir"
start=$(date +%s)
timeout 120 "$simnode" mpirun "$dir" -np 4 --host node1:2,node2:2 "$smoke" 2 >/dev/null 2>&1
rc=$?
check "launch onto a dead node fails (rc=$rc)" test $rc -ne 0 -a $rc -ne 124
check "and fails fast" test $(($(date +%s) - start)) -lt 60
"$simnode" wipe "$dir" node2
nshm=$("$simnode" shm "$dir")/node2
check "wipe removes what the node wrote" \
	test ! -e "$dir/node2/tmp/keep" -a ! -e "$dir/node2/tmp/d" -a ! -e "$nshm/keep" -a ! -e "$nshm/d"
check "restart a node" "$simnode" start-node "$dir" node2
check "6 ranks on 3 nodes after the restart" timeout 120 "$simnode" mpirun "$dir" -np 6 \
	--host node1:2,node2:2,node4:2 "$smoke" 3

# unpinned nodes run on every CPU; pinned ones on their own share, a
# restarted node on the share it had
cpus() { "$simnode" exec "$1" "$2" sh -c 'taskset -cp $$' | sed 's/.*: //'; }
all=$(taskset -cp $$ | sed 's/.*: //')
check "unpinned nodes run on every CPU ($all)" test "$(cpus "$dir" node1)" = "$all"
pdir=$(mktemp -d "$base/scr-sim-pin.XXXXXX")
SIMNODE_PIN=1 "$simnode" start "$pdir" 4
p1=$(cpus "$pdir" node1) p2=$(cpus "$pdir" node2)
if [ "$(nproc)" -ge 2 ]; then
	check "pinned nodes on different CPUs ($p1, $p2)" test -n "$p1" -a "$p1" != "$p2" -a "$p1" != "$all"
else
	check "pinned node on the one CPU ($p1)" test "$p1" = "$all"
fi
check "pinned ranks inherit the node's CPUs" test "$(timeout 120 "$simnode" mpirun "$pdir" \
	-np 1 --host node2:1 sh -c 'taskset -cp $$' | sed 's/.*: //')" = "$p2"
"$simnode" kill "$pdir" node2
"$simnode" start-node "$pdir" node2
check "a restarted node keeps its CPUs" test "$(cpus "$pdir" node2)" = "$p2"
"$simnode" stop "$pdir"
pdir=""

# a checkout and its state under /tmp, which the nodes replace with their
# own: the checkout, the state and SIMNODE_SHARE stay the host's inside them
clone=$(mktemp -d /tmp/scr-smoke-clone.XXXXXX)
mkdir -p "$clone/tests/sim" "$clone/build" "$clone/work"
cp "$simnode" "$here/simnode_hold.c" "$here/exitguard.c" "$clone/tests/sim/" && cp "$smoke" "$clone/build/"
echo shared >"$clone/work/f"
tsim=$clone/tests/sim/simnode tdir=$clone/state
# the real checkout stays shared too: files named in the environment (the
# sanitizer's suppressions) live there
check "under /tmp: nodes start" env SIMNODE_SHARE="$clone/work:$(cd "$here/../.." && pwd):${SIMNODE_SHARE:-}" \
	"$tsim" start "$tdir" 2
check "under /tmp: the checkout is there on a node" "$tsim" exec "$tdir" node1 test -x "$tsim"
check "under /tmp: a SIMNODE_SHARE directory too" "$tsim" exec "$tdir" node2 grep -q shared "$clone/work/f"
check "under /tmp: 4 ranks of a program in the clone" timeout 120 "$tsim" mpirun "$tdir" -np 4 \
	--host node1:2,node2:2 "$clone/build/$(basename "$smoke")" 2
"$tsim" exec "$tdir" node1 sh -c 'echo own > /tmp/own-file'
check "under /tmp: the node's /tmp is still its own" test ! -e /tmp/own-file -a -s "$tdir/node1/tmp/own-file"
check "under /tmp: nothing else of the host's /tmp is visible" \
	"$tsim" exec "$tdir" node1 sh -c "test ! -e '$dir' -o '${dir#/tmp/}' = '$dir'; test -z \"\$(ls /tmp/.simnode-host)\""
"$tsim" kill "$tdir" node1
"$tsim" wipe "$tdir" node1
check "under /tmp: wipe leaves the checkout" test -x "$tsim" -a -s "$clone/work/f"
check "under /tmp: wipe removes the node's own files" test ! -e "$tdir/node1/tmp/own-file"
check "under /tmp: a restarted node still has the checkout" \
	sh -c '"$1" start-node "$2" node1 && "$1" exec "$2" node1 test -x "$1"' sh "$tsim" "$tdir"
SIMNODE_SHARE=/tmp "$tsim" start "$clone/bad" 1 >"$clone/bad.txt" 2>&1
check "under /tmp: sharing /tmp itself is refused with one line" \
	test $? -ne 0 -a "$(grep -c 'cannot share /tmp itself' "$clone/bad.txt")" -eq 1
"$tsim" stop "$tdir"
rm -rf "$clone"

holders=$(cat "$dir"/node*/pid)
"$simnode" exec "$dir" node1 sleep 300 &
sleeper=$!
sleep 0.5
dshm=$("$simnode" shm "$dir")
"$simnode" stop "$dir"
trap - EXIT
check "stop removes the state" test ! -e "$dir" -a ! -e "$dshm"
left=0
for p in $holders; do
	# a zombie not yet reaped by init is dead too
	state=$(sed 's/^.*) \(.\).*/\1/' /proc/$p/stat 2>/dev/null)
	[ "$(cat /proc/$p/comm 2>/dev/null)" = simnode-hold ] && [ "$state" != Z ] && left=$((left + 1))
done
check "stop kills the nodes' holders (left: $left)" test "$left" -eq 0
wait $sleeper 2>/dev/null
check "stop kills processes running on the nodes" test $? -ne 0
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
