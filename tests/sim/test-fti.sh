#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-fti.sh HEAT_FTI SCR: an FTI application (examples/heat_fti.c, fti.h) on
# SCR, 8 ranks on simulated node1-4 (node5 spare).  A reference run
# without checkpoints prints "step N sum S" for every step; then for each
# FTI level a run checkpoints every 3 steps and crashes after step 11:
#  level 1 (SINGLE)   every process dies; the rerun on the same nodes
#  level 2 (PARTNER)  node3 dies and its storage is wiped; the rerun on the
#  level 3 (RS)       survivors and the spare rebuilds it
#  level 4 (flushed)  every node's storage is wiped; the rerun fetches the
#                     checkpoint from the prefix (glbl_dir)
# and the rerun must take the FTI_Status() != 0 path, recover at step 9 and
# print from there exactly the reference's lines.  Levels 2 and 3 take
# incremental checkpoints (FTI_InitICP ...), level 2 differential ones;
# level 4 names its variables (FTI_setIDFromString).  Also: FTI's config file
# (an unknown key warned with file:line, a bad value one line and
# FTI_Init failing), FTI_BitFlip, staging, keep_last_ckpt (0: the next run starts fresh, 1: the
# next job recovers from the prefix), FTI levels SCR maps or refuses, and
# FTI_Snapshot at its minute intervals (fast_forward = 10: every ~6 s).
# With HEAT_FTI_F (tests/sim/heat_fti.f90, FTI's Fortran module): a Fortran
# heat program at level 3 loses node3 after a crash and recovers on the
# survivors and the spare, every step after it as its own reference run's.
# With FTI_CPP (tests/sim/fti_cpp.cpp; "-" for none, as for HEAT_FTI_F): an
# FTI program in C++ checks FTI_GetConfig, groups, dataset names and
# attributes, then checkpoints at level 2 with differential checkpoints on,
# crashes, loses node3 and recovers every byte.
source "$(dirname "$0")/lib.sh"
heat=$(readlink -f "$1") scr=$(readlink -f "$2")
heatf="" cpp=""
[ "${3:--}" = - ] || heatf=$(readlink -f "$3")
[ "${4:--}" = - ] || cpp=$(readlink -f "$4")
out=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$out"' EXIT
ALL=node1:2,node2:2,node3:2,node4:2
SURV=node1:2,node2:2,node4:2,node5:2

