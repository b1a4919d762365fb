#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-pfs.sh EXAMPLE SCR: libscr and the parallel file system on simulated
# nodes: flush, fetch after every cache is wiped, a corrupt file on the PFS,
# an unwritable prefix, a job killed during a background flush, the halt
# conditions, output datasets, SCR_PREFIX_SIZE, the event log, flush-file.
source "$(dirname "$0")/lib.sh"
ex=$(readlink -f "$1") scr=$(readlink -f "$2")
out=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$out"' EXIT
ALL=node1:2,node2:2,node3:2,node4:2
# flush and fetch read ahead on a helper thread (SCR_OVERLAP=1) in blocks
# small enough that every file takes several
BASE=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_CACHE_SIZE=2 -x SCR_DEBUG=1
	-x SCR_OVERLAP=1 -x SCR_FILE_BUF_SIZE=64KB)
wipe_all() { for n in node1 node2 node3 node4 node5; do "$simnode" wipe "$sim_dir" $n; done; }
# the index flattened to one line without blanks: "CURRENT.scr/scr.dataset.4DIR..."
index_has() { "$scr" print "$pfs/.scr/index.scr" | tr -d ' \n' | grep -Eq -- "$1"; }

# conditions set on a running job: the halt check SCR_Complete_output makes
# for every condition, which h1, h2 and h9 take under the sanitizers
# (tests/sim/lib.sh: again)
halt_running_parts() {
	sim_setup 4
	SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=0)
	# set a condition on the running job once its first checkpoint is done
	halt_running() { # halt_running OUT ARGS-FOR-SCR-HALT...
		local o=$1
		shift
		(sim_run "$o" "$ALL" "$ex" --steps 3000 --every 2 --size 1000 --sleep-ms 20) &
		local runner=$! t0=$SECONDS
		for i in $(seq 1 600); do grep -q "checkpoint step" "$o" 2>/dev/null && break; sleep 0.1; done
		launch_s=$((SECONDS - t0))
		"$scr" halt --prefix "$pfs" "$@" >/dev/null
		wait $runner
	}
	check "halt: ExitAfter set on a running job" halt_running "$out/h3" --after now
	check "halt: it stopped at its next checkpoint" has "$out/h3" "SCR says stop"
	rm -f "$pfs/.scr/halt.scr"
	check "halt: ExitBefore with HaltSeconds on a running job" \
		halt_running "$out/h4" --before +1h --seconds 3600
	check "halt: stopped HaltSeconds before the deadline" has "$out/h4" "SCR says stop"
	rm -f "$pfs/.scr/halt.scr"
	# The condition must not hold yet at SCR_Init (which would refuse to run)
	# but must hold at a later checkpoint: it comes W seconds from now, W three
	# times what the launch up to the first checkpoint took just above (a
	# sanitized launch beside the other lanes of scripts/test took more than
	# the 8 s this once allowed), and the run lasts until told to stop
	w=$((3 * ${launch_s:-5} + 10))
	[ $w -le 90 ] || w=90
	SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=0 -x SCR_END_TIME=$(($(date +%s) + w + 32)) -x SCR_HALT_SECONDS=32)
	SIM_TIMEOUT=$((w + 120)) check "halt: SCR_HALT_SECONDS before the job's end time ($w s from now)" \
		sim_run "$out/h5" "$ALL" "$ex" --steps 100000 --every 4 --size 1000 --sleep-ms 100
	check "halt: the condition did not hold at SCR_Init yet" hasnt "$out/h5" "halt condition .* holds for prefix .*: not running"
	check "halt: stopped with time to spare" has "$out/h5" "SCR says stop"
}
again_only halt_running_parts

# ---- flush, then restart fetched from the PFS ----
sim_setup 5
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=2 -x SCR_LOG_ENABLE=1)
# a directory per checkpoint (ckpt.<step>/), so every flushed checkpoint
# keeps its files on the prefix (tests/sim/test-scr31.sh reuses names)
CD=(--ckpt-dirs 1)
check "flush: run with SCR_FLUSH=2 and an output dataset" \
	sim_run "$out/f1" "$ALL" "$ex" --steps 8 --files 2 --size 500000 --output 1 "${CD[@]}"
check "flush: checkpoints 2 and 4 flushed" test -d "$pfs/.scr/scr.dataset.2" -a -d "$pfs/.scr/scr.dataset.4"
check "flush: checkpoint 1 not flushed" test ! -e "$pfs/.scr/scr.dataset.1"
check "flush: files at the application's own paths in the prefix" \
	test -s "$pfs/ckpt.8/rank_1_f1.dat" -a -s "$pfs/ckpt.4/rank_1_f1.dat"
