#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-report.sh EXAMPLE SCR: `scr report` on the event log of a real job
# on simulated nodes, and the progress lines of long copies.
#   run 1   XOR, no flush: checkpoints at steps 2 and 4, killed in the one
#           at step 6; node4 is lost, `scr scavenge` copies step 4 from
#           node1-3 and `scr index --add` rebuilds node4's ranks on the prefix
#   run 2   on node1-3 + spare node5: restarts from the cache rebuilt from
#           XOR, checkpoints at 6, 8, 10, flushes 8 and (at SCR_Finalize) 10
#   run 3   every cache wiped: restarts from step 10 fetched from the prefix,
#           checkpoints and flushes step 12
# Then the text summary must count exactly that, a garbage line in the log
# is skipped and counted, and the HTML page, opened in headless chromium,
# must show 7 checkpoint marks (6 complete, 1 interrupted), 2 restarts
# (rebuild, prefix), the failure, 2 relaunches and 3 flushes.  Every run and
# command has SCR_DEBUG=1 and a tiny SCR_PROGRESS_SECONDS: the flushes, the
# scavenge and the rebuild each print progress lines.
source "$(dirname "$0")/lib.sh"
ex=$(readlink -f "$1") scr=$(readlink -f "$2")
out=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$out"' EXIT
ALL=node1:2,node2:2,node3:2,node4:2
SURV=node1:2,node2:2,node3:2,node5:2
# a line per 64 KiB block: every copy of more than one block prints
TICK=0.000001
BASE=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_CACHE_SIZE=2 -x SCR_LOG_ENABLE=1
	-x SCR_DEBUG=1 -x SCR_PROGRESS_SECONDS=$TICK -x SCR_FILE_BUF_SIZE=64KB
	-x SCR_SCAVENGE_GRACE=3600)
APP=(--files 2 --size 3000000)
log=""

# ---- the job ----
sim_setup 5
log=$pfs/.scr/log
SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=0)
sim_run "$out/run1" "$ALL" "$ex" "${APP[@]}" --steps 6 --die-in-ckpt 6
rc=$?
check "run 1 was killed in its checkpoint at step 6 (status $rc)" test $rc -ne 0 -a $rc -ne 124
"$simnode" kill "$sim_dir" node4
"$simnode" wipe "$sim_dir" node4
for n in node1 node2 node3; do
	"$simnode" exec "$sim_dir" $n env SCR_JOB_ID=4242 SCR_DEBUG=1 SCR_PROGRESS_SECONDS=$TICK \
		"$scr" scavenge --prefix "$pfs" >"$out/scavenge.$n" 2>&1
done
check "scr scavenge on node1: progress lines with a percent" \
	has "$out/scavenge.node1" "^scr: scavenge of dataset 2 on node1: .* of .* \([0-9]+%\), [0-9.]+ [kMG]?B/s$"
check "scr scavenge on node1: a last line" \
	has "$out/scavenge.node1" "^scr: scavenge of dataset 2 on node1: .* in [0-9.]+ s, "
SCR_JOB_ID=4242 SCR_DEBUG=1 SCR_PROGRESS_SECONDS=$TICK "$scr" index --prefix "$pfs" --add 2 \
	>"$out/index" 2>&1
check "scr index --add rebuilds node4's ranks" has "$out/index" "missing ranks 6,7; rebuilding"
check "scr index --add: rebuild progress lines" \
	has "$out/index" "^scr: rebuild in $pfs/.scr/scr.dataset.2: .* of .* \([0-9]+%\)"

SIM_ENV=("${BASE[@]}" -x SCR_FLUSH=2)
check "run 2 on node1-3 + node5 restarts at step 4" \
	sim_run "$out/run2" "$SURV" "$ex" "${APP[@]}" --steps 10 --expect-restart 4