# conf FILE [KEY=VALUE ...]: an FTI configuration in the prefix; the pairs
# replace [basic] defaults or are added to it
conf() {
	local f=$1 kv
	shift
	local -A set=()
	for kv in "$@"; do set[${kv%%=*}]=${kv#*=}; done
	local basic=(head=0 node_size=2 ckpt_dir=/dev/shm "glbl_dir=$pfs" meta_dir=/tmp/fti-meta
		ckpt_l1=3 ckpt_l2=5 ckpt_l3=7 ckpt_l4=11 keep_last_ckpt=0 group_size=4 verbosity=2)
	{
		echo "; FTI configuration for test-fti.sh"
		echo "[basic]"
		for kv in "${basic[@]}"; do
			[ -n "${set[${kv%%=*}]+x}" ] || echo "${kv%%=*} = ${kv#*=}"
		done
		for kv in "$@"; do echo "${kv%%=*} = ${kv#*=}"; done
		echo "[restart]"
		echo "failure = 0"
		echo "exec_id = 2024-01-01_00-00-00"
		echo "[advanced]"
		echo "block_size = 1024"
		echo "transfer_size = 16"
		echo "general_tag = 2612"
		echo "local_test = 0"
	} >"$pfs/$f"
}

steps() { # steps OUT FROM TO: the "step N sum S" lines for N in FROM..TO
	grep -E '^step [0-9]+ sum ' "$1" | awk -v f="$2" -v t="$3" '$2 >= f && $2 <= t'
}

same_steps() { # same_steps OUT FROM TO: those lines are the reference's
	local got want
	got=$(steps "$1" "$2" "$3")
	want=$(steps "${ref:-$out/ref}" "$2" "$3")
	if [ "$(printf '%s\n' "$got" | grep -c .)" -ne $(($3 - $2 + 1)) ] || [ "$got" != "$want" ]; then
		echo "--- steps $2..$3 of $1 differ from the reference:"
		diff <(echo "$want") <(echo "$got") | head -10 | sed 's/^/    /'
		return 1
	fi
}

not_same_steps() { # not_same_steps OUT FROM TO: those lines are there and differ
	[ -n "$(steps "$1" "$2" "$3")" ] && ! same_steps "$@" >/dev/null
}

lines() { # lines FILE PATTERN COUNT: COUNT lines match
	local n
	n=$(grep -cE -- "$2" "$1")
	[ "$n" -eq "$3" ] || { echo "--- $1: $n lines match /$2/, want $3"; return 1; }
}

# crash_run WHAT OUT JOB CMD...: CMD on every node dies after its step 11
crash_run() {
	local what=$1 o=$2 job=$3 rc
	shift 3
	SIM_JOB_ID=$job sim_run "$o" "$ALL" "$@"
	rc=$?
	check "$what: the run died after step 11 (status $rc)" test $rc -ne 0 -a $rc -ne 124
}

# lost_rerun WHAT OUT JOB CMD...: node3 dies with its storage; CMD again on
# the survivors and the spare
lost_rerun() {
	local what=$1 o=$2 job=$3
	shift 3
	"$simnode" kill "$sim_dir" node3
	"$simnode" wipe "$sim_dir" node3
	SIM_JOB_ID=$job check "$what: node3 lost, the rerun on the survivors and the spare finishes" \
		sim_run "$o" "$SURV" "$@"
}

# FTI's Fortran module (use FTI): the module is gfortran's code, never
# sanitized, and what it calls the C levels below take; so the sanitized
# build leaves this part to the release build (tests/sim/lib.sh: again)
fortran_part() {
	if [ -z "$heatf" ]; then
		echo "# FTI's Fortran module: not built (no Fortran compiler)"
		return 0
	fi
	sim_setup 5
	conf ff.fti
	SIM_JOB_ID=300 check "Fortran: the reference run, no checkpoints" \
		sim_run "$out/fref" "$ALL" "$heatf" "$pfs/ff.fti" 20 3 0
	check "Fortran: 20 steps" test "$(steps "$out/fref" 1 20 | wc -l)" -eq 20
	check "Fortran: FTI_SetAttribute of a name and of dimensions, a negative one refused" \
		has "$out/fref" "^attributes set, a negative dimension refused$"
	check "Fortran: a strided section is refused with its variable named" \
		has "$out/fref" "FTI_Protect: variable 9 is not contiguous in memory"
	crash_run Fortran "$out/f1" 301 "$heatf" "$pfs/ff.fti" 20 3 3 11
	check "Fortran: FTI_Checkpoint at level 3 (RS)" has "$out/f1" "dataset 3 \(ckpt3\): .* RS"
	ref=$out/fref check "Fortran: steps 1-11 as its reference" same_steps "$out/f1" 1 11
	lost_rerun Fortran "$out/f2" 301 "$heatf" "$pfs/ff.fti" 20 3 3
	check "Fortran: node3's ranks rebuilt from RS" has "$out/f2" "dataset 3 \(ckpt3\) ready, 2 ranks rebuilt"
	check "Fortran: FTI_Status, FTI_GetStoredSize and FTI_Recover of every type" \
		has "$out/f2" "^recovered at step 9 \(plate: 9216 bytes per rank\)$"
	ref=$out/fref check "Fortran: steps 10-20 exactly as its reference" same_steps "$out/f2" 10 20
	check "Fortran: no step before 10 recomputed" test -z "$(steps "$out/f2" 1 9)"
}
again_only fortran_part

# FTI's C++ programs: fti_cpp.cpp, level 2 (PARTNER) with enable_dcp
cpp_part() {
	if [ -z "$cpp" ]; then
		echo "# the C++ FTI program: not built (no C++ compiler of the C compiler's kind)"
		return 0
	fi
	sim_setup 5
	conf cpp.fti enable_dcp=1 ckpt_io=1
	SIM_JOB_ID=400 check "C++: the reference run, no checkpoints" \
		sim_run "$out/cref" "$ALL" "$cpp" "$pfs/cpp.fti" 16 2 0
	local l
	for l in "getconfig: configuration and topology" "getconfig: left and right" \
		"getconfig: a missing file gives ioMode -1" \
		"groups: made, a second child of one name refused, renamed" \
		"datasets: a shape that fits taken, others refused" \
		"attributes: set on a protected variable only" \
		"global datasets: FTI_NSCS, as FTI without HDF5"; do
		check "C++: $l" has "$out/cref" "^$l ok$"
	done
	check "C++: a global dataset call says why it fails" \
		has "$out/cref" "FTI_DefineGlobalDataset: global datasets are FTI's HDF5 mode"
	crash_run C++ "$out/c1" 401 "$cpp" "$pfs/cpp.fti" 16 2 3 11
	check "C++: FTI_Checkpoint at level 2 (PARTNER)" has "$out/c1" "dataset 3 \(ckpt3\): .* PARTNER"
	local f
	f=$("$simnode" exec "$sim_dir" node1 sh -c \
		'ls -t $(find /dev/shm -name "scrmem.0.fti" 2>/dev/null) | head -1')
	"$simnode" exec "$sim_dir" node1 "$scr" print "$f" >"$out/c1.print" 2>&1
	check "C++: checkpoint 3 is differential (enable_dcp = 1)" \
		has "$out/c1.print" "differential on dataset"
	# checkpoint 1, the full one the others build on: what FTI's calls named
	f=$("$simnode" exec "$sim_dir" node1 sh -c \
		'ls -tr $(find /dev/shm -name "scrmem.0.fti" 2>/dev/null) | head -1')
	"$simnode" exec "$sim_dir" node1 "$scr" print "$f" >"$out/c1.full" 2>&1
	check "C++: scr print shows the names of FTI_setIDFromString" \
		has "$out/c1.full" "^FTI variable names: step=0 field=1 particles=2$"
	check "C++: scr print shows the composite type with its fields" \
		sh -c 'grep -A4 "^type 11 Particle 32 bytes$" "$1" | tr "\n" "|" |
			grep -q "|  x double at 0|  y double at 8|  z double at 16|  id int at 24|"' \
			sh "$out/c1.full"
	check "C++: and which variable is of it" has "$out/c1.full" "^variable 2: 16 of type 11$"
	ref=$out/cref check "C++: steps 1-11 as the reference" same_steps "$out/c1" 1 11
	lost_rerun C++ "$out/c2" 401 "$cpp" "$pfs/cpp.fti" 16 2 3
	check "C++: node3's ranks restored from their partner copies" \
		has "$out/c2" "restart from cache: dataset 3 \(ckpt3\) ready"
	check "C++: recovered at step 9, the names found in the checkpoint" \
		has "$out/c2" "^recovered at step 9$"
	ref=$out/cref check "C++: steps 10-16, every byte as the reference's" same_steps "$out/c2" 10 16
	check "C++: no step before 10 recomputed" test -z "$(steps "$out/c2" 1 9)"
	check "C++: FTI_GetConfig counted the run's checkpoints, variables and bytes" \
		has "$out/c2" "^getconfig: this run's checkpoints and variables ok$"
	# a rank killed alone, at level 1: the job ends, the rerun on the same
	# nodes (node3 is gone) recovers from the cache
	conf cpp1.fti
	SIM_JOB_ID=402 sim_run "$out/c3" "$SURV" "$cpp" "$pfs/cpp1.fti" 16 1 3 11 5
	local rc=$?
	check "C++: rank 5 killed alone after step 11 ended the run (status $rc)" \
		test $rc -ne 0 -a $rc -ne 124
	SIM_JOB_ID=402 check "C++: the rerun on the same nodes finishes" \
		sim_run "$out/c4" "$SURV" "$cpp" "$pfs/cpp1.fti" 16 1 3
	check "C++: recovered at level 1 from the cache, at step 9" \
		has "$out/c4" "^recovered at step 9$"
	ref=$out/cref check "C++: steps 10-16 again every byte as the reference's" \
		same_steps "$out/c4" 10 16
}
cpp_part

# ---- the reference: no checkpoints at all ----
sim_setup 5
conf ref.fti
SIM_JOB_ID=100 check "reference run, no checkpoints" \
	sim_run "$out/ref" "$ALL" "$heat" "$pfs/ref.fti" 80 1 0
check "reference: 80 steps" test "$(steps "$out/ref" 1 80 | wc -l)" -eq 80
check "reference: nothing to recover" has "$out/ref" "FTI_Init: .*no checkpoint to recover"
check "reference: 8 ranks on 4 nodes" has "$out/ref" "8 ranks on 4 nodes"

# ---- each level: checkpoints at steps 3, 6, 9, a crash after step 11 ----
# Levels 2 and 3 checkpoint a variable at a time (FTI_InitICP, FTI_AddVarICP,
# FTI_FinalizeICP), level 2 differentially (enable_dcp with ckpt_io = 1);
# level 3's checkpoint at step 9 leaves a variable out, FTI_FinalizeICP
# refuses it, and the rerun recovers the one of step 6.  Level 1 keeps the
# step counter in a composite type (FTI_InitCompositeType).  Level 4 names its
# variables (FTI_setIDFromString), and the rerun finds the names in the
# checkpoint it fetched before it names anything.
scheme=(- SINGLE PARTNER RS SINGLE)
for level in 1 2 3 4; do
	sim_setup 5
	opts=() rstep=9 rid=3 how=FTI_Checkpoint
	case $level in
	2) conf fti.fti enable_dcp=1 ckpt_io=1 && opts=(--icp 1) how=FTI_FinalizeICP ;;
	3) conf fti.fti && opts=(--icp 1 --icp-leave-out 9) rstep=6 rid=2 how=FTI_FinalizeICP ;;
	1) conf fti.fti && opts=(--composite 1) ;;
	4) conf fti.fti && opts=(--names 1) ;;
	esac
	export SIM_JOB_ID=$((110 + level))
	sim_run "$out/l$level.1" "$ALL" "$heat" "$pfs/fti.fti" 20 $level 3 --die-at 11 "${opts[@]}"
	rc=$?
	check "L$level: the run died after step 11 (status $rc)" test $rc -ne 0 -a $rc -ne 124
	check "L$level: checkpoint $rid at step $rstep taken" has "$out/l$level.1" "checkpoint $rid at step $rstep, level $level"
	check "L$level: $how succeeded, written as ${scheme[$level]}" \
		has "$out/l$level.1" "dataset $rid \(ckpt$rid\): .* ${scheme[$level]}"
	check "L$level: steps 1-11 as the reference" same_steps "$out/l$level.1" 1 11
	if [ $level = 2 ]; then
		f=$("$simnode" exec "$sim_dir" node1 sh -c \
			'ls -t $(find /dev/shm -name "scrmem.0.fti" 2>/dev/null) | head -1')
		"$simnode" exec "$sim_dir" node1 "$scr" print "$f" >"$out/l2.print" 2>&1
		check "L2: checkpoint 3 is differential (enable_dcp = 1, ckpt_io = 1)" \
			has "$out/l2.print" "differential on dataset"
		check "L2: FTI 1.6's rules for FTI_AddVarICP hold" has "$out/l2.1" "^icp rules hold$"
		check "L2: a variable added twice or not protected is an error line" \
			has "$out/l2.1" "FTI_AddVarICP: checkpoint 1: variable 7 is not protected"
	fi
	[ $level = 3 ] && check "L3: FTI_FinalizeICP refused checkpoint 3 without every variable" \
		has "$out/l3.1" "^checkpoint 3 without the step counter refused$"
	[ $level = 1 ] && check "L1: the step counter's type is composite, FTI's checks on its fields hold" \
		has "$out/l1.1" "^composite type 11: 3 fields$"
	[ $level = 4 ] && check "L4: FTI_setIDFromString named plate 0 and progress 1" \
		has "$out/l4.1" "^named: plate 0, progress 1$"
	hosts=$ALL
	case $level in
	1) ;;
	2 | 3)
		"$simnode" kill "$sim_dir" node3
		"$simnode" wipe "$sim_dir" node3
		hosts=$SURV
		;;
	4) for n in node1 node2 node3 node4; do "$simnode" wipe "$sim_dir" $n; done ;;
	esac
	check "L$level: the rerun finishes" \
		sim_run "$out/l$level.2" "$hosts" "$heat" "$pfs/fti.fti" 20 $level 3 "${opts[@]:0:2}"
	check "L$level: FTI_Status() != 0, FTI_GetStoredSize and FTI_RecoverVar" \
		has "$out/l$level.2" "^found the checkpoint of step $rstep \(plate: 9216 bytes per rank\)$"
	check "L$level: FTI_Recover at step $rstep" has "$out/l$level.2" "^recovered at step $rstep$"
	check "L$level: steps $((rstep + 1))-20 exactly as the reference" same_steps "$out/l$level.2" $((rstep + 1)) 20
	check "L$level: no step before $((rstep + 1)) recomputed" test -z "$(steps "$out/l$level.2" 1 $rstep)"
	case $level in
	1) check "L1: restarted from cache" has "$out/l1.2" "dataset 3 \(ckpt3\) ready, 0 ranks rebuilt" ;;
	2) check "L2: node3's ranks restored from their partner copies" \
		has "$out/l2.2" "restart from cache: dataset 3 \(ckpt3\) ready" ;;
	3) check "L3: node3's two ranks rebuilt from RS" \
		has "$out/l3.2" "dataset 2 \(ckpt2\) ready, 2 ranks rebuilt" ;;
	4)
		check "L4: fetched from the prefix" has "$out/l4.2" "restart from the prefix: dataset 3 fetched"
		check "L4: FTI_getIDFromString knew the names from the checkpoint before any was set" \
			has "$out/l4.2" "^names from the checkpoint: plate 0, progress 1$"
		;;
	esac
	check "L$level: keep_last_ckpt = 0: FTI_Finalize deleted the checkpoints" \
		has "$out/l$level.2" "FTI_Finalize: .* deleted"
