# SPDX-License-Identifier: BSD-3-Clause
# lib.sh - shared by the simulated-node test scripts (source it).
# Provides: sim_setup NODES, sim_run HOSTS ARGS... (mpirun of the example or
# any program with the job's SCR settings), check NAME CMD..., finish.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
simnode=$here/simnode
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
pass=0 fail=0
sim_dir="" pfs=""
SIM_ENV=()

check() { # check NAME COMMAND...: pass if the command succeeds
	local name=$1
	shift
	if "$@"; then pass=$((pass + 1)); echo "ok - $name"
	else fail=$((fail + 1)); echo "not ok - $name"; fi
}

has() { # has FILE PATTERN: grep -E, printing the file (its last 60 lines) when it fails
	grep -Eq -- "$2" "$1" || { echo "--- $1 lacks /$2/:"; san_quiet "$1" | sed 's/^/    /' | tail -60; return 1; }
}

# san_quiet FILE: FILE without LSan's "Suppressions used:" tables, which
# every rank of a sanitized run prints (they would fill a failed check's
# tail; tests/cluster/san.sh finds the reports in a log file with it)
san_quiet() {
	grep -Ev '^(-+|Suppressions used:|  count +bytes +template| +[0-9]+ +[0-9]+ +[^ ]+|)$' "$1"
}

hasnt() {
	! grep -Eq -- "$2" "$1" || { echo "--- $1 has /$2/:"; grep -E -- "$2" "$1" | head -5; return 1; }
}

# first_run, again: whether to run a part of the suite.  scripts/test splits
# some suites between its two builds so that every check runs once:
# SIM_SPLIT=first (the sanitized build) runs the parts that are a code
# path's first run, SIM_SPLIT=again (the release build) the parts that take
# a path some other part took, with another scheme or fault point.  Unset:
# every part.
first_run() { [ "${SIM_SPLIT:-}" != again ]; }
again() { [ "${SIM_SPLIT:-}" != first ]; }
# again_only PART...: a split suite whose other parts are not guarded: with
# SIM_SPLIT=again it runs just these parts (functions), then ends
again_only() {
	[ "${SIM_SPLIT:-}" = again ] || return 0
	local p
	for p; do "$p"; done
	finish
	exit $?
}

sim_cleanup() {
	[ -n "$sim_dir" ] && "$simnode" stop "$sim_dir"
	[ -n "$pfs" ] && rm -rf "$pfs"
	sim_dir="" pfs=""
}

sim_setup() { # sim_setup NODES: fresh nodes and an empty prefix (the PFS)
	sim_cleanup
	local base=${SCR_SIM_BASE:-/var/tmp}
	sim_dir=$(mktemp -d "$base/scr-sim.XXXXXX")
	pfs=$(mktemp -d "$base/scr-pfs.XXXXXX")
	trap sim_cleanup EXIT
	SIMNODE_SHARE="$pfs:${SIMNODE_SHARE:-}" "$simnode" start "$sim_dir" "$1"
}

# sim_run OUT HOSTS PROGRAM ARGS...: run 8 ranks (or SIM_NP) in the prefix;
# output in OUT; returns mpirun's status.  SIM_ENV holds -x KEY=VAL pairs.
# Runs one after another are reruns of the same job (SIM_JOB_ID), as a job
# script that runs the application twice makes them.
sim_run() {
	local out=$1 hosts=$2
	shift 2
	local rc=0
	(cd "$pfs" && timeout "${SIM_TIMEOUT:-120}" "$simnode" mpirun "$sim_dir" \
		-np "${SIM_NP:-8}" --host "$hosts" -x SCR_JOB_ID="${SIM_JOB_ID:-4242}" "${SIM_ENV[@]}" "$@") \
		>"$out" 2>&1 || rc=$?
	# a failed run shows why in the test's log (some runs are meant to fail)
	if [ $rc -ne 0 ]; then
		echo "--- $(basename "$out"): exit $rc$([ $rc = 124 ] && echo ' (timeout)'), last lines:"
		grep -v '^\s*$' "$out" | tail -8 | sed 's/^/    /'
		san_report "$out"
	fi
	return $rc
}

# san_report FILE: the first sanitizer report in FILE, its frames named.
# scripts/test runs the sanitized MPI suites with symbolize=0: every rank
# process leaves Open MPI's suppressed leaks behind, and naming just their
# first frame started an llvm-symbolizer per process (13 % of a sanitized
# launch's CPU).  A report that fails a test is named here instead.
san_report() {
	grep -Eq 'ERROR: [A-Za-z]+Sanitizer|runtime error' "$1" || return 0
	echo "--- the sanitizer's report in $(basename "$1"):"
	awk '/ERROR: [A-Za-z]+Sanitizer|runtime error/ { on = 1 }
		on { print; if (/^SUMMARY: / || ++n >= 80) exit }' "$1" |
		while IFS= read -r l; do
			if [[ $l =~ \#[0-9]+\ 0x[0-9a-f]+\ +\(([^+\)]+)\+(0x[0-9a-f]+)\) ]] &&
				command -v llvm-symbolizer >/dev/null; then
				l="$l $(llvm-symbolizer --obj="${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" 2>/dev/null |
					head -2 | paste -sd' ')"
			fi
			echo "    $l"
		done
}

wait_for() { # wait_for FILE PATTERN [SECONDS]: until FILE matches (grep -E)
	local i
	for i in $(seq 1 $((${3:-60} * 4))); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.25
	done
	echo "--- $1 never showed /$2/"
	tail -5 "$1" 2>/dev/null
	return 1
}

finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
