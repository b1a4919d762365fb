#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-scr31.sh RESHAPE EXAMPLE SCR MEMTEST [hdf5|nohdf5]: SCR 3.1 applications on
# simulated nodes, each with the failure it exists for.  RESHAPE
# (tests/sim/reshape.c) spreads a global array over the ranks and restarts
# on any number of them.
#  (a) files at their own paths with reused names: the older checkpoint
#      leaves the index, its files are written over by the next flush, an
#      output dataset lands where the application looks; on a prefix without
#      room for the replaced files twice over, they are freed at once
#  (b) restart without SCR's restart API (SCR_FLUSH_ON_RESTART=1,
#      SCR_FETCH=0) after a node loss: rebuilt, flushed inside SCR_Init, read
#      with plain POSIX; SCR_Current keeps SCR_FLUSH's count in a new job
#  (c) cache bypass with a file every rank writes (pwrite), a node lost after
#      the checkpoint: the restart reads it from the prefix
#  (d) without bypass, that shared file fails SCR_Complete_output in one line
#      (also when the ranks share a node: SCR 3.1's rule, shared access
#      writes on the prefix)
#  (e) 8 -> 6 ranks (MPI-IO shared file, bypass) and 8 -> 12 ranks (parallel
#      HDF5, bypass), file per process 8 -> 6 -> 12 through the cache and the
#      prefix
#  (f) a 2-rank job in a 4-rank prefix and cache, then the 4-rank job: it
#      still restarts from its newest checkpoint, nothing marked FAILED
#  (g) SCR_GLOBAL_RESTART=1: rebuilt in cache, flushed at SCR_Init, the
#      restart reads on the prefix
#  (i) a prefix of the older layout (scr.dataset.<id>/ with the files in it)
#      still restarts
#  (h) memory checkpoints (SCR_Protect) refused on another rank count in
#      one line, kept for their own; BYPASS=1 on one CKPT descriptor: those
#      checkpoints on the prefix, the newest restarted from there
source "$(dirname "$0")/lib.sh"
rs=$(readlink -f "$1") ex=$(readlink -f "$2") scr=$(readlink -f "$3") mem=$(readlink -f "$4")
hdf5=${5:-nohdf5}
out=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$out"' EXIT
ALL=node1:2,node2:2,node3:2,node4:2
SURV=node1:2,node3:2,node4:2,node5:2
BASE=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_CACHE_SIZE=2 -x SCR_DEBUG=1)
lose() { "$simnode" kill "$sim_dir" "$1" && "$simnode" wipe "$sim_dir" "$1"; }
wipe_all() { # every node up again, its storage gone (a new allocation)
	for n in node1 node2 node3 node4 node5; do
		"$simnode" alive "$sim_dir" $n || "$simnode" start-node "$sim_dir" $n
		"$simnode" wipe "$sim_dir" $n
	done
}
index_has() { "$scr" print "$pfs/.scr/index.scr" | tr -d ' \n' | grep -Eq -- "$1"; }
no_failed() { ! "$scr" print "$pfs/.scr/index.scr" | grep -q FAILED; }

# (e) with parallel HDF5: 8 ranks write a shared file in bypass, 12 restart
e_hdf5() {
	if [ "$hdf5" != hdf5 ]; then
		echo "# (e) parallel HDF5: skipped (no libhdf5-openmpi-dev when built)"
		return 0
	fi
	SIM_ENV=("${BASE[@]}" -x SCR_CACHE_BYPASS=1)
	sim_setup 5
	check "(e) parallel HDF5 in bypass, 8 ranks" \
		sim_run "$out/e3" "$ALL" "$rs" --steps 2 --total 250000 --mode hdf5
	SIM_NP=12 check "(e) 12 ranks restart from it" \
		sim_run "$out/e4" "node1:3,node2:3,node3:3,node4:3" "$rs" --steps 4 --total 250000 --mode hdf5 --expect-restart 2
	check "(e) 8 -> 12: every value verified" has "$out/e4" "restarted from ckpt.2 on 12 ranks \(written by 8\)"
}
# (a) a prefix without room for the replaced files twice over (a 100 MiB
# tmpfs, checkpoints of 25 MB): they are freed by the rename as
# before SCR_PREFIX_REUSE, not kept for the next flush, and nothing fails
a_full() {
	local small
	small=$(mktemp -d /var/tmp/scr-small.XXXXXX)
	mount -t tmpfs -o size=100m tmpfs "$small" || { check "(a) a 100 MiB tmpfs" false; return; }
	SCR_SIM_BASE=$small sim_setup 5
	SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1)
	check "(a) no room: scr_example flushes 3 checkpoints of reused names to a nearly full prefix" \
		sim_run "$out/af1" "$ALL" "$ex" --steps 6 --size 4000000
	check "(a) no room: the names were reused" has "$out/af1" "dataset 3 reuses file names of dataset 2"
	check "(a) no room: no flush kept the replaced files to write over" \
		sh -c "! grep -E 'the prefix: wrote over [1-9]' '$out/af1' && grep -q 'the prefix: wrote over 0 replaced' '$out/af1'"
	check "(a) no room: nothing is left in the pool" \
		sh -c "[ -z \"\$(ls -A '$pfs/.scr/scr.recycle' 2>/dev/null)\" ]"
	wipe_all
	SIM_JOB_ID=4301 check "(a) no room: a new job restarts from the prefix" \
		sim_run "$out/af2" "$ALL" "$ex" --steps 8 --size 4000000 --expect-restart 6
	check "(a) no room: every byte verified" has "$out/af2" "restarted from step.6, every byte verified"
	sim_cleanup
	umount "$small" && rmdir "$small"
}
again_only e_hdf5 a_full