done
unset SIM_JOB_ID

# ---- the configuration file ----
sim_setup 5
conf warn.fti wibble=3 enable_staging=1
printf '[Mystery]\nx = 1\n' >>"$pfs/warn.fti"
# and FTI_BitFlip's injection: element 330 of rank 1's plate (row 5, still
# 0 after step 1), bit 62 (0 becomes 2), once
printf '[injection]\nrank = 1\nindex = 330\nposition = 62\nnumber = 1\nfrequency = 0\n' \
	>>"$pfs/warn.fti"
mkdir -p "$pfs/staged"
wline=$(grep -n '^wibble' "$pfs/warn.fti" | cut -d: -f1)
mline=$(grep -n '^\[Mystery\]' "$pfs/warn.fti" | cut -d: -f1)
SIM_JOB_ID=200 check "config: unknown key and section: the run goes on" \
	sim_run "$out/warn" "$ALL" "$heat" "$pfs/warn.fti" 3 1 0 --bitflip 1 --stage "$pfs/staged"
check "bitflip: FTI_BitFlip flipped one bit, on rank 1, once, and not in a non-float" \
	has "$out/warn" "^bitflip: 1 flipped a bit \(rank 1\); again: 0$"
check "bitflip: it says so in one line" \
	has "$out/warn" "FTI_BitFlip: variable 1, element 330, bit 62: 0 => 2$"
