#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-bench.sh BUILD [CC [CFLAGS]]: bench/run --tiny, so the benchmark never rots, and
# its comparison with another SCR (--against) end to end, and bench/scale.sh
# at one size.  The "other" SCR
# is this build, seen through an install-like directory (include/scr.h,
# lib/libscr.so), since LLNL SCR is not on the test machines.  No timing is
# asserted: the test checks that every figure the report derives from the
# launches is there.  CC and CFLAGS build the --against client as the
# library was built (a sanitized build needs both).
. "$(dirname "$0")/lib.sh"
top=$(cd "$here/../.." && pwd)
build=$1
[ -z "${2:-}" ] || export OMPI_CC=$2
export BENCH_CFLAGS=${3:-}
other=$(mktemp -d "${SCR_SIM_BASE:-/var/tmp}/scr-bench-other.XXXXXX")
out=$other/out results=$other/results
trap 'rm -rf "$other"' EXIT
mkdir -p "$other/include" "$other/lib"
ln -s "$top/lib/include/scr.h" "$other/include/scr.h"
for f in "$build"/lib/scr/libscr.so*; do ln -s "$f" "$other/lib/${f##*/}"; done
BENCH_RESULTS=$results "$top/bench/run" --tiny --build "$build" --against "$other" \
	--rounds 1 --restart-rounds 2 --flush --compute-ms 20 >"$out" 2>&1
check "bench/run --tiny --against succeeds" test $? = 0
check "--restart-rounds 2: each restart twice a round, both libraries" \
	test "$(grep -Ec '"phase":"whole\.(ours|llnl)".*"metric":"restart_(cache|rebuild|fetch)_init_s","unit":"s","n":2,' \
		"$results/results.json")" = 10
for s in SINGLE XOR4; do
	check "$s: both libraries' bandwidth and their ratio" \
		grep -Eq "^  $s +ours +[0-9.]+ +LLNL +[0-9.]+ +ratio +[0-9.]+" "$out"
done
check "SINGLE: the floor is the writes alone" \
	grep -Eq "floor [0-9.]+ s \(the writes, then 0.00x net_sendrecv [0-9.]+ s\)" "$out"
check "XOR4: the floor adds the bytes that leave a node" \
	grep -Eq "floor [0-9.]+ s \(the writes, then 1.00x net_sendrecv [0-9.]+ s\): no library beats [0-9.]+x" "$out"
check "results.json records the best ratio per scheme" \
	test "$(grep -c '"metric":"best_over_llnl"' "$results/results.json")" = 2
check "each launch measured the network" \
	test "$(grep -Ec '"phase":"whole\.(ours|llnl)".*"metric":"net_sendrecv"' \
		"$results/results.json")" = 4
check "XOR4: the bare floor adds the scheme's work alone" \
	grep -Eq "bare floor [0-9.]+ s \(the writes, then the scheme's work alone [0-9.]+ s" "$out"
check "each launch timed its bare work: XOR4's encode, SINGLE's whole checkpoint" \
	test "$(grep -Ec '"phase":"whole\.(ours|llnl)".*"scheme":"(XOR4|SINGLE)".*"metric":"bare_scheme"' \
		"$results/results.json")" = 4
check "SINGLE: the bare floor is a checkpoint of the writes and two agreements" \
	grep -Eq "bare floor [0-9.]+ s \(a checkpoint of nothing but the writes and two agreements" "$out"
check "SINGLE: each repetition's whole checkpoint over its own bare one, both libraries" \
	grep -Eq "whole checkpoint over its own bare one, moments apart: ours [0-9.]+x, LLNL [0-9.]+x" "$out"
check "whole_over_bare from each SINGLE launch" \
	test "$(grep -Ec '"phase":"whole\.(ours|llnl)".*"scheme":"SINGLE".*"metric":"whole_over_bare"' "$results/results.json")" = 2
check "XOR4: each repetition's Complete over its own bare work, both libraries" \
	grep -Eq "over its own bare work, moments apart: ours [0-9.]+x, LLNL [0-9.]+x" "$out"
check "complete_over_bare from each XOR4 launch, SINGLE's none" \
	test "$(grep -Ec '"phase":"whole\.(ours|llnl)".*"scheme":"XOR4".*"metric":"complete_over_bare"' \
		"$results/results.json")" = 2 -a \
	"$(grep -Ec '"phase":"whole\.(ours|llnl)".*"metric":"complete_over_bare"' "$results/results.json")" = 2
check "restarts side by side: SINGLE from the cache and the prefix, XOR4 also rebuilt" \
	test "$(grep -Ec '^  (SINGLE   (cache|fetch)|XOR4     (cache|rebuild|fetch)) +ours +[0-9.]+ +LLNL +[0-9.]+: ' "$out")" = 5
