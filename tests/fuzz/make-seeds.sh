#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make-seeds.sh EXAMPLE SCR [OUT]: the fuzzers' seed corpora from a
# real run (as root: simulated nodes, tests/sim/lib.sh).  Writes real-* seeds
# into OUT/<fuzzer>/ (default: tests/fuzz/corpus); the hand-made edge cases
# there (named after what they test) are kept as they are.
#
#   flush    4 ranks on node1-4 checkpoint twice (XOR) and flush each: the
#            prefix's index, flush, nodes and halt files, each dataset's
#            summary and rank2file tree, node1's filemaps and job record
#   scavenge the same without a flush; node2 dies (its cache wiped) and
#            `scr scavenge` on node1, 3 and 4 copies their part to the
#            prefix without indexing it: the scavenge record, the rank
#            filemaps, the redundancy files and the application files as
#            `scr index` and the rebuild find them; the same with RS and
#            two nodes lost
#   tools    `scr halt` writes every halt condition, `scr down-nodes` the
#            down-node file; the job options as the SPANK and Flux plugins
#            and a Prolog= environment give them
#
# Archives (fuzzlib.h) hold several files: "@@FILE <relative path>\n" before
# each file's bytes.  Cache paths in filemaps are rewritten to a relative
# cache/ directory, so fuzz_filemap can scavenge inside its scratch
# directory; the fuzzers fix kvtree size fields and CRCs after such edits.
set -u
source "$(dirname "$0")/../sim/lib.sh"
ex=$(readlink -f "$1") scr=$(readlink -f "$2")
out=$(readlink -f "${3:-$(dirname "$0")/corpus}")
tmp=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=0
HOSTS=node1:1,node2:1,node3:1,node4:1
export SIM_NP=4 SIM_JOB_ID=4242

# archive OUT DIR REL...: the files REL (relative to DIR) as one archive
archive() {
	local o=$1 d=$2 f
	shift 2
	: >"$o"
	for f in "$@"; do
		printf '@@FILE %s\n' "$f" >>"$o"
		cat "$d/$f" >>"$o"
	done
}

# files under DIR (relative), without locks, logs and temporaries
files_under() {
	(cd "$1" && find . -type f ! -name '*.lock' ! -name log ! -name '*.tmp.*' | sed 's|^\./||' | sort)
}

seed() { # seed FUZZER NAME FILE: copy FILE as a seed
	mkdir -p "$out/$1"
	cp "$3" "$out/$1/$2"
}

# node1's control directory and cache as an archive for fuzz_filemap
filemap_seed() {
	local name=$1 job=$2 shm cntl rels=() f
	shm=$("$simnode" shm "$sim_dir")
	cntl=$shm/node1/root/scr.$job
	rm -rf "$tmp/fm" && mkdir -p "$tmp/fm/cntl" "$tmp/fm/cache"
	for f in "$cntl"/filemap_*.scrinfo; do
		sed "s|/dev/shm/root/scr\.$job|cache|g" "$f" >"$tmp/fm/cntl/$(basename "$f")"
	done
	(cd "$cntl" && find . -path './scr.dataset.*' -type f -exec cp --parents {} "$tmp/fm/cache/" \;)
	mapfile -t rels < <(files_under "$tmp/fm")
	archive "$tmp/fm.arch" "$tmp/fm" "${rels[@]}"
	seed filemap "$name" "$tmp/fm.arch"
	seed nodes "$name-jobrec" "$cntl/job.scrinfo"
	seed kvtree_file "$name-filemap" "$cntl/filemap_0.scrinfo"
}

echo "== flush: 2 checkpoints, XOR, flushed =="
sim_setup 4
SIM_ENV=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_FLUSH=1)
check "flush: the job checkpoints twice and flushes" \
	sim_run "$tmp/run" "$HOSTS" "$ex" --steps 4 --every 2 --files 1 --size 1500