check "bitflip: step 1 as the reference" same_steps "$out/warn" 1 1
check "bitflip: step 2 is not: the flip reached the plate" not_same_steps "$out/warn" 2 2
check "staging: every process sent its file from the stage directory (FTI_SendFile), its status pending or active until FTI_SI_SCES, once; a missing file or directory failed" \
	has "$out/warn" "^stage: 8 of 8 processes sent their file$"
check "staging: FTI_Finalize waited for the files still queued" \
	has "$out/warn" "^stage: 8 of 8 files queued before FTI_Finalize arrived$"
if [ "$(stat -f -c %T "$pfs")" = tmpfs ]; then
	echo "ok - # SKIP the prefix is on tmpfs, whose page cache is the file"
else
	# 20487 bytes each, before anything reads them: five whole pages past
	# the page cache, the last one through it
	cached=$(fincore -n -r -o PAGES "$pfs"/staged/note.* | awk '{ n += $1 } END { print n + 0 }')
	check "staging: the copies went past the prefix's page cache, as flushes do ($cached pages cached)" \
		test "$cached" -le 8
fi
check "staging: the 8 files are in the destination, each with its rank" \
	sh -c 'for r in 0 1 2 3 4 5 6 7; do grep -qx "rank $r" "$1/note.$r" || exit 1; done' sh "$pfs/staged"
