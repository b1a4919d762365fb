#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-libscr.sh EXAMPLE SCHEME: libscr on simulated nodes with real Open MPI.
# 8 ranks on node1-4, node5 spare.  Several files per rank, ranks writing no
# files, sizes from 0 bytes to 8 MiB (eight SCR_MPI_BUF_SIZE
# pieces: the pipelines run many chunks).  Scenarios (only (a) and (b)
# with SIM_QUICK=1):
#  (a) rerun on the same nodes: restart from cache, every byte verified
#  (b) node3 lost and wiped, rerun on survivors + spare: PARTNER/XOR/RS restart
#      from the rebuilt cache, SINGLE reports the loss
#  (c) two nodes of one set lost: XOR says it cannot recover (no hang), RS
#      with SET_FAILURES=2 rebuilds
#  (a) also: files unchanged since SCR_Complete_output (io_stamp) are not
#      read again for their CRC32
#  (d) one flipped byte in a cached file: caught by CRC32, repaired (SINGLE
#      falls back to the older checkpoint); SCR_CRC_ON_RESTART=1 reads every
#      file; PARTNER: in a partner copy, which
#      a restart reads only when it uses it (restart from cache keeps copies)
#  (e) every rank killed in the middle of a checkpoint: the next run restarts
#      from the previous complete one
#  (f) SINGLE, whose CRC pass runs after SCR_Complete_output returns: killed
#      before it lands (restart by sizes), a file changed after completion
#      (reported, not vouched for, the restart falls back), SCR_CRC_ASYNC=0
# and evicted files kept (filepool.h): partner copies and parity written over
# by the next ones, the application's deleted in the background once the next
# checkpoint completes, all removed by the next run when a job dies with them
source "$(dirname "$0")/lib.sh"
ex=$(readlink -f "$1") scheme=$2
out=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$out"' EXIT
ALL=node1:2,node2:2,node3:2,node4:2
SURV=node1:2,node2:2,node4:2,node5:2
# SCR_FLUSH=0: these scenarios are about the cache; nothing may come from the PFS
SIM_ENV=(-x SCR_COPY_TYPE="$scheme" -x SCR_SET_SIZE=4 -x SCR_SET_FAILURES=2
	-x SCR_CACHE_SIZE=2 -x SCR_DEBUG=1 -x SCR_FLUSH=0)
redundant=1
[ "$scheme" = SINGLE ] && redundant=0
# the XOR/RS pipelines with their helper thread and without (unset elsewhere:
# the automatic choice)
[ "$scheme" = XOR ] && SIM_ENV+=(-x SCR_OVERLAP=1)
[ "$scheme" = RS ] && SIM_ENV+=(-x SCR_OVERLAP=0)
big=$((8 * 1024 * 1024))

# ---- (a) and (b) ----
sim_setup 5
# a compute step between checkpoints (--sleep-ms) leaves the pool's thread
# time to free evicted application files behind the application
check "$scheme: first run writes checkpoints up to step 6 (files up to 8 MiB)" \
	sim_run "$out/a1" "$ALL" "$ex" --steps 6 --files 3 --size $big --expect-restart 0 --sleep-ms 150
if [ $redundant = 1 ]; then
	check "$scheme (a): partner copies and parity wrote over evicted ones" \
		has "$out/a1" "wrote over [1-9][0-9]* evicted files instead of new ones"
else
	check "$scheme (a): SINGLE writes over none of the application's files" \
		has "$out/a1" "wrote over 0 evicted files instead of new ones"
fi
check "$scheme (a): evicted application files were deleted in the background" \
	has "$out/a1" "evicted files instead of new ones, deleted [1-9][0-9]* in the background"
check "$scheme (a): with time between checkpoints, never for want of it" \
	hasnt "$out/a1" "deleted at once: the application leaves no time"
check "$scheme (a): rerun restarts from cache at step 6" \
	sim_run "$out/a2" "$ALL" "$ex" --steps 8 --files 3 --size $big --expect-restart 6