seed index real "$pfs/.scr/index.scr"
seed kvtree_file real-index "$pfs/.scr/index.scr"
seed flushfile real "$pfs/.scr/flush.scr"
seed nodes real-nodes "$pfs/.scr/nodes.scr"
[ -f "$pfs/.scr/halt.scr" ] && seed halt real-finalize "$pfs/.scr/halt.scr"
for d in "$pfs"/.scr/scr.dataset.*; do
	id=${d##*.}
	seed summary "real-$id" "$d/.scr/summary.scr"
	mapfile -t rels < <(cd "$d" && ls .scr/rank2file*.scr)
	archive "$tmp/r2f" "$d" "${rels[@]}"
	seed r2f "real-$id" "$tmp/r2f"
done
filemap_seed real-flushed 4242

# scavenge SCHEME LOST...: run, lose nodes, scavenge without an index
scavenge() {
	local scheme=$1 n live=()
	shift
	sim_setup 4
	SIM_ENV=(-x SCR_COPY_TYPE="$scheme" -x SCR_SET_SIZE=4 -x SCR_SET_FAILURES=2 -x SCR_FLUSH=0)
	check "$scheme: the job checkpoints" \
		sim_run "$tmp/run" "$HOSTS" "$ex" --steps 2 --every 2 --files 1 --size 1500
	filemap_seed "real-$scheme" 4242
	for n in "$@"; do
		"$simnode" kill "$sim_dir" "$n"
		"$simnode" wipe "$sim_dir" "$n"
	done
	for n in node1 node2 node3 node4; do
		case " $* " in *" $n "*) ;; *) live+=("$n") ;; esac
	done
	for n in "${live[@]}"; do
		"$simnode" exec "$sim_dir" "$n" env SCR_JOB_ID=4242 "$scr" scavenge \
			>"$tmp/scavenge.$n" 2>&1
	done
	check "$scheme: scavenged, not indexed" test ! -e "$pfs/.scr/index.scr" -a \
		-f "$pfs/.scr/scavenge.4242.scr"
	mapfile -t rels < <(files_under "$pfs")
	archive "$tmp/ds" "$pfs" "${rels[@]}"
	seed dsindex "real-$scheme" "$tmp/ds"
	local d
	d=$(ls -d "$pfs"/.scr/scr.dataset.* | head -n 1)
	mapfile -t rels < <(files_under "$d" | grep -v '\.scrfilemap$')
	archive "$tmp/ec" "$d" "${rels[@]}"
	seed ecfile "real-$scheme" "$tmp/ec"
}

echo "== scavenge: XOR with node2 lost, RS with node2 and node3 lost =="
scavenge XOR node2
scavenge RS node2 node3
sim_cleanup

echo "== tools: halt conditions, down nodes, job options =="
mkdir -p "$tmp/p/.scr"
"$scr" halt --prefix "$tmp/p" --checkpoints 3 --before '+2h' --after @1700000000 \
	--seconds 600 >/dev/null
seed halt real-conditions "$tmp/p/.scr/halt.scr"
"$scr" halt --prefix "$tmp/p" --immediate >/dev/null
seed halt real-immediate "$tmp/p/.scr/halt.scr"
(export SCR_JOB_ID=4242 SCR_CNTL_BASE=$tmp/cntl SCR_JOB_NODES='node[1-4]' \
	SCR_EXCLUDE_NODES=node2 SCR_NO_HEALTH_CHECK=1 SCR_LAUNCHER=mpirun
	cd "$tmp/p" && "$scr" down-nodes --reason >/dev/null)
check "tools: scr down-nodes wrote its file" test -f "$tmp/cntl/root/scr.4242/downnodes.scr"
seed nodes real-downnodes "$tmp/cntl/root/scr.4242/downnodes.scr"
# as scr_spank.c builds the epilog's and the prolog's command lines
printf '%s\0' --sched=slurm --job 4242 --uid 0 --gid 0 --cache-base /dev/shm,/ssd \
	--cntl-base /dev/shm --timeout 60 --prefix /var/tmp/prefix >"$tmp/jo"
seed jobopts real-spank-epilog "$tmp/jo"
printf '%s\0' --sched=slurm --job 4242 --uid 0 --gid 0 --cache-base /dev/shm \
	--cntl-base /dev/shm --capacity 8GB >"$tmp/jo"
seed jobopts real-spank-prolog "$tmp/jo"
# as scr_shell.c builds them, and a Prolog= environment
printf '%s\0' --job f2Cjq8DaQ --uid 0 --cache-base /tmp/cache --cntl-base /tmp/cntl \
	--capacity 1GB >"$tmp/jo"
seed jobopts real-flux "$tmp/jo"
printf '%s\0' SLURM_JOB_ID=77 SLURM_JOB_UID=0 SPANK_SCR_PREFIX=/var/tmp/p \
	SCR_CACHE_BASE=/dev/shm SPANK_SCR_CNTL_BASE=/dev/shm >"$tmp/jo"
seed jobopts real-prolog-env "$tmp/jo"
finish
