#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-flux.sh BUILD_DIR: SCR inside a Flux instance of simulated nodes
# (tests/flux/fluxcluster: one broker per node, own hostname and private
# /tmp and /dev/shm), with the job-shell plugin and scr-prolog as per-rank
# prolog.  SKIPPED (exit 77) when flux-core or the plugin is absent.
#  (a) flux run -o scr: every node prepared, scavenged and indexed at exit
#  (b) flux batch -o scr with scr run: a broker dies mid-run, the relaunch
#      leaves it out, the app restarts from the rebuilt cache and finishes
#  (c) a job cancelled after an unflushed checkpoint is scavenged; a new job
#      on other nodes restarts from it
#  (d) a failing prolog drains the node with an scr reason (once (b)'s job has
#      ended: its shells and epilog on node5 must not meet the read-only
#      /dev/shm, or the epilog holds node5 for its scavenge timeout)
#  and: -o scr=maybe is a clear job error; without -o scr nothing happens
# Sanitizer mode (SCR_CLUSTER_SANITIZE, tests/cluster/san.sh) runs the
# application of SCR_FLUX_EXAMPLE, a scr_example of an unsanitized build:
# Open MPI's PMI path under Flux reads freed and unallocated memory in
# MPI_Init, which with the sanitizer's allocator fails every MPI program.
set -u
fdir=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: test-flux.sh BUILD_DIR}" && pwd)
. "$fdir/../sim/lib.sh"
flux=${FLUX:-$(command -v flux || true)}
plugin=$build/flux-plugin/scr.so
if [ -z "$flux" ] || [ ! -e "$plugin" ]; then
	echo "SKIPPED: flux-core is not installed (or the plugin was not built)"
	exit 77
fi
if [ "$(id -u)" != 0 ]; then echo "SKIPPED: needs root"; exit 77; fi
if [ -n "${SCR_CLUSTER_SANITIZE:-}" ] && [ ! -x "${SCR_FLUX_EXAMPLE:-}" ]; then
	echo "SKIPPED: sanitizer mode needs SCR_FLUX_EXAMPLE, a scr_example of an unsanitized build"
	exit 77
fi
# the first line: the flux-core this run is against
echo "flux-core $("$flux" version 2>/dev/null | awk '$1 == "commands:" { print $2 }') ($flux)"
export FLUX=$flux PATH=$(dirname "$flux"):$build/cmd:$PATH
base=$(mktemp -d /var/tmp/scr-flux.XXXXXX)
cl=$base/cluster work=$base/work
# SCR_TEST_KEEP=1: keep the job outputs, the instance's logs and dmesg in $base
keep() {
	[ -n "${SCR_TEST_KEEP:-}" ] || return 0
	[ -n "${FLUX_URI:-}" ] && { flux dmesg >"$base/dmesg" 2>&1; flux jobs -a >"$base/jobs" 2>&1; }
	[ -d "$cl/log" ] && cp -a "$cl/log" "$base/cluster-log"
	echo "kept: $base"
}
trap 'keep; "$fdir/fluxcluster" stop "$cl" >/dev/null 2>&1; [ -n "${SCR_TEST_KEEP:-}" ] || rm -rf "$base"' EXIT
mkdir -p "$work"
cat >"$base/scr.lua" <<LUA
plugin.load { file = "$plugin",
  conf = { cache_base = "/dev/shm", cntl_base = "/dev/shm", timeout = 10 } }
LUA
cat >"$base/perilog.toml" <<TOML
[job-manager]
plugins = [ { load = "perilog.so" } ]
[job-manager.prolog]
per-rank = true
command = [ "$build/prolog/scr-prolog", "--sched=flux", "--cache-base=/dev/shm",
            "--cntl-base=/dev/shm" ]
[job-manager.epilog]
per-rank = true
command = [ "$build/prolog/scr-epilog", "--sched=flux", "--cache-base=/dev/shm",
            "--cntl-base=/dev/shm" ]
TOML
SCR_FLUX_EXTRA_CONF=$base/perilog.toml "$fdir/fluxcluster" start "$cl" 5 || exit 1
eval "$("$fdir/fluxcluster" env "$cl")"
. "$fdir/../cluster/san.sh" && san_job_env "$cl" # SCR_CLUSTER_SANITIZE: sanitizer mode
shm=$("$simnode" shm "$cl/nodes")
ex=${SCR_FLUX_EXAMPLE:-$build/examples/scr_example}
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo \
	OMPI_MCA_mpi_yield_when_idle=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SCR=(-o userrc="$base/scr.lua" -o scr)
cd "$work"

# ---- the option
flux run -o userrc="$base/scr.lua" -o scr=maybe -N1 true >"$base/bad" 2>&1
check "-o scr=maybe fails the job" test $? -ne 0
check "and says why" has "$base/bad" 'scr=.?"maybe"?: expected on or off'
flux run -o userrc="$base/scr.lua" -N1 sh -c 'echo "enable=[${SCR_ENABLE:-}]"' >"$base/plain" 2>&1
check "without -o scr the tasks get no SCR_ENABLE" has "$base/plain" '^enable=\[\]$'

# ---- (a) prepared, scavenged, indexed
flux run "${SCR[@]}" -N4 -n4 sh -c 'stat -c "%a %n" /dev/shm/$(id -un)/scr.$SCR_JOB_ID' >"$base/a0" 2>&1
check "(a) every node's job directory is ready (0700)" test "$(grep -c '^700 ' "$base/a0")" -eq 4
id=$(SCR_FLUSH=0 flux submit "${SCR[@]}" -N4 -n8 --requires=host:'node[1-4]' "$ex" --steps 6 --every 2)
flux job attach "$id" >"$base/a1" 2>&1
check "(a) the job ran" has "$base/a1" 'done at step 6'
check "(a) the four shells scavenged" test "$(grep -c 'event=SCAVENGE' "$work/.scr/log")" -eq 4
check "(a) one shell indexed" test "$(grep -c 'event=INDEX .*ok=1' "$work/.scr/log")" -eq 1
check "(a) the job's directories are gone" test ! -e "$shm/node1/root/scr.$id" -a ! -e "$shm/node4/root/scr.$id"

