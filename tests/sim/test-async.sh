#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-async.sh EXAMPLE: asynchronous redundancy (SCR_REDUNDANCY_ASYNC=1) on
# four simulated nodes, 8 ranks.
#
#  (a) XOR: SCR_Complete_output returns before the encode (the event log
#      says so, and REDUNDANCY_END follows for every checkpoint); after the
#      run a node is lost and the next run rebuilds the last checkpoint
#  (b) a rank dies in the background encode of the third checkpoint: the
#      next run restarts from the second, every byte verified, and the
#      unfinished one is gone from the cache
#  (c) the same, and the dying rank's node is lost too: the second
#      checkpoint is rebuilt from XOR and restarted from
#  (d) PARTNER and RS(2 of 4) in the background, then a node lost.  7 MB a
#      rank in (a) and (d): each background encode runs in several pieces
#      of the larger size it takes behind the application (ec_encode_cap),
#      the last one short (SCR_DEBUG=2 says how many), and the restart
#      checks every byte of what the rebuild made of them
#  (e) an application without MPI_THREAD_MULTIPLE: one warning, the encode
#      runs inside SCR_Complete_output, the run is right
source "$(dirname "$0")/lib.sh"
ex=$(readlink -f "$1")
out=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$out"' EXIT
ALL=node1:2,node2:2,node3:2,node4:2
LESS3=node1:2,node2:2,node4:2,node5:2
BASE=(-x SCR_CACHE_SIZE=2 -x SCR_FLUSH=0 -x SCR_REDUNDANCY_ASYNC=1 -x SCR_DEBUG=1
	-x SCR_LOG_ENABLE=1)
xor=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4)
SIZE=200000
run() { sim_run "$@" --size "$SIZE" --sleep-ms 50; }
events() { grep -c "event=$1 .*ok=1" "$pfs/.scr/log" 2>/dev/null; }
fails() { ! "$@"; }
lose() { "$simnode" kill "$sim_dir" "$1" && "$simnode" wipe "$sim_dir" "$1"; }

# ---- (a)
sim_setup 5
SIZE=7000001
DEBUG2=("${BASE[@]/SCR_DEBUG=1/SCR_DEBUG=2}")
SIM_ENV=("${DEBUG2[@]}" "${xor[@]}")
check "(a) XOR in the background: the run finishes" run "$out/a1" "$ALL" "$ex" --steps 8 --threads 1
# 1 MiB pieces: 4 MiB buffers for the set of 4 (256 KiB, 14 pieces, in
# the foreground)
check "(a) in pieces of 1 MiB" has "$out/a1" 'encode, 3500008-byte chunks in 4 pieces'
check "(a) Complete returned before the encode" has "$out/a1" 'redundancy in the background'
check "(a) every checkpoint's encode ended well" test "$(events REDUNDANCY_END)" -eq 4
after() { # after A B: the first line with B comes after the first with A
	local la lb
	la=$(grep -En -m1 -- "$1" "$pfs/.scr/log" | cut -d: -f1)
	lb=$(grep -En -m1 -- "$2" "$pfs/.scr/log" | cut -d: -f1)
	[ -n "$la" ] && [ -n "$lb" ] && [ "$la" -lt "$lb" ] || { grep -E 'DATASET_END|REDUNDANCY' "$pfs/.scr/log"; return 1; }
}
check "(a) and was logged after its DATASET_END" after 'event=DATASET_END .* dset=4 ' 'event=REDUNDANCY_END .* dset=4 '
lose node3
check "(a) node3 lost: the next run rebuilds step 8 and restarts from it" \
	run "$out/a2" "$LESS3" "$ex" --steps 8 --threads 1 --expect-restart 8
check "(a) every byte verified" has "$out/a2" 'restarted from step\.8, every byte verified'
SIZE=200000