# ---- (a) files at their own paths, names reused ----
sim_setup 5
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1)
check "(a) scr_example flushes every checkpoint, names reused, and an output" \
	sim_run "$out/a1" "$ALL" "$ex" --steps 4 --size 100000 --output 1
check "(a) checkpoint files at their own paths" test -s "$pfs/ckpt/rank_0_f1.dat"
check "(a) the output dataset where the application looks" \
	sh -c "grep -q 'rank 3 of 8 finished step 4' '$pfs/out/rank_3.txt'"
check "(a) the older checkpoint left the index when its names were taken" \
	has "$out/a1" "dataset 2 reuses file names of dataset 1 \(step.2\)"
check "(a) the newest is CURRENT" index_has "CURRENT.scr/scr.dataset.2"
check "(a) each flush wrote over the files the one before replaced (SCR_PREFIX_REUSE)" \
	has "$out/a1" "the prefix: wrote over [1-9][0-9]* replaced files"
check "(a) and SCR_Finalize deleted what was left of them" \
	sh -c "[ -z \"\$(ls -A '$pfs/.scr/scr.recycle' 2>/dev/null)\" ]"
check "(a) and placed" index_has "2DIR.scr/scr.dataset.2COMPLETE1.*PLACED"
wipe_all
SIM_JOB_ID=4300 check "(a) a new job restarts from the prefix" \
	sim_run "$out/a2" "$ALL" "$ex" --steps 6 --size 100000 --expect-restart 4
check "(a) every byte verified" has "$out/a2" "restarted from step.4, every byte verified"
# names reused by a job of fewer ranks: the older tree, of 8 ranks, is read
# spread over the 6 and its names compared where they hash to (namejoin.h;
# unit_namejoin checks that the names of ranks beyond the job are read too)
wipe_all
SIM_NP=6 SIM_JOB_ID=4302 check "(a) 6 ranks restart from the 8 ranks' step.6 and flush the same names" \
	sim_run "$out/a3" "node1:2,node2:2,node3:2" "$ex" --steps 8 --size 100000 --expect-restart 6
check "(a) 8 -> 6: the 8 ranks' checkpoint left the index when its names were taken" \
	has "$out/a3" "dataset [0-9]+ reuses file names of dataset [0-9]+ \(step.6\)"
check "(a) 8 -> 6: the 6 ranks' checkpoint is CURRENT, the 8 ranks' gone" \
	sh -c "'$scr' index --prefix '$pfs' --list | grep -Eq '^\\* +[0-9]+ +[a-z]+ +step\\.8 ' && ! '$scr' index --prefix '$pfs' --list | grep -q ' step\\.6 '"
# the pool's other path: with gcc alone (tests/sim/lib.sh: again)
again && a_full

# ---- (b) restart without SCR's restart API, after a node loss ----
sim_setup 5
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=0)
check "(b) reshape checkpoints ckpt.2 and ckpt.4 in cache only" \
	sim_run "$out/b1" "$ALL" "$rs" --steps 4 --total 200000