check "$scheme (a): nothing needed rebuilding" has "$out/a2" "dataset 3 \(step.6\) ready, 0 ranks rebuilt"
check "$scheme (a): every byte verified" has "$out/a2" "restarted from step.6, every byte verified"
# the application's files are not read again, nor XOR/RS parity (read
# only when a rebuild needs it, and what it rebuilds is checked then)
check "$scheme (a): files as SCR_Complete_output left them were not read again for their CRC32" \
	has "$out/a2" "cached files: [1-9][0-9]* unchanged since SCR_Complete_output \(CRC32 not read again\), 0 read"
"$simnode" kill "$sim_dir" node3
"$simnode" wipe "$sim_dir" node3
if [ $redundant = 1 ]; then
	check "$scheme (b): after losing node3, restart on survivors + spare at step 8" \
		sim_run "$out/b" "$SURV" "$ex" --steps 10 --files 3 --size $big --expect-restart 8
	check "$scheme (b): restarted from the rebuilt cache" \
		has "$out/b" "restart from cache: dataset 4 \(step.8\) ready"
	# ranks 0-3 run where they ran; 4-5 and 6-7 moved one node on (their files
	# come as partner copies, not rebuilt from parity): per set,
	# rank 0's and rank 6's copies (on node2 and node1) stayed, rank 2's
	# (on node3) and rank 4's (on node4, where rank 6 no longer runs) were
	# made again
	[ "$scheme" = PARTNER ] && check "$scheme (b): only the copies a lost or moved holder had were made again" \
		has "$out/b" "dataset 4 \(step.8\) ready, 0 ranks rebuilt, the partner copies of 4 ranks kept in place"
	# ranks 6-7 find their files on node4, where they ran: node4's two
	# processes send them side by side, in one round (not the node master
	# one after the other)
	check "$scheme (b): both holdings on node4 were sent at once" \
		has "$out/b" "dataset 4 \(step.8\) ready, .*the files of 2 ranks sent between nodes in 1 round$"
	check "$scheme (b): every byte verified" has "$out/b" "restarted from step.8, every byte verified"
	check "$scheme (b): relaunched job checkpoints again" has "$out/b" "checkpoint step.10 complete"
else
	check "$scheme (b): after losing node3, the run starts over" \
		sim_run "$out/b" "$SURV" "$ex" --steps 4 --files 3 --size 65536 --expect-restart 0
	check "$scheme (b): the loss is reported" \
		has "$out/b" "dataset 4 cannot be rebuilt from cache: the files of rank [45] are lost"
fi

# SIM_QUICK=1 (scripts/test --quick): a restart from cache and a lost node
# per scheme, nothing more
if [ "${SIM_QUICK:-0}" = 1 ]; then
	finish
	exit
fi

# ---- back to back: evictions delete the application's files at once ----
# (kept for later, their pages stay taken while the next checkpoint writes,
# which then takes fresh ones: bench/README.md, run AZ)
sim_setup 5
check "$scheme: checkpoints back to back" sim_run "$out/bb" "$ALL" "$ex" --steps 8 --size 300000
# (why: no time between the checkpoints, or, when load stretched the
# application's steps past the gap, the freeing thread still behind:
# either way nothing is put off; a CI run under extra load saw the second)
check "$scheme: back to back, evicted application files are deleted at once" \
	has "$out/bb" "evicted application files are deleted at once: the (application leaves no time|thread that frees them behind the application has not finished)"

# ---- (c) two nodes of every set lost ----
sim_setup 5
check "$scheme (c): first run" sim_run "$out/c1" "$ALL" "$ex" --steps 4 --size 300000
for n in node1 node2; do
	"$simnode" kill "$sim_dir" $n
	"$simnode" wipe "$sim_dir" $n
done
THREE=node3:3,node4:3,node5:2
if [ "$scheme" = RS ]; then
	check "$scheme (c): two lost nodes per set are rebuilt (SET_FAILURES=2)" \
		sim_run "$out/c2" "$THREE" "$ex" --steps 6 --size 300000 --expect-restart 4
	check "$scheme (c): four ranks rebuilt" has "$out/c2" "dataset 2 \(step.4\) ready, 4 ranks rebuilt"
else
	check "$scheme (c): no hang, the run starts over" \
		sim_run "$out/c2" "$THREE" "$ex" --steps 2 --size 300000 --expect-restart 0
	check "$scheme (c): the loss is reported" has "$out/c2" "dataset 2 cannot be rebuilt from cache"
	[ "$scheme" = XOR ] && check "$scheme (c): XOR explains it" \
		has "$out/c2" "XOR set [0-9]+ lost 2 of 4 members and can rebuild 1"