check "config: the unknown key is warned once, with file:line" \
	lines "$out/warn" "FTI_Init: $pfs/warn.fti:$wline: unknown key 'wibble' in \[basic\]; ignored" 1
check "config: the unknown section too" \
	has "$out/warn" "FTI_Init: $pfs/warn.fti:$mline: unknown section \[mystery\]"
check "config: keys SCR ignores are not warned about" hasnt "$out/warn" "meta_dir|exec_id|general_tag"

conf bad.fti verbosity=9
bline=$(grep -n '^verbosity = 9' "$pfs/bad.fti" | cut -d: -f1)
SIM_JOB_ID=201 sim_run "$out/bad" "$ALL" "$heat" "$pfs/bad.fti" 3 1 0
rc=$?
check "config: a bad value fails the run (status $rc)" test $rc -ne 0 -a $rc -ne 124
check "config: one line names file:line, key and value" \
	lines "$out/bad" "FTI_Init: $pfs/bad.fti:$bline: \[basic\] verbosity = '9': must be 1, 2 or 3" 1
check "config: that is the only line about it" lines "$out/bad" "verbosity" 1
check "config: FTI_Init returned FTI_NSCS" has "$out/bad" "heat_fti: FTI_Init failed"
printf '[basic]\nckpt_l1 three\n' >"$pfs/syntax.fti"
SIM_JOB_ID=202 sim_run "$out/syntax" "$ALL" "$heat" "$pfs/syntax.fti" 3 1 0
check "config: a syntax error is one line with file:line" \
	lines "$out/syntax" "FTI_Init: $pfs/syntax.fti:2: expected 'key = value'" 1