lose node2
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=3 -x SCR_FLUSH_ON_RESTART=1 -x SCR_FETCH=0)
check "(b) node2 lost; the rerun reads ckpt.4 itself from the prefix" \
	sim_run "$out/b2" "$SURV" "$rs" --steps 4 --total 200000 --read-step 4 --expect-restart 4
check "(b) SCR_Init rebuilt it first" has "$out/b2" "dataset 2 \(ckpt.4\) ready, 2 ranks rebuilt"
check "(b) every value verified from the prefix" \
	has "$out/b2" "restarted from ckpt.4 on 8 ranks \(written by 8\), every value verified"
check "(b) the files are at their own paths" test -s "$pfs/ckpt.4/part_7.dat"
wipe_all
SIM_JOB_ID=4301 check "(b) a new job, no cache: reads ckpt.4, SCR_Current, then ckpt.6 and ckpt.8" \
	sim_run "$out/b3" "$ALL" "$rs" --steps 8 --total 200000 --read-step 4 --expect-restart 4
check "(b) SCR_Current kept the count: ckpt.6 is checkpoint 3 of SCR_FLUSH=3, flushed" \
	test -s "$pfs/ckpt.6/meta"
check "(b) ckpt.8 went at SCR_Finalize" test -s "$pfs/ckpt.8/part_0.dat"

# ---- (c) cache bypass, a shared file, a node lost after the checkpoint ----
sim_setup 5
SIM_ENV=("${BASE[@]}" -x SCR_CACHE_BYPASS=1 -x SCR_FLUSH=0)
check "(c) bypass: every rank pwrites its block of one file" \
	sim_run "$out/c1" "$ALL" "$rs" --steps 4 --total 300000 --mode posix
check "(c) the shared file is on the prefix at its own path" \
	test "$(stat -c %s "$pfs/ckpt.4/data.bin" 2>/dev/null)" = 2400000
check "(c) nothing went to cache" \
	sh -c "! find '$("$simnode" shm "$sim_dir")' -path '*scr.dataset.*' -type f | grep -q ."
check "(c) recorded in the index like a flushed dataset" index_has "CURRENT.scr/scr.dataset.2"
lose node2
check "(c) node2 lost: the rerun restarts from the prefix" \
	sim_run "$out/c2" "$SURV" "$rs" --steps 6 --total 300000 --mode posix --expect-restart 4
check "(c) read where it is" has "$out/c2" "restart from the prefix: dataset 2 \(ckpt.4\) of 8 ranks"
check "(c) every value verified" has "$out/c2" "restarted from ckpt.4 on 8 ranks \(written by 8\)"

# ---- (d) the shared file without bypass ----
sim_setup 4
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=0)
rc=0
SIM_JOB_ID=4302 sim_run "$out/d1" "$ALL" "$rs" --steps 2 --total 1000 --mode posix || rc=$?
check "(d) without bypass the checkpoint fails" test $rc -ne 0
rc=0
SIM_NP=2 SIM_JOB_ID=4306 sim_run "$out/d2" "node1:2" "$rs" --steps 2 --total 1000 --mode posix || rc=$?
check "(d) also with both ranks on one node" test $rc -ne 0
check "(d) naming the ranks" has "$out/d2" "ckpt.2/data.bin is written by rank [01] on node1 and rank [01] on node1"
check "(d) in one line naming the file and SCR_CACHE_BYPASS=1" \
	has "$out/d1" "ckpt.2/data.bin is written by rank [0-7] on node[1-4] and rank [0-7] on node[1-4]: .*SCR_CACHE_BYPASS=1"

# ---- (e) other rank counts ----
sim_setup 5
SIM_ENV=("${BASE[@]}" -x SCR_CACHE_BYPASS=1)
check "(e) MPI-IO shared file in bypass, 8 ranks" \
	sim_run "$out/e1" "$ALL" "$rs" --steps 2 --total 250000 --mode mpiio
SIM_NP=6 check "(e) 6 ranks restart from it" \
	sim_run "$out/e2" "node1:2,node2:2,node3:2" "$rs" --steps 4 --total 250000 --mode mpiio --expect-restart 2
check "(e) 8 -> 6: every value verified" has "$out/e2" "restarted from ckpt.2 on 6 ranks \(written by 8\)"
# HDF5 is the application's I/O: SCR's path is (e1)'s bypass and (e7)'s
# growth in ranks, which run under the sanitizers (tests/sim/lib.sh: again)
again && e_hdf5
sim_setup 5
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1)
check "(e) file per process, 8 ranks, cached and flushed" \
	sim_run "$out/e5" "$ALL" "$rs" --steps 4 --total 250000