fi

# ---- (d) a flipped byte ----
sim_setup 5
check "$scheme (d): first run" sim_run "$out/d1" "$ALL" "$ex" --steps 4 --size 300000
victim=$(find "$("$simnode" shm "$sim_dir")/node2" -path '*scr.dataset.2/ckpt/rank_2_f1.dat')
check "$scheme (d): found rank 2's cached file" test -n "$victim"
printf '\xff' | dd of="$victim" bs=1 seek=1000 conv=notrunc status=none
if [ $redundant = 1 ]; then
	check "$scheme (d): restart at step 4 despite the damage" \
		sim_run "$out/d2" "$ALL" "$ex" --steps 6 --size 300000 --expect-restart 4
else
	check "$scheme (d): SINGLE falls back to step 2" \
		sim_run "$out/d2" "$ALL" "$ex" --steps 6 --size 300000 --expect-restart 2
fi
check "$scheme (d): the damage was caught by CRC32" has "$out/d2" "rank_2_f1.dat: CRC32 mismatch"
# SCR_CRC_ON_RESTART=1 reads every file, changed or not
saved=("${SIM_ENV[@]}")
SIM_ENV+=(-x SCR_CRC_ON_RESTART=1)
check "$scheme (d): SCR_CRC_ON_RESTART=1: a rerun restarts at step 6, checkpoints nothing" \
	sim_run "$out/d2r" "$ALL" "$ex" --steps 6 --size 300000 --expect-restart 6
SIM_ENV=("${saved[@]}")
check "$scheme (d): SCR_CRC_ON_RESTART=1 read every file" \
	has "$out/d2r" "cached files: 0 unchanged since SCR_Complete_output \(CRC32 not read again\), [1-9][0-9]* read"

# ---- (d) XOR: a flipped byte in a parity file ----
# A restart reads parity only when a rebuild uses it; the rebuild checks
# what it made against the lost files' CRC32.  Node2's parity is flipped in
# its data, then node1 (a member of both of node2's sets, whose rebuild
# needs every survivor's parity) is lost: the rebuild fails its check, and
# the older checkpoint is used.  (RS: which parity bytes a rebuild reads
# depends on the code's layout, and the fault matrix's r-enc-block-short
# takes either outcome.)
if [ "$scheme" = XOR ]; then
	sim_setup 5
	check "$scheme (d): first run" sim_run "$out/d6" "$ALL" "$ex" --steps 4 --size 300000
	shm=$("$simnode" shm "$sim_dir")
	par=$(find "$shm/node2" -path '*scr.dataset.2/*_of_*_in_*' -type f | head -1)
	check "$scheme (d): found a parity file of node2" test -n "$par"
	printf '\xff' | dd of="$par" bs=1 seek=$(($(stat -c %s "$par") / 2)) conv=notrunc status=none
	"$simnode" kill "$sim_dir" node1
	"$simnode" wipe "$sim_dir" node1
	check "$scheme (d): node1 lost, node2's parity damaged: restart at step 2" \
		sim_run "$out/d7" "${ALL/node1/node5}" "$ex" --steps 4 --size 300000 --expect-restart 2
	check "$scheme (d): the rebuild that used it caught the damage" \
		has "$out/d7" "rebuilt data has CRC32 0x[0-9a-f]*, expected"
	check "$scheme (d): every byte verified" has "$out/d7" "restarted from step.2, every byte verified"
fi

