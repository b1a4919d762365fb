#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-run.sh EXAMPLE SCR: `scr run` with the mpirun adapter on simulated
# nodes (no scheduler: SCR_JOB_NODES).  8 ranks, node5 spare, XOR.
#  - node3 dies mid-run: the relaunch leaves it out (health check, asked
#    again when the launcher refuses the first round), uses the spare,
#    restarts from the rebuilt cache, finishes; postrun scavenges
#  - a node once down stays down; SCR_EXCLUDE_NODES; too few nodes for
#    SCR_MIN_NODES stops before launching
#  - a halt condition stops scr run and scr prerun (exit 3)
#  - a run that finished (SCR_Finalize) is not relaunched even when the
#    application exits non-zero; a second `scr run` in the same job launches
#    and restarts; a rerun that then fails is relaunched, and so is one that
#    dies before SCR_Init (the finished mark is the earlier run's)
#  - a launch that hangs before SCR_Init is stopped at SCR_START_TIMEOUT
#    and launched again; one that hangs after it, at SCR_WATCHDOG_TIMEOUT
source "$(dirname "$0")/lib.sh"
ex=$(readlink -f "$1") scr=$(readlink -f "$2")
out=$(mktemp -d)
# scr run keeps the job's down nodes in its control directory on this host
# (job ids of this run's own: a second copy of this test at once would
# share the directories of fixed ones, and did)
job1=$((10000000 + $$)) job2=$((20000000 + $$))
cntl=/dev/shm/$(id -un)/scr.$job1
cntl2=/dev/shm/$(id -un)/scr.$job2
rm -rf "$cntl" "$cntl2"
sim_setup 5
trap 'sim_cleanup; [ -n "${SCR_TEST_KEEP:-}" ] || rm -rf "$out"; rm -rf "$cntl" "$cntl2"' EXIT
export SCR_JOB_ID=$job1 SCR_LAUNCHER=mpirun SCR_JOB_NODES='node[1-5]' SCR_COPY_TYPE=XOR \
	SCR_FLUSH=0 SCR_RUNS=3 SCR_MPIRUN="$simnode mpirun $sim_dir -x SCR_JOB_ID -x SCR_COPY_TYPE -x SCR_FLUSH"
run() { (cd "$pfs" && timeout 300 "$scr" run -np 8 --map-by ppr:2:node "$ex" "$@"); }

# the first round of health checks after node3 dies finds the launcher
# refusing every step (as a scheduler does while it settles): scr run asks
# again instead of relaunching on the nodes it had.  Each round checks the
# five nodes one by one (mpirun); the first round, before run 1, goes through
cat >"$out/refusing" <<'EOF'
#!/bin/sh
case " $* " in *" node-check"*)
	n=$(cat "$REFUSED" 2>/dev/null || echo 0)
	echo $((n + 1)) >"$REFUSED"
	[ "$n" -ge 5 ] && [ "$n" -lt 10 ] && { echo "refusing: step refused" >&2; exit 1; } ;;
esac
exec "$@"
EOF
chmod +x "$out/refusing"
REFUSED=$out/refused SCR_MPIRUN="$out/refusing $SCR_MPIRUN" \
	run --steps 30 --every 2 --sleep-ms 300 >"$out/run" 2>&1 &
pid=$!
for i in $(seq 1 400); do grep -q 'checkpoint step.8 complete' "$out/run" && break; sleep 0.25; done
"$simnode" kill "$sim_dir" node3
"$simnode" wipe "$sim_dir" node3
wait $pid
rc=$?
check "run: scr run succeeded in the end" test $rc -eq 0
check "run: scr run and its tools are sanitizer-clean" hasnt "$out/run" 'Sanitizer|runtime error'
check "run: the first run failed" has "$out/run" 'scr run: run 1 exited with status'
check "run: no node answered the first health check: asked again" \
	has "$out/run" 'health check answered from no node; asking again in 2 s'
check "run: and then the answers came" hasnt "$out/run" 'keeping the node list as it is'
check "run: the relaunch left node3 out and took the spare" has "$out/run" 'scr run: run 2 on node\[1-2,4-5\]'
check "run: restarted from the rebuilt cache" has "$out/run" 'restart from cache: dataset [0-9]+ \(step\.[0-9]+\) ready, 2 ranks rebuilt'
check "run: every byte verified, finished" has "$out/run" 'done at step 30'
check "run: postrun scavenged and indexed the last checkpoint" has "$out/run" 'scr postrun: dataset [0-9]+ scavenged and indexed'
(cd "$pfs" && "$scr" down-nodes --reason) >"$out/down"
check "down-nodes: node3 and why" has "$out/down" '^node3: failed the SCR health check$'