check "run 2: ranks 6 and 7 rebuilt from XOR" has "$out/run2" "dataset 2 \(step.4\) ready, 2 ranks rebuilt"
check "run 2: foreground flush progress on rank 0" \
	has "$out/run2" "rank 0 on node1: flush of dataset [0-9]+, rank 0's files: .* of .* \([0-9]+%\), [0-9.]+ [kMG]?B/s"
check "run 2: a last flush progress line" \
	has "$out/run2" "rank 0 on node1: flush of dataset [0-9]+, rank 0's files: .* in [0-9.]+ s, "
check "run 2: no other rank prints progress" hasnt "$out/run2" "rank [1-7] on node[0-9]: flush of dataset"
for n in node1 node2 node3 node5; do "$simnode" wipe "$sim_dir" $n; done
check "run 3 restarts at step 10 from the prefix" \
	sim_run "$out/run3" "$SURV" "$ex" "${APP[@]}" --steps 12 --expect-restart 10
check "run 3: fetched" has "$out/run3" "restart from the prefix: dataset [0-9]+ fetched"

# ---- the text summary ----
check "the log has time= on every line" sh -c "! grep -v ' time=[0-9]*\.[0-9][0-9][0-9]' '$log'"
printf 'garbage \001 line\n' >>"$log"
"$scr" report --prefix "$pfs" >"$out/text" 2>"$out/text.err"
check "scr report: exit 0" test $? -eq 0
sed 's/^/    /' "$out/text"
check "text: the garbage line is skipped and counted" has "$out/text" ", 1 bad line skipped \(first: line [0-9]+\)"
check "text: 3 runs, 2 relaunches, 1 failed" \
	has "$out/text" "^job 4242 \(user root\): 3 runs, 2 relaunches, 1 failed;"
check "text: 6 checkpoints complete, 1 interrupted, all XOR" \
	has "$out/text" "^  checkpoints +6 complete, 1 interrupted, 0 invalid \(XOR 6\)$"
check "text: checkpoint durations" has "$out/text" "^    duration +min [0-9.]+ s, median [0-9.]+ s, max [0-9.]+ s"
check "text: checkpoint bandwidth" has "$out/text" "^    bandwidth +min [0-9.]+, median [0-9.]+, max [0-9.]+ MB/s"
check "text: 3 flushes" has "$out/text" "^  flushes +3 complete, 0 failed, 0 interrupted;"
check "text: restarts from the rebuilt cache and the prefix" \
	has "$out/text" "^  restarts +2 \(0 from cache, 1 rebuilt, 1 from the prefix\)$"
check "text: one failure, the killed run, during step.6" \
	has "$out/text" "^  failures +1$"
check "text: it names the interrupted checkpoint" \
	has "$out/text" "run 1 failed during dataset 3 \(step.6\)"
check "text: 3 scavenges, 1 index" has "$out/text" "^  scavenges +3 \(1 indexed\)$"
check "text: fits one screen" test "$(wc -l <"$out/text")" -le 24
check "text: without an MTBF, how to get the interval" \
	has "$out/text" "^  interval +give one node's MTBF \(scr report --mtbf 5y, or SCR_MTBF\)"
"$scr" report --prefix "$pfs" --mtbf 5y >"$out/text5y" 2>&1
check "scr report --mtbf 5y: the interval, a job MTBF of 5 years over its 4 nodes" \
	has "$out/text5y" "^  interval +[0-9.]+ ?[hms0-9]* of computing between checkpoints \(Daly: checkpoint [0-9.]+ s, restart [0-9.]+ s, job MTBF 10950h00m over its nodes\): 0\.[0-9] % of the time lost$"
SCR_MTBF_JOB=1h "$scr" report --prefix "$pfs" >"$out/text1h" 2>&1
check "SCR_MTBF_JOB=1h: the job's own MTBF" has "$out/text1h" "job MTBF 1h00m\): [0-9.]+ % of"
"$scr" report --prefix "$pfs" --mtbf 5w >"$out/text5w" 2>&1
check "scr report --mtbf 5w: exit status 1" test $? -eq 1
check "scr report --mtbf 5w: one line naming it" \
	sh -c "grep -q '^scr report: --mtbf=5w: not a duration' '$out/text5w' && test \$(wc -l <'$out/text5w') -eq 1"

