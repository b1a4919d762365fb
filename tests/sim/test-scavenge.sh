#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-scavenge.sh EXAMPLE SBINDIR SUBCOMM: scr-prolog/scr-epilog on simulated nodes
# without a scheduler (--sched none: SCR_JOB_NODES, SCR_DOWN_NODES), the way
# a site's Prolog=/Epilog= runs them.  8 ranks on node1-4, checkpoints never
# flushed, then the epilog runs on the surviving nodes at once:
#  XOR      node2 lost before its epilog: index rebuilds its ranks from the
#           scavenged XOR files; a new job restarts from the prefix
#  PARTNER  node2 lost: the second round copies its ranks' partner copies,
#           no other rank's (each node's record on the prefix lists its ranks)
#  spoilt   PARTNER, node1's cached files spoilt: their partner copies instead;
#           XOR: node1's ranks rebuilt although their parity was copied
#  RS(2)    node2 and node3 lost: rebuilt from the Reed-Solomon files
#  XOR x2   two nodes of every set lost: the index says which ranks cannot be
#           rebuilt, the dataset is never fetched
#  fallback the newest checkpoint's files gone on two nodes of every set, the
#           older one intact in cache: the epilogs index the older one
# The PARTNER epilogs are told another prefix (the job's submission-time
# one) and a spare node5 that never ran the job takes part: they scavenge to
# the prefix the run recorded, and the spare does not hold up the election.
# flushed  every checkpoint flushed by the library: no epilog copies the
#          newest again
# groups   two groups of ranks, each with SCR on its own communicator and
#          prefix (SUBCOMM, tests/sim/subcomm.c), node3 lost: each group's
#          newest checkpoint reaches its own prefix, and a new job restarts
#          both from there
# and the prolog: directories made 0700, a planted symlink refused, a stale
# directory purged only when the scheduler says its job ended (never here).
source "$(dirname "$0")/lib.sh"
ex=$(readlink -f "$1") sbin=$(readlink -f "$2") sc=$(readlink -f "$3")
out=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$out"' EXIT
ALL=node1:2,node2:2,node3:2,node4:2

# epilog NODES... : scr-epilog on each node at the same time
epilog() {
	local n pids=()
	for n in "$@"; do
		"$simnode" exec "$sim_dir" "$n" env SCR_JOB_NODES="${EPILOG_NODES:-node[1-4]}" \
			SCR_DOWN_NODES="$down" "$sbin/scr-epilog" --sched none --job 4242 --uid 0 \
			--prefix "${EPILOG_PREFIX:-$pfs}" --timeout 20 \
			>"$out/epilog.$n" 2>&1 &
		pids+=($!)
	done
	for n in "${pids[@]}"; do wait "$n"; done
	cat "$out"/epilog.* >"$out/epilogs"
}

# scenario SCHEME LOST... : run, lose nodes, epilog on the rest
scenario() {
	local scheme=$1 n
	shift
	sim_setup 5
	SIM_ENV=(-x SCR_COPY_TYPE="$scheme" -x SCR_SET_SIZE=4 -x SCR_SET_FAILURES=2 -x SCR_FLUSH=0)
	check "$scheme: the job checkpoints to step 6" \
		sim_run "$out/run" "$ALL" "$ex" --steps 6 --files 2 --size 300000
	down=$(IFS=,; echo "$*")
	for n in "$@"; do
		"$simnode" kill "$sim_dir" "$n"
		"$simnode" wipe "$sim_dir" "$n"
	done
	local live=()
	for n in node1 node2 node3 node4; do
		case " $* " in *" $n "*) ;; *) live+=("$n") ;; esac
	done
	[ -z "${EPILOG_SPARE:-}" ] || live+=("$EPILOG_SPARE")
	if [ "${NO_PREFIX_FIRST:-0}" = 1 ]; then
		# as if the run had recorded no prefix (jobrec.h)
		"$simnode" exec "$sim_dir" node1 rm /dev/shm/root/scr.4242/job.scrinfo
		"$simnode" exec "$sim_dir" node1 "$sbin/scr-epilog" --sched none --job 4242 --uid 0 \
			>"$out/noprefix" 2>&1
		check "$scheme: an epilog without a prefix keeps a checkpoint it cannot copy" \
			has "$out/noprefix" 'no prefix directory is known.*|is kept for `scr scavenge`'
		check "$scheme: the cache is still there" \
			"$simnode" exec "$sim_dir" node1 test -d /dev/shm/root/scr.4242
	fi
	epilog "${live[@]}"
	check "$scheme: exactly one node indexed" test "$(grep -c 'event=INDEX' "$pfs/.scr/log")" -eq 1
	check "$scheme: the epilogs are sanitizer-clean" hasnt "$out/epilogs" 'Sanitizer|runtime error' 
}

