#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/scale.sh: how each step of SCR grows with the job (issue 40, item 1).
#
#   bench/scale.sh [--build DIR] [--ranks "8 16 32 64 128"] [--schemes "SINGLE PARTNER XOR4"]
#                  [--bytes N] [--lines FILE]
#
# Tiny files (--bytes per rank, default 4096) so that only metadata and
# collectives cost.  For each rank count, on up to 16 simulated nodes (2
# ranks a node until 16 nodes, then more per node; one spare), and each
# scheme, launches of bench/scr-ckpt with the same job id:
#   write    fresh SCR_Init, 3 checkpoints (SCR_Start_output and
#            SCR_Complete_output, slowest rank), SCR_Finalize
#   cache    restart from the cache on the same nodes: SCR_Init
#   flush    caches wiped, one checkpoint flushed (SCR_FLUSH=1; the flush's
#            own seconds from the event log)
#   rebuild  node2 wiped and the spare in its place: SCR_Init (not SINGLE)
#   fetch    every cache wiped: SCR_Init fetches the flushed checkpoint
# Every launch also times, after SCR_Finalize, an MPI_Barrier and an
# MPI_Allreduce (coll_bare): what an agreement costs on these
# oversubscribed cores at this size, so each step is also given over it.
# Prints seconds per step against ranks (medians), the growth per doubling
# (geometric mean of t(2N)/t(N)), and each step over coll_bare at the
# largest size.  Raw JSON lines go to --lines (default
# bench/results/scale.jsonl).  Needs root (simulated nodes).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build ranks_list="8 16 32 64 128" schemes="SINGLE PARTNER XOR4" bytes=4096
lines=$top/bench/results/scale.jsonl
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift ;;
	--ranks) ranks_list=$2; shift ;;
	--schemes) schemes=$2; shift ;;
	--bytes) bytes=$2; shift ;;
	--lines) lines=$2; shift ;;
	*) echo "bench/scale.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || { echo "bench/scale.sh: simulated nodes need root" >&2; exit 77; }
build=$(cd "$build" && pwd)
[ -x "$build/bench/scr-ckpt" ] || bash "$top/scripts/build" "$build" >/dev/null
simnode=$top/tests/sim/simnode
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$(dirname "$lines")"
: >"$lines"
raw=$(mktemp /var/tmp/scr-scale-lines.XXXXXX) # every node writes here
sim="" pfs="" out=$(mktemp /var/tmp/scr-scale-out.XXXXXX)
cleanup() { [ -n "$sim" ] && "$simnode" stop "$sim"; rm -rf "$pfs" "$raw" "$out"; sim="" pfs=""; }
trap cleanup EXIT

# nodes N: the nodes a job of N ranks runs on
nodes_for() { local n=$(($1 / 2)); [ $n -le 16 ] || n=16; [ $n -ge 4 ] || n=4; echo $n; }
hosts() { # hosts NODES PER [SKIP]: node1:PER,... (the spare for SKIP)
	local h="" i nd
	for i in $(seq 1 "$1"); do
		nd=node$i
		[ "$nd" = "${3:-}" ] && nd=node$(($1 + 1))
		h="$h${h:+,}$nd:$2"
	done
	echo "$h"
}
wipe() { local i; for i in $(seq 1 $(($1 + 1))); do "$simnode" wipe "$sim" "node$i"; done; }

# one KIND N NODES SCHEME HOSTS ENV...: one launch of scr-ckpt
one() {
	local kind=$1 n=$2 nn=$3 scheme=$4 h=$5 args=(--reps 3) flush=0
	shift 5
	case $kind in
	cache | rebuild | fetch) args=(--restart "$kind") ;;
	flush) args=(--reps 1) flush=1 ;;
	esac
	(cd "$pfs" && timeout 900 "$simnode" mpirun "$sim" -np "$n" --host "$h" \
		-x SCR_JOB_ID="$job" -x SCR_CACHE_BASE=/dev/shm -x SCR_CACHE_SIZE=2 \
		-x SCR_FLUSH=$flush -x SCR_LOG_ENABLE=1 "$@" "$build/bench/scr-ckpt" \
		--impl "$kind" --scheme "$scheme" --label "$n ranks on $nn nodes" --bytes "$bytes" \
		--files 1 --json "$raw" --coll 1 "${args[@]}") >"$out" 2>&1 ||
		{ grep -v "plm:rsh" "$out" | head -80; echo "bench/scale.sh: $kind $scheme at $n ranks failed" >&2; exit 1; }
}