# ---- (c) cancelled after an unflushed checkpoint
rm -rf "$work/.scr" "$work"/scr.dataset.* "$work/ckpt"
id=$(SCR_FLUSH=0 flux submit "${SCR[@]}" -N4 -n8 --requires=host:'node[1-4]' --output="$base/c1" \
	"$ex" --steps 200 --every 2 --sleep-ms 300)
wait_for "$base/c1" 'checkpoint step.6 complete' 90
flux cancel "$id"
flux job wait-event -t 60 "$id" clean >/dev/null 2>&1
check "(c) the cancelled job was scavenged and indexed" has "$work/.scr/log" 'event=INDEX .*ok=1'
flux run "${SCR[@]}" -N4 -n8 --requires=host:'node[2-5]' "$ex" --steps 40 --every 2 \
	--expect-restart >"$base/c2" 2>&1
check "(c) a new job on other nodes fetched it" has "$base/c2" 'restart from the prefix: dataset [0-9]+ fetched'
check "(c) and verified every byte" has "$base/c2" 'restarted from step\.[0-9]+, every byte verified'

# ---- (e) the batch script sets SCR_PREFIX: the shells scavenge there
rm -rf "$work/.scr" "$work"/scr.dataset.* "$work/ckpt"
pre=$work/inner-prefix
mkdir -p "$pre"
cat >"$work/inner.sh" <<JOB
#!/bin/bash
export SCR_PREFIX=$pre SCR_FLUSH=0
cd $pre
flux run -N4 -n8 $ex --steps 200 --every 2 --sleep-ms 300
JOB
chmod +x "$work/inner.sh"
id=$(flux batch "${SCR[@]}" -N4 --requires=host:'node[1-4]' --output="$base/e1" "$work/inner.sh")
wait_for "$base/e1" 'checkpoint step.6 complete' 120
flux cancel "$id"
flux job wait-event -t 60 "$id" clean >/dev/null 2>&1
check "(e) scavenged and indexed in the script's SCR_PREFIX" has "$pre/.scr/log" 'event=INDEX .*ok=1'
check "(e) nothing went to the submission directory" test ! -e "$work/.scr/log"
flux run "${SCR[@]}" -N4 -n8 --requires=host:'node[2-5]' --env=SCR_PREFIX="$pre" --cwd="$pre" \
	"$ex" --steps 40 --every 2 >"$base/e2" 2>&1
check "(e) the next job with that SCR_PREFIX fetched it" has "$base/e2" 'restart from the prefix: dataset [0-9]+ fetched'
check "(e) and verified every byte" has "$base/e2" 'restarted from step\.[0-9]+, every byte verified'

# ---- (b) scr run in a batch job survives a lost broker
rm -rf "$work/.scr" "$work"/scr.dataset.* "$work/ckpt"
cat >"$work/job.sh" <<JOB
#!/bin/bash
export SCR_RUNS=3 SCR_FLUSH=0
scr run -N4 -n8 $ex --steps 30 --every 2 --sleep-ms 300
echo "scr run exit: \$?"
JOB
chmod +x "$work/job.sh"
bid=$(flux batch "${SCR[@]}" -N5 --output="$base/b" "$work/job.sh")
wait_for "$base/b" 'checkpoint step.8 complete' 120
"$fdir/fluxcluster" kill "$cl" node3
wait_for "$base/b" 'scr run exit' 240
check "(b) the first run failed" has "$base/b" 'scr run: run 1 exited with status'
check "(b) the relaunch left node3 out" has "$base/b" 'scr run: run 2 on node\[1-2,4-5\]'
check "(b) restarted from the rebuilt cache" has "$base/b" 'restart from cache: dataset [0-9]+ .* 2 ranks rebuilt'
check "(b) and finished" has "$base/b" 'done at step 30'
check "(b) scr run succeeded" has "$base/b" 'scr run exit: 0'

# ---- (d) a failing prolog drains the node
# (b)'s job first ends, shells and epilog: 'scr run exit' is only its script's
# last line.  A /dev/shm made read-only under its shell on node5 leaves that
# job's directory behind, and its epilog there then waits out its scavenge
# timeout (60 s) before node5 is free for this job.
flux job wait-event -t 120 "$bid" clean >/dev/null 2>&1 || echo "--- (b)'s job $bid did not end within 120 s"
"$simnode" exec "$cl/nodes" node5 mount -o remount,bind,ro /dev/shm
flux submit "${SCR[@]}" -N1 --requires=host:node5 true >/dev/null
t0=$SECONDS # a deadline in seconds, not in polls: each poll is a flux command
while [ $((SECONDS - t0)) -lt 60 ]; do
	flux resource drain -no '{nodelist}' | grep -q node5 && break
	sleep 0.25
done
echo "(d) $((SECONDS - t0)) s from the job's submission to node5's drain (or the deadline)"
flux resource drain -o '{nodelist} {reason}' >"$base/d" 2>&1
check "(d) the failing prolog drained node5" has "$base/d" 'node5'
check "(d) with an scr reason naming the storage" has "$base/d" 'node5 .*scr: .*/dev/shm'
san_check "$cl/san/log" flux-shell
finish
