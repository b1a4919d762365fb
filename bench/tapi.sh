# SPDX-License-Identifier: BSD-3-Clause
# bench/tapi.sh: SCR 3.1's own benchmark, examples/test_api.c, as a
# standard case of bench/run --against (sourced by bench/run, which sets
# simnode, sim, pfs, build, top, lines, cache, extra, bytes, reps, n and
# wipe_nodes).
#
# test_api is built unchanged from the directory that holds SCR 3.1's
# examples (test_api.c, test_common.c, test_common.h; never part of this
# repository) once against each library.  Each launch runs it with
# "-s BYTES -t REPS" on the simulated nodes; rank 0 prints one "Completed
# checkpoint N: SECS secs" line per checkpoint, SCR_Start_output to the
# return of SCR_Complete_output on rank 0 with the write and fsync in
# between, and one more first, before its timing starts, which is left
# out.  The launch's wall time is the whole launch (MPI_Init to
# MPI_Finalize and mpirun's start and end, alike for both libraries).

# tapi_build SRCDIR OUT INCLUDE LIBDIR: test_api from SRCDIR against the
# scr.h in INCLUDE and the libscr.so in LIBDIR
tapi_build() {
	local f
	for f in test_api.c test_common.c test_common.h; do
		[ -r "$1/$f" ] || { echo "bench/run: --test-api $1: no $f there" >&2; return 1; }
	done
	mpicc -O3 -I"$3" -I"$1" "$1/test_common.c" "$1/test_api.c" -o "$2" \
		-L"$4" -lscr -Wl,-rpath,"$4" 2>/dev/null ||
		{ echo "bench/run: cannot build test_api against $3" >&2; return 1; }
}

# tapi_iters HOSTS NP MS: the -w of test_api's Allreduce kernel (-k 2)
# that takes MS milliseconds on these nodes, from a launch without SCR
tapi_iters() {
	local out secs
	out=$(cd "$pfs" && timeout 300 "$simnode" mpirun "$sim" -np "$2" --host "$1" \
		"$tapi_ours" --noscr -s 4096 -t 1 -w 2000 -k 2 2>&1) || true
	secs=$(echo "$out" | awk '/^Allreduce cost/ { s = $6 } END { print s + 0 }')
	awk -v s="$secs" -v ms="$3" 'BEGIN { n = s > 0 ? int(2000 * ms / 1000 / s) : 2000;
		print n < 1 ? 1 : n }'
}

# tapi_ckpts PH HDR FROM METRIC OUT: one JSON line of METRIC, the seconds
# of OUT's "Completed checkpoint" lines from the FROM-th on (0: the first)
tapi_ckpts() {
	awk -v ph="$1" -v hdr="$2" -v from="$3" -v metric="$4" \
		'/^Completed checkpoint/ && n++ >= from { s = s (s == "" ? "" : ",") $4 }
		END { if (s != "") printf "{\"phase\":\"%s\",%s,\"metric\":\"%s\",\"unit\":\"s\",\"samples\":[%s]}\n", ph, hdr, metric, s }' \
		"$5" >>"$lines"
}

# tapi_emit IMPL MODE SCHEME LABEL NP OUT WALL: the launch's JSON lines,
# phase "tapi.MODE.IMPL": ckpt_s (each timed checkpoint), ckpt_steady_s
# (those from the fourth on) and launch_s
tapi_emit() {
	local ph="tapi.$2.$1" hdr
	hdr="\"scheme\":\"$3\",\"label\":\"$4\",\"ranks\":$5,\"bytes_per_rank\":$bytes"
	tapi_ckpts "$ph" "$hdr" 1 ckpt_s "$6"
	# the steady state: from the fourth checkpoint on, after the two
	# where the cache grows (SCR_CACHE_SIZE=2) and the first eviction
	tapi_ckpts "$ph" "$hdr" 3 ckpt_steady_s "$6"
	printf '{"phase":"%s",%s,"metric":"launch_s","unit":"s","samples":[%s]}\n' \
		"$ph" "$hdr" "$7" >>"$lines"
	# every checkpoint of the launch, the untimed first one too: what a
	# library at the floor would save of the launch (scr-bench-report)
	awk -v ph="$ph" -v hdr="$hdr" '/^Completed checkpoint/ { s += $4; n++ }
		END { if (n > 0) {
			printf "{\"phase\":\"%s\",%s,\"metric\":\"ckpt_all_s\",\"unit\":\"s\",\"samples\":[%.6f]}\n", ph, hdr, s
			printf "{\"phase\":\"%s\",%s,\"metric\":\"ckpt_count\",\"unit\":\"ckpts\",\"samples\":[%d]}\n", ph, hdr, n } }' \
		"$6" >>"$lines"
}

# tapi IMPL MODE JOB HOSTS NP SCHEME LABEL ENV...: one launch of test_api
# (MODE b2b: back to back; busy: $tapi_w Allreduce iterations between)
tapi() {
	local impl=$1 mode=$2 job=$3 h=$4 np=$5 scheme=$6 label=$7 wp t0 t1 bin args
	shift 7
	bin=$tapi_ours
	[ "$impl" = ours ] || bin=$tapi_llnl
	args=(-s "$bytes" -t "$reps")
	[ "$mode" = b2b ] || args+=(-w "$tapi_w" -k 2)
	wipe_nodes
	wp=$(mktemp -d /var/tmp/scr-bench-tapi.XXXXXX)
	t0=$(date +%s.%N)
	(cd "$wp" && timeout 900 "$simnode" mpirun "$sim" -np "$np" --host "$h" \
		-x SCR_JOB_ID="$job" -x SCR_CACHE_BASE="$cache" -x SCR_CNTL_BASE=/dev/shm \
		-x SCR_FLUSH=0 -x SCR_CACHE_SIZE=2 "${extra[@]}" "$@" "$bin" "${args[@]}") \
		>"$lines.out" 2>&1 ||
		{ grep -v "plm:rsh" "$lines.out" | tail -20; rm -rf "$wp"; echo "bench/run: test_api $impl $scheme failed" >&2; exit 1; }
	t1=$(date +%s.%N)
	rm -rf "$wp"
	tapi_emit "$impl" "$mode" "$scheme" "$label" "$np" "$lines.out" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
	if [ -n "$log" ]; then echo "== test_api $impl $mode $scheme" >>"$log"; cat "$lines.out" >>"$log"; fi
}