# a file the dataset did not write, put beside its files on the prefix: a
# restart from the prefix routes any file at its own path (it checks the
# dataset's own files, not what else is there); a name on no path is not
echo "the user's note" >"$pfs/ckpt.4/note.txt"
SIM_NP=6 check "(e) 6 ranks in the same job: the cache is left alone, the prefix serves" \
	sim_run "$out/e6" "node1:2,node2:2,node3:2" "$rs" --steps 6 --total 250000 --expect-restart 4 \
	--probe note.txt,absent.dat,part_7.dat --delete ckpt.2
check "(e) 8 -> 6: a file at its own path the dataset did not write is routed there" \
	has "$out/e6" "probe ckpt.4/note.txt routed to $pfs/ckpt.4/note.txt"
check "(e) 8 -> 6: a name on no path is not routed" \
	has "$out/e6" "probe ckpt.4/absent.dat not routed"
check "(e) 8 -> 6: and SCR says why, naming it" \
	has "$out/e6" "SCR_Route_file: ckpt.4/absent.dat is not part of restart dataset"
check "(e) 8 -> 6: a file of the dataset beyond the 6 ranks is routed" \
	has "$out/e6" "probe ckpt.4/part_7.dat routed to $pfs/ckpt.4/part_7.dat"
check "(e) it said why in one line" has "$out/e6" "holds dataset 2 \(ckpt.4\) of 8 ranks; this job has 6 ranks and leaves that cache"
check "(e) 8 -> 6: every value verified" has "$out/e6" "restarted from ckpt.4 on 6 ranks \(written by 8\)"
# SCR_Delete of a checkpoint on the prefix: its files found spread over
# the ranks (flush_delete) and unlinked, its directory and index entry gone
check "(e) SCR_Delete(ckpt.2): it said so" has "$out/e6" "reshape: deleted ckpt.2"
check "(e) its files left the prefix" test ! -e "$pfs/ckpt.2"
lists_not_2() { # the index lists ckpt.4 and no longer ckpt.2
	local l
	l=$("$scr" index --prefix "$pfs" --list) || return 1
	grep -q ' ckpt\.4 ' <<<"$l" && ! grep -q ' ckpt\.2 ' <<<"$l"
}
check "(e) and the index" lists_not_2
check "(e) the other checkpoints' files stay" test -s "$pfs/ckpt.4/part_7.dat"
wipe_all
SIM_NP=12 SIM_JOB_ID=4303 check "(e) 12 ranks in a new job restart from the 6 ranks' ckpt.6" \
	sim_run "$out/e7" "node1:3,node2:3,node3:3,node4:3" "$rs" --steps 8 --total 250000 --expect-restart 6
check "(e) 6 -> 12: every value verified" has "$out/e7" "restarted from ckpt.6 on 12 ranks \(written by 6\)"
check "(e) nothing marked FAILED" no_failed

# ---- (f) a 2-rank job in a 4-rank prefix and cache ----
sim_setup 3
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1 -x SCR_SET_SIZE=2)
SIM_NP=4 check "(f) 4 ranks checkpoint ckpt.2 and ckpt.4, flushed" \
	sim_run "$out/f1" "node1:2,node2:2" "$rs" --steps 4 --total 50000
SIM_NP=2 check "(f) 2 ranks in the same job restart from ckpt.4 on the prefix" \
	sim_run "$out/f2" "node1:1,node2:1" "$rs" --steps 4 --total 50000 --expect-restart 4
check "(f) nothing about a damaged checkpoint" hasnt "$out/f2" "FAILED|unknown error|deleting it"
check "(f) nothing marked FAILED" no_failed
SIM_NP=4 check "(f) the 4-rank job again: restarts from its newest checkpoint in cache" \
	sim_run "$out/f3" "node1:2,node2:2" "$rs" --steps 6 --total 50000 --expect-restart 4
check "(f) from cache" has "$out/f3" "restart from cache: dataset 2 \(ckpt.4\) ready"

# ---- (h) memory checkpoints on another rank count, and BYPASS=1 per CKPT ----
sim_setup 5
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=1)
check "(h) memory checkpoints of 8 ranks, flushed" \
	sim_run "$out/h1" "$ALL" "$mem" --steps 2 --every 1 --size 65536