check "flush: nothing left in the staging area" \
	sh -c "test -z \"\$(find '$pfs/.scr/scr.dataset.4' -path '*/ckpt.8/*')\""
check "flush: summary and rank2file written" \
	test -s "$pfs/.scr/scr.dataset.4/.scr/summary.scr" -a -s "$pfs/.scr/scr.dataset.4/.scr/rank2file.scr"
check "flush: index CURRENT is the newest checkpoint" index_has "CURRENT.scr/scr.dataset.4"
check "flush: the index marks it placed" index_has "4DIR.scr/scr.dataset.4COMPLETE1.*PLACED"
check "flush: the output dataset went to the prefix" \
	sh -c "grep -q 'rank 3 of 8 finished step 8' $pfs/out/rank_3.txt"
check "flush-file: dataset 4 is on the PFS" sh -c "'$scr' flush-file --prefix '$pfs' --location 4 | grep -qx PFS"
check "flush-file: dataset 4 needs no flush" sh -c "! '$scr' flush-file --prefix '$pfs' --needflush 4"
check "flush-file: subdir" sh -c "test \$('$scr' flush-file --prefix '$pfs' --subdir 4) = .scr/scr.dataset.4"
check "nodes file records 4 nodes" sh -c "'$scr' print '$pfs/.scr/nodes.scr' | grep -qx '  4'"
check "event log: one parseable line per event" \
	sh -c "grep -Ev '^[0-9T:-]+ [0-9]+ event=[A-Z_]+ job=[^ ]+ user=[^ ]+ host=[^ ]+( [a-z_]+=[^ ]+)*\$' '$pfs/.scr/log' | grep -c . | grep -qx 0"
check "event log: flushes with bandwidth" has "$pfs/.scr/log" "event=FLUSH_END .* dset=4 bytes=[0-9]+ secs=[0-9.]+ mbps=[0-9.]+ cpu=[0-9.]+ ok=1"
check "event log: run start and end" has "$pfs/.scr/log" "event=RUN_END"
wipe_all
check "fetch: every cache wiped, the rerun restarts at step 8" \
	sim_run "$out/f2" "$ALL" "$ex" --steps 10 --files 2 --size 500000 --expect-restart 8 "${CD[@]}"
check "fetch: it came from the prefix" has "$out/f2" "restart from the prefix: dataset 4 fetched"
check "fetch: every byte verified" has "$out/f2" "restarted from step.8, every byte verified"
check "event log: the fetch" has "$pfs/.scr/log" "event=FETCH .* dset=4 .*ok=1"

# ---- a fetched checkpoint's redundancy: its copy on the prefix, or
# (SCR_FETCH_PROTECT=1, as SCR 3.1) XOR in cache; node3 lost before the
# next checkpoint either way ----
SURV=node1:2,node2:2,node4:2,node5:2
parity_in_cache() { # parity_in_cache DSET: XOR files in any node's cache of DSET
	find "$("$simnode" shm "$sim_dir")" -path "*scr.dataset.$1/*_of_*_in_*.xor" | grep -q .
}
no_parity_in_cache() { ! parity_in_cache "$1"; }
fetched_then_lost() { # fetched_then_lost TAG WHAT CHECK: fetch step 10, lose node3, rerun
	local t=$1
	wipe_all
	check "fetch ($t): every cache wiped, a run restarts at step 10 and writes nothing" \
		sim_run "$out/$t.1" "$ALL" "$ex" --steps 10 --files 2 --size 500000 --expect-restart 10 "${CD[@]}"
	check "fetch ($t): XOR parity in cache: $2" $3 "$newest"
	"$simnode" kill "$sim_dir" node3
	"$simnode" wipe "$sim_dir" node3
	check "fetch ($t): node3 lost, the rerun on the spare restarts at step 10" \
		sim_run "$out/$t.2" "$SURV" "$ex" --steps 10 --files 2 --size 500000 --expect-restart 10 "${CD[@]}"
	check "fetch ($t): every byte verified" has "$out/$t.2" "restarted from step.10, every byte verified"
	"$simnode" start-node "$sim_dir" node3
}
newest=$(ls -d "$pfs"/.scr/scr.dataset.* | sed 's/.*\.//' | sort -n | tail -1)
fetched_then_lost fp0 none no_parity_in_cache
check "fetch (fp0): said so" has "$out/fp0.1" "fetch of dataset $newest: kept in cache without its XOR redundancy; its copy on the prefix stands for it"
check "fetch (fp0): after the loss, fetched again" has "$out/fp0.2" "restart from the prefix: dataset $newest fetched"
SIM_ENV+=(-x SCR_FETCH_PROTECT=1)
fetched_then_lost fp1 made parity_in_cache
check "fetch (fp1): SCR_FETCH_PROTECT=1 rebuilt the lost ranks from the parity made at the fetch" \
	has "$out/fp1.2" "restart from cache: dataset $newest \(step.10\) ready, 2 ranks rebuilt"
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=2 -x SCR_LOG_ENABLE=1)