SIM_JOB_ID=203 sim_run "$out/nofile" "$ALL" "$heat" "$pfs/none.fti" 3 1 0
check "config: a missing file is one line" \
	lines "$out/nofile" "FTI_Init: $pfs/none.fti: No such file or directory" 1

# ---- levels FTI has and SCR maps, and a level FTI refuses ----
SIM_JOB_ID=220 check "level 6 (differential L2) runs as level 2" \
	sim_run "$out/l6" "$ALL" "$heat" "$pfs/warn.fti" 3 6 3
check "level 6: warned, as FTI does" has "$out/l6" "level 6 taken as level 2"
check "level 6: written as PARTNER" has "$out/l6" "dataset 1 \(ckpt1\): .* PARTNER"
SIM_JOB_ID=221 check "level 8 (differential L4) runs as level 4" \
	sim_run "$out/l8" "$ALL" "$heat" "$pfs/warn.fti" 3 8 3
check "level 8: checkpoint 1 taken as L4" has "$out/l8" "checkpoint 1 \(L4\) taken"
SIM_JOB_ID=222 sim_run "$out/l10" "$ALL" "$heat" "$pfs/warn.fti" 3 10 3
rc=$?
check "level 10: the run stops (status $rc)" test $rc -eq 1
check "level 10: FTI_Checkpoint returns FTI_NSCS" has "$out/l10" "heat_fti: FTI_Checkpoint returned -1"
check "level 10: and says why" has "$out/l10" "level 10 is not an FTI level"

