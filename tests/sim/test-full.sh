#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-full.sh EXAMPLE: a full cache.  node2's /dev/shm (cache and control
# directory) is a 4 MiB tmpfs: the first checkpoint fits, later ones do not.
# A checkpoint that does not fit must fail with a message naming the cause,
# be removed, leave the previous checkpoint intact, and the run must go on;
# the next run restarts from the checkpoint that fit.  Then a tight cache
# (6 MiB): room for the checkpoints, not for evicted files kept besides, so
# eviction deletes at once and every checkpoint fits.  Last, PARTNER with
# room on node2 for its ranks' files but not for the partner copies it
# receives: those arrive into the files' own pages (SCR_COPY_MAP), which
# must fail with ENOSPC before a byte is sent, never at a page the store
# cannot give (without the blocks taken first, Open MPI's readv into the
# mapping failed with EFAULT and the job hung).
source "$(dirname "$0")/lib.sh"
ex=$(readlink -f "$1")
out=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$out"' EXIT
ALL=node1:2,node2:2,node3:2,node4:2
sim_setup 4
"$simnode" exec "$sim_dir" node2 mount -t tmpfs -o size=4m tmpfs /dev/shm
SIM_ENV=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_CACHE_SIZE=2 -x SCR_FLUSH=0)
check "full cache: the run goes on" \
	sim_run "$out/1" "$ALL" "$ex" --steps 6 --size 1000000 --tolerate 1
check "full cache: the first checkpoint fit" has "$out/1" "checkpoint step.2 complete"
check "full cache: later ones failed" has "$out/1" "checkpoint step.4 failed, going on"
check "full cache: the cause is named" has "$out/1" "No space left on device"
check "full cache: the job finished" has "$out/1" "done at step 6"
check "full cache: the failed datasets left no files behind" \
	sh -c "! find $("$simnode" shm "$sim_dir") -path '*scr.dataset.[23]*' -type f | grep -q ."
check "full cache: not on the full node either" \
	sh -c "! '$simnode' exec '$sim_dir' node2 find /dev/shm -path '*scr.dataset.[23]*' -type f | grep -q ."
check "full cache: nothing was lost, the next run restarts at step 2" \
	sim_run "$out/2" "$ALL" "$ex" --steps 2 --size 1000000 --tolerate 1 --expect-restart 2
check "full cache: every byte verified" has "$out/2" "restarted from step.2, every byte verified"

# A store with room for SCR_CACHE_SIZE checkpoints and the one being written,
# not for an evicted one kept besides (SCR_CACHE_DEFER needs the node's
# share, about 1.6 MB here, twice over): node2's 6 MiB.  Rank 0 runs there,
# so its SCR_DEBUG=2 lines tell how evictions went: at once, never in the
# background, and every checkpoint fits.
sim_setup 4
"$simnode" exec "$sim_dir" node2 mount -t tmpfs -o size=6m tmpfs /dev/shm
SIM_ENV=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_CACHE_SIZE=2 -x SCR_FLUSH=0
	-x SCR_DEBUG=2)
check "tight cache: every checkpoint fits" \
	sim_run "$out/3" node2:2,node1:2,node3:2,node4:2 "$ex" --steps 8 --size 1000000
check "tight cache: the job finished" has "$out/3" "done at step 8"
check "tight cache: no checkpoint failed" hasnt "$out/3" "failed, going on|No space left"
check "tight cache: node2 deleted its evictions at once" \
	has "$out/3" "rank 0 on node2: dataset [0-9]+ deleted in [0-9.]+ s$"
check "tight cache: never in the background" \
	hasnt "$out/3" "rank 0 on node2: .*(freed in the background|deleted [1-9][0-9]* in the background)"

sim_setup 4
"$simnode" exec "$sim_dir" node2 mount -t tmpfs -o size=5m tmpfs /dev/shm
SIM_ENV=(-x SCR_COPY_TYPE=PARTNER -x SCR_CACHE_SIZE=2 -x SCR_FLUSH=0)
check "partner copies into a full cache: the run goes on" \
	sim_run "$out/4" "$ALL" "$ex" --steps 6 --size 1000000 --tolerate 1
check "partner copies into a full cache: the first checkpoint fit" \
	has "$out/4" "checkpoint step.2 complete"
check "partner copies into a full cache: a later one failed" \
	has "$out/4" "checkpoint step.[46] failed, going on"
check "partner copies into a full cache: at the copy, naming the cause" \
	has "$out/4" "\.partner\.[0-9]+/.*No space left on device"
check "partner copies into a full cache: no fault at a page" \
	hasnt "$out/4" "Bad address|Bus error|exited on signal"
check "partner copies into a full cache: the next run restarts, every byte verified" \
	sim_run "$out/5" "$ALL" "$ex" --steps 2 --size 1000000 --tolerate 1 --expect-restart 2
finish