job=1000
for n in $ranks_list; do
	nn=$(nodes_for "$n") per=$((n / $(nodes_for "$n")))
	[ $((per * nn)) = "$n" ] || { echo "bench/scale.sh: $n ranks do not fill $nn nodes" >&2; exit 2; }
	cleanup
	sim=$(mktemp -d /var/tmp/scr-scale-sim.XXXXXX) pfs=$(mktemp -d /var/tmp/scr-scale-pfs.XXXXXX)
	raw=$(mktemp /var/tmp/scr-scale-lines.XXXXXX) out=$(mktemp /var/tmp/scr-scale-out.XXXXXX)
	"$simnode" start "$sim" $((nn + 1)) >/dev/null
	for s in $schemes; do
		case $s in
		SINGLE | PARTNER) env=(-x "SCR_COPY_TYPE=$s" -x SCR_SET_SIZE=4) ;;
		XOR4) env=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4) ;;
		RS*) env=(-x SCR_COPY_TYPE=RS -x SCR_SET_SIZE=8 -x SCR_SET_FAILURES=2) ;;
		*) echo "bench/scale.sh: unknown scheme $s" >&2; exit 2 ;;
		esac
		job=$((job + 1))
		echo "== $s: $n ranks on $nn nodes" >&2
		all=$(hosts "$nn" "$per")
		wipe "$nn"
		one write "$n" "$nn" "$s" "$all" "${env[@]}"
		one cache "$n" "$nn" "$s" "$all" "${env[@]}"
		wipe "$nn"
		one flush "$n" "$nn" "$s" "$all" "${env[@]}"
		if [ "$s" != SINGLE ]; then
			"$simnode" wipe "$sim" node2
			one rebuild "$n" "$nn" "$s" "$(hosts "$nn" "$per" node2)" "${env[@]}"
		fi
		wipe "$nn"
		one fetch "$n" "$nn" "$s" "$all" "${env[@]}"
		rm -rf "${pfs:?}"/* "$pfs"/.scr
	done
	cat "$raw" >>"$lines"
done

# the table: step -> median seconds per rank count
awk -v ranks="$ranks_list" '
function field(k,   m) { return match($0, "\"" k "\":(\"[^\"]*\"|[0-9.e+-]+)") ? substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3) : "" }
function median(s,   a, n, i, j, x) {
	n = split(s, a, ",")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j] + 0 < a[j - 1] + 0; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	phase = field("phase"); gsub(/"/, "", phase); sub(/^whole\./, "", phase)
	scheme = field("scheme"); gsub(/"/, "", scheme)
	metric = field("metric"); gsub(/"/, "", metric)
	n = field("ranks")
	if (!match($0, /"samples":\[[^]]*\]/)) next
	s = substr($0, RSTART + 11, RLENGTH - 12)
	step = ""
	if (phase == "write" && metric == "init") step = "SCR_Init, fresh"
	else if (phase == "write" && metric == "start_output") step = "SCR_Start_output"
	else if (phase == "write" && metric == "complete_output") step = "SCR_Complete_output"
	else if (phase == "write" && metric == "finalize") step = "SCR_Finalize"
	else if (phase == "cache" && metric == "restart_cache_init_s") step = "SCR_Init, restart from cache"
	else if (phase == "rebuild" && metric == "restart_rebuild_init_s") step = "SCR_Init, rebuild after a lost node"
	else if (phase == "fetch" && metric == "restart_fetch_init_s") step = "SCR_Init, fetch"
	else if (phase == "flush" && metric == "flush_s") step = "flush (one checkpoint)"
	else if (metric == "coll_bare") { bare[scheme, n] = bare[scheme, n] (bare[scheme, n] == "" ? "" : ",") s; next }
	if (step == "") next
	key = scheme SUBSEP step
	if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
	t[key, n] = median(s)
}
END {
	nr = split(ranks, R, " ")
	printf "| scheme | step |"; for (i = 1; i <= nr; i++) printf " %s |", R[i]
	printf " growth per doubling | over MPI_Barrier + MPI_Allreduce at %s |\n| --- | --- |", R[nr]
	for (i = 1; i <= nr + 2; i++) printf " --- |"; printf "\n"
	for (k = 1; k <= nk; k++) {
		split(order[k], p, SUBSEP)
		printf "| %s | %s |", p[1], p[2]
		g = 0; ng = 0
		for (i = 1; i <= nr; i++) {
			v = t[order[k], R[i]]
			printf " %s |", v == "" ? "-" : sprintf("%.4f", v)
			if (i > 1 && v != "" && t[order[k], R[i - 1]] > 0) { g += log(v / t[order[k], R[i - 1]]) / log(R[i] / R[i - 1]); ng++ }
		}
		b = median(bare[p[1], R[nr]])
		v = t[order[k], R[nr]]
		printf " %s | %s |\n", ng ? sprintf("%.2fx", exp(g / ng * log(2))) : "-", (v != "" && b > 0) ? sprintf("%.0f", v / b) : "-"
	}
	printf "\nMPI_Barrier + MPI_Allreduce (coll_bare), median over launches:"
	for (i = 1; i <= nr; i++) { s = ""; for (k in bare) { split(k, q, SUBSEP); if (q[2] == R[i]) s = s (s == "" ? "" : ",") bare[k] } printf " %s: %.5f s;", R[i], median(s) }
	printf "\n"
}' "$lines"