# ---- (b)
sim_setup 5
SIM_ENV=("${BASE[@]}" "${xor[@]}" -x 'SCR_FAULT=redundancy.background#3@5')
check "(b) a rank dies in the third checkpoint's background encode" \
	fails run "$out/b1" "$ALL" "$ex" --steps 8 --threads 1
check "(b) rank 5 died there" has "$out/b1" 'Exit code: +99'
# the encode begins as SCR_Complete_output returns, after rank 0 logged the
# end (redbg.h): whatever rank 0 printed before mpirun killed it
check "(b) the third checkpoint was complete for the application" \
	has "$pfs/.scr/log" 'event=DATASET_END .* dset=3 name=step\.6 .* ok=1 .* redundancy=background'
check "(b) and its encode never ended" \
	test "$(grep -c 'event=REDUNDANCY_END .* dset=3 ' "$pfs/.scr/log")" -eq 0
SIM_ENV=("${BASE[@]}" "${xor[@]}")
check "(b) the next run restarts from the second checkpoint" \
	run "$out/b2" "$ALL" "$ex" --steps 8 --threads 1 --expect-restart 4
check "(b) every byte verified" has "$out/b2" 'restarted from step\.4, every byte verified'
check "(b) the unfinished checkpoint was deleted from cache" \
	has "$out/b2" 'dataset 3 \(step\.6\) was never completed; deleting it'

# ---- (c)
sim_setup 5
SIM_ENV=("${BASE[@]}" "${xor[@]}" -x 'SCR_FAULT=redundancy.background#3@5')
check "(c) a rank of node3 dies in the background encode" \
	fails run "$out/c1" "$ALL" "$ex" --steps 8 --threads 1
lose node3
SIM_ENV=("${BASE[@]}" "${xor[@]}")
check "(c) node3 lost too: the second checkpoint is rebuilt and restarted from" \
	run "$out/c2" "$LESS3" "$ex" --steps 8 --threads 1 --expect-restart 4
check "(c) it was rebuilt" has "$out/c2" 'rebuil'
check "(c) every byte verified" has "$out/c2" 'restarted from step\.4, every byte verified'

# ---- (d)
SIZE=7000001
for scheme in PARTNER RS; do
	sim_setup 5
	SIM_ENV=("${DEBUG2[@]}" -x SCR_COPY_TYPE=$scheme -x SCR_SET_SIZE=4 -x SCR_SET_FAILURES=2)
	check "(d) $scheme in the background: the run finishes" \
		run "$out/d$scheme" "$ALL" "$ex" --steps 6 --threads 1
	# (in the foreground 512 KiB, 11 pieces)
	[ $scheme = PARTNER ] || check "(d) $scheme: in pieces of 1 MiB" \
		has "$out/d$scheme" 'RS encode, 5250016-byte chunks in 6 pieces'
	check "(d) $scheme: every encode ended well" test "$(events REDUNDANCY_END)" -eq 3
	lose node2
	check "(d) $scheme: node2 lost, the next run restarts from step 6" \
		run "$out/d${scheme}2" node1:2,node3:2,node4:2,node5:2 "$ex" \
		--steps 6 --threads 1 --expect-restart 6
	check "(d) $scheme: every byte verified" \
		has "$out/d${scheme}2" 'restarted from step\.6, every byte verified'
done

# ---- (e)
SIZE=200000
sim_setup 4
SIM_ENV=("${BASE[@]}" "${xor[@]}")
check "(e) without MPI_THREAD_MULTIPLE the run finishes" run "$out/e" "$ALL" "$ex" --steps 4
check "(e) it says the encode runs inside SCR_Complete_output" \
	has "$out/e" 'SCR_REDUNDANCY_ASYNC=1 needs .*MPI_THREAD_MULTIPLE'
check "(e) once" test "$(grep -c 'SCR_REDUNDANCY_ASYNC=1 needs' "$out/e")" -eq 1
check "(e) and no encode ran behind" hasnt "$out/e" 'redundancy in the background'
finish
