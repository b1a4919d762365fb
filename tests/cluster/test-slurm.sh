#!/usr/bin/env bash
# test-slurm.sh BUILD_DIR: SCR inside a real Slurm cluster (munge, slurmctld,
# one slurmd per simulated node, the SPANK plugin in plugstack.conf, Open MPI
# launched by srun --mpi=pmix), jobs submitted as an unprivileged user.
#
#  (e) sbatch --help lists --scr; without --scr=on the plugin does nothing
#  (c) a node whose cache is unusable fails the prolog and is drained, reason
#      "scr: ..."
#  (b) a job cancelled after an unflushed checkpoint: the epilogs scavenge it,
#      the index marks it current, a new job on other nodes restarts from it;
#      the prolog purged a directory an ended job left behind
#  (f) a batch script that exports SCR_PREFIX itself, cancelled after an
#      unflushed checkpoint: the epilogs scavenge to that prefix (which the
#      library recorded), not to the submission directory, and the next job
#      with the same SCR_PREFIX restarts from it
#  (d) a symlink planted in the cache to a root-only file: the epilog does
#      not follow it, the index rebuilds that file from XOR, every file on the
#      prefix belongs to the user
#  (a) `scr run` in an sbatch --scr=on --no-kill job on 5 nodes: a node dies
#      mid-run, the relaunch excludes it, uses the spare, restarts from the
#      rebuilt cache and finishes
set -u
cdir=$(cd "$(dirname "$0")" && pwd)
. "$cdir/../sim/lib.sh"
. "$cdir/lib.sh"
cluster_setup "$(cd "${1:?usage: test-slurm.sh BUILD_DIR}" && pwd)" 5 timeout=20

# ---- (e) the option exists; a job without it is untouched
sbatch --help >"$base/help.txt" 2>&1
check "sbatch --help lists --scr" has "$base/help.txt" '--scr=\[on\|off\]'
srun --help >"$base/help.txt" 2>&1
check "srun --help lists --scr" has "$base/help.txt" '--scr=\[on\|off\]'
salloc --help >"$base/help.txt" 2>&1
check "salloc --help lists --scr" has "$base/help.txt" '--scr=\[on\|off\]'
asuser sbatch --scr=maybe --wrap true >"$base/bad.txt" 2>&1
check "--scr=maybe is refused, naming the value" has "$base/bad.txt" "--scr: 'maybe' is not on or off"
script plain.sh 'env | grep -c "^SCR_ENABLE=" || true'
j=$(submit -N1 -w node1 -o plain.out plain.sh)
wait_job "$j"
check "(e) a job without --scr=on has no SCR_ENABLE" has "$work/plain.out" '^0$'
check "(e) and its node has no SCR directory" test ! -e "$shm/node1/$user/scr.$j"
check "(e) and nothing was scavenged" test ! -e "$work/.scr/log"
script env.sh 'srun -N1 -n1 printenv SCR_ENABLE SCR_CACHE_BASE SCR_PREFIX'
j=$(submit --scr=on -N1 -w node1 -o env.out env.sh)
wait_job "$j"
check "(e) with --scr=on a step sees SCR_ENABLE, the cache base and the prefix" \
	test "$(tr '\n' ' ' <"$work/env.out")" = "1 /dev/shm $work "

# ---- (c) unusable cache: the prolog fails, the node is drained with a reason
"$simnode" exec "$cl/nodes" node5 mount -o remount,bind,ro /dev/shm
script short.sh 'true'
j=$(submit --scr=on -N1 -w node5 -o short.out short.sh)
for i in $(seq 1 120); do case "$(node_reason node5)" in scr:*) break ;; esac; sleep 0.25; done
reason=$(node_reason node5)
echo "node5: $(sinfo -h -N -n node5 -o %T) '$reason'"
check "(c) the prolog drained node5 with an scr reason" test "${reason#scr: }" != "$reason"
check "(c) the reason names the storage" test "${reason#*/dev/shm}" != "$reason"
scancel "$j"
"$simnode" exec "$cl/nodes" node5 mount -o remount,bind,rw /dev/shm
scontrol update nodename=node5 state=resume
"$cluster" wait-state "$cl" node5 idle 30

# ---- (b) cancelled after an unflushed checkpoint: scavenged, indexed, restarted
mkdir -p "$shm/node2/$user/scr.99999" && chown -R "$user:" "$shm/node2/$user"
script long.sh "srun --mpi=pmix $example --steps 200 --every 2 --sleep-ms 300"
j=$(asuser env SCR_FLUSH=0 sbatch --parsable --scr=on -N4 -w 'node[1-4]' -o long.out long.sh)
wait_for "$work/long.out" 'checkpoint step.6 complete' 90
check "(b) the prolog purged the directory of an ended job" test ! -e "$shm/node2/$user/scr.99999"
scancel "$j"
wait_job "$j"
check "(b) every node scavenged" test "$(grep -c "event=SCAVENGE job=$j " "$work/.scr/log")" -ge 4
check "(b) one node indexed the dataset" test "$(grep -c "event=INDEX job=$j .*ok=1" "$work/.scr/log")" -eq 1
asuser scr index --list >"$base/index.txt"
check "(b) the index marks it current" has "$base/index.txt" '^\* .* complete '
check "(b) every file on the prefix belongs to $user" owned_by_user "$work"
check "(b) the epilog removed the caches" test ! -e "$shm/node1/$user/scr.$j"
script restart.sh "srun --mpi=pmix $example --steps 40 --every 2 --expect-restart"
j=$(submit --scr=on -N4 -w 'node[2-5]' -o restart.out restart.sh)
wait_job "$j"
check "(b) a new job on other nodes fetched it" has "$work/restart.out" 'restart from the prefix: dataset [0-9]+ fetched'
check "(b) and restarted from it" has "$work/restart.out" 'restarted from step\.[0-9]+, every byte verified'
check "(b) and finished" has "$work/restart.out" 'done at step 40'

