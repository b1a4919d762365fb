#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-mem.sh MEMTEST SCR: the memory-protect API on simulated nodes with real
# Open MPI (memtest.c: variables that grow, shrink and appear; every byte
# compared with a replay after recovery).  8 ranks on node1-4, node5 spare.
#  (a) every scheme: node3 lost and wiped, recovery on survivors + spare
#      (SINGLE: a rerun recovers; a lost node starts it over)
#  (b) differential checkpoints (SCR_DCP=1): 10 % of the blocks change; the
#      files hold only those; a lost node; a crash halfway through a
#      differential checkpoint recovers the one before; every cache wiped:
#      the chain comes back from the prefix
#  (c) a flipped byte in a chunk: its hash catches it, recovery falls back
#  (d) restart from an older checkpoint (scr index --current)
#  (e) misuse: a wrong-sized buffer, an unknown id, another program's file
#  (f) incremental checkpoints (SCR_Checkpoint_begin/add/end), killed halfway
#  (g) a differential checkpoint killed at every step (SCR_FAULT fault
#      points: dataset started, each variable written, blocks written, file
#      sealed, before and after redundancy, flushed but not indexed), then a
#      node lost too: the rerun recovers the previous checkpoint (or this
#      one, once it is complete), every byte right
#  (h) differential checkpoints that ask the kernel which pages were written
#      (SCR_DCP_TRACK=1): they hash only those blocks; a checkpoint that
#      fails (ENOSPC) hands its pages on to the next one; a lost node,
#      every byte right; variables that share pages; buffers that move and
#      resize every step
# Split between scripts/test's builds (SIM_SPLIT, tests/sim/lib.sh): (a)'s
# PARTNER and XOR and four of (g)'s points are the release build's.
source "$(dirname "$0")/lib.sh"
mt=$(readlink -f "$1") scr=$(readlink -f "$2")
out=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$out"' EXIT
ALL=node1:2,node2:2,node3:2,node4:2
SURV=node1:2,node2:2,node4:2,node5:2
base_env=(-x SCR_SET_SIZE=4 -x SCR_SET_FAILURES=2 -x SCR_CACHE_SIZE=2 -x SCR_DEBUG=1
	-x SCR_FLUSH=0)

want() { [ -z "${MEM_PARTS:-}" ] || [[ " $MEM_PARTS " == *" $1 "* ]]; } # debugging aid

lose() { # lose NODE: kill it and wipe its cache
	"$simnode" kill "$sim_dir" "$1"
	"$simnode" wipe "$sim_dir" "$1"
}

# the memory file of rank 0 in the newest cached dataset, as seen on node1
cached_file() {
	"$simnode" exec "$sim_dir" node1 sh -c \
		'ls -t $(find /dev/shm -name "scrmem.0.fti" 2>/dev/null) | head -1'
}

# ---- (a) every scheme, a lost node ----
# SINGLE's restart and RS's rebuild are the paths of their own here; PARTNER
# and XOR take the memory API's path of RS with another scheme's rebuild
# (sim_async and sim_libscr_XOR run those under the sanitizers)
want a && for scheme in SINGLE PARTNER XOR RS; do
	case $scheme in
	SINGLE | RS) first_run || continue ;;
	*) again || continue ;;
	esac
	SIM_ENV=("${base_env[@]}" -x SCR_COPY_TYPE=$scheme)
	sim_setup 5
	check "$scheme (a): first run checkpoints steps 1-6, variables grow, shrink, appear" \
		sim_run "$out/a1$scheme" "$ALL" "$mt" --steps 6 --grow --size 300000 --expect-recover 0
	if [ $scheme = SINGLE ]; then
		check "$scheme (a): a rerun recovers step 6" \
			sim_run "$out/a2$scheme" "$ALL" "$mt" --steps 8 --grow --size 300000 --expect-recover 6
		check "$scheme (a): every byte" has "$out/a2$scheme" "recovered step 6: every byte verified"
		lose node3
		check "$scheme (a): a lost node starts the run over" \
			sim_run "$out/a3$scheme" "$SURV" "$mt" --steps 2 --grow --size 300000 --expect-recover 0
	else
		lose node3
		check "$scheme (a): node3 lost: recovers step 6 on survivors + spare" \
			sim_run "$out/a2$scheme" "$SURV" "$mt" --steps 9 --grow --size 300000 --expect-recover 6
		check "$scheme (a): every byte" has "$out/a2$scheme" "recovered step 6: every byte verified"
		check "$scheme (a): checkpoints again after recovery" \
			has "$out/a2$scheme" "checkpoint step 9 complete"
	fi