# ---- SCR_CURRENT picks an older checkpoint; SCR_FLUSH_ON_RESTART ----
wipe_all
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=2 -x SCR_CURRENT=step.4)
check "SCR_CURRENT=step.4: restart fetches that one" \
	sim_run "$out/n1" "$ALL" "$ex" --steps 4 --files 2 --size 500000 --expect-restart 4 "${CD[@]}"
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=0)
check "cache restart with SCR_FLUSH=0 after a PFS fetch" \
	sim_run "$out/n2" "$ALL" "$ex" --steps 6 --files 2 --size 500000 --expect-restart 4 "${CD[@]}"
newest=$(ls -d "$pfs"/.scr/scr.dataset.* | sed 's/.*\.//' | sort -n | tail -1)
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=2 -x SCR_FLUSH_ON_RESTART=1)
check "SCR_FLUSH_ON_RESTART: restart from cache" \
	sim_run "$out/n3" "$ALL" "$ex" --steps 6 --files 2 --size 500000 --expect-restart 6 "${CD[@]}"
check "SCR_FLUSH_ON_RESTART: the restart checkpoint was flushed at SCR_Init" \
	test -d "$pfs/.scr/scr.dataset.$((newest + 1))"
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=0 -x SCR_PREFIX_PURGE=1)
check "SCR_PREFIX_PURGE: run" sim_run "$out/n4" "$ALL" "$ex" --steps 2 --files 2 --size 500000 --expect-restart 6 "${CD[@]}"
check "SCR_PREFIX_PURGE: every dataset left the prefix" sh -c "! ls -d '$pfs'/.scr/scr.dataset.* 2>/dev/null"
check "SCR_PREFIX_PURGE: with its files and their directories" \
	sh -c "! ls -d '$pfs'/ckpt.* 2>/dev/null"
check "SCR_PREFIX_PURGE: and the index" sh -c "! '$scr' print '$pfs/.scr/index.scr' | grep -q scr.dataset"

# ---- a corrupt file on the PFS ----
sim_setup 5
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=2)
check "corrupt: first run, a directory per checkpoint" \
	sim_run "$out/c1" "$ALL" "$ex" --steps 8 --size 300000 --ckpt-dirs 1
printf '\x5a' | dd of="$pfs/ckpt.8/rank_1_f1.dat" bs=1 seek=77 conv=notrunc status=none
wipe_all
check "corrupt: restart falls back to checkpoint 2 (step 4)" \
	sim_run "$out/c2" "$ALL" "$ex" --steps 6 --size 300000 --expect-restart 4 --ckpt-dirs 1
check "corrupt: the damage is named" has "$out/c2" "fetch of dataset 4 failed: .*rank_1_f1.dat: CRC32"
check "corrupt: dataset 4 marked FAILED in the index" index_has "4DIR.scr/scr.dataset.4COMPLETE1.*FAILED"

# ---- an unwritable prefix ----
sim_setup 5
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1)
for n in node1 node2 node3 node4; do
	"$simnode" exec "$sim_dir" $n sh -c "mount --bind '$pfs' '$pfs' && mount -o remount,bind,ro '$pfs'"
done
check "read-only prefix: the run goes on" sim_run "$out/r1" "$ALL" "$ex" --steps 4 --size 100000
check "read-only prefix: a clear message" has "$out/r1" "flush of dataset 1 to $pfs failed: .*Read-only file system; it stays in cache"
check "read-only prefix: the job finished" has "$out/r1" "done at step 4"
for n in node1 node2 node3 node4; do "$simnode" exec "$sim_dir" $n umount "$pfs"; done
check "read-only prefix: the checkpoint stayed in cache" \
	sim_run "$out/r2" "$ALL" "$ex" --steps 6 --size 100000 --expect-restart 4
check "read-only prefix: restarted from cache" has "$out/r2" "restart from cache: dataset 2"