check "XOR4's rebuild: its floor, the lost node's bytes arriving on the spare" \
	grep -Eq "^  XOR4     rebuild .*floor [0-9.]+ s \(outside SCR's calls [0-9.]+, then the lost node's bytes arriving on the spare [0-9.]+ s\): no library beats [0-9.]+x LLNL here" "$out"
check "XOR4's rebuild: its bare floor, the chain of XORs" \
	grep -Eq "^  XOR4     rebuild .*; bare floor [0-9.]+ s \(outside SCR's calls, then the chain of XORs that brings those bytes there [0-9.]+ s, bench/bare.h\): no library beats [0-9.]+x LLNL here" "$out"
check "XOR4's rebuild over our encode, the last writer's Complete_output" \
	grep -Eq "^  XOR4     rebuild .*; over our encode \(the last writer's Complete_output, [0-9.]+ s\): [0-9.]+x \(<= 1\.2 (met|MISSED)\)" "$out"
check "restarts from the cache and fetches: their floor, and a verdict that knows it" \
	test "$(grep -Ec "^  (SINGLE|XOR4) +(cache|fetch) +ours .*\(>= 1\.5 (met|bounded|MISSED)\).*  floor [0-9.]+ s \(outside SCR's calls.*\): no library beats [0-9.]+x LLNL here" "$out")" = 4
check "each fetch's cp as long after its eviction as the fetch, both libraries" \
	test "$(grep -Ec '"phase":"whole\.(ours|llnl)".*"metric":"restart_fetch_cp_paused_s"' \
		"$results/results.json")" = 4 -a \
	"$(grep -Ec '"phase":"whole\.(ours|llnl)".*"metric":"restart_fetch_pause_s"' \
		"$results/results.json")" = 4
check "the fetch over that cp, and over the cp at once" \
	test "$(grep -Ec "^  (SINGLE|XOR4) +fetch .*  cp [0-9.]+ \([0-9.]+ s after its eviction, as the fetch\): ours in SCR [0-9.]+x cp \(<= 1\.0 (met|MISSED)\); [0-9.]+x the cp at once" "$out")" = 2
check "each restart's SCR_Init recorded, both libraries" \
	test "$(grep -Ec '"phase":"whole\.(ours|llnl)".*"metric":"restart_(cache|rebuild|fetch)_init_s"' \
		"$results/results.json")" = 10
check "the efficiency chart beside the bandwidth chart: a pair of bars per MTBF and size" \
	test "$(grep -c '<title>SINGLE, ours, node MTBF' "$results/efficiency.svg")" = 9
check "the efficiency table" grep -q "machine time lost to resilience at Daly's interval" "$out"
for s in SINGLE XOR4; do
	check "$s: checkpoint + flush in the foreground, both libraries" \
		grep -Eq "^  $s +foreground: checkpoint \+ flush ours [0-9.]+ s, LLNL [0-9.]+ s: [0-9.]+x" "$out"
	check "$s: the compute step beside a background flush, and beside a bare one" \
		grep -Eq "^  $s +background, ours: compute step [0-9.]+ s against [0-9.]+ s without a flush: [-+][0-9.]+ % .*; floor, a bare flush's copy: [-+][0-9.]+ %" "$out"
	check "$s: the background flush's CPU against a bare copy's" \
		grep -Eq "^  $s +background, ours: the copies' CPU [0-9.]+ s, [0-9.]+ % of [0-9]+ cores' [0-9.]+ s; a bare copy's [0-9.]+ s" "$out"
done
check "every background flush of ours and every bare one timed its CPU" \
	test "$(grep -Ec '"phase":"whole\.(aflush\.ours|bflush)".*"metric":"(flush_cpu_s|bare_flush_cpu_s)"' \
		"$results/results.json")" = 4

# bench/scale.sh (issue 40): every step timed at one size, the table printed
"$top/bench/scale.sh" --build "$build" --ranks 8 --schemes XOR4 --lines "$other/scale.jsonl" \
	>"$other/scale.out" 2>&1
check "bench/scale.sh at 8 ranks succeeds" test $? = 0
for step in "SCR_Init, fresh" SCR_Start_output SCR_Complete_output SCR_Finalize \
	"SCR_Init, restart from cache" "flush \(one checkpoint\)" \
	"SCR_Init, rebuild after a lost node" "SCR_Init, fetch"; do
	check "bench/scale.sh: $step, in seconds and over MPI_Barrier + MPI_Allreduce" \
		grep -Eq "^\| XOR4 \| $step \| [0-9.]+ \| - \| [0-9]+ \|$" "$other/scale.out"
done
check "bench/scale.sh: each launch timed the collectives" \
	test "$(grep -c '"metric":"coll_bare"' "$other/scale.jsonl")" = 5
[ "$fail" = 0 ] || { tail -n 40 "$out"; echo "==> $other/scale.out <=="; head -n 120 "$other/scale.out"; }
finish
