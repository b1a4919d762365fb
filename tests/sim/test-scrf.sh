#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-scrf.sh FIXED FREE: SCR v3's Fortran interface (INCLUDE 'scrf.h',
# the external subroutines of libscrf) on simulated nodes, through a lost
# node.  FIXED is tests/sim/scrf_fixed.F (fixed form, mpif.h), FREE is
# tests/sim/scrf_free.F90 (free form, use mpi); each checkpoints in a first
# run and restarts in a second one, checking every value it reads back.
#  (a) FIXED with PARTNER, 2 ranks on each of node1 and node2: node2 is
#      lost and wiped, the rerun on node1 and node3 restarts from the
#      rebuilt cache; a FILE or VERSION variable too short fails cleanly
#  (b) FREE with XOR (sets of 2, a rank of node1 and one of node2 in
#      each), 2 ranks on each of node1 and node2: node2 is lost, the rerun
#      on node1 and node3 rebuilds both checkpoints in cache, drops the
#      newest, restarts from the other; a NAME too short fails cleanly
source "$(dirname "$0")/lib.sh"
fixed=$(readlink -f "$1") free=$(readlink -f "$2")
out=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$out"' EXIT
lose() { "$simnode" kill "$sim_dir" "$1" && "$simnode" wipe "$sim_dir" "$1"; }
export SIM_NP=4

# ---- (a) fixed form, PARTNER
sim_setup 3
# SCR_FLUSH=0: the restart must come from the cache, rebuilt
SIM_ENV=(-x SCR_COPY_TYPE=PARTNER -x SCR_FLUSH=0)
check "(a) fixed form: first run checkpoints" sim_run "$out/a1" node1:2,node2:2 "$fixed"
check "(a) wrote fixed.1 and fixed.2" has "$out/a1" "scrf-fixed: wrote fixed.1 and fixed.2"
check "(a) SCR_ROUTE_FILE, SCR_GET_VERSION into CHARACTER*8: IERROR=SCR_FAILURE" \
	has "$out/a1" "scrf-fixed: short FILE and VERSION refused"
check "(a) ... and a line saying why" \
	has "$out/a1" "SCR_ROUTE_FILE: FILE holds 8 characters, the result has [0-9]+"
check "(a) first run finishes" has "$out/a1" "scrf-fixed: ok"
lose node2
check "(a) node2 lost: the rerun on node1 and node3 restarts" \
	sim_run "$out/a2" node1:2,node3:2 "$fixed"
# node3 starts empty and nothing was flushed: what ranks 2 and 3 read there
# came from their partner copies on node1
check "(a) fixed.2 restored in cache from the partner copies" \
	has "$out/a2" "restart from cache: dataset [0-9]+ \(fixed\.2\) ready"
check "(a) every value read back" \
	has "$out/a2" "scrf-fixed: restarted from fixed\.2, 16384 values verified on 4 ranks"
check "(a) rerun finishes" has "$out/a2" "scrf-fixed: ok"

# ---- (b) free form, XOR
sim_setup 3
SIM_ENV=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=2 -x SCR_CACHE_SIZE=2 -x SCR_FLUSH=0)
check "(b) free form: first run checkpoints" sim_run "$out/b1" node1:2,node2:2 "$free"
check "(b) wrote free.1 to free.3" has "$out/b1" "scrf-free: wrote free.1, free.2 and free.3"
check "(b) first run finishes" has "$out/b1" "scrf-free: ok"
lose node2
check "(b) node2 lost: the rerun on node1 and node3 restarts" \
	sim_run "$out/b2" node1:2,node3:2 "$free"
check "(b) free.3 and free.2 rebuilt in cache" sh -c '
	grep -Eq "restart from cache: dataset [0-9]+ \(free\.3\) ready, 2 ranks rebuilt" "$1" &&
	grep -Eq "restart from cache: dataset [0-9]+ \(free\.2\) ready, 2 ranks rebuilt" "$1" ||
	{ grep "restart from cache" "$1"; exit 1; }' sh "$out/b2"
check "(b) SCR_HAVE_RESTART into character(len=4): IERROR=SCR_FAILURE, a line saying why" \
	has "$out/b2" "SCR_HAVE_RESTART: NAME holds 4 characters, the result has 6"
check "(b) SCR_DROP, SCR_CURRENT" has "$out/b2" "scrf-free: dropped free.3, free.2 is current"
check "(b) every value read back" \
	has "$out/b2" "scrf-free: restarted from free\.2, 12000 values verified on 4 ranks"
check "(b) SCR_DELETE" has "$out/b2" "scrf-free: wrote free.4 and deleted it"
check "(b) rerun finishes" has "$out/b2" "scrf-free: ok"
finish