# ---- the HTML page in chromium ----
"$scr" report --prefix "$pfs" --html "$out/report.html" >/dev/null 2>"$out/html.err"
check "scr report --html: exit 0" test $? -eq 0
check "html: self-contained (no src=, href=, url(, script, @import)" \
	hasnt "$out/report.html" "src=|href=|url\(|<script|@import"
export HOME=$out/home XDG_CONFIG_HOME=$out/home/.config XDG_CACHE_HOME=$out/home/.cache \
	XDG_DATA_HOME=$out/home/.local XDG_RUNTIME_DIR=$out/home/run
mkdir -p "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
chrome() { # chrome ARGS...: headless, offline, its own profile
	timeout 90 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-extensions --no-proxy-server --user-data-dir="$out/profile" \
		--window-size=1100,1600 "$@" "file://$out/report.html" 2>>"$out/chromium.err"
}
chrome --screenshot="$out/shot.png" >/dev/null
check "chromium: a screenshot" test -s "$out/shot.png"
check "chromium: a PNG of 1100x1600 with more than a few colours (a drawing)" \
	python3 - "$out/shot.png" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype = ihdr
assert (w, h) == (1100, 1600) and depth == 8 and ctype in (2, 6), ihdr
bpp = 3 if ctype == 2 else 4
raw, stride, prev, colours = zlib.decompress(idat), w * bpp, bytearray(w * bpp), set()
for y in range(900):  # the top: the summary and the chart
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    colours.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp * 7))
    prev = line
assert len(colours) > 50, "%d colours" % len(colours)
EOF
chrome --dump-dom --virtual-time-budget=2000 >"$out/dom.html"
check "chromium: the DOM dumped (parsed: tables got their <tbody>)" has "$out/dom.html" "<tbody>"
count() { grep -o -- "$2" "$1" | wc -l; }
n=$(count "$out/dom.html" 'data-kind="checkpoint"')
check "dom: 7 checkpoint marks ($n)" test "$n" -eq 7
n=$(count "$out/dom.html" 'data-kind="checkpoint" data-state="complete"')
check "dom: 6 complete ($n)" test "$n" -eq 6
n=$(count "$out/dom.html" 'data-kind="checkpoint" data-state="interrupted"')
check "dom: 1 interrupted ($n)" test "$n" -eq 1
n=$(count "$out/dom.html" 'data-kind="restart"')
check "dom: 2 restarts ($n)" test "$n" -eq 2
check "dom: one from the rebuild, one from the prefix" \
	test "$(count "$out/dom.html" 'data-from="rebuild"')" -eq 1 -a \
	"$(count "$out/dom.html" 'data-from="prefix"')" -eq 1
n=$(count "$out/dom.html" 'data-kind="failure"')
check "dom: 1 failure ($n)" test "$n" -eq 1
n=$(count "$out/dom.html" 'data-kind="relaunch"')
check "dom: 2 relaunches ($n)" test "$n" -eq 2
n=$(count "$out/dom.html" 'data-kind="flush"')
check "dom: 3 flushes ($n)" test "$n" -eq 3
n=$(count "$out/dom.html" 'data-kind="bandwidth" data-of="checkpoint"')
check "dom: 6 checkpoint bandwidth points ($n)" test "$n" -eq 6
check "dom: hover titles with the details" \
	has "$out/dom.html" "<title>checkpoint dataset [0-9]+ \(step.12\), run 3"