not() { ! "$@"; }
job_run() { local SIM_JOB_ID=$1; shift; sim_run "$@"; }
restart_from_prefix() { # every cache wiped, a new job restarts from the prefix
	local n
	for n in node1 node2 node3 node4 node5; do
		"$simnode" alive "$sim_dir" $n || "$simnode" start-node "$sim_dir" $n
		"$simnode" wipe "$sim_dir" $n
	done
	SIM_JOB_ID=4243 sim_run "$out/restart" "$ALL" "$ex" --steps 8 --files 2 --size 300000 --expect-restart 6
}

NO_PREFIX_FIRST=1 scenario XOR node2
check "XOR: the index rebuilt node2's two ranks" has "$pfs/.scr/log" 'event=INDEX .*ranks=8 missing=2 rebuilt=2 .*ok=1'
records() { find "$pfs" -path "*scr.dataset.*/.scr/$1" -type f | wc -l; }
check "XOR: the nodes removed their records once the dataset was indexed" \
	test "$(records 'node.*.scrfilemap')" -eq 0
check "XOR: none per rank" test "$(records '[0-9]*.scrfilemap')" -eq 0
check "XOR: the rebuilt ranks in one record of their own" test "$(records rebuilt.scrfilemap)" -eq 1
# the indexer places the two ranks it rebuilt and leaves the other six to
# the nodes that copied them, which place theirs after the verdict (ranks 3
# and 7 write no file: 12 files)
check "XOR: the indexer left the six copied ranks to their nodes" \
	has "$pfs/.scr/log" 'event=INDEX .*rebuilt=2 files=12 left=6 ok=1'
check "XOR: each live node placed its ranks' files" \
	test "$(grep -c 'event=PLACE .*files=[24] failed=0' "$pfs/.scr/log")" -eq 3
own_paths() { # every file of step 6 at its own path, none left staged
	local r f
	for r in 0 1 2 4 5 6; do
		for f in 0 1; do test -f "$pfs/ckpt/rank_${r}_f$f.dat" || return 1; done
	done
	test -z "$(find "$pfs" -path '*scr.dataset.*/ckpt/*' -type f)"
}
check "XOR: every file at its own path before any restart" own_paths
shm=$("$simnode" shm "$sim_dir")
check "XOR: the epilogs removed the caches" test ! -e "$shm/node1/root/scr.4242" -a ! -e "$shm/node4/root/scr.4242"
check "XOR: which had been there" test -d "$shm/node1/root"
check "XOR: a new job restarts from the prefix" restart_from_prefix
check "XOR: fetched and every byte verified" has "$out/restart" 'restarted from step.6, every byte verified'

sub=$(mktemp -d /var/tmp/scr-submit.XXXXXX)
EPILOG_PREFIX=$sub EPILOG_NODES="node[1-5]" EPILOG_SPARE=node5 scenario PARTNER node2
check "PARTNER: the epilogs used the prefix the run recorded" has "$out/epilogs" "the run used prefix $pfs"
check "PARTNER: nothing was scavenged to the submission-time prefix" \
	test -z "$(find "$sub" -name 'scr.dataset.*' -o -name index.scr -o -name ckpt)"