(cd "$pfs" && "$scr" status) >"$out/status"
check "status: the scavenged checkpoint is current on the prefix" has "$out/status" '^\* +[0-9]+ +complete +step\.30 '
check "status: and the flush state says where it is" has "$out/status" 'in cache on the prefix'
"$scr" halt --prefix "$pfs" --remove >/dev/null
SCR_EXCLUDE_NODES=node5 SCR_MIN_NODES=4 run --steps 4 >"$out/min" 2>&1
check "min nodes: a run with too few nodes is not launched" \
	has "$out/min" '3 healthy nodes left \(down: node\[3,5\]\), 4 needed; not relaunching'
check "min nodes: nothing ran" hasnt "$out/min" 'scr run: run 1 on'
"$simnode" start-node "$sim_dir" node3
(cd "$pfs" && "$scr" down-nodes) >"$out/down2"
check "down-nodes: a node once down stays down (node3 is back, still excluded)" has "$out/down2" '^node\[3,5\]$'

"$scr" halt --prefix "$pfs" --remove >/dev/null
"$scr" halt --prefix "$pfs" --immediate >/dev/null
run --steps 4 >"$out/halt" 2>&1
check "halt: scr run does not launch" has "$out/halt" 'halt condition holds'
(cd "$pfs" && "$scr" prerun) >"$out/prerun" 2>&1
check "halt: scr prerun exits 3" test $? -eq 3