wipe_all
SIM_NP=4 SIM_JOB_ID=4304 check "(h) a 4-rank job cannot restore them and starts afresh" \
	sim_run "$out/h2" "node1:2,node2:2" "$mem" --steps 0 --size 65536 --expect-recover 0
check "(h) in one line" has "$out/h2" "holds memory checkpoints \(SCR_Protect\) of 8 ranks; they restore only in a job of 8 ranks"
check "(h) nothing marked FAILED" no_failed
SIM_JOB_ID=4305 check "(h) a job of 8 ranks recovers them" \
	sim_run "$out/h3" "$ALL" "$mem" --steps 3 --every 1 --size 65536 --expect-recover 2
SIM_ENV+=(-x SCR_GLOBAL_RESTART=1)
SIM_JOB_ID=4305 check "(h) SCR_GLOBAL_RESTART=1: memory checkpoints restore from cache" \
	sim_run "$out/h3b" "$ALL" "$mem" --steps 3 --every 1 --size 65536 --expect-recover 3
wipe_all
SIM_JOB_ID=4307 check "(h) and, in a new job, from the prefix (fetched into cache)" \
	sim_run "$out/h3c" "$ALL" "$mem" --steps 3 --every 1 --size 65536 --expect-recover 3
sim_setup 5
# in the prefix: the nodes see it there (their /tmp is their own)
printf 'CKPT=0 INTERVAL=1 TYPE=XOR SET_SIZE=4\nCKPT=1 INTERVAL=2 TYPE=XOR SET_SIZE=4 BYPASS=1\n' \
	>"$pfs/bypass.conf"
SIM_ENV=(-x SCR_DEBUG=1 -x SCR_FLUSH=0 -x SCR_CONF_FILE="$pfs/bypass.conf")
check "(h) BYPASS=1 on the CKPT descriptor of every second checkpoint" \
	sim_run "$out/h4" "$ALL" "$rs" --steps 6 --every 1 --total 10000
check "(h) checkpoints 2, 4 and 6 went to the prefix" \
	sh -c "test -s '$pfs/ckpt.2/meta' -a -s '$pfs/ckpt.4/meta' -a -s '$pfs/ckpt.6/meta' -a ! -e '$pfs/ckpt.5'"
check "(h) the rerun restarts from ckpt.6 on the prefix, newer than ckpt.5 in cache" \
	sim_run "$out/h5" "$ALL" "$rs" --steps 7 --every 1 --total 10000 --expect-restart 6
check "(h) from the prefix" has "$out/h5" "restart from the prefix: dataset 6 \(ckpt.6\)"

# ---- (i) a prefix written by the older layout still restarts ----
sim_setup 5
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=2)
check "(i) checkpoints flushed" sim_run "$out/i1" "$ALL" "$ex" --steps 4 --size 100000
# as earlier releases left it: the files and metadata in <prefix>/scr.dataset.2/,
# and an index that names that directory (written again from the summaries)
mv "$pfs/.scr/scr.dataset.2" "$pfs/scr.dataset.2" && mv "$pfs/ckpt" "$pfs/scr.dataset.2/ckpt"
echo garbage >"$pfs/.scr/index.scr"
wipe_all
SIM_JOB_ID=4308 check "(i) a new job restarts from scr.dataset.2" \
	sim_run "$out/i2" "$ALL" "$ex" --steps 6 --size 100000 --expect-restart 4
check "(i) fetched from the older layout's directory" \
	has "$out/i2" "dataset 2 fetched from $pfs/scr.dataset.2"
check "(i) every byte verified" has "$out/i2" "restarted from step.4, every byte verified"

# ---- (g) SCR_GLOBAL_RESTART ----
sim_setup 5
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=0)
check "(g) ckpt.4 in cache only" sim_run "$out/g1" "$ALL" "$rs" --steps 4 --total 100000
lose node3
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=10 -x SCR_GLOBAL_RESTART=1)
check "(g) node3 lost; SCR_GLOBAL_RESTART=1 rerun" \
	sim_run "$out/g2" "node1:2,node2:2,node4:2,node5:2" "$rs" --steps 6 --total 100000 --expect-restart 4
check "(g) rebuilt in cache" has "$out/g2" "dataset 2 \(ckpt.4\) ready, 2 ranks rebuilt"
check "(g) the restart reads on the prefix" has "$out/g2" "reshape: reading $pfs/ckpt.4/meta"
check "(g) every value verified" has "$out/g2" "restarted from ckpt.4 on 8 ranks"
finish