rm -rf "$sub"
check "PARTNER: the second round copied the partner copies" has "$out/epilogs" "rank [23]'s own node did not copy it"
check "PARTNER: and no others (their nodes' records list them)" hasnt "$out/epilogs" "rank [014567]'s own node did not copy it"
check "PARTNER: the dataset is complete without a rebuild" has "$pfs/.scr/log" 'event=INDEX .*missing=0 rebuilt=0 .*ok=1'
check "PARTNER: every rank left to the node that copied it" has "$pfs/.scr/log" 'event=INDEX .*left=8 ok=1'
check "PARTNER: every file at its own path, the partner copies too" own_paths
# resident FILES...: "R T", the files' pages in the page cache and in all
resident() { fincore -n -r -b -o PAGES,SIZE "$@" | awk '{ r += $1; t += int(($2 + 4095) / 4096) } END { print r + 0, t + 0 }'; }
# past_cache MAX: the placed files of step 6 have at most MAX pages cached
# (the scavenge wrote their whole pages with O_DIRECT, SCR_FLUSH_DIRECT)
past_cache() {
	local rt
	rt=$(resident "$pfs"/ckpt/rank_*_f*.dat)
	echo "# step 6 on the prefix: ${rt% *} of ${rt#* } pages in the page cache"
	[ "${rt% *}" -le "$1" ]
}
if [ "$(stat -f -c %T "$pfs")" = tmpfs ]; then
	echo "ok - # SKIP the prefix is on tmpfs, whose page cache is the file"
else
	# 12 files of 300000 bytes: only each one's short last page went buffered
	check "PARTNER: the scavenge wrote past the prefix's page cache" past_cache 12
fi
check "PARTNER: a new job restarts from the prefix" restart_from_prefix
check "PARTNER: every byte verified" has "$out/restart" 'restarted from step.6, every byte verified'

# PARTNER, no node lost, but node1's cached files of the newest checkpoint
# spoilt after it completed: node1's epilog cannot copy them (CRC32), its
# record leaves them out, and the nodes holding their partner copies copy
# those instead
spoil_newest() { # NODE: flip a byte of each of its ranks' files of the newest dataset
	local d f n=0
	d=$(find "$("$simnode" shm "$sim_dir")/$1" -type d -name 'scr.dataset.*' | sort -V | tail -1)
	for f in $(find "$d" -type f -name 'rank_*' -not -path '*/.partner.*'); do
		printf 'X' | dd of="$f" bs=1 seek=100 conv=notrunc status=none
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}
sim_setup 5
# (and the run asks for buffered writes: the scavenge follows it, jobrec.h)
SIM_ENV=(-x SCR_COPY_TYPE=PARTNER -x SCR_FLUSH=0 -x SCR_FLUSH_DIRECT=0)
check "spoilt: the job checkpoints to step 6" \
	sim_run "$out/run" "$ALL" "$ex" --steps 6 --files 2 --size 300000