# ---- (d) PARTNER: a flipped byte in a partner copy ----
# A restart reads partner copies only when it uses them: on the owner's own
# node before it takes one, on arrival when one travels.
if [ "$scheme" = PARTNER ]; then
	check "$scheme (a): the restart kept every partner copy where it was" \
		has "$out/a2" "dataset 3 \(step.6\) ready, 0 ranks rebuilt, the partner copies of 8 ranks kept in place"
	shm=$("$simnode" shm "$sim_dir")
	copy=$(find "$shm" -path '*scr.dataset.3/.partner.0/*rank_0_f1.dat')
	check "$scheme (d): found rank 0's partner copy" test -n "$copy"
	holder=${copy#"$shm"/} holder=${holder%%/*}
	printf '\xff' | dd of="$copy" bs=1 seek=1000 conv=notrunc status=none
	# rank 0 now starts on the node of its copy, its original one node away
	REMAP=$(echo "$ALL" | sed "s/node1:/@:/; s/$holder:/node1:/; s/@:/$holder:/")
	check "$scheme (d): rank 0 relaunched beside its damaged copy ($REMAP) restarts at step 6" \
		sim_run "$out/d3" "$REMAP" "$ex" --steps 8 --size 300000 --expect-restart 6
	check "$scheme (d): the copy was checked before use and passed over" \
		has "$out/d3" "rank_0_f1.dat: CRC32 mismatch .* \(a copy of rank 0's files\): it will be restored from another"
	check "$scheme (d): every byte verified" has "$out/d3" "restarted from step.6, every byte verified"

	sim_setup 5
	check "$scheme (d): first run" sim_run "$out/d4" "$ALL" "$ex" --steps 4 --size 300000
	shm=$("$simnode" shm "$sim_dir")
	copy=$(find "$shm" -path '*scr.dataset.2/.partner.2/*rank_2_f1.dat')
	check "$scheme (d): found rank 2's partner copy" test -n "$copy"
	printf '\xff' | dd of="$copy" bs=1 seek=1000 conv=notrunc status=none
	"$simnode" kill "$sim_dir" node2
	"$simnode" wipe "$sim_dir" node2
	check "$scheme (d): rank 2's node lost with its copy damaged: restart at step 2" \
		sim_run "$out/d5" "${ALL/node2/node5}" "$ex" --steps 4 --size 300000 --expect-restart 2
	check "$scheme (d): the copy was caught on arrival" \
		has "$out/d5" "rank_2_f1.dat: CRC32 0x[0-9a-f]* after transfer, expected"
fi

# ---- (e) killed in the middle of a checkpoint ----
# 8 files a rank, killed after routing about half: the filemap on disk names
# only some of them (it is rewritten as the routed files double), the rest
# must go all the same.  A compute step between checkpoints, so that the
# evictions keep the application's files for later (what the next run
# must sweep)
sim_setup 4
sim_run "$out/e1" "$ALL" "$ex" --steps 6 --files 8 --size 30000 --die-in-ckpt 6 --sleep-ms 300
rc=$?
check "$scheme (e): the job died in checkpoint 6 (status $rc)" test $rc -ne 0 -a $rc -ne 124
check "$scheme (e): checkpoint 4 had completed" has "$out/e1" "checkpoint step.4 complete"
kept() { find "$("$simnode" shm "$sim_dir")" -path '*/scr.recycle/*' -type f | wc -l; }
left3() { find "$("$simnode" shm "$sim_dir")" -path '*/scr.dataset.3*' | wc -l; }
check "$scheme (e): the dead job left evicted files kept ($(kept))" test "$(kept)" -gt 0
check "$scheme (e): and files of checkpoint 6 ($(left3) entries)" test "$(left3)" -gt 0
# (steps 4: a restart that writes nothing, so no later dataset takes id 3)
check "$scheme (e): next run restarts from step 4" \
	sim_run "$out/e2" "$ALL" "$ex" --steps 4 --files 8 --size 30000 --expect-restart 4
check "$scheme (e): and removed them ($(kept) left)" test "$(kept)" -eq 0
check "$scheme (e): the partial checkpoint is discarded" \
	has "$out/e2" "dataset 3 \(step.6\) was never completed"
check "$scheme (e): nothing of it is left in any cache ($(left3) entries)" test "$(left3)" -eq 0
# ---- (f) SINGLE: the CRC32 pass behind SCR_Complete_output ----
if [ "$scheme" = SINGLE ]; then
	sim_setup 4
	sim_run "$out/f1" "$ALL" "$ex" --steps 6 --size 300000 --die-after-ckpt 4
	rc=$?
	check "(f): killed right after checkpoint 4 completed (status $rc)" test $rc -ne 0 -a $rc -ne 124
	check "(f): restart from step 4 all the same (sizes checked)" \
		sim_run "$out/f2" "$ALL" "$ex" --steps 6 --size 300000 --expect-restart 4
	check "(f): every byte verified" has "$out/f2" "restarted from step.4, every byte verified"

	sim_setup 4
	check "(f): a run whose rank 2 appends to checkpoint 4 after completing it" \
		sim_run "$out/f3" "$ALL" "$ex" --steps 4 --size 300000 --touch-after-ckpt 4
	check "(f): the change is reported, no CRC32 recorded for it" \
		has "$out/f3" "rank_2_f1.dat changed after SCR_Complete_output \(150018 bytes, recorded 150017\)"
	check "(f): the next run does not trust it and falls back to step 2" \
		sim_run "$out/f4" "$ALL" "$ex" --steps 4 --size 300000 --expect-restart 2
	check "(f): the size check names the file" has "$out/f4" "rank_2_f1.dat: size 150018, expected 150017"

	sim_setup 4
	sim_run "$out/f5" "$ALL" -x SCR_CRC_ASYNC=0 "$ex" --steps 4 --size 300000 --die-after-ckpt 4
	victim=$(find "$("$simnode" shm "$sim_dir")/node2" -path '*scr.dataset.2/ckpt/rank_2_f1.dat')
	printf '\xff' | dd of="$victim" bs=1 seek=1000 conv=notrunc status=none
	check "(f): SCR_CRC_ASYNC=0 records the CRC32 inside SCR_Complete_output: a flip after a crash there falls back to step 2" \
		sim_run "$out/f6" "$ALL" "$ex" --steps 4 --size 300000 --expect-restart 2
	check "(f): caught by CRC32" has "$out/f6" "rank_2_f1.dat: CRC32 mismatch"

	# the pass has the application's time between checkpoints: the next
	# SCR_Start_output stops it and records what it finished, so each
	# dataset's CRC event comes before the next dataset's start (before,
	# the pass ran on beside the next checkpoint's writes until that one
	# completed)
	sim_setup 4
	check "(f): three checkpoints with the event log on" \
		sim_run "$out/f9" "$ALL" -x SCR_LOG_ENABLE=1 "$ex" --steps 6 --size 300000
	crc_before_next() { # crc_before_next N: dataset N's CRC event precedes N+1's start
		awk -v n="$1" '/event=CRC / && $0 ~ " dset=" n " " { crc = NR }
			/event=DATASET_START / && $0 ~ " dset=" n + 1 " " { start = NR }
			END { exit !(crc && start && crc < start) }' "$pfs/.scr/log"
	}
	for n in 1 2; do
		check "(f): the pass over dataset $n ended when dataset $((n + 1)) started" crc_before_next $n
	done
	check "(f): and the last one's was finished by SCR_Finalize" \
		has "$pfs/.scr/log" "event=CRC .*dset=3 .*ok=1 stopped=0"

	# each checkpoint flushed as it completes: the flush stops the pass
	# over the same files and takes the CRC32s itself, so every file on the
	# prefix has one whichever finished first
	sim_setup 4
	check "(f): back-to-back checkpoints, each flushed at once" \
		sim_run "$out/f7" "$ALL" -x SCR_FLUSH=1 -x SCR_LOG_ENABLE=1 "$ex" --steps 4 --every 1 --size 4000000
	check "(f): the CRC passes were logged" has "$pfs/.scr/log" "event=CRC .*dset=4 .*ok=1 stopped=[0-9]+"
	leaf=$(ls "$pfs"/.scr/scr.dataset.4/.scr/rank2file.*.*.scr | head -1)
	"$(dirname "$ex")/../cmd/scr" print "$leaf" >"$out/r2f"
	check "(f): every file on the prefix has a CRC32 in rank2file" \
		test "$(grep -c '^ *SIZE$' "$out/r2f")" -gt 0 -a \
		"$(grep -c '^ *SIZE$' "$out/r2f")" = "$(grep -c '^ *CRC$' "$out/r2f")"
	for n in node1 node2 node3 node4; do "$simnode" wipe "$sim_dir" $n; done
	check "(f): fetched back, every byte verified" \
		sim_run "$out/f8" "$ALL" "$ex" --steps 4 --every 1 --size 4000000 --expect-restart 4
fi
finish
