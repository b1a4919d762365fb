#!/bin/sh
# run-fuzzer.sh FUZZER SEED_DIR [SECONDS]: fuzz briefly from the seeds in a
# scratch corpus (the committed seeds stay untouched); fails on any crash.
set -u
fuzzer=$1 seeds=$2 secs=${3:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$seeds/." "$work/corpus/" 2>/dev/null || mkdir -p "$work/corpus"
cd "$work" || exit 1
"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 "$work/corpus" >"$work/log" 2>&1
rc=$?
tail -n 30 "$work/log"
exit $rc