check "spoilt: node1's cached files of step 6 changed after they completed" spoil_newest node1
down=""
epilog node1 node2 node3 node4
rt=$(resident "$pfs"/ckpt/rank_*_f*.dat)
check "spoilt: with SCR_FLUSH_DIRECT=0 the scavenge wrote through the page cache (${rt% *} of ${rt#* })" \
	test "${rt% *}" -ge $((${rt#* } / 2))
check "spoilt: node1 cannot copy them" has "$out/epilogs" 'scavenge of rank [01]: .*CRC32'
check "spoilt: the partner copies of node1's ranks are copied instead" \
	has "$out/epilogs" "rank [01]'s own node did not copy it"
check "spoilt: no other rank's" hasnt "$out/epilogs" "rank [2-7]'s own node did not copy it"
check "spoilt: the dataset is complete without a rebuild" has "$pfs/.scr/log" 'event=INDEX .*missing=0 rebuilt=0 .*ok=1'
check "spoilt: a new job restarts from the prefix" restart_from_prefix
check "spoilt: every byte verified" has "$out/restart" 'restarted from step.6, every byte verified'

# XOR the same: node1 copies its ranks' parity files but not their spoilt
# files; the index counts those ranks lost and rebuilds them
sim_setup 5
SIM_ENV=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_FLUSH=0)
check "spoilt XOR: the job checkpoints to step 6" \
	sim_run "$out/run" "$ALL" "$ex" --steps 6 --files 2 --size 300000
check "spoilt XOR: node1's cached files of step 6 changed" spoil_newest node1
epilog node1 node2 node3 node4
check "spoilt XOR: node1 cannot copy them" has "$out/epilogs" 'scavenge of rank [01]: .*CRC32'
check "spoilt XOR: the index rebuilt both ranks, though their parity was copied" \
	has "$pfs/.scr/log" 'event=INDEX .*missing=2 rebuilt=2 .*ok=1'
check "spoilt XOR: a new job restarts from the prefix" restart_from_prefix
check "spoilt XOR: every byte verified" has "$out/restart" 'restarted from step.6, every byte verified'

# nobody is elected when a live node never finishes its epilog (node4 here):
# the next job's SCR_Init indexes what the others scavenged, once their
# scavenge file is older than SCR_SCAVENGE_GRACE
sim_setup 5
SIM_ENV=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_FLUSH=0)
check "late: the job checkpoints to step 6" sim_run "$out/run" "$ALL" "$ex" --steps 6 --files 2 --size 300000
down=""
epilog node1 node2 node3
check "late: without node4's epilog nobody indexes" test ! -e "$pfs/.scr/index.scr" -o -z "$(grep -l 'event=INDEX' "$pfs/.scr/log")"
check "late: one record per node that copied, for the next index" \
	test "$(records 'node.*.scrfilemap')" -eq 3 -a "$(records '[0-9]*.scrfilemap')" -eq 0
touch -d '-2 minutes' "$pfs/.scr/scavenge.4242.scr"
check "late: a new job restarts from the prefix" restart_from_prefix
check "late: its SCR_Init indexed the scavenged dataset first" has "$out/restart" 'scavenged by an earlier job.s epilog, indexed now \(2 ranks rebuilt\)'
check "late: every byte verified" has "$out/restart" 'restarted from step.6, every byte verified'

scenario RS node2 node3
check "RS: the index rebuilt four ranks" has "$pfs/.scr/log" 'event=INDEX .*missing=4 rebuilt=4 .*ok=1'
check "RS: a new job restarts from the prefix" restart_from_prefix
check "RS: every byte verified" has "$out/restart" 'restarted from step.6, every byte verified'

scenario XOR node2 node3
check "XOR x2: the index cannot complete the dataset" has "$pfs/.scr/log" 'event=INDEX .*ok=0'
check "XOR x2: and says which ranks are lost" has "$out/epilogs" 'ranks [0-9,]+ are missing files and cannot be rebuilt'
check "XOR x2: the live nodes' records stay for another try" test "$(records 'node.*.scrfilemap')" -eq 2
scr=$(dirname "$sbin")/bin/scr
[ -x "$scr" ] || scr=$(dirname "$ex")/../cmd/scr
(cd "$pfs" && SCR_JOB_ID=4242 "$scr" index --list) >"$out/index"
check "XOR x2: the index lists it incomplete" has "$out/index" ' incomplete '
"$simnode" start-node "$sim_dir" node2
"$simnode" start-node "$sim_dir" node3
check "XOR x2: a new job does not fetch it" \
	job_run 4243 "$out/restart" "$ALL" "$ex" --steps 4 --expect-restart 0
check "XOR x2: and starts from the beginning" has "$out/restart" 'starting from the beginning'

# ---- groups: group B never flushes (PARTNER), group A flushes each XOR
# checkpoint; the epilogs find both groups' records below the job's
sim_setup 5
SIM_ENV=()
check "groups: two groups checkpoint" sim_run "$out/run" "$ALL" "$sc" --steps 4 --size 300000
down=node3
"$simnode" kill "$sim_dir" node3
"$simnode" wipe "$sim_dir" node3
epilog node1 node2 node4
check "groups: group B's step 3 indexed on its prefix" \
	has "$pfs/prefixB/.scr/log" 'event=INDEX .*dset=3 ranks=3 missing=0 .*ok=1'
check "groups: the epilogs removed both groups' caches" \
	test ! -e "$("$simnode" shm "$sim_dir")/node1/root/scr.4242"
for n in node1 node2 node3 node4 node5; do
	"$simnode" alive "$sim_dir" $n || "$simnode" start-node "$sim_dir" $n
	"$simnode" wipe "$sim_dir" $n
done
check "groups: a new job restarts both groups from their prefixes, every byte" \
	job_run 4243 "$out/groups2" "$ALL" "$sc" --steps 5 --size 300000 --expect-a 4 --expect-b 3

# ---- fallback: the newest checkpoint cannot be recovered (its files gone
# from node1 and node2, two members of every XOR set), the older one in cache
# (SCR_CACHE_SIZE=2) can: the epilogs index the newest incomplete, fall back,
# index the older one, and a new job restarts from it
sim_setup 5
SIM_ENV=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_FLUSH=0 -x SCR_CACHE_SIZE=2)
check "fallback: the job checkpoints to step 6" \
	sim_run "$out/run" "$ALL" "$ex" --steps 6 --files 2 --size 300000
