#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# case.sh BUILD WORK LINE: run one case of the fault-injection matrix (a line
# of cases.txt, fields separated by " | ") on simulated nodes of its own and
# print one result line, fields separated by tabs:
#   id scheme flow fault expected observed seconds verdict note
# verdict: pass, fail, or lost (a restorable checkpoint not restored, or
# the application handed wrong data).  Everything the case ran is kept in
# WORK/<id>/ (outputs, fault log); matrix.sh removes it when the case passed.
#
# The application is scr_example: 8 ranks on node1-4 (node5 spare) write 2
# files each at steps 2, 4, 6, 8 (checkpoints 1-4, dataset ids 1-4), and a
# run that restarts checks every byte.  The flows (what the case does
# around its fault) are below; cases.txt says which each case uses.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$1 work=$2 line=$3
simnode=$here/../sim/simnode
ex=$build/examples/scr_example
scr=$build/cmd/scr
epilog_bin=$build/prolog/scr-epilog
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# field N of the case (a field may hold "|" without spaces around it)
field() {
	echo "$line" | awk -F'[[:space:]]+[|][[:space:]]+' -v n="$1" '{ print $n }' |
		sed 's/^[[:space:]]*//; s/[[:space:]]*$//'
}
id=$(field 1) scheme=$(field 2) flow=$(field 3) fault=$(field 4) expect=$(field 5)
reason=$(field 6)
[ "$fault" = - ] && fault=""
dir=$work/$id
rm -rf "$dir"
mkdir -p "$dir"
sim="" pfs=$dir/prefix mounted=0
mkdir -p "$pfs"
t0=$(date +%s.%N)

# SIGKILL every process of the nodes named, in one pass over /proc
# (simnode kill scans /proc once per node and round, seconds per case)
kill_nodes() {
	local n pid ns list=""
	for n; do
		pid=$(cat "$sim/$n/pid" 2>/dev/null) || continue
		ns=$(readlink "/proc/$pid/ns/uts" 2>/dev/null) && list="$list $ns"
	done
	[ -n "$list" ] || return 0
	find /proc/[0-9]*/ns -maxdepth 1 -name uts -printf '%l %h\n' 2>/dev/null |
		awk -v want="$list" 'BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) k[w[i]] = 1 }
			($1 in k) { split($2, p, "/"); print p[3] }' | xargs -r kill -9 2>/dev/null
	for n; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			"$simnode" alive "$sim" "$n" 2>/dev/null || break
			sleep 0.1
		done
	done
}

cleanup() {
	if [ -n "$sim" ]; then
		kill_nodes node1 node2 node3 node4 node5
		rm -rf "$("$simnode" shm "$sim")" "$sim"
	fi
	[ $mounted = 1 ] && umount -l "$pfs" 2>/dev/null
	sim=""
}
trap cleanup EXIT
trap 'exit 1' TERM INT

# nodes: node1-4 run, node5 is the spare.  MOUNT (tmpfs options) puts the
# prefix on a tmpfs of its own first: the nodes see only mounts that exist
# when they start.
start_nodes() {
	if [ -n "${MOUNT:-}" ]; then
		mount -t tmpfs -o "$MOUNT" tmpfs "$pfs" || return 1
		mounted=1
	fi
	sim=$(mktemp -d "${SCR_SIM_BASE:-/var/tmp}/scr-fault.XXXXXX")
	SIMNODE_SHARE="$pfs:$build:${SIMNODE_SHARE:-}" "$simnode" start "$sim" 5 >"$dir/nodes.log" 2>&1
}

