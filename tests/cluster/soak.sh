#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# soak.sh BUILD_DIR [--quick]: SCR jobs of two users on a real Slurm cluster
# (tests/cluster/slurmcluster, 7 simulated nodes), back to back for a
# bounded time, each user's jobs a chain in which every job restarts from
# the checkpoint the one before it left on the prefix.
#
# Each job draws its scheme (SINGLE, PARTNER, XOR, RS), its flush
# (SCR_FLUSH 0, 1 or 2, in the foreground or the background) and its fate:
#   normal  it runs `scr run` to the end
#   cancel  scancel after a random checkpoint: the epilogs scavenge it
#   kill    a node of the run dies after a random checkpoint; with a spare
#           (--scr-spares=1) scr run relaunches on it, without one the job
#           ends and the epilogs scavenge what the live nodes hold (SINGLE
#           only with every checkpoint flushed: it does not survive a lost
#           node otherwise, by design)
# A chain's last job is a normal one.  After each job, the next one (3
# nodes x 2 ranks of scr_example) must restart from the newest checkpoint
# the job before reported complete, or a newer one, with every byte of
# every file verified.  Data lost (must be 0): a job that restarted from
# an older checkpoint, from nothing, or found a checkpoint SCR offered it
# unreadable or wrong.
#
# SOAK_MINUTES (needed without --quick): no new job after that; SOAK_SEED: the draws
# (printed; the same seed draws the same jobs); SOAK_REPORT=FILE: one line
# per job and the summary, in markdown, for docs/soak.md.
# --quick: two chains of 2 and 3 jobs that cover every fate (with and
# without a spare) and every scheme once, in about two minutes.
set -u
cdir=$(cd "$(dirname "$0")" && pwd)
. "$cdir/../sim/lib.sh"
. "$cdir/lib.sh"
build=$(cd "${1:?usage: soak.sh BUILD_DIR [--quick]}" && pwd)
quick=0
[ "${2:-}" = --quick ] && quick=1
if [ $quick = 0 ] && [ -z "${SOAK_MINUTES:-}" ]; then
	echo "SKIPPED: the soak runs for SOAK_MINUTES (say 20); --quick for its short form"
	exit 77
fi
export SCR_CLUSTER_JOB_SUBMIT=1 # --scr-spares
cluster_setup "$build" 7 timeout=20
. "$cdir/san.sh" && san_clients "$cl"
seed=${SOAK_SEED:-$(date +%s)}
minutes=${SOAK_MINUTES:-0}
deadline=$((SECONDS + minutes * 60))
echo "# soak: seed $seed, $([ $quick = 1 ] && echo quick || echo "$minutes minutes")"

user1=$user work1=$work user2=scrtest2 work2=$base/work2
flock /run/scr-slurmcluster.lock sh -c 'id "$1" >/dev/null 2>&1 ||
	useradd --create-home --shell /bin/bash "$1"' sh "$user2" ||
	{ echo "not ok - cannot create user $user2"; exit 1; }
mkdir -p "$work2" && chown "$user2:" "$work2"

schemes=(SINGLE PARTNER XOR RS)
scheme_env() {
	case $1 in
	XOR) echo "SCR_COPY_TYPE=XOR SCR_SET_SIZE=3" ;;
	RS) echo "SCR_COPY_TYPE=RS SCR_SET_SIZE=3 SCR_SET_FAILURES=2" ;;
	*) echo "SCR_COPY_TYPE=$1" ;;
	esac
}
# the quick form's jobs: "scheme flush async fate spare", per chain
quick1=("XOR 0 0 kill 1" "SINGLE 1 1 normal 0")
quick2=("RS 2 1 cancel 0" "PARTNER 0 0 kill 0" "XOR 1 0 normal 0")

# nth_line FILE PATTERN N SECONDS: until FILE has N lines matching PATTERN;
# 1 when the job ended first (JOB in $j) or the time ran out
nth_line() {
	local i
	for i in $(seq 1 $(($4 * 4))); do
		[ "$(grep -Ec -- "$2" "$1" 2>/dev/null || true)" -ge "$3" ] 2>/dev/null && return 0
		case "$(job_state "$j")" in PENDING | CONFIGURING | RUNNING | "") ;; *) return 1 ;; esac
		sleep 0.25
	done
	return 1
}