done

# ---- (b) differential checkpoints ----
if want b && first_run; then
SIM_ENV=("${base_env[@]}" -x SCR_COPY_TYPE=XOR -x SCR_DCP=1 -x SCR_DCP_BLOCK=4096
	-x SCR_DCP_FULL_EVERY=4 -x SCR_FLUSH=1)
sim_setup 5
check "DCP (b): first run, 10 % of blocks change a step" \
	sim_run "$out/b1" "$ALL" "$mt" --steps 6 --change 10 --size 2000000 --expect-recover 0
f=$(cached_file)
"$simnode" exec "$sim_dir" node1 "$scr" print "$f" >"$out/b1.print" 2>&1
check "DCP (b): the newest file is differential" has "$out/b1.print" "differential on dataset"
check "DCP (b): it records its XOR neighbour's size (ptFs) and the largest (maxFs)" \
	has "$out/b1.print" "ptFs: [1-9]"
size=$("$simnode" exec "$sim_dir" node1 stat -c %s "$f")
check "DCP (b): and holds about the changed share (size $size of ~6 MB)" \
	test "$size" -lt 2000000
lose node3
! sim_run "$out/b2" "$SURV" "$mt" --steps 9 --change 10 --size 2000000 --expect-recover 6 \
	--die-in-ckpt 9 >/dev/null
check "DCP (b): node3 lost: recovers step 6 through the chain" has "$out/b2" "checkpoint step 8 complete"
check "DCP (b): every byte" has "$out/b2" "recovered step 6: every byte verified"
check "DCP (b): crash halfway through checkpoint 9, rerun recovers step 8" \
	sim_run "$out/b3" "$SURV" "$mt" --steps 10 --change 10 --size 2000000 --expect-recover 8
check "DCP (b): every byte" has "$out/b3" "recovered step 8: every byte verified"
for n in node1 node2 node4 node5; do "$simnode" wipe "$sim_dir" $n; done
check "DCP (b): every cache wiped: recovers step 10 from the prefix" \
	sim_run "$out/b4" "$SURV" "$mt" --steps 11 --change 10 --size 2000000 --expect-recover 10
check "DCP (b): every byte" has "$out/b4" "recovered step 10: every byte verified"
check "DCP (b): the chain was fetched" has "$out/b4" "fetched|FETCH"

fi

# ---- (c) a flipped byte in a chunk ----
if want c && first_run; then
SIM_ENV=("${base_env[@]}" -x SCR_COPY_TYPE=SINGLE -x SCR_CRC_ASYNC=0)
sim_setup 5
check "flip (c): first run" sim_run "$out/c1" "$ALL" "$mt" --steps 4 --size 300000
# the flip lands after SCR_Init checked the cache (CRC32) and before
# SCR_Recover reads it: only the chunk hash can catch it
rm -f "$pfs/ready" "$pfs/go"
sim_run "$out/c2" "$ALL" "$mt" --steps 5 --size 300000 --expect-recover 3 \
	--pause-before-recover &
runner=$!
wait_for "$pfs/ready" . 60
f=$(cached_file)
"$simnode" exec "$sim_dir" node1 "$scr" print "$f" >"$out/c1.print"
fptr=$(awk '/fptr:/ {print $2; exit}' "$out/c1.print")
"$simnode" exec "$sim_dir" node1 cat "$f" >"$out/copy.fti"
"$simnode" exec "$sim_dir" node1 sh -c \
	"printf 'X' | dd of=$f bs=1 seek=$((fptr + 100)) conv=notrunc status=none"
touch "$pfs/go"
check "flip (c): the hash catches it, recovery falls back to step 3" wait $runner
check "flip (c): the reason is named" has "$out/c2" "does not match its hash"
check "flip (c): every byte" has "$out/c2" "recovered step 3: every byte verified"
check "flip (c): the damaged dataset is gone from cache" \
	"$simnode" exec "$sim_dir" node1 test ! -e "$f"