# ---- killed during a background flush ----
sim_setup 5
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1 -x SCR_FLUSH_ASYNC=1 -x SCR_FLUSH_ASYNC_BW=2MB)
(sim_run "$out/k1" "$ALL" "$ex" --steps 2 --files 2 --size 4000000) &
runner=$!
for i in $(seq 1 100); do
	find $("$simnode" shm "$sim_dir") -name 'transfer_*.scrinfo' | grep -q . && break
	sleep 0.1
done
sleep 1
for n in node1 node2 node3 node4; do "$simnode" kill "$sim_dir" $n; done
wait $runner
check "async: the job was killed mid-flush (flush had started)" test -d "$pfs/.scr/scr.dataset.1"
check "async: the index never marks it complete" index_has "DSET1DIR.scr/scr.dataset.1COMPLETE0"
check "async: and never CURRENT" sh -c "! '$scr' print '$pfs/.scr/index.scr' | grep -q CURRENT"
for n in node1 node2 node3 node4; do "$simnode" start-node "$sim_dir" $n; done
wipe_all
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1)
check "async: the next run does not fetch the partial copy" \
	sim_run "$out/k2" "$ALL" "$ex" --steps 2 --size 100000 --expect-restart 0

# ---- a background flush that completes ----
sim_setup 4
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1 -x SCR_FLUSH_ASYNC=1 -x SCR_PREFIX_SIZE=1)
check "async: run with background flushes" sim_run "$out/a1" "$ALL" "$ex" --steps 6 --size 200000
check "async: flushes finished in the background" has "$out/a1" "background flush of dataset 1 started"
check "SCR_PREFIX_SIZE=1: only the newest checkpoint is kept" \
	sh -c "test -d '$pfs/.scr/scr.dataset.3' -a ! -e '$pfs/.scr/scr.dataset.1' -a ! -e '$pfs/.scr/scr.dataset.2'"
check "async: the newest is CURRENT" index_has "CURRENT.scr/scr.dataset.3"
check "async: no transfer file left" sh -c "! find $("$simnode" shm "$sim_dir") -name 'transfer_*' | grep -q ."

# ---- SCR_PREFIX_SIZE with files at their own paths: the dropped
# checkpoints' files are found spread over the ranks and unlinked ----
sim_setup 4
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1 -x SCR_PREFIX_SIZE=2)
check "SCR_PREFIX_SIZE=2: four checkpoints, each in its own directory" \
	sim_run "$out/p1" "$ALL" "$ex" --steps 8 --size 100000 "${CD[@]}"
check "SCR_PREFIX_SIZE=2: the two oldest left the prefix, files and directories" \
	sh -c "test ! -e '$pfs/ckpt.2' -a ! -e '$pfs/ckpt.4' -a ! -e '$pfs/.scr/scr.dataset.1' -a ! -e '$pfs/.scr/scr.dataset.2'"
check "SCR_PREFIX_SIZE=2: the two newest are whole at their own paths" \
	sh -c "test -s '$pfs/ckpt.6/rank_1_f1.dat' -a -s '$pfs/ckpt.8/rank_1_f1.dat' -a -d '$pfs/.scr/scr.dataset.4'"
wipe_all
check "SCR_PREFIX_SIZE=2: a new run restarts from the newest" \
	sim_run "$out/p2" "$ALL" "$ex" --steps 8 --size 100000 --expect-restart 8 "${CD[@]}"

# ---- SCR_PREFIX_SIZE when a kept checkpoint names a dropped one's files:
# the user removed checkpoint 1's files from their own paths, so the next
# job's checkpoint with the same names took none of them over (nothing to
# supersede) and both are in the index.  Dropping 1 must leave the files
# that 2 names too (flush_prune: a name a kept dataset has stays) ----
sim_setup 4
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1)
check "kept name: a checkpoint flushed, its names reused by the next job" \
	sim_run "$out/k1" "$ALL" "$ex" --steps 2 --size 100000
rm -rf "$pfs/ckpt" # the user's doing
wipe_all
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1 -x SCR_FETCH=0 -x SCR_PREFIX_SIZE=1)
check "kept name: a new job starts afresh and flushes the same names" \
	sim_run "$out/k2" "$ALL" "$ex" --steps 2 --size 100000 --expect-restart 0
check "kept name: the older checkpoint left the prefix" test ! -e "$pfs/.scr/scr.dataset.1"
kept_files() { local r; for r in 0 1 2 4 5 6; do test -s "$pfs/ckpt/rank_${r}_f1.dat" || return 1; done; }
check "kept name: the newer one's files, which the older one named too, stay" kept_files
wipe_all
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1)
check "kept name: a new run restarts from it, every byte verified" \
	sim_run "$out/k3" "$ALL" "$ex" --steps 4 --size 100000 --expect-restart 2

