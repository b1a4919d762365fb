#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-config.sh EXAMPLE MISUSE: bad configuration and API misuse on
# simulated nodes.  Every case must end quickly with a clear one-line error
# naming the parameter or path, on every rank, with no crash and no hang.
source "$(dirname "$0")/lib.sh"
ex=$(readlink -f "$1") misuse=$(readlink -f "$2")
out=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$out"' EXIT
HOSTS=node1:2,node2:2
export SIM_NP=4 SIM_TIMEOUT=60
sim_setup 2

bad() { # bad NAME PATTERN -x K=V...: SCR_Init must fail with PATTERN
	local name=$1 pattern=$2
	shift 2
	SIM_ENV=("$@")
	sim_run "$out/$name" "$HOSTS" "$ex" --steps 2
	local rc=$?
	check "$name: fails (status $rc), does not hang" test $rc -ne 0 -a $rc -ne 124
	check "$name: says why" has "$out/$name" "$pattern"
	check "$name: SCR_Init failed cleanly" has "$out/$name" "SCR_Init failed"
	check "$name: no crash" hasnt "$out/$name" "Segmentation|Aborted|core dumped|signal 11"
}

bad unknown-type "bad configuration: SCR_COPY_TYPE=BOGUS: unknown type" -x SCR_COPY_TYPE=BOGUS
bad set-size-1 "SCR_SET_SIZE=1: XOR needs sets of at least 2" -x SCR_SET_SIZE=1
bad rs-failures "SCR_SET_FAILURES=4 must be smaller than SCR_SET_SIZE=4" -x SCR_COPY_TYPE=RS \
	-x SCR_SET_SIZE=4 -x SCR_SET_FAILURES=4
printf 'CKPT=0 TYPE=XOR SET_SIZE=1\n' >"$pfs/ckpt.conf"
bad ckpt-set-size "CKPT=0: SET_SIZE=1: XOR needs sets" -x SCR_CONF_FILE="$pfs/ckpt.conf"
printf 'STORE=/dev/shm/nostore MKDIR=0\nSCR_CACHE_BASE=/dev/shm/nostore\n' >"$pfs/scr.conf"
bad missing-store "/dev/shm/nostore/.*No such file or directory \(MKDIR=0\)" \
	-x SCR_CONF_FILE="$pfs/scr.conf"
bad relative-store "STORE=cache: a store must be an absolute path" -x SCR_CACHE_BASE=cache
# node2's cache device goes read-only: only its ranks see the failure
"$simnode" exec "$sim_dir" node2 mount -o remount,bind,ro /dev/shm
bad unwritable-cache "/dev/shm/.* is not writable: Read-only file system"
"$simnode" exec "$sim_dir" node2 mount -o remount,bind,rw /dev/shm

SIM_ENV=(-x SCR_CACHE_SIZE=4)
check "misuse: every wrong call fails cleanly" sim_run "$out/misuse" "$HOSTS" "$misuse"
check "misuse: all checks passed" has "$out/misuse" "misuse: [0-9]+ passed, 0 failed"
check "misuse: messages name the call" has "$out/misuse" "SCR_Complete_output: called without"
for n in node1 node2; do "$simnode" wipe "$sim_dir" $n; done
SIM_ENV=(-x SCR_ENABLE=0)
check "SCR_ENABLE=0: every call passes through" sim_run "$out/off" "$HOSTS" "$misuse" disabled
check "SCR_ENABLE=0: all checks passed" has "$out/off" "misuse: [0-9]+ passed, 0 failed"
check "SCR_ENABLE=0: nothing cached" test -z "$(find "$("$simnode" shm "$sim_dir")" -name 'scr.dataset.*')"
finish
