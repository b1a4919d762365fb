#!/usr/bin/env bash
# test-full.sh EXAMPLE: a full cache.  node2's /dev/shm (cache and control
# directory) is a 4 MiB tmpfs: the first checkpoint fits, later ones do not.
# A checkpoint that does not fit must fail with a message naming the cause,
# be removed, leave the previous checkpoint intact, and the run must go on;
# the next run restarts from the checkpoint that fit.
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
finish
