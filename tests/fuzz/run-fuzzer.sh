#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-fuzzer.sh FUZZER SEED_DIR [SECONDS [ARTIFACT_DIR]]: run a libFuzzer
# target for SECONDS (20) from the committed seeds, in a scratch corpus (the
# seeds stay untouched).  Fails when the fuzzer finds a crash, leak, hang or
# failed check, or cannot run; the input that did it is kept in
# ARTIFACT_DIR (default: the current directory) and its path printed, with
# the command that replays it.
set -u
fuzzer=$(readlink -f "$1") seeds=$2 secs=${3:-20} artifacts=$(readlink -m "${4:-$PWD}")
name=$(basename "$fuzzer")
shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
work=$(mktemp -d "$shm/scr-fuzz-run.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/tmp" "$artifacts" || exit 1
if ! ls "$seeds"/* >/dev/null 2>&1; then
	echo "not ok - $name: no seeds in $seeds"
	exit 1
fi
cp -r "$seeds/." "$work/corpus/"
# the fuzzers' scratch directories (fuzzlib.c) go where the trap cleans.
# An input runs for milliseconds; the per-input timeout catches a hang, and
# is wall time: a busy shared machine has stalled a 70 ms input for 16 s.
cd "$work" || exit 1
TMPDIR=$work/tmp "$fuzzer" -max_total_time="$secs" -timeout=60 -rss_limit_mb=2048 \
	-artifact_prefix="$artifacts/" -print_final_stats=1 "$work/corpus" >"$work/log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
if [ $rc -ne 0 ]; then
	# the report: from the sanitizer's, libFuzzer's or the check's first word on
	report=$(sed -n '/==[0-9]*==ERROR\|runtime error:\|ERROR: libFuzzer\|^fuzz check failed/,$p' \
		"$work/log" | head -n 80)
	if [ -n "$report" ]; then echo "$report"; else tail -n 30 "$work/log"; fi
	unit=$(sed -n 's/.*Test unit written to //p' "$work/log" | tail -n 1)
	echo "not ok - $name failed (exit $rc)"
	if [ -n "$unit" ]; then
		echo "# the input is kept in $unit"
		echo "# replay: $fuzzer $unit"
	fi
	exit 1
fi
tail -n 12 "$work/log"
if [ -z "$runs" ] || [ "$runs" -eq 0 ]; then
	echo "not ok - $name ran no inputs"
	exit 1
fi
echo "ok - $name: $runs inputs in $secs s, no failure"