# the hosts for 8 ranks: the nodes of node1-4 still up, a lost one replaced
# in place by the spare while it lasts, then the slots spread over them
hosts() {
	local n live=() spare=node5 i
	for n in node1 node2 node3 node4; do
		if "$simnode" alive "$sim" $n; then live+=("$n")
		elif [ -n "$spare" ] && "$simnode" alive "$sim" $spare; then live+=("$spare"); spare=""
		fi
	done
	local per=$((8 / ${#live[@]})) extra=$((8 % ${#live[@]})) out=""
	for i in "${!live[@]}"; do
		out="$out${out:+,}${live[$i]}:$((per + (i < extra ? 1 : 0)))"
	done
	echo "$out"
}

# a node found down lost its storage with it (fault.h: the node action)
wipe_lost() {
	local n
	for n in node1 node2 node3 node4 node5; do
		"$simnode" alive "$sim" $n && continue
		kill_nodes $n
		"$simnode" wipe "$sim" $n
		echo "$n" >>"$dir/lost"
	done
}

# lose NODE...: killed and wiped, as a failed node
lose() {
	local n
	kill_nodes "$@"
	for n; do
		"$simnode" wipe "$sim" "$n"
		echo "$n" >>"$dir/lost"
	done
}

# every node's cache and control directory gone (a new allocation)
wipe_all() {
	local n
	for n in node1 node2 node3 node4 node5; do
		"$simnode" alive "$sim" $n || "$simnode" start-node "$sim" $n
		"$simnode" wipe "$sim" $n
	done
}

# the settings every run gets; FLUSH and the case's extra ones (ENV) vary
scr_env() {
	local e=(-x SCR_COPY_TYPE="$scheme" -x SCR_SET_SIZE=4 -x SCR_SET_FAILURES=2
		-x SCR_CACHE_SIZE=2 -x SCR_DEBUG=1 -x SCR_MPI_BUF_SIZE=16384
		-x SCR_FILE_BUF_SIZE=65536 -x SCR_FLUSH="${FLUSH:-0}" -x SCR_SCAVENGE_GRACE=0)
	local kv
	for kv in ${ENV:-}; do e+=(-x "$kv"); done
	printf '%s\n' "${e[@]}"
}

# run NAME FAULT [HOSTS] [JOB] -- ARGS...: scr_example in the prefix;
# output in NAME.out, status returned
run() {
	local name=$1 f=$2 h=${3:-} job=${4:-4242}
	shift 4
	[ "${1:-}" = -- ] && shift
	[ -n "$h" ] || h=$(hosts)
	local env=()
	mapfile -t env < <(scr_env)
	[ -n "$f" ] && env+=(-x SCR_FAULT="$f" -x SCR_FAULT_LOG="$dir/fault.log")
	echo "$(date +%T.%N | cut -c1-12) $name: hosts $h job $job${f:+ SCR_FAULT=$f} $*" >>"$dir/runs"
	local rc=0
	(cd "$pfs" && timeout -s KILL 90 "$simnode" mpirun "$sim" -np 8 --host "$h" \
		-x SCR_JOB_ID="$job" "${env[@]}" "$ex" --every 2 --files 2 --size 200000 \
		${CKPT_DIRS:+--ckpt-dirs 1} "$@") \
		>"$dir/$name.out" 2>&1 || rc=$?
	echo "$(date +%T.%N | cut -c1-12) $name: exit $rc" >>"$dir/runs"
	return $rc
}

app=(--steps 8 --tolerate 1)
# a directory per checkpoint (ckpt.<step>/, as SCR's test_api writes): every
# flushed checkpoint keeps its own files on the prefix, so a fallback to an
# older one is possible; the flush-reuse flow reuses the names instead
CKPT_DIRS=1

# epilog NODES... : scr-epilog on each at once (no scheduler: SCR_JOB_NODES);
# EPILOG_FAULT goes to the nodes in EPILOG_FAULT_NODES (all when empty)
epilog() {
	local n pids=() f
	for n; do
		f=""
		if [ -n "${EPILOG_FAULT:-}" ] &&
			{ [ -z "${EPILOG_FAULT_NODES:-}" ] || [[ " $EPILOG_FAULT_NODES " == *" $n "* ]]; }; then
			f=$EPILOG_FAULT
		fi
		"$simnode" exec "$sim" "$n" env SCR_JOB_NODES="node[1-4]" SCR_DOWN_NODES="${DOWN:-}" \
			${f:+SCR_FAULT=$f SCR_FAULT_LOG=$dir/fault.log} \
			timeout -s KILL 60 "$epilog_bin" --sched none --job 4242 --uid 0 --prefix "$pfs" \
			--timeout 5 >"$dir/epilog.$n" 2>&1 &
		pids+=($!)
	done
	for n in "${pids[@]}"; do wait "$n" 2>>"$dir/runs"; done
}

# ---- the flows: each leaves the restart to judge in verify.out ----

# a fault in the first run's checkpoints (cache only), then a rerun of the
# same job on what is left
flow_ckpt() {
	run first "$fault" "" 4242 -- "${app[@]}"
	wipe_lost
	run verify "" "" 4242 -- --steps 8
}

# the same, then node1 lost too: the restart needs checkpoint 4's
# redundancy (a torn parity or partner file must be caught, not used)
flow_ckpt_lose() {
	run first "$fault" "" 4242 -- "${app[@]}"
	wipe_lost
	lose node1
	run verify "" "" 4242 -- --steps 8
}

# every checkpoint flushed, a fault in the first run; then a new job on
# wiped nodes restarts from the prefix
flow_flush() {
	FLUSH=1 run first "$fault" "" 4242 -- "${app[@]}"
	wipe_lost
	wipe_all
	run verify "" "" 4243 -- --steps 8
}

# the same with file names every checkpoint reuses (ckpt/rank_<r>_f<f>.dat):
# a flush cut short must leave the previous checkpoint whole on the prefix
flow_flush_reuse() {
	CKPT_DIRS="" FLUSH=1 run first "$fault" "" 4242 -- "${app[@]}"
	echo "replaced files kept on the prefix: $(ls -A "$pfs/.scr/scr.recycle" 2>/dev/null | wc -l)" >>"$dir/runs"
	wipe_lost
	wipe_all
	CKPT_DIRS="" run verify "" "" 4243 -- --steps 8
}

# checkpoints 1-3 on the prefix; a new job on wiped nodes fetches with the
# fault; a rerun of that job is judged
flow_fetch() {
	FLUSH=1 run first "" "" 4242 -- --steps 6
	wipe_all
	run second "$fault" "" 4243 -- --steps 6
	wipe_lost
	run verify "" "" 4243 -- --steps 6
}

# node3 lost after checkpoint 3; the rerun's rebuild meets the fault (a
# second failure); a third run is judged
flow_rebuild() {
	run first "" "" 4242 -- --steps 6
	lose ${LOSE:-node3}
	run second "$fault" "${SHIFT:-}" 4242 -- --steps 6
	wipe_lost
	run verify "" "${SHIFT:-}" 4242 -- --steps 6
}

# checkpoints 1-3 in cache only; the epilog on node1-4 at once with the
# fault (EPILOG_FAULT_NODES: on those only); then a new job on wiped nodes,
# whose SCR_Init indexes what an unfinished epilog left
flow_epilog() {
	run first "" "" 4242 -- --steps 6
	if [ -n "${LOSE:-}" ]; then
		lose $LOSE
		DOWN=$LOSE EPILOG_FAULT=$fault epilog node1 node3 node4
	else
		EPILOG_FAULT=$fault epilog node1 node2 node3 node4
	fi
	wipe_lost
	wipe_all
	run verify "" "" 4243 -- --steps 6
}

# ---- scenarios without a fault point ----

# two nodes of every set lost after checkpoint 3
flow_lose2() {
	run first "" "" 4242 -- --steps 6
	lose node1 node2
	run verify "" "" 4242 -- --steps 6
}

# checkpoint 3's RS parity as an earlier release wrote it (the striped
# code, no CODE in the header: uncode.py) on every node; node3 lost
flow_old_code() {
	local f d n=0
	run first "" "" 4242 -- --steps 6
	for f in "$("$simnode" shm "$sim")"/node*/root/scr.4242/scr.dataset.3/*.rs; do
		d=${f%/scr.dataset.3/*}
		python3 "$here/uncode.py" "$f" "$d"/filemap_*.scrinfo && n=$((n + 1))
	done
	echo "header without CODE: $n parity files of dataset 3" >>"$dir/runs"
	lose node3
	run verify "" "" 4242 -- --steps 6
}

# the cache wiped on every node after checkpoint 3 (SCR_FLUSH=2: the
# prefix has 2 and, flushed by SCR_Finalize, 3)
flow_wipeall() {
	FLUSH=2 run first "" "" 4242 -- --steps 6
	wipe_all
	run verify "" "" 4242 -- --steps 6
}

# the prefix a read-only file system: checkpoints stay in cache
flow_unwritable() {
	FLUSH=1 run first "" "" 4242 -- "${app[@]}"
	run verify "" "" 4242 -- --steps 8
}

# the prefix a 2 MB tmpfs: checkpoint 1 (1.3 MB) fits, 2 does not; a new
# job on wiped nodes restarts from what the prefix holds
flow_full() {
	FLUSH=1 run first "" "" 4242 -- "${app[@]}"
	wipe_all
	run verify "" "" 4243 -- --steps 8
}

# one byte of rank 2's file of checkpoint 3 in cache flipped
flow_corrupt_cache() {
	run first "" "" 4242 -- --steps 6
	local f
	f=$(find "$("$simnode" shm "$sim")/node2" -path '*scr.dataset.3/ckpt.6/rank_2_f1.dat')
	[ -n "$f" ] && printf '\xff' | dd of="$f" bs=1 seek=1000 conv=notrunc status=none
	run verify "" "" 4242 -- --steps 6
}

# one byte of rank 2's file of checkpoint 3 on the prefix flipped
flow_corrupt_prefix() {
	FLUSH=1 run first "" "" 4242 -- --steps 6
	printf '\xff' | dd of="$pfs/ckpt.6/rank_2_f1.dat" bs=1 seek=1000 \
		conv=notrunc status=none
	wipe_all
	run verify "" "" 4243 -- --steps 6
}

# damage FILE: truncate (DAMAGE=trunc) to half, or overwrite with garbage
damage() {
	local f=$1 size
	[ -f "$f" ] || { echo "no file to damage: $f" >>"$dir/runs"; return 1; }
	size=$(stat -c %s "$f")
	if [ "${DAMAGE:-trunc}" = trunc ]; then truncate -s $((size / 2)) "$f"
	else head -c "$size" /dev/urandom >"$f"; fi
	echo "damaged ($DAMAGE) $f" >>"$dir/runs"
}

# rank 2's filemap in cache damaged after checkpoint 3
flow_meta_filemap() {
	run first "" "" 4242 -- --steps 6
	damage "$("$simnode" shm "$sim")/node2/root/scr.4242/filemap_2.scrinfo"
	run verify "" "" 4242 -- --steps 6
}

# the prefix's index damaged; a new job on wiped nodes
flow_meta_index() {
	FLUSH=1 run first "" "" 4242 -- --steps 6
	damage "$pfs/.scr/index.scr"
	wipe_all
	run verify "" "" 4243 -- --steps 6
}

# checkpoint 3's summary on the prefix damaged; a new job on wiped nodes
flow_meta_summary() {
	FLUSH=1 run first "" "" 4242 -- --steps 6
	damage "$pfs/.scr/scr.dataset.3/.scr/summary.scr"
	wipe_all
	run verify "" "" 4243 -- --steps 6
}

# two jobs of 4 ranks flush to the same prefix at once: job A (node1-2)
# checkpoints every 2 steps, job B (node3-4) every 3, so the same dataset
# ids name different steps; then a new job restarts from the prefix.  Both
# wait after SCR_Init until both got there: on a loaded machine one launch
# can otherwise finish before the other one starts.
flow_twojobs() {
	local env=() i
	mapfile -t env < <(FLUSH=1 scr_env)
	(cd "$pfs" && timeout -s KILL 150 "$simnode" mpirun "$sim" -np 4 --host node1:2,node2:2 \
		-x SCR_JOB_ID=501 "${env[@]}" -x SCR_SET_SIZE=2 "$ex" --ckpt-dirs 1 --every 2 --files 2 \
		--size 200000 --steps 12 --wait-file "$dir/go") >"$dir/jobA.out" 2>&1 &
	local a=$!
	(cd "$pfs" && timeout -s KILL 150 "$simnode" mpirun "$sim" -np 4 --host node3:2,node4:2 \
		-x SCR_JOB_ID=502 "${env[@]}" -x SCR_SET_SIZE=2 "$ex" --ckpt-dirs 1 --every 3 --files 2 \
		--size 200000 --steps 12 --wait-file "$dir/go") >"$dir/jobB.out" 2>&1 &
	local b=$!
	for i in $(seq 600); do
		[ "$(cat "$dir/jobA.out" "$dir/jobB.out" 2>/dev/null |
			grep -c 'starting from the beginning')" = 2 ] && break
		sleep 0.2
	done
	echo "$(date +%T.%N | cut -c1-12) both jobs past SCR_Init" >>"$dir/runs"
	touch "$dir/go"
	wait $a
	wait $b
	wipe_all
	(cd "$pfs" && timeout -s KILL 90 "$simnode" mpirun "$sim" -np 4 --host node1:2,node2:2 \
		-x SCR_JOB_ID=503 "${env[@]}" -x SCR_SET_SIZE=2 "$ex" --ckpt-dirs 1 --every 2 --files 2 \
		--size 200000 --steps 12) >"$dir/verify.out" 2>&1
	echo "verify: exit $?" >>"$dir/runs"
}

# ---- judge ----

# observed: restart=<step> from=<cache|prefix|none> [failed=<ids>]
observe() {
	local v=$dir/verify.out step from failed
	step=$(sed -n 's/^scr_example: restarted from step\.\([0-9]*\), every byte verified$/\1/p' "$v" | tail -1)
	if [ -z "$step" ]; then
		step=0 from=none
		grep -q 'starting from the beginning' "$v" || step='?'
	elif grep -q 'restart from the prefix: dataset' "$v"; then from=prefix
	else from=cache; fi
	failed=$("$scr" index --list --prefix "$pfs" 2>/dev/null |
		awk 'NR > 1 { for (i = 2; i <= NF; i++) if ($i == "failed") print $(i - 1) }' |
		sort -n | paste -sd, -)
	echo "restart=$step from=$from${failed:+ failed=$failed}"
}

verdict() {
	local obs=$1 note="" v=pass tok key val got
	# the fault was reached
	if [ -n "$fault" ] && ! grep -q " at ${fault%%[#@:]*}" "$dir/fault.log" 2>/dev/null; then
		v=fail note="the fault point was never reached"
	fi
	# wrong data handed to the application, or a run that did not finish
	if cat "$dir"/*.out | grep -Eq '^scr_example: (rank [0-9]+: .*(differs from step|is not in the checkpoint|cannot open)|restart from .* failed, trying an older one)'; then
		v=lost note="the application got wrong data; $note"
	fi
	if ! grep -q '^scr_example: done at step' "$dir/verify.out"; then
		[ $v = pass ] && v=fail
		note="the verifying run did not finish; $note"
	fi
	# replaced files a crashed run kept on the prefix (SCR_PREFIX_REUSE) are
	# gone once the verifying run's SCR_Init and SCR_Finalize have been
	if [ -n "$(ls -A "$pfs/.scr/scr.recycle" 2>/dev/null)" ]; then
		[ $v = pass ] && v=fail
		note="files left in $pfs/.scr/scr.recycle; $note"
	fi
	# the restart
	for tok in $expect; do
		key=${tok%%=*} val=${tok#*=}
		got=$(echo "$obs" | tr ' ' '\n' | sed -n "s/^$key=//p")
		if ! echo "|$val|" | grep -q "|$got|"; then
			if [ "$key" = restart ] && [ "$got" != '?' ] &&
				[ "$got" -lt "$(echo "$val" | tr '|' '\n' | sort -n | head -1)" ]; then
				v=lost note="a restorable checkpoint was not restored; $note"
			elif [ $v = pass ]; then v=fail; fi
			note="$key: expected $val, got ${got:-nothing}; $note"
		fi
	done
	if [ "$(echo "$obs" | grep -o 'failed=[^ ]*')" != "$(echo "$expect" | grep -o 'failed=[^ ]*')" ]; then
		[ $v = pass ] && v=fail
		note="FAILED marks differ; $note"
	fi
	# the one-line reason
	if [ "$reason" != - ] && ! cat "$dir"/*.out "$dir"/epilog.* 2>/dev/null | grep -Eq -- "$reason"; then
		[ $v = pass ] && v=fail
		note="no line matches /$reason/; $note"
	fi
	# a spoilt write is reported: path and strerror on one line (not an
	# einval: a direct write refused is written again through the page cache)
	local err
	err=$(sed -n 's/.*fails this write: \(.*\) ([^,]*, pid [0-9]*)$/\1/p' "$dir/fault.log" 2>/dev/null | head -1)
	[ "${fault##*:}" != einval ] || err=""
	if [ -n "$err" ] && ! cat "$dir"/*.out "$dir"/epilog.* 2>/dev/null | grep -v '^SCR_FAULT' |
		grep -E "/[^ ]*.*$err|$err.*/[^ ]" | grep -q .; then
		[ $v = pass ] && v=fail
		note="the failed write ($err) was not reported with its path; $note"
	fi
	printf '%s\t%s' "$v" "${note%; }"
}

# the result line in one write: parallel cases share the output pipe
result() {
	local r
	r=$(printf '%s\t' "$id" "$scheme" "$flow" "${fault:--}" "$expect" "$@")
	echo "${r%$'\t'}"
}

fn=flow_${flow//-/_}
case "$flow" in
ckpt | ckpt-lose | flush | flush-reuse | fetch | rebuild | lose2 | wipeall | twojobs | old-code) ;;
corrupt-cache | corrupt-prefix) ;;
epilog) EPILOG_FAULT_NODES=node3 ;;
fetch-protect) fn=flow_fetch ENV="SCR_FETCH_PROTECT=1 ${ENV:-}" ;;
rebuild-shift) fn=flow_rebuild LOSE=node1 SHIFT=node2:2,node3:2,node4:2,node5:2 ;;
epilog-all) fn=flow_epilog ;;
epilog-lost) fn=flow_epilog LOSE=node2 ;;
unwritable) MOUNT="ro,size=1m" ;;
full) MOUNT="size=2m" ;;
trunc-* | garbage-*) DAMAGE=${flow%%-*} fn=flow_meta_${flow#*-} ;;
*) result - 0 fail "unknown flow"; exit 0 ;;
esac
if ! start_nodes; then
	result - 0 fail "nodes did not start: $(tail -1 "$dir/nodes.log")"
	exit 0
fi
$fn
obs=$(observe)
secs=$(echo "$(date +%s.%N) - $t0" | bc | xargs printf '%.0f')
result "$obs" "$secs" "$(verdict "$obs")"