newest=$("$simnode" exec "$sim_dir" node1 sh -c 'ls -d /dev/shm/root/scr.4242/scr.dataset.*' |
	sed 's/.*scr.dataset.//' | sort -n | tail -1)
for n in node1 node2; do
	"$simnode" exec "$sim_dir" "$n" sh -c "rm -f /dev/shm/root/scr.4242/scr.dataset.$newest/ckpt/*"
done
down=""
epilog node1 node2 node3 node4
check "fallback: the newest dataset ($newest) cannot be indexed" \
	has "$pfs/.scr/log" "event=INDEX .*dset=$newest .*ok=0"
check "fallback: the epilogs say they fall back" \
	has "$out/epilogs" "dataset $newest of job 4242 cannot be recovered; trying the newest older"
check "fallback: the older checkpoint is indexed complete" \
	has "$pfs/.scr/log" "event=INDEX .*dset=$((newest - 1)) .*ok=1"
check "fallback: exactly one node indexed each" \
	test "$(grep -c 'event=INDEX' "$pfs/.scr/log")" -eq 2
check "fallback: the epilogs are sanitizer-clean" hasnt "$out/epilogs" 'Sanitizer|runtime error'
for n in node1 node2 node3 node4 node5; do "$simnode" wipe "$sim_dir" $n; done
check "fallback: a new job restarts from the older checkpoint" \
	job_run 4243 "$out/restart" "$ALL" "$ex" --steps 8 --files 2 --size 300000 --expect-restart 4
check "fallback: fetched and every byte verified" has "$out/restart" 'restarted from step.4, every byte verified'

# ---- a checkpoint the library flushed: every rank records the dataset
# with the CREATED time the index keeps (rank 0's, agreed at
# SCR_Start_output), so no node's epilog takes it for another dataset of
# the same id and copies it again (each rank once stamped its own time, and
# node2-4 copied the flushed checkpoint a second time)
sim_setup 5
SIM_ENV=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_SET_FAILURES=2 -x SCR_FLUSH=1)
check "flushed: the job checkpoints to step 6, flushing each" \
	sim_run "$out/flushed" "$ALL" "$ex" --steps 6 --files 2 --size 300000
shm=$("$simnode" shm "$sim_dir")
check "flushed: each node still caches its part" \
	test -d "$shm/node1/root/scr.4242" -a -d "$shm/node4/root/scr.4242"
down=""
rm -f "$out"/epilog.*
epilog node1 node2 node3 node4
check "flushed: the epilogs ran and removed the caches" \
	test ! -e "$shm/node1/root/scr.4242" -a ! -e "$shm/node4/root/scr.4242"
check "flushed: no node copied the flushed checkpoint again" hasnt "$pfs/.scr/log" 'event=SCAVENGE'
check "flushed: the epilogs are sanitizer-clean" hasnt "$out/epilogs" 'Sanitizer|runtime error'

# ---- names reused: checkpoint 2 (step 4) flushed and at its own paths,
# checkpoint 3 (step 6) with the same names only in cache (the job killed
# before SCR_Finalize flushes it).  The nodes see the names taken as they
# copy; the indexer supersedes dataset 2, reading its tree a file at a
# time, and leaves every file to the nodes
sim_setup 5
SIM_ENV=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_FLUSH=2)
sim_run "$out/run" "$ALL" "$ex" --steps 8 --files 2 --size 300000 --die-after-ckpt 6
rc=$?
check "reused: the job killed after checkpointing step 6 (status $rc)" test $rc -ne 0 -a $rc -ne 124
check "reused: step 4's files at their own paths" test -s "$pfs/ckpt/rank_1_f1.dat"
down=""
rm -f "$out"/epilog.*
epilog node1 node2 node3 node4
check "reused: the index superseded dataset 2" has "$out/epilogs" 'reuses file names of dataset 2'
check "reused: and left every rank to its node" has "$pfs/.scr/log" 'event=INDEX .*missing=0 .*left=8 ok=1'
check "reused: every file of step 6 at its own path" own_paths
check "reused: a new job restarts from the prefix" restart_from_prefix
check "reused: every byte verified" has "$out/restart" 'restarted from step.6, every byte verified'