# scr print names damage in the metadata in one line
check "flip (c): scr print lists a good file" "$scr" print "$out/copy.fti"
printf 'X' | dd of="$out/copy.fti" bs=1 seek=90 conv=notrunc status=none
! "$scr" print "$out/copy.fti" >"$out/c3.print" 2>&1
check "flip (c): scr print names a damaged file block" has "$out/c3.print" "copy.fti: the file block is damaged"
check "flip (c): in one line" test "$(wc -l <"$out/c3.print")" = 1

fi

# ---- (d) an older checkpoint, by name ----
if want d && first_run; then
SIM_ENV=("${base_env[@]}" -x SCR_COPY_TYPE=PARTNER -x SCR_FLUSH=1)
sim_setup 5
check "current (d): first run" sim_run "$out/d1" "$ALL" "$mt" --steps 5 --size 300000
check "current (d): scr index --current mem.3" "$scr" index --prefix "$pfs" --current 3
for n in node1 node2 node3 node4; do "$simnode" wipe "$sim_dir" $n; done
check "current (d): the run recovers step 3" \
	sim_run "$out/d2" "$ALL" "$mt" --steps 5 --size 300000 --expect-recover 3
check "current (d): every byte" has "$out/d2" "recovered step 3: every byte verified"

fi

# ---- (e) misuse ----
if want e && first_run; then
SIM_ENV=("${base_env[@]}" -x SCR_COPY_TYPE=XOR)
sim_setup 5
check "misuse (e): first run" sim_run "$out/e1" "$ALL" "$mt" --steps 3 --size 300000
check "misuse (e): wrong size and unknown id refused, buffers untouched" \
	sim_run "$out/e2" "$ALL" "$mt" --steps 4 --size 300000 --misuse --expect-recover 3
check "misuse (e): nothing overwritten" has "$out/e2" "misuse: refused, nothing overwritten"
check "misuse (e): the size is named" has "$out/e2" "variable 1: the checkpoint holds [0-9]+ bytes, the protected buffer has"
check "misuse (e): the unknown id is named" has "$out/e2" "variable 77 is not protected"
SIM_ENV+=(-x SCR_MEM_TAG=another-program)
! sim_run "$out/e3" "$ALL" "$mt" --steps 5 --size 300000 >/dev/null
check "misuse (e): another program's file is refused" has "$out/e3" "written by another program"

fi

# ---- (f) incremental checkpoints ----
if want f && first_run; then
SIM_ENV=("${base_env[@]}" -x SCR_COPY_TYPE=RS -x SCR_DCP=1)
sim_setup 5
! sim_run "$out/f1" "$ALL" "$mt" --steps 5 --incremental --grow --size 300000 --die-in-ckpt 4 >/dev/null
check "incremental (f): it died where asked" has "$out/f1" "dying in the middle of checkpoint step 4"
lose node2
check "incremental (f): node2 lost too: recovers step 3" \
	sim_run "$out/f2" node1:2,node3:2,node4:2,node5:2 "$mt" --steps 6 --incremental --grow --size 300000 --expect-recover 3
check "incremental (f): every byte" has "$out/f2" "recovered step 3: every byte verified"
fi

# ---- (g) killed at every step of a differential checkpoint ----
if want g; then
# POINT:HIT:STEP: the HIT-th time the point is reached is in checkpoint 5
# (four variables in checkpoints 1-2, five from 3 on: the step, three
# arrays, and one that appears at step 3); STEP is what
# the rerun must recover
# (first: a point of each kind of state the rerun meets: a variable half
# written, a sealed file without redundancy, redundancy before the set agreed,
# a flush not indexed; again: the points between them)
for c in first:mem.var:23:4 first:mem.sealed:5:4 first:output.protected:5:4 \
	first:flush.copied:5:5 again:mem.begin:5:4 again:mem.var:19:4 again:mem.meta:5:4 \
	again:output.redundancy:5:4; do
	IFS=: read -r kind point hit expect <<<"$c"
	if [ "$kind" = first ]; then first_run || continue; else again || continue; fi
	SIM_ENV=("${base_env[@]}" -x SCR_COPY_TYPE=XOR -x SCR_DCP=1 -x SCR_DCP_BLOCK=4096
		-x SCR_FLUSH=1)
	sim_setup 5
	SIM_ENV+=(-x SCR_FAULT="$point#$hit")
	! sim_run "$out/g1" "$ALL" "$mt" --steps 6 --change 10 --grow --size 300000 >/dev/null
	check "kill (g) at $point#$hit: the run died there" has "$out/g1" "SCR_FAULT: rank [0-9]+ dies at $point"
	unset 'SIM_ENV[${#SIM_ENV[@]}-1]' 'SIM_ENV[${#SIM_ENV[@]}-1]'
	lose node3
	check "kill (g) at $point#$hit, node3 lost: the rerun recovers step $expect" \
		sim_run "$out/g2" "$SURV" "$mt" --steps 7 --change 10 --grow --size 300000 \
		--expect-recover "$expect"
	check "kill (g) at $point#$hit: every byte" has "$out/g2" "recovered step $expect: every byte verified"