# ---- keep_last_ckpt (the prefix is empty: every run above cleaned up) ----
SIM_JOB_ID=210 check "keep_last_ckpt = 0: a run checkpointing at level 4 finishes" \
	sim_run "$out/keep1" "$ALL" "$heat" "$pfs/warn.fti" 4 4 2
SIM_JOB_ID=210 check "keep_last_ckpt = 0: a rerun in the same job..." \
	sim_run "$out/keep2" "$ALL" "$heat" "$pfs/warn.fti" 2 1 0
check "keep_last_ckpt = 0: ...starts afresh, as with FTI" has "$out/keep2" "no checkpoint to recover"
check "keep_last_ckpt = 0: the prefix keeps no checkpoint" \
	test -z "$(ls -d "$pfs"/.scr/scr.dataset.* 2>/dev/null)"
conf keep.fti keep_last_ckpt=1
SIM_JOB_ID=211 check "keep_last_ckpt = 1: a run checkpointing at level 1 finishes" \
	sim_run "$out/keep3" "$ALL" "$heat" "$pfs/keep.fti" 6 1 2 --stage "$pfs/staged"
check "staging: off without enable_staging, and FTI_GetStageDir says so" \
	has "$out/keep3" "^stage: FTI_GetStageDir failed$"
check "keep_last_ckpt = 1: its last checkpoint went to the prefix" \
	test -n "$(ls -d "$pfs"/.scr/scr.dataset.* 2>/dev/null)"
SIM_JOB_ID=212 check "keep_last_ckpt = 1: the next job recovers from it" \
	sim_run "$out/keep4" "$ALL" "$heat" "$pfs/keep.fti" 8 1 2
check "keep_last_ckpt = 1: at step 6" has "$out/keep4" "^recovered at step 6$"
check "keep_last_ckpt = 1: steps 7-8 as the reference" same_steps "$out/keep4" 7 8

# ---- FTI_Snapshot: L1 every minute, a minute being 6 s (fast_forward) ----
sim_setup 5
conf snap.fti ckpt_l2=0 ckpt_l3=0 ckpt_l4=0 ckpt_l1=1
sed -i "s/^local_test = 0\$/local_test = 0\nfast_forward = 10/" "$pfs/snap.fti"
export SIM_JOB_ID=230
sim_run "$out/snap1" "$ALL" "$heat" "$pfs/snap.fti" 80 0 0 --sleep-ms 100 --die-at 75
rc=$?
check "snapshot: the run died after step 75 (status $rc)" test $rc -ne 0 -a $rc -ne 124
check "snapshot: FTI_Snapshot checkpointed on its own" has "$out/snap1" "^snapshot checkpoint at step [0-9]+$"
at=$(grep -E '^snapshot checkpoint at step' "$out/snap1" | tail -1 | awk '{print $NF}')
check "snapshot: the rerun finishes" sim_run "$out/snap2" "$ALL" "$heat" "$pfs/snap.fti" 80 0 0
check "snapshot: its first FTI_Snapshot recovered at step $at" has "$out/snap2" "^recovered at step ${at:-x}$"
check "snapshot: steps after $at as the reference" same_steps "$out/snap2" $((${at:-0} + 1)) 80
unset SIM_JOB_ID

again && fortran_part
finish