# ---- halt conditions ----
sim_setup 4
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=0)
"$scr" halt --prefix "$pfs" --checkpoints 2 >/dev/null
check "halt: CheckpointsLeft=2 stops after two checkpoints" sim_run "$out/h1" "$ALL" "$ex" --steps 20 --size 1000
check "halt: the app was told after step 4" has "$out/h1" "SCR says stop, halting after step 4"
check "halt: no third checkpoint" hasnt "$out/h1" "checkpoint step.6"
rm -f "$pfs/.scr/halt.scr"
"$scr" halt --prefix "$pfs" --checkpoints 1 >/dev/null
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1 -x SCR_HALT_EXIT=1)
check "halt: SCR_HALT_EXIT=1 exits inside SCR" sim_run "$out/h2" "$ALL" "$ex" --steps 20 --size 1000 --expect-restart 4
check "halt: after the first new checkpoint" has "$out/h2" "halting: CHECKPOINTS_LEFT"
check "halt: the app never got control back" hasnt "$out/h2" "step.8|done at"
check "halt: the newest checkpoint was flushed on the way out" test -d "$pfs/.scr/scr.dataset.3"
rm -f "$pfs/.scr/halt.scr"
again && halt_running_parts
sim_setup 4
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=0)
check "halt: a run that finishes" sim_run "$out/h6" "$ALL" "$ex" --steps 2 --size 1000
check "halt: finishing records SCR_FINALIZE_CALLED" sh -c "'$scr' halt --prefix '$pfs' --list | grep -q SCR_FINALIZE_CALLED"
check "rerun: the same job runs again and restarts from its newest checkpoint in cache" \
	sim_run "$out/h7" "$ALL" "$ex" --steps 4 --size 1000 --expect-restart 2
check "rerun: from cache" has "$out/h7" "restart from cache: dataset [0-9]+ \(step\.2\)"
check "rerun: not stopped by SCR_FINALIZE_CALLED" hasnt "$out/h7" "halt condition"
check "rerun: finished" has "$out/h7" "done at step 4"
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1)
check "rerun: a third run of the job, flushing" \
	sim_run "$out/h8" "$ALL" "$ex" --steps 6 --size 1000 --expect-restart 4
wipe_all
check "rerun: every cache wiped, the same job restarts from the prefix" \
	sim_run "$out/h8b" "$ALL" "$ex" --steps 8 --size 1000 --expect-restart 6
check "rerun: fetched" has "$out/h8b" "restart from the prefix: dataset [0-9]+ fetched"
check "rerun: every byte verified" has "$out/h8b" "restarted from step.6, every byte verified"
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=0)
"$scr" halt --prefix "$pfs" --remove --immediate >/dev/null
check "halt: --immediate stops the next launch" sim_run "$out/h9" "$ALL" "$ex" --steps 6 --size 1000
check "halt: with its reason" has "$out/h9" "halt condition SCR_HALT_IMMEDIATE holds"
"$scr" halt --prefix "$pfs" --remove >/dev/null
check "halt: a finished run" sim_run "$out/h10" "$ALL" "$ex" --steps 2 --size 1000
SIM_JOB_ID=5151
check "halt: a new job in the same prefix is not blocked" \
	sim_run "$out/h11" "$ALL" "$ex" --steps 4 --size 1000
unset SIM_JOB_ID
check "halt: it ran" has "$out/h11" "done at step 4"

# ---- many files a rank: 12,000 each on two nodes ----
# Each rank's rank2file entry (770 KB) is over half the 1 MiB a reader takes:
# the two used to share one file no reader accepted, so the flushed dataset
# could not be fetched.  Routing them rewrote the filemap for every file
# (O(n^2): 33 s), and the flush its transfer file (9 s).
sim_setup 2
SIM_ENV=(-x SCR_COPY_TYPE=SINGLE -x SCR_FLUSH=1 -x SCR_DEBUG=1)
SIM_NP=2 check "many files: two ranks write and flush 12,000 files each" \
	sim_run "$out/m1" node1:1,node2:1 "$ex" --steps 2 --files 12000 --size 1
for n in node1 node2; do "$simnode" wipe "$sim_dir" $n; done
SIM_NP=2 check "many files: every cache wiped, the job restarts from the prefix" \
	sim_run "$out/m2" node1:1,node2:1 "$ex" --steps 2 --files 12000 --size 1 --expect-restart 2
check "many files: fetched" has "$out/m2" "restart from the prefix: dataset 1 fetched"
check "many files: every byte verified" has "$out/m2" "restarted from step.2, every byte verified"
finish