done
fi

# ---- (h) write tracking ----
if want h && first_run; then
# checkpoint 4 (four variables each: the step, three arrays) fails on
# rank 2: the write after its second variable hits ENOSPC
SIM_ENV=("${base_env[@]}" -x SCR_COPY_TYPE=XOR -x SCR_DCP=1 -x SCR_DCP_BLOCK=4096
	-x SCR_DCP_TRACK=1 -x SCR_DEBUG=2)
sim_setup 5
SIM_ENV+=(-x SCR_FAULT="mem.var#14@2:enospc")
sim_run "$out/h1" "$ALL" "$mt" --steps 6 --change 10 --size 2000000 --may-fail >/dev/null
check "track (h): checkpoint 4 failed (ENOSPC on rank 2), the run went on" \
	has "$out/h1" "checkpoint step 4 failed, going on"
check "track (h): and checkpointed steps 5 and 6" has "$out/h1" "checkpoint step 6 complete"
# rank 0: "differential checkpoint ID: CHUNKS chunks, HASHED hashed, WRITTEN
# written".  Without tracking every chunk is hashed; 4 KiB chunks of
# buffers that are not page aligned share pages, so about three chunks are
# hashed per one written (checkpoint 5 carries two steps' changes).
check "track (h): differential checkpoints hashed under half of the chunks" \
	awk '/rank 0 .*differential checkpoint [0-46-9]: / { n++; if ($(NF-3) >= $(NF-5) / 2) bad++ }
		END { exit !(n >= 4 && !bad) }' "$out/h1"
check "track (h): the failed checkpoint's pages were hashed again by the next one" \
	awk '/rank 0 .*differential checkpoint 4: / { four = $(NF-3) }
		/rank 0 .*differential checkpoint 5: / { five = $(NF-3) }
		END { exit !(four > 0 && five > four) }' "$out/h1"
unset 'SIM_ENV[${#SIM_ENV[@]}-1]' 'SIM_ENV[${#SIM_ENV[@]}-1]'
lose node3
check "track (h): node3 lost: recovers step 6, built on the failed step's pages" \
	sim_run "$out/h2" "$SURV" "$mt" --steps 8 --change 10 --size 2000000 --expect-recover 6
check "track (h): every byte" has "$out/h2" "recovered step 6: every byte verified"
# neighbours sharing pages: each step writes only each variable's first
# word, which for the second and third lies on the page they share with the
# one before; scanning that one must not lose the write
sim_setup 5
check "track (h): variables back to back in one allocation" \
	sim_run "$out/h5" "$ALL" "$mt" --steps 6 --first-word --packed --size 300000
lose node4
check "track (h): node4 lost: recovers step 6" \
	sim_run "$out/h6" node1:2,node2:2,node3:2,node5:2 "$mt" --steps 7 --first-word --packed \
	--size 300000 --expect-recover 6
check "track (h): every byte, pages shared" has "$out/h6" "recovered step 6: every byte verified"
sim_setup 5
check "track (h): buffers that move and resize every step" \
	sim_run "$out/h3" "$ALL" "$mt" --steps 6 --change 10 --grow --size 300000
lose node2
check "track (h): node2 lost: recovers step 6" \
	sim_run "$out/h4" node1:2,node3:2,node4:2,node5:2 "$mt" --steps 7 --change 10 --grow \
	--size 300000 --expect-recover 6
check "track (h): every byte" has "$out/h4" "recovered step 6: every byte verified"
fi
finish
