# SPDX-License-Identifier: BSD-3-Clause
# san.sh - the sanitizer mode of the cluster tests: SCR's root-side code
# (the SPANK plugin, the Flux shell plugin, scr-prolog/scr-epilog), built
# with -DSCR_SANITIZE=ON, runs under ASan/UBSan/LSan inside the scheduler's
# real daemons, and every report lands in one directory.  Nothing here does
# anything unless SCR_CLUSTER_SANITIZE is set.
#
# SCR_CLUSTER_SANITIZE=RUNTIME:SHIM: the sanitizer runtime of the compiler
# that built SCR (gcc -print-file-name=libasan.so, or clang's
# libclang_rt.asan-x86_64.so) and san_shim.so (san_shim.c: plugins stay
# loaded, so leak reports can name their frames, and the preload is not
# inherited, since programs built by clang carry a static runtime that
# refuses a second one).  Both are preloaded (LD_PRELOAD) into the wrapped
# scheduler programs; the sanitizer options are inherited, so every
# sanitized program a wrapped daemon starts (scr-prolog, scr-epilog, the
# job's) reports to the same place.  An error stops the
# process (abort); a leak is reported at exit without changing its exit
# status.  Leaks of the schedulers themselves (tests/cluster/lsan.supp), of
# Open MPI and PMIx in the application (tests/sim/lsan.supp) and one Open
# MPI error under Flux (tests/cluster/asan.supp) are suppressed; nothing
# else is.
#
# For cluster scripts (slurmcluster, fluxcluster):
#   san_prepare DIR: DIR/san/log (world-writable: user processes report
#     there too), DIR/san/lib (copies of the objects, which the simulated
#     nodes see wherever the originals are), DIR/san/bin, DIR/san/lsan.supp
#   san_cmd DIR PROGRAM: the command line that runs PROGRAM preloaded, its
#     reports and its children's in DIR/san/log/<PROGRAM>.<program>.<pid>
#   san_wrapper DIR PROGRAM: a script that runs PROGRAM that way
# For test scripts (after the cluster is up):
#   san_clients DIR: DIR/san/bin (the scheduler's clients, wrapped) first on PATH
#   san_job_env DIR: export the options for what the test starts itself
#   san_check LOGDIR [NAME]: once no process runs with the options of the
#     wrapped program NAME (san_cmd), one ok / not ok line: no report at
#     all in LOGDIR apart from the tables of suppressed leaks; each report
#     is printed, saying whether it names SCR's code

san_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