# ---- (f) the job script sets SCR_PREFIX: the epilog scavenges there
pre=$work/inner-prefix
mkdir -p "$pre" && chown "$user:" "$pre"
script inner.sh "export SCR_PREFIX=$pre && cd $pre
srun --mpi=pmix $example --steps 200 --every 2 --sleep-ms 300"
j=$(asuser env SCR_FLUSH=0 sbatch --parsable --scr=on -N4 -w 'node[1-4]' -o inner.out inner.sh)
wait_for "$work/inner.out" 'checkpoint step.6 complete' 90
scancel "$j"
wait_job "$j"
check "(f) every node scavenged to the script's SCR_PREFIX" \
	test "$(grep -c "event=SCAVENGE job=$j " "$pre/.scr/log" 2>/dev/null)" -ge 4
check "(f) one node indexed it there" test "$(grep -c "event=INDEX job=$j .*ok=1" "$pre/.scr/log")" -eq 1
check "(f) nothing of it went to the submission directory" hasnt "$work/.scr/log" "job=$j "
check "(f) every file on that prefix belongs to $user" owned_by_user "$pre"
script inner2.sh "export SCR_PREFIX=$pre && cd $pre
srun --mpi=pmix $example --steps 40 --every 2"
j=$(submit --scr=on -N4 -w 'node[2-5]' -o inner2.out inner2.sh)
wait_job "$j"
check "(f) the next job with that SCR_PREFIX fetched it" has "$work/inner2.out" 'restart from the prefix: dataset [0-9]+ fetched'
check "(f) and restarted from it" has "$work/inner2.out" 'restarted from step\.([6-9]|[1-9][0-9]+), every byte verified'

# ---- (d) a planted symlink to a root-only file is not followed by the epilog
secret=$base/secret
echo "TOP-SECRET-ROOT-DATA" >"$secret" && chmod 600 "$secret"
rm -rf "$work/.scr" "$work"/scr.dataset.* "$work/ckpt"
script plant.sh "srun --mpi=pmix $example --steps 6 --every 2 --size 65536
f=\$(ls -d /dev/shm/$user/scr.\$SLURM_JOB_ID/scr.dataset.*/ckpt/rank_0_f0.dat | sort -V | tail -1)
rm -f \"\$f\" && ln -s $secret \"\$f\" && echo planted \$f"
j=$(asuser env SCR_FLUSH=0 sbatch --parsable --scr=on -N4 -w 'node[1-4]' -o plant.out plant.sh)
wait_job "$j"
check "(d) the job planted the symlink" has "$work/plant.out" '^planted '
check "(d) the epilog refused the symlink" has "$cl/log/slurmd.node1.log" 'rank_0_f0.dat.*(Too many levels|not a regular)'
check "(d) the index rebuilt the file from XOR" has "$work/.scr/log" "event=INDEX job=$j .*rebuilt=1 .*ok=1"
grep -h "scr-epilog\[job $j\]" "$cl"/log/slurmd.*.log | sed 's/^/# /' 
check "(d) the secret is nowhere on the prefix" test -z "$(grep -rl TOP-SECRET "$work" 2>/dev/null)"
check "(d) every file on the prefix belongs to $user" owned_by_user "$work"
script verify.sh "srun --mpi=pmix $example --steps 8 --every 2 --size 65536 --expect-restart"
j=$(submit --scr=on -N4 -w 'node[2-5]' -o verify.out verify.sh)
wait_job "$j"
check "(d) a restart from the rebuilt dataset verifies every byte" has "$work/verify.out" 'restarted from step\.6, every byte verified'

[ "${SCR_TEST_STOP:-}" = d ] && { finish; exit; }
# ---- (a) scr run relaunches without a lost node, on the spare
rm -rf "$work/.scr" "$work"/scr.dataset.* "$work/ckpt"
script runA.sh "export SCR_RUNS=3
scr_srun -N4 -n8 --mpi=pmix $example --steps 30 --every 2 --sleep-ms 300
echo \"scr run exit: \$?\""
j=$(submit --scr=on --no-kill -N5 --ntasks-per-node=2 -o runA.out runA.sh)
wait_for "$work/runA.out" 'checkpoint step.8 complete' 120
"$cluster" kill "$cl" node3
wait_job "$j"
check "(a) the first run failed" has "$work/runA.out" 'run 1 exited with status'
check "(a) the relaunch left node3 out and took the spare" has "$work/runA.out" 'run 2 on node\[1-2,4-5\]'
check "(a) the app restarted from the rebuilt cache" has "$work/runA.out" 'restart from cache: dataset [0-9]+ .*ranks rebuilt'
check "(a) every byte verified" has "$work/runA.out" 'restarted from step\.[0-9]+, every byte verified'
check "(a) and it finished" has "$work/runA.out" 'done at step 30'
check "(a) scr run succeeded" has "$work/runA.out" 'scr run exit: 0'
check "(a) postrun put the last checkpoint on the prefix" has "$work/runA.out" 'scr postrun: dataset [0-9]+ scavenged and indexed'
finish