# draw: "scheme flush async fate spare" for a chain's job K of N (N: 0 until
# the deadline)
draw() {
	local k=$1 n=$2 last=0 s f a fate sp
	[ "$n" -gt 0 ] && [ "$k" -eq "$n" ] && last=1
	[ "$n" -eq 0 ] && [ $SECONDS -ge $deadline ] && last=1
	s=${schemes[RANDOM % 4]} f=$((RANDOM % 3)) a=$((RANDOM % 2)) sp=$((RANDOM % 2))
	fate=normal
	[ $last = 1 ] || case $((RANDOM % 3)) in 1) fate=cancel ;; 2) fate=kill ;; esac
	[ "$f" = 0 ] && a=0
	[ "$s/$fate" = SINGLE/kill ] && f=1 a=0
	[ "$fate" = kill ] || sp=0
	echo "$s $f $a $fate $sp"
}

# chain C USER WORK: that user's jobs, one at a time; one line per job in
# $base/chain.C ("job scheme flush async fate spare steps expected restarted
# restores lost ok note")
chain() {
	local c=$1 k=0 n=0 steps=0 expect=0 j out job s f a fate sp node nodes
	user=$2 work=$3
	RANDOM=$((seed + c))
	[ $quick = 1 ] && { [ "$c" = 1 ] && n=${#quick1[@]} || n=${#quick2[@]}; }
	while :; do
		k=$((k + 1))
		if [ $quick = 1 ]; then
			[ "$c" = 1 ] && job=${quick1[k - 1]} || job=${quick2[k - 1]}
		else
			job=$(draw "$k" "$n")
		fi
		read -r s f a fate sp <<<"$job"
		steps=$((steps + 16))
		out=soak.$c.$k.out
		# SLURM_PMIX_TIMEOUT: a relaunch on the spare after a node died
		# sometimes never finishes its wire-up in Slurm 22.05's mpi/pmix (the
		# step's slurmstepd: "pmixp_p2p_send: ... exceeded the retry limit",
		# "Cannot send message to .../stepd.slurm.pmix.<job>.<step>,
		# hostlist: (null)"; openpmix/openpmix#3559 shows the same lines with
		# Slurm 24.11) and waits out the fence's timeout, 300 s by default:
		# 60 s fails it sooner, and scr run launches again
		script "soak.$c.$k.sh" "export $(scheme_env "$s") SCR_FLUSH=$f SCR_FLUSH_ASYNC=$a SCR_RUNS=3 SLURM_PMIX_TIMEOUT=60
scr_srun --mpi=pmix $example --steps $steps --every 2 --size 131072 --sleep-ms 250
echo \"scr run exit: \$?\""
		local spares=()
		[ "$sp" = 1 ] && spares=(--scr-spares=1)
		j=$(submit --scr=on "${spares[@]}" -N3 --ntasks-per-node=2 -o "$out" "soak.$c.$k.sh")
		echo "# $user job $j (chain $c, #$k): $s SCR_FLUSH=$f async=$a, $fate$([ "$sp" = 1 ] && echo ", a spare")"
		node=""
		case $fate in
		cancel | kill)
			# after the 1st to 5th checkpoint this job completes
			if nth_line "$work/$out" 'checkpoint step\.[0-9]+ complete' $((1 + RANDOM % 5)) 240; then
				if [ "$fate" = cancel ]; then
					scancel "$j"
				else
					nodes=$(squeue -h -j "$j" -o %N)
					node=$(scontrol show hostnames "$nodes" | sed -n 2p)
					"$cluster" kill "$cl" "$node"
				fi
			fi
			;;
		esac
		# a relaunch whose wire-up stalls takes SLURM_PMIX_TIMEOUT (above)
		# and another launch
		wait_job "$j" 300 || { scancel "$j"; wait_job "$j"; }
		if [ -n "$node" ]; then
			"$cluster" restart-node "$cl" "$node" >/dev/null 2>&1
			"$cluster" wait-state "$cl" "$node" idle 90 >/dev/null
		fi
		soak_verdict "$c" "$j" "$work/$out" "$job" "$steps" "$expect" "$node"
		# a job that completed no checkpoint leaves the expectation as it was
		local newest
		newest=$(grep -Eo 'checkpoint step\.[0-9]+ complete' "$work/$out" | grep -Eo '[0-9]+' | sort -n | tail -1)
		[ "${newest:-0}" -gt "$expect" ] && expect=$newest
		[ "$n" -gt 0 ] && [ "$k" -ge "$n" ] && break
		[ "$n" -eq 0 ] && [ "$fate" = normal ] && [ $SECONDS -ge $deadline ] && break
	done
}

# soak_verdict C JOB OUT "DRAW" STEPS EXPECT NODE: the job's line in
# $base/chain.C.  restarted: the step its first run restarted from (0:
# none); restores: every restart the job verified (a relaunch restarts
# too); lost: 1 when it restarted from older than EXPECT or a checkpoint
# SCR offered was unreadable or wrong; ok: 0 when a job that should have
# finished did not
soak_verdict() {
	local c=$1 j=$2 out=$3 job=$4 steps=$5 expect=$6 node=$7 first restarted restores lost=0 ok=1 note=""
	first=$(grep -Em1 'scr_example: (restarted from step\.[0-9]+,|starting from the beginning)' "$out")
	restarted=$(grep -Eo 'step\.[0-9]+' <<<"$first" | grep -Eo '[0-9]+')
	restarted=${restarted:-0}
	restores=$(grep -c 'every byte verified' "$out")
	if [ -z "$first" ]; then
		ok=0 note="never started"
	elif [ "$restarted" -lt "$expect" ]; then
		lost=1 note="restarted from step $restarted, expected $expect or newer"
	fi
	if grep -Eq 'restart from .* failed|differs from step|is not in the checkpoint|cannot open' "$out"; then
		lost=1 note="$note $(grep -Em1 'restart from .* failed|differs from step|is not in the checkpoint|cannot open' "$out")"
	fi
	read -r _ _ _ fate sp <<<"$job"
	if [ "$fate" = normal ] || [ "$fate$sp" = kill1 ]; then
		grep -q "done at step $steps" "$out" && grep -q 'scr run exit: 0' "$out" ||
			{ ok=0 note="${note:+$note; }did not finish"; }
	fi
	[ -n "$node" ] && note="${note:+$note; }$node killed"
	echo "$j $job $steps $expect $restarted $restores $lost $ok ${note# }" >>"$base/chain.$c"
	[ $ok = 1 ] && [ $lost = 0 ] || { echo "# job $j:"; sed 's/^/#   /' "$out" | tail -40; }
}

chain 1 "$user1" "$work1" >"$base/chain1.log" 2>&1 &
c1=$!
sleep 1 # the users' jobs back to back, not in one instant
chain 2 "$user2" "$work2" >"$base/chain2.log" 2>&1 &
c2=$!
wait "$c1" "$c2"
cat "$base/chain1.log" "$base/chain2.log"
cat "$base/chain.1" "$base/chain.2" >"$base/jobs"
jobs=$(wc -l <"$base/jobs")
killed=$(awk '$5 == "kill"' "$base/jobs" | wc -l)
spared=$(awk '$5 == "kill" && $6 == 1' "$base/jobs" | wc -l)
cancelled=$(awk '$5 == "cancel"' "$base/jobs" | wc -l)
restores=$(awk '{ s += $10 } END { print s + 0 }' "$base/jobs")
fetched=$(awk '$9 > 0' "$base/jobs" | wc -l)
lost=$(awk '{ s += $11 } END { print s + 0 }' "$base/jobs")
unfinished=$(awk '$12 == 0' "$base/jobs" | wc -l)
summary="$jobs jobs of 2 users in $SECONDS s (seed $seed): $killed nodes killed ($spared jobs relaunched on a spare), $cancelled cancelled; $restores checkpoints restored with every byte verified ($fetched of them fetched from the prefix by the next job); $lost lost"
echo "# soak: $summary"
if [ -n "${SOAK_REPORT:-}" ]; then
	{
		echo "| job | scheme | SCR_FLUSH | async | fate | spare | steps | expected | restarted from | restores | lost | note |"
		echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		awk '{ n = ""; for (i = 13; i <= NF; i++) n = n " " $i
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, n }' "$base/jobs"
		echo
		echo "$summary"
	} >"$SOAK_REPORT"
fi
check "the soak ran both users' jobs ($jobs)" test "$jobs" -ge 4
check "every job that should have finished did ($unfinished did not)" test "$unfinished" -eq 0
check "a job after every killed node and cancel restarted from its newest checkpoint: 0 lost ($lost)" \
	test "$lost" -eq 0
check "some restarts were fetched from the prefix ($fetched)" test "$fetched" -ge 2
check "every file on $user1's prefix is $user1's" owned_by "$user1" "$work1"
check "every file on $user2's prefix is $user2's" owned_by "$user2" "$work2"
leftover=$(for n in $(seq 1 7); do "$simnode" exec "$cl/nodes" "node$n" \
	find /dev/shm/$user1 /dev/shm/$user2 -mindepth 1 -maxdepth 1 -name 'scr.*' 2>/dev/null; done)
check "no job left its cache on a node" test -z "$leftover"
finish