# ---- a new job (job2) in an empty prefix: finished runs, reruns ----
rm -rf "${pfs:?}"/* "$pfs/.scr"
export SCR_JOB_ID=$job2
run --steps 4 --exit-status 5 --expect-restart 0 >"$out/fin" 2>&1
check "finished: scr run returns the application's status" test $? -eq 5
check "finished: run 1 exited non-zero after SCR_Finalize" has "$out/fin" 'scr run: run 1 exited with status 5'
check "finished: scr run does not relaunch a run that finished" \
	has "$out/fin" 'halt condition holds \(SCR_FINALIZE_CALLED\); not launching'
check "finished: no second run" hasnt "$out/fin" 'scr run: run 2 on'
run --steps 8 --expect-restart 4 >"$out/again" 2>&1
check "again: a second scr run in the same job succeeds" test $? -eq 0
check "again: it launched despite the earlier finish" has "$out/again" 'scr run: run 1 succeeded'
check "again: and restarted from the job's cache" has "$out/again" 'restarted from step\.4, every byte verified'
# each scr run ends with postrun's scavenge: the second one's marks start
# afresh (the first one's indexer and verdict are not its own)
check "again: its postrun scavenged and indexed step 8" \
	has "$out/again" 'scr postrun: dataset [0-9]+ scavenged and indexed'
(cd "$pfs" && "$scr" index --list) >"$out/again-index"
check "again: step 8 is the prefix's current checkpoint" has "$out/again-index" '^\* +[0-9]+ +complete +step\.8 '
run --steps 12 --die-after-ckpt 10 >"$out/die" 2>&1
check "rerun dies: scr run relaunches it" has "$out/die" 'scr run: run 2 on'
check "rerun dies: the relaunch finished" has "$out/die" 'done at step 12'
check "rerun dies: from the checkpoint the dead run wrote" has "$out/die" 'restarted from step\.10, every byte verified'
# the next run dies at start, before SCR_Init (the start-up race of Open MPI
# under Slurm's mpi/pmix does so): the finished mark the last run left is
# not this run's, so scr run relaunches (the prefix is every node's)
cat >"$pfs/dies-first.sh" <<EOF
#!/bin/sh
mkdir "$pfs/first-launch" 2>/dev/null && exit 3
exec "$ex" "\$@"
EOF
chmod +x "$pfs/dies-first.sh"
(cd "$pfs" && timeout 300 "$scr" run -np 8 --map-by ppr:2:node "$pfs/dies-first.sh" \
	--steps 16 >"$out/early" 2>&1)
check "dies at start: run 1 failed" has "$out/early" 'scr run: run 1 exited with status'
check "dies at start: the last job's SCR_FINALIZE_CALLED did not stop the relaunch" \
	has "$out/early" 'scr run: run 2 on'
check "dies at start: the relaunch restarted from step 12 and finished" \
	has "$out/early" 'restarted from step\.12, every byte verified'
check "dies at start: done" has "$out/early" 'done at step 16'
rm -rf "$pfs/dies-first.sh" "$pfs/first-launch"

# the next launch hangs before SCR_Init, as one caught in Slurm's mpi/pmix
# wire-up after a node died does: one rank never starts MPI, the others
# wait for it in MPI_Init.  SCR_START_TIMEOUT has scr run stop it and
# launch again; the relaunch restarts from step 16
cat >"$pfs/stalls-first.sh" <<EOF
#!/bin/sh
mkdir "$pfs/first-launch" 2>/dev/null && exec sleep 617
exec "$ex" "\$@"
EOF
chmod +x "$pfs/stalls-first.sh"
t0=$(date +%s)
(cd "$pfs" && SCR_START_TIMEOUT=20 timeout 300 "$scr" run -np 8 --map-by ppr:2:node \
	"$pfs/stalls-first.sh" --steps 20 >"$out/stall" 2>&1)
check "stalls at start: scr run succeeds" test $? -eq 0
check "stalls at start: run 1 stopped at SCR_START_TIMEOUT" \
	has "$out/stall" 'scr run: run 1 did not reach SCR_Init within 20 s \(SCR_START_TIMEOUT\); stopped it'
check "stalls at start: the relaunch restarted from step 16 and finished" \
	has "$out/stall" 'restarted from step\.16, every byte verified'
check "stalls at start: done, well before the launcher's own timeout" \
	test "$(($(date +%s) - t0))" -lt 200 -a -n "$(grep 'done at step 20' "$out/stall")"
check "stalls at start: no sleeping rank is left behind" \
	test -z "$(pgrep -f "sleep 617" | head -1)"
rm -rf "$pfs/stalls-first.sh" "$pfs/first-launch"
# the next launch hangs after SCR_Init, before its first checkpoint (rank 0
# waits for a file nobody makes, the others in MPI): SCR_WATCHDOG has scr
# run stop it once no dataset completed for 20 s, and launch again; the
# relaunch restarts from step 20
cat >"$pfs/hangs-first.sh" <<EOF
#!/bin/sh
mkdir "$pfs/first-launch" 2>/dev/null && exec "$ex" "\$@" --wait-file "$pfs/never"
exec "$ex" "\$@"
EOF
chmod +x "$pfs/hangs-first.sh"
t0=$(date +%s)
(cd "$pfs" && SCR_WATCHDOG=1 SCR_WATCHDOG_TIMEOUT=20 timeout 300 "$scr" run -np 8 \
	--map-by ppr:2:node "$pfs/hangs-first.sh" --steps 24 >"$out/hang" 2>&1)
check "hangs after SCR_Init: scr run succeeds" test $? -eq 0
check "hangs after SCR_Init: run 1 stopped by the watchdog" \
	has "$out/hang" 'scr run: run 1 completed no dataset for 20 s \(SCR_WATCHDOG_TIMEOUT\); stopped it'
check "hangs after SCR_Init: the relaunch restarted from step 20 and finished" \
	has "$out/hang" 'restarted from step\.20, every byte verified'
# the hanging rank 0 would give up after 120 s of waiting
check "hangs after SCR_Init: done, well before the hang would end by itself" \
	test "$(($(date +%s) - t0))" -lt 110 -a -n "$(grep 'done at step 24' "$out/hang")"
check "hangs after SCR_Init: the relaunches that made progress were not stopped" \
	test "$(grep -c 'SCR_WATCHDOG_TIMEOUT' "$out/hang")" -eq 1
check "hangs after SCR_Init: no waiting rank is left behind" \
	test -z "$(pgrep -f "$pfs/never" | head -1)"
rm -rf "$pfs/hangs-first.sh" "$pfs/first-launch"
check "SCR_WATCHDOG=1 without a timeout is refused in one line naming it" \
	sh -c "cd '$pfs' && SCR_WATCHDOG=1 '$scr' run -np 8 '$ex' 2>&1 | grep -q 'SCR_WATCHDOG=1 needs SCR_WATCHDOG_TIMEOUT'"
check "a bad SCR_START_TIMEOUT is refused in one line naming it" \
	sh -c "cd '$pfs' && SCR_START_TIMEOUT=soon '$scr' run -np 8 '$ex' 2>&1 | grep -q 'SCR_START_TIMEOUT=soon: not a number of seconds'"
finish