# ---- the prolog
id scrtest >/dev/null 2>&1 || useradd --create-home scrtest
uid=$(id -u scrtest)
sim_setup 2
prolog() { "$simnode" exec "$sim_dir" "$1" "$sbin/scr-prolog" --sched none --job 77 --uid "$uid" \
	--cache-base /dev/shm,/tmp --cntl-base /dev/shm >"$out/prolog.$1" 2>&1; }
check "prolog: prepares node1" prolog node1
mode=$("$simnode" exec "$sim_dir" node1 stat -c '%a %U' /dev/shm/scrtest/scr.77 /tmp/scrtest)
check "prolog: job directories are 0700 and the user's" test "$mode" = "$(printf '700 scrtest\n700 scrtest')"
"$simnode" exec "$sim_dir" node2 ln -s /etc /dev/shm/scrtest
check "prolog: a planted symlink does not stop the prolog" prolog node2
check "prolog: it is named and moved aside" has "$out/prolog.node2" '/dev/shm/scrtest: is not a directory \(refusing to follow it\); moved it to /dev/shm/.scr-quarantine.scrtest'
check "prolog: /etc was not touched" test "$(stat -c '%U %a' /etc)" = "root 755"
mode=$("$simnode" exec "$sim_dir" node2 stat -c '%a %U' /dev/shm/scrtest/scr.77)
check "prolog: the real directory is the user's" test "$mode" = "700 scrtest"
"$simnode" exec "$sim_dir" node2 rm -rf /dev/shm/scrtest
"$simnode" exec "$sim_dir" node2 mkdir -m 755 /dev/shm/scrtest
"$simnode" exec "$sim_dir" node2 chown nobody /dev/shm/scrtest
check "prolog: another user's directory does not stop the prolog" prolog node2
check "prolog: it is named and moved aside" has "$out/prolog.node2" 'belongs to uid [0-9]+, not to scrtest \(uid [0-9]+\); moved it'
"$simnode" exec "$sim_dir" node2 sh -c 'stat -c "%U %F" /dev/shm/.scr-quarantine.scrtest.*' >"$out/aside"
check "prolog: both were kept as they were" has "$out/aside" '^nobody directory$'
"$simnode" exec "$sim_dir" node1 mkdir -p /dev/shm/scrtest/scr.12
check "prolog: without a scheduler no job counts as ended" prolog node1
check "prolog: so nothing is purged" "$simnode" exec "$sim_dir" node1 test -d /dev/shm/scrtest/scr.12
"$simnode" exec "$sim_dir" node1 "$sbin/scr-epilog" --sched none --job 77 --uid "$uid" \
	--cache-base /dev/shm,/tmp --cntl-base /dev/shm >"$out/epilog77" 2>&1
check "epilog: a job that never checkpointed needs no prefix" test $? -eq 0
check "epilog: and its directories are removed" "$simnode" exec "$sim_dir" node1 \
	sh -c 'test ! -e /dev/shm/scrtest/scr.77 && test ! -e /tmp/scrtest/scr.77'
check "epilog: quietly" hasnt "$out/epilog77" 'error'
check "epilog: other jobs' directories stay" "$simnode" exec "$sim_dir" node1 test -d /dev/shm/scrtest/scr.12
"$simnode" exec "$sim_dir" node1 sh -c 'mkdir -p /tmp/small && mount -t tmpfs -o size=1m tmpfs /tmp/small'
check "prolog: too little capacity fails" not "$simnode" exec "$sim_dir" node1 "$sbin/scr-prolog" \
	--sched none --job 78 --uid "$uid" --cache-base /tmp/small --capacity 64MB
finish