# ---- the chart alone, and the failure cases ----
"$scr" report --prefix "$pfs" --svg "$out/chart.svg" >/dev/null 2>&1
check "--svg: well-formed XML with 7 checkpoint marks" python3 -c "
import sys, xml.etree.ElementTree as T
r = T.parse(sys.argv[1]).getroot()
n = sum(1 for e in r.iter() if e.get('data-kind') == 'checkpoint')
sys.exit(0 if r.tag.endswith('svg') and n == 7 else 1)" "$out/chart.svg"
"$scr" report --prefix "$out/nowhere" >"$out/none" 2>&1
rc=$?
check "no log: exit status $rc, one line naming the path" \
	test $rc -ne 0 -a "$(wc -l <"$out/none")" -eq 1 -a -n "$(grep -F "$out/nowhere/.scr/log" "$out/none")"
mkdir -p "$out/empty/.scr"
: >"$out/empty/.scr/log"
"$scr" report --prefix "$out/empty" >"$out/empty.out" 2>&1
rc=$?
check "empty log: exit status $rc" test $rc -ne 0
check "empty log: says so" has "$out/empty.out" "^scr report: the event log .*/empty/.scr/log is empty$"
"$scr" report --prefix "$pfs" --job nosuchjob >"$out/nojob" 2>&1
check "--job of no event: non-zero" test $? -ne 0

# ---- SCR_MTBF: SCR_Need_checkpoint at Daly's interval for the measured
# cost; 40 s per node over 4 nodes is a job MTBF of 10 s.  Checkpoints of
# tiny files (a few ms) give an interval of about a quarter second, five
# steps of 50 ms; Daly's interval never exceeds the MTBF, so 12 s of steps
# hold two checkpoints however slow a loaded machine makes them (with 2 s
# of steps and a 40 s MTBF, a checkpoint of 0.2 s under load left room for
# the first alone).  A prefix of its own: sim_run runs in $pfs
opfs=$pfs; pfs=$opfs/mtbf; mp=$pfs
mkdir -p "$pfs"
SIM_ENV=(-x SCR_COPY_TYPE=SINGLE -x SCR_FLUSH=0 -x SCR_LOG_ENABLE=1 -x SCR_MTBF=40)
job_run() { local SIM_JOB_ID=$1; shift; sim_run "$@"; }
check "SCR_MTBF: the run finishes" \
	job_run 4300 "$out/mtbf" "$SURV" "$ex" --steps 240 --every 1 --sleep-ms 50 --size 1000
check "SCR_MTBF: rank 0 says the interval, the cost and the job's MTBF" \
	has "$out/mtbf" "SCR_MTBF: a checkpoint every [0-9.]+ s of computing \(checkpoints cost [0-9.]+ s, the job fails every 10 s on average\)"
check "SCR_MTBF: the first step checkpoints (no cost known yet)" \
	has "$mp/.scr/log" "event=DATASET_START .*dset=1 name=step.1 "
# every checkpoint after the first starts no sooner than the interval last
# logged (within the tenth it may move unlogged) after the previous ended
check "SCR_MTBF: checkpoints keep the interval, and there are several" awk '
	/event=INTERVAL/ { match($0, / secs=[0-9.]+/); tau = substr($0, RSTART + 6, RLENGTH - 6) }
	/event=DATASET_(START|END)/ { match($0, / time=[0-9.]+/); t = substr($0, RSTART + 6, RLENGTH - 6) }
	/event=DATASET_END/ { end = t; n++ }
	/event=DATASET_START/ && end != "" && t - end < 0.9 * tau { bad++; print "too soon:", t - end, tau }
	END { exit !(bad == 0 && n >= 2 && n < 240 && tau > 0) }' "$mp/.scr/log"
SIM_ENV=(-x SCR_MTBF=5w)
check "SCR_MTBF=5w: the run finishes" \
	job_run 4301 "$out/mtbf5w" "$SURV" "$ex" --steps 2 --size 1000
check "SCR_MTBF=5w: one line naming it" \
	sh -c "test \$(grep -c 'SCR_MTBF=5w: not a duration (seconds, or a number with s, m, h, d or y); ignored' '$out/mtbf5w') -eq 1"
pfs=$opfs
finish