san_prepare() {
	local dir=$1 p libs=""
	san_symbolizer >/dev/null || {
		echo "san.sh: no llvm-symbolizer on PATH: lsan.supp's entries name functions" >&2
		return 1
	}
	mkdir -p "$dir/san/log" "$dir/san/bin" "$dir/san/lib" || return 1
	chmod 755 "$dir/san" "$dir/san/bin" "$dir/san/lib" && chmod 1777 "$dir/san/log"
	for p in ${SCR_CLUSTER_SANITIZE//:/ }; do
		install -m 644 "$p" "$dir/san/lib/" || return 1
		libs=$libs:$dir/san/lib/${p##*/}
	done
	cat "$san_here/lsan.supp" "$san_here/../sim/lsan.supp" >"$dir/san/lsan.supp" &&
		install -m 644 "$san_here/asan.supp" "$dir/san/" &&
		chmod 644 "$dir/san/lsan.supp" || return 1
	echo "${libs#:}" >"$dir/san/preload"
}

# the llvm-symbolizer the reports are named with.  The lsan.supp entries
# name functions, so a report that cannot be symbolized matches none of
# them.  Debian's clang-19 runtime looks for llvm-symbolizer-19 alone, which
# only llvm-19 (a Recommends that install-deps skips) has; without it every
# report came out as bare addresses and the schedulers' own leaks failed the
# check.  Any LLVM's symbolizer reads the DWARF clang 19 writes.
san_symbolizer() {
	command -v llvm-symbolizer-19 || command -v llvm-symbolizer
}

san_env() { # san_env DIR NAME: the option assignments
	local opts="log_path=$1/san/log/$2:log_exe_name=1:abort_on_error=1:exitcode=0"
	local sym
	sym=$(san_symbolizer) && opts="$opts:external_symbolizer_path=$sym"
	echo "ASAN_OPTIONS=$opts:suppressions=$1/san/asan.supp:detect_leaks=1:fast_unwind_on_malloc=0:malloc_context_size=40:fast_unwind_on_fatal=0" \
		"LSAN_OPTIONS=suppressions=$1/san/lsan.supp:print_suppressions=1" \
		"UBSAN_OPTIONS=$opts:halt_on_error=1:print_stacktrace=1"
}

san_cmd() {
	local dir=$1 prog=$2
	echo "env $(san_env "$dir" "${prog##*/}") LD_PRELOAD=$(cat "$dir/san/preload") $prog"
}

san_wrapper() {
	echo '#!/bin/sh'
	echo "# $2 with the sanitizer runtime preloaded (tests/cluster/san.sh)"
	echo "exec $(san_cmd "$1" "$2") \"\$@\""
}

san_clients() {
	[ -n "${SCR_CLUSTER_SANITIZE:-}" ] || return 0
	PATH=$1/san/bin:$PATH
	export PATH
}

san_job_env() {
	[ -n "${SCR_CLUSTER_SANITIZE:-}" ] || return 0
	local v
	for v in $(san_env "$1" job); do export "${v?}"; done
}

# a stack frame in SCR: its libraries, plugins and programs, or its sources
san_ours='^ *#[0-9]+ .*(/libscrf?\.so|/scr\.so|/scr-(prolog|epilog)|/scr_example|/bin/scr |'
san_ours+='(lib/(common|core|scr)|pmix|prolog|cmd|slurm-plugin|flux-plugin|examples)/[a-z_]+\.c:)'

# print the leaks lsan.supp suppressed, summed over every log file
san_suppressed() {
	cat "$1"/* 2>/dev/null | awk '/^Suppressions used:/ { on = 1; next }
		on && /^-+$/ { on = 0; next }
		on && NF == 3 && $1 ~ /^[0-9]+$/ { n[$3] += $1; b[$3] += $2 }
		END { for (t in n) printf "# suppressed %d leaks (%d bytes) matching %s\n", n[t], b[t], t }'
}

# san_tag41 FILE: the report is of a rank that called a NULL receive
# callback for btl tag 0x41 (ob1's MATCH: pc 0, rsi = the tag, rcx = the
# callback's NULL data) at MPI_Init.  Its peers left MPI_Init's closing PMIx
# fence while this rank was still in the modex fence before it, its PML
# callbacks not yet registered: Slurm 22.05's mpi/pmix ran that data-less
# fence as a tree that completed on each node alone (a core of a plain
# build showed it too, 2026-12-02).  The cluster now sets
# PMIxCollFence=ring (slurmcluster; test-slurm.sh (p) checks the fences
# hold), which removes the cause; the retry stays for a cluster started
# without it.  Not SCR's code: scr run relaunches the run (test-slurm.sh
# (a)), and the report is named, not counted.
san_tag41() {
	grep -q 'SEGV on unknown address 0x000000000000 (pc 0x000000000000' "$1" &&
		grep -q 'rsi = 0x0000000000000041' "$1" && grep -q 'rcx = 0x0000000000000000' "$1"
}

# san_tag41_since DIR MARKER: in sanitizer mode, a report in DIR written
# after the file MARKER is of a rank that died of that race
san_tag41_since() {
	[ -n "${SCR_CLUSTER_SANITIZE:-}" ] || return 1
	local f
	for f in $(find "$1" -type f -newer "$2" 2>/dev/null); do
		san_tag41 "$f" && return 0
	done
	return 1
}

san_clean() {
	local log=$1 f bad=0
	san_suppressed "$log"
	for f in "$log"/*; do
		[ -e "$f" ] || continue
		[ -z "$(san_quiet "$f")" ] && continue
		if [ -z "${SCR_STRESS_BEFORE:-}" ] && san_tag41 "$f"; then
			echo "# $(basename "$f"): the start-up race of Open MPI under Slurm's mpi/pmix (san_tag41), not counted"
			continue
		fi
		bad=$((bad + 1))
		if grep -Eq "$san_ours" "$f"; then
			echo "# $(basename "$f"): a report that names SCR's code:"
		else
			echo "# $(basename "$f"): a report that names no SCR code (a scheduler's own leak may get a documented suppression in lsan.supp):"
		fi
		san_quiet "$f" | head -60 | sed 's/^/#   /'
	done
	[ "$bad" -eq 0 ]
}

san_check() {
	[ -n "${SCR_CLUSTER_SANITIZE:-}" ] || return 0
	local i
	# reports are written when a process exits: let the last ones finish
	for i in $(seq 1 120); do
		[ -z "${2:-}" ] || [ -z "$(grep -lsz "log_path=$1/$2:" /proc/[0-9]*/environ)" ] ||
			{ sleep 0.5; continue; }
		break
	done
	check "sanitizers: no report from the daemons, clients, SCR's tools or the job (${1})" \
		san_clean "$1"
}
