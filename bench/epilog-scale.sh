#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/epilog-scale.sh BUILD_DIR [REPS]: how the Slurm epilog's scavenge +
# index and `scr run`'s relaunch decision grow with the job, on the real
# Slurm cluster of the tests (tests/cluster/slurmcluster: 7 simulated
# nodes of 2 CPUs, slurmctld, slurmd and munge on loopback).  Issue 40,
# item 1; not a test (nothing is asserted but that the jobs did their work).
#
# Epilog: jobs of 1, 2, 4 and 7 nodes with 2 ranks per node, and 7 nodes
# with 8 (overcommitted), write two checkpoints of 4 KiB per rank with
# SCR_FLUSH=0 and end, so every node's epilog scavenges its part and one
# indexes.  From the events in the prefix's log (secs=: seconds into that
# node's epilog): the slowest node's copy (SCAVENGE), the index (INDEX:
# it waits for every live node's marks first), and the whole, from the
# first epilog's start to the index.
#
# Relaunch: `scr run` jobs of 2, 4 and 6 nodes and a spare, 2 ranks per
# node; a node is killed after the first checkpoint, and scr run's line
# "run 2 on ... (decided in S s)" gives the time from the failed run's end
# to the relaunch: the halt check, the probes of every node, the plan.
# Run 1's line gives the same for the first launch.
#
# REPS (default 3) jobs of each size; the median is printed.  About ten
# minutes on the 2-core development machine.  A job that lost a rank to
# Open MPI's start-up race under Slurm's mpi/pmix (tests/cluster/san.sh,
# san_tag41) has no index: it is reported and left out of the median.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/sim/lib.sh"
. "$top/tests/cluster/lib.sh"
build=$(cd "${1:?usage: epilog-scale.sh BUILD_DIR [REPS]}" && pwd)
reps=${2:-3}
export SCR_CLUSTER_JOB_SUBMIT=1 # --scr-spares
cluster_setup "$build" 7 timeout=20

median() { sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]; else print "-"}'; }

# epilog_job NODES PER: one job, its id in $j; 1 when it did not index
epilog_job() {
	local n=$1 per=$2
	local shape=(--ntasks-per-node="$per")
	# more ranks than the nodes' 2 CPUs: overcommitted
	[ "$per" -gt 2 ] && shape=(-n $((n * per)) -O)
	# a prefix of its own: nothing to restart from
	script "ep.sh" "export SCR_FLUSH=0 SCR_COPY_TYPE=SINGLE SCR_PREFIX=\$PWD/p.\$SLURM_JOB_ID
mkdir -p \$SCR_PREFIX && cd \$SCR_PREFIX
srun --mpi=pmix $example --steps 2 --every 1 --size 4096"
	j=$(submit --scr=on -N"$n" "${shape[@]}" -o "ep.$n.$per.out" ep.sh)
	wait_job "$j" 300 || return 1
	grep -q "event=INDEX job=$j .*ok=1" "$work/p.$j/.scr/log" 2>/dev/null
}

# epilog_times JOB: "slowest-copy index whole" from JOB's events
epilog_times() {
	awk -v job="job=$1" '
	$0 ~ "event=(SCAVENGE|INDEX) " job " " {
		t = ""; s = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^time=/) t = substr($i, 6)
			if ($i ~ /^secs=/) s = substr($i, 6)
		}
		if (t == "" || s == "") next
		start = t - s
		if (first == "" || start < first) first = start
		if ($0 ~ /event=SCAVENGE/ && s > copy) copy = s
		if ($0 ~ /event=INDEX/) { index_s = s; index_t = t }
	}
	END { if (index_t != "") printf "%.3f %.3f %.3f\n", copy, index_s, index_t - first }
	' "$work/p.$1/.scr/log"
}

echo "# epilog scavenge + index: nodes, ranks, slowest node's copy, index, first epilog start to index (s, median of $reps)"
for size in "1 2" "2 2" "4 2" "7 2" "7 8"; do
	read -r n per <<<"$size"
	rows=()
	for _ in $(seq 1 "$reps"); do
		if epilog_job "$n" "$per"; then
			rows+=("$(epilog_times "$j")")
		else
			echo "# job $j of $n nodes x $per: no index (see $work/ep.$n.$per.out)"
		fi
	done
	[ ${#rows[@]} -gt 0 ] || continue
	printf 'epilog nodes=%d ranks=%d copy=%s index=%s whole=%s\n' "$n" $((n * per)) \
		"$(printf '%s\n' "${rows[@]}" | awk '{print $1}' | median)" \
		"$(printf '%s\n' "${rows[@]}" | awk '{print $2}' | median)" \
		"$(printf '%s\n' "${rows[@]}" | awk '{print $3}' | median)"
done

# relaunch_job NODES: scr run on NODES and a spare, a node killed after the
# first checkpoint; row := "first relaunch" decision times, or nothing
relaunch_job() {
	local n=$1 out=rl.$1.out node=""
	row=""
	script "rl.sh" "export SCR_COPY_TYPE=PARTNER SCR_FLUSH=0 SCR_RUNS=2 SLURM_PMIX_TIMEOUT=60
export SCR_PREFIX=\$PWD/p.\$SLURM_JOB_ID
mkdir -p \$SCR_PREFIX && cd \$SCR_PREFIX
scr_srun --mpi=pmix $example --steps 40 --every 2 --size 4096 --sleep-ms 250"
	rm -f "$work/$out"
	# the job_submit plugin adds the spare node to the N asked for
	j=$(submit --scr=on --scr-spares=1 -N"$n" --ntasks-per-node=2 -o "$out" rl.sh 2>/dev/null)
	if wait_for "$work/$out" 'checkpoint step\.[0-9]+ complete' 120; then
		node=$(scontrol show hostnames "$(squeue -h -j "$j" -o %N)" | sed -n 2p)
		"$cluster" kill "$cl" "$node" >/dev/null
	fi
	wait_job "$j" 300 || { scancel "$j"; wait_job "$j"; }
	if [ -n "$node" ]; then
		"$cluster" restart-node "$cl" "$node" >/dev/null 2>&1
		"$cluster" wait-state "$cl" "$node" idle 90 >/dev/null
	fi
	local d1 d2
	d1=$(grep -o 'run 1 on .*(decided in [0-9.]* s)' "$work/$out" | grep -o '[0-9.]* s)' | tr -d ' s)')
	d2=$(grep -o 'run 2 on .*(decided in [0-9.]* s)' "$work/$out" | grep -o '[0-9.]* s)' | tr -d ' s)')
	[ -n "$d1" ] && [ -n "$d2" ] && row="$d1 $d2"
}

echo "# scr run's decision: nodes (and a spare), first launch, relaunch after a lost node (s, median of $reps)"
for n in 2 4 6; do
	rows=()
	for _ in $(seq 1 "$reps"); do
		relaunch_job "$n"
		if [ -n "$row" ]; then rows+=("$row"); else echo "# job $j on $n nodes: no relaunch (see $work/rl.$n.out)"; fi
	done
	[ ${#rows[@]} -gt 0 ] || continue
	printf 'relaunch nodes=%d first=%s relaunch=%s\n' "$n" \
		"$(printf '%s\n' "${rows[@]}" | awk '{print $1}' | median)" \
		"$(printf '%s\n' "${rows[@]}" | awk '{print $2}' | median)"
done
