#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-users.sh BUILD_DIR: two users' SCR jobs on the same nodes of a real
# Slurm cluster (tests/cluster/slurmcluster), both caching in /dev/shm.
#
#  (a) a job of scrtest and one of scrtest2 run at once on node1-2; from a
#      job step on each node each user tries to list, read, change, delete,
#      rename and link the other's cache, control files and SCR files on the
#      prefix: every try fails (the same reads of its own succeed)
#  (b) the epilogs scavenge both, each user's files as that user: every file
#      on each prefix belongs to its user
#  (c) filemap entries planted between the checkpoint and the epilog that
#      point outside the job's trees (a path climbing out with '..', a REL
#      climbing out, a dataset directory elsewhere holding a copy) are
#      refused, one line each in slurmd's log; nothing is written outside
#      the job's trees and the index rebuilds those ranks from XOR
#  (d) the same for a symlinked directory of rank files (to a copy) and a
#      hard link to a foreign file in the cache
#  (e) a job whose config file puts its checkpoints in a second store,
#      /tmp: the epilog scavenges from there and removes the job's
#      directories in both stores
set -u
cdir=$(cd "$(dirname "$0")" && pwd)
. "$cdir/../sim/lib.sh"
. "$cdir/lib.sh"
cluster_setup "$(cd "${1:?usage: test-users.sh BUILD_DIR}" && pwd)" 3 timeout=20
. "$cdir/san.sh" && san_clients "$cl" # SCR_CLUSTER_SANITIZE: sanitizer mode

user1=$user work1=$work user2=scrtest2 work2=$base/work2
# under the lock slurmcluster takes for its user (a sanitized run of this
# test may start beside this one)
flock /run/scr-slurmcluster.lock sh -c 'id "$1" >/dev/null 2>&1 ||
	useradd --create-home --shell /bin/bash "$1"' sh "$user2" ||
	{ echo "not ok - cannot create user $user2"; exit 1; }
mkdir -p "$work2" && chown "$user2:" "$work2"
# work directories as users often have them: readable by all, so only the
# modes SCR gives its own files keep the other user out
chmod 755 "$work1" "$work2"
as2() { user=$user2 work=$work2 "$@"; } # as2 asuser|script|submit ...
node_exec() { "$simnode" exec "$cl/nodes" "$@"; }
epilog_lines() { grep -h "scr-epilog\[job $1\]" "$cl"/log/slurmd.*.log; }
wait_for_all() { # FILES...: until every one exists (three minutes at most)
	local i f missing
	for i in $(seq 1 720); do
		missing=""
		for f in "$@"; do [ -e "$f" ] || missing=$f; done
		[ -z "$missing" ] && return 0
		sleep 0.25
	done
	echo "--- $missing never appeared"
	return 1
}

# ---- (a) each user's job tries to get at the other's files
cat >"$base/probe.sh" <<'EOF'
#!/bin/bash
# probe.sh own|other USER JOB PREFIX: one line per way at USER's SCR files
# of JOB on this node: "denied", "ALLOWED" (other) or "read", "MISSING" (own)
mode=$1 u=$2 j=$3 p=$4 h=$(hostname)
c=/dev/shm/$u/scr.$j fm=/dev/shm/$u/scr.$j/filemap_$SLURM_NODEID.scrinfo
mine=/dev/shm/$(id -un)
try() {
	local what=$1 ok
	shift
	if "$@" >/dev/null 2>&1; then ok=1; else ok=0; fi
	case $mode$ok in
	own1) echo "read $h: $what" ;; own0) echo "MISSING $h: $what" ;;
	other1) echo "ALLOWED $h: $what" ;; other0) echo "denied $h: $what" ;;
	esac
}
try "list the cache base's user directory" ls "/dev/shm/$u"
try "list the job's cache" ls "$c"
try "read a filemap" cat "$fm"
try "read the job record" cat "$c/job.scrinfo"
try "list the prefix's SCR directory" ls "$p/.scr"
try "read the prefix's halt file" cat "$p/.scr/halt.scr"
[ "$mode" = own ] && exit 0
try "create a file in the cache" touch "$c/planted"
try "plant a symlink in the cache" ln -s /etc/passwd "$c/planted-link"
try "hard-link a filemap" ln "$fm" "$mine/stolen"
try "overwrite a filemap" sh -c ": >'$fm'"
try "delete the job's cache" rm -r "$c"
try "rename the job's cache" mv "$c" "$mine/moved"
try "plant a halt file on the prefix" touch "$p/.scr/halt.scr"
try "delete the prefix's SCR directory" rm -r "$p/.scr"
try "rename the prefix's SCR directory" mv "$p/.scr" "$p/scr-moved"
EOF
chmod 755 "$base/probe.sh"

# job script for the user in $1 against the other: checkpoint, wait for the
# other's job, probe both ways, wait until both are done
probe_job() {
	local me=$1 other=$2 mywork=$3 otherwork=$4
	printf '%s\n' "srun --mpi=pmix --kill-on-bad-exit=1 $example --steps 4 --every 2 --size 65536" \
		"touch $mywork/ready.\$SLURM_JOB_ID" \
		"for i in \$(seq 1 240); do [ -e $base/go ] && break; sleep 0.5; done" \
		"srun -N2 --ntasks-per-node=1 $base/probe.sh own $me \$SLURM_JOB_ID $mywork" \
		"srun -N2 --ntasks-per-node=1 $base/probe.sh other $other \$(cat $base/job.$other) $otherwork" \
		"touch $mywork/done.\$SLURM_JOB_ID" \
		"for i in \$(seq 1 240); do [ -e $base/alldone ] && break; sleep 0.5; done"
}
script probe.sh "$(probe_job "$user1" "$user2" "$work1" "$work2")"
as2 script probe.sh "$(probe_job "$user2" "$user1" "$work2" "$work1")"
ja=$(asuser env SCR_FLUSH=0 sbatch --parsable --scr=on -N2 -w 'node[1-2]' \
	--ntasks-per-node=1 -o probe.out probe.sh)
jb=$(as2 asuser env SCR_FLUSH=0 sbatch --parsable --scr=on -N2 -w 'node[1-2]' \
	--ntasks-per-node=1 -o probe.out probe.sh)
echo "$ja" >"$base/job.$user1" && echo "$jb" >"$base/job.$user2"
check "(a) both jobs checkpointed and wait on node1-2 at once" \
	wait_for_all "$work1/ready.$ja" "$work2/ready.$jb"
touch "$base/go"
check "(a) both probed" wait_for_all "$work1/done.$ja" "$work2/done.$jb"
planted=$(for n in node1 node2; do
	node_exec "$n" find /dev/shm/$user1 /dev/shm/$user2 \( -name 'planted*' -o -name stolen -o -name moved \) -print
done)
check "(a) nothing was planted in either cache" test -z "$planted"
check "(a) both caches are there" \
	node_exec node1 test -d "/dev/shm/$user1/scr.$ja" -a -d "/dev/shm/$user2/scr.$jb"
touch "$base/alldone"
wait_job "$ja"
wait_job "$jb"
for w in "$work1" "$work2"; do
	check "(a) $(basename "$w"): every read of its own files worked (12)" \
		test "$(grep -c '^read ' "$w/probe.out")" -eq 12
	check "(a) $(basename "$w"): every way into the other's was denied (30)" \
		test "$(grep -c '^denied ' "$w/probe.out")" -eq 30
	check "(a) $(basename "$w"): none was allowed" hasnt "$w/probe.out" '^(ALLOWED|MISSING) '
done

# ---- (b) both scavenged, each as its user
check "(b) $user1's job was scavenged and indexed" has "$work1/.scr/log" "event=INDEX job=$ja .*ok=1"
check "(b) $user2's job was scavenged and indexed" has "$work2/.scr/log" "event=INDEX job=$jb .*ok=1"
check "(b) every file on $user1's prefix is $user1's" owned_by "$user1" "$work1"
check "(b) every file on $user2's prefix is $user2's" owned_by "$user2" "$work2"
check "(b) neither job's files went to the other's prefix" \
	sh -c "! grep -q 'job=$jb ' '$work1/.scr/log' && ! grep -q 'job=$ja ' '$work2/.scr/log'"
check "(b) both caches are gone" \
	node_exec node1 sh -c "test ! -e /dev/shm/$user1/scr.$ja && test ! -e /dev/shm/$user2/scr.$jb"

# ---- (c) filemap entries that point outside the job's trees
cat >"$base/fmedit" <<'EOF'
#!/bin/bash
# fmedit FILE PATTERN REPLACEMENT: change a kvtree file (a filemap) as its
# user can: a perl substitution (\xNN escapes) that keeps the length, and
# the file's CRC32 made right again (gzip's trailer holds it)
set -eu
f=$1 n=$(stat -c %s "$1")
head -c $((n - 4)) "$f" >"$f.body"
PAT=$2 REP=$3 perl -0777 -e 'my $r = $ENV{REP}; $r =~ s/\\x([0-9a-f]{2})/chr(hex($1))/ge;
	local $/; my $d = <STDIN>; $d =~ s/$ENV{PAT}/$r/g or die "fmedit: no match\n"; print $d;' \
	<"$f.body" >"$f.new"
[ "$(stat -c %s "$f.new")" = $((n - 4)) ] || { echo "fmedit: the length changed"; exit 1; }
crc=$(gzip -c <"$f.new" | tail -c 8 | head -c 4 | od -An -tu4 | tr -d ' ')
b() { printf "\\x$(printf %02x $(($1 & 255)))"; }
{ b $((crc >> 24)); b $((crc >> 16)); b $((crc >> 8)); b "$crc"; } >>"$f.new"
mv "$f.new" "$f" && rm -f "$f.body"
EOF
chmod 755 "$base/fmedit"
# a file the first entry will point at (.. climbs from the dataset directory)
node_exec node1 sh -c 'echo FOREIGN >/dev/shm/foreign.0 && chmod 644 /dev/shm/foreign.0'
rm -rf "$work1/.scr" "$work1"/scr.dataset.* "$work1/ckpt"
# where REL would land from the staging area, and from the prefix itself
evil=$(realpath -m "$work1/.scr/scr.dataset.0/../../../../x/evil")
evil2=$(realpath -m "$work1/../../../../x/evil")
script paths.sh "srun --mpi=pmix --kill-on-bad-exit=1 $example --steps 6 --every 2 --size 65536 --files 2
c=/dev/shm/$user1/scr.\$SLURM_JOB_ID
d=\$(ls -d \$c/scr.dataset.* | sort -V | tail -1)
# rank 0, file 0: its path climbs out of the dataset to /dev/shm/foreign.0
$base/fmedit \$c/filemap_0.scrinfo 'ckpt/rank_0_f0\\.dat' '../../../foreign.0'
# rank 0, file 1: only where it goes (REL) climbs out of the dataset
$base/fmedit \$c/filemap_0.scrinfo 'REL\\x00\\x00\\x00\\x00\\x01ckpt/rank_0_f1\\.dat' \\
	'REL\\x00\\x00\\x00\\x00\\x01../../../../x/evil'
# rank 1: its dataset directory is a copy outside the job's trees
mkdir -p /dev/shm/decoy00 && cp -a \$c /dev/shm/decoy00/
$base/fmedit \$c/filemap_1.scrinfo '/dev/shm/$user1/' '/dev/shm/decoy00/'
touch /dev/shm/$user1/stamp && echo planted \$d"
run_job paths.out asuser env SCR_FLUSH=0 sbatch --parsable --scr=on -N2 -w 'node[1-2]' \
	--ntasks-per-node=2 -o paths.out paths.sh
# what the epilog wrote outside the prefix: files newer than the job's end.
# The host paths the nodes share (the checkout and build tree, which may
# lie under /tmp) are left out: other suites write there meanwhile.
shared=()
while read -r p; do
	case "$p" in /tmp/* | /dev/shm/*) shared+=(! -path "$p/*") ;; esac
done <"$cl/nodes/shared"
outside=$(node_exec node1 find /dev/shm /tmp -newer "/dev/shm/$user1/stamp" ! -type d \
	! -path "/dev/shm/$user1/scr.$j/*" "${shared[@]}"
	find "$base" -newer "$work1/paths.out" ! -type d ! -path "$work1/*" ! -path "$cl/*")
check "(c) the job planted the entries" has "$work1/paths.out" '^planted '
epilog_lines "$j" >"$base/paths.log"
sed 's/^/# /' "$base/paths.log"
check "(c) the path climbing out is refused, one line" \
	test "$(grep -c 'foreign\.0: not a file of dataset' "$base/paths.log")" -eq 1
check "(c) the REL climbing out is refused, one line" \
	test "$(grep -c 'rank_0_f1\.dat: not a file of dataset' "$base/paths.log")" -eq 1
grep "decoy00/scr.$j/.*is not one of the job's" "$base/paths.log" >"$base/decoy.log"
check "(c) the directory elsewhere is refused for rank 1's files" \
	test "$(grep -c 'rank_1_f[01]\.dat:' "$base/decoy.log")" -eq 2
check "(c) one line each" test -z "$(sed 's/.*scr-epilog//' "$base/decoy.log" | sort | uniq -d)"
check "(c) the index rebuilt ranks 0 and 1 from XOR" \
	has "$work1/.scr/log" "event=INDEX job=$j .*rebuilt=2 .*ok=1"
check "(c) nothing was written where REL pointed" test ! -e "$evil" -a ! -e "$evil2"
check "(c) nor anywhere else outside the prefix and the job's trees" \
	sh -c '[ -z "$1" ] || { echo "--- written outside:"; echo "$1" | head -20; exit 1; }' sh "$outside"
check "(c) every file on the prefix is $user1's" owned_by "$user1" "$work1"
script verify.sh "srun --mpi=pmix --kill-on-bad-exit=1 $example --steps 8 --every 2 --size 65536 --files 2 --expect-restart 6"
run_job verify.out submit --scr=on -N2 -w 'node[2-3]' --ntasks-per-node=2 -o verify.out verify.sh
check "(c) a restart from the rebuilt dataset verifies every byte" \
	has "$work1/verify.out" 'restarted from step\.6, every byte verified'

# ---- (d) a symlinked directory and a hard link to a foreign file
node_exec node1 sh -c 'echo FOREIGN >/dev/shm/foreign.1 && chmod 666 /dev/shm/foreign.1'
rm -rf "$work1/.scr" "$work1"/scr.dataset.* "$work1/ckpt"
script links.sh "srun --mpi=pmix --kill-on-bad-exit=1 $example --steps 6 --every 2 --size 65536 --files 2
c=/dev/shm/$user1/scr.\$SLURM_JOB_ID
d=\$(ls -d \$c/scr.dataset.* | sort -V | tail -1)
# node1's rank files: their directory becomes a link to a copy of it
cp -a \$d/ckpt /dev/shm/decoy01 && rm -rf \$d/ckpt && ln -s /dev/shm/decoy01 \$d/ckpt
# rank 0's redundancy file: a hard link to a file that is not the user's
x=\$(ls \$d/*.xor 2>/dev/null | head -1)
rm -f \"\$x\" && ln /dev/shm/foreign.1 \"\$x\" && echo planted \$x"
run_job links.out asuser env SCR_FLUSH=0 sbatch --parsable --scr=on -N2 -w 'node[1-2]' \
	--ntasks-per-node=2 -o links.out links.sh
check "(d) the job planted the links" has "$work1/links.out" '^planted .*\.xor'
epilog_lines "$j" >"$base/links.log"
sed 's/^/# /' "$base/links.log"
grep 'ckpt is a symbolic link; not following it' "$base/links.log" >"$base/linked.log"
check "(d) the linked directory is refused for each of node1's four files" \
	test "$(grep -c 'rank_[01]_f[01]\.dat: not read' "$base/linked.log")" -eq 4
check "(d) one line each" test -z "$(sed 's/.*scr-epilog//' "$base/linked.log" | sort | uniq -d)"
check "(d) the hard link is refused, one line" \
	test "$(grep -c '\.xor belongs to uid 0, not to the job.s user' "$base/links.log")" -eq 1
check "(d) the index rebuilt node1's ranks from XOR" \
	has "$work1/.scr/log" "event=INDEX job=$j .*rebuilt=2 .*ok=1"
check "(d) nothing of the foreign file is on the prefix" test -z "$(grep -rl FOREIGN "$work1")"
check "(d) which is as it was" test "$(node_exec node1 sh -c 'stat -c "%U %a" /dev/shm/foreign.1;
	cat /dev/shm/foreign.1' | tr '\n' ' ')" = "root 666 FOREIGN "
check "(d) every file on the prefix is $user1's" owned_by "$user1" "$work1"

# ---- (e) a second store named by the job's config file
cat >"$work2/.scrconf" <<EOF
STORE=/tmp COUNT=1
CKPT=0 INTERVAL=1 TYPE=XOR STORE=/tmp
EOF
chown "$user2:" "$work2/.scrconf"
as2 script store.sh "srun --mpi=pmix --kill-on-bad-exit=1 $example --steps 200 --every 2 --size 65536 --sleep-ms 300"
as2 start_job store.out 'checkpoint step.6 complete' 90 \
	asuser env SCR_FLUSH=0 sbatch --parsable --scr=on -N2 -w 'node[2-3]' \
	--ntasks-per-node=2 -o store.out store.sh
check "(e) the checkpoints are in the second store" \
	node_exec node2 sh -c "ls -d /tmp/$user2/scr.$j/scr.dataset.*"
scancel "$j"
wait_job "$j"
check "(e) the cancelled job was scavenged from it and indexed" \
	has "$work2/.scr/log" "event=INDEX job=$j .*ok=1"
for n in node2 node3; do
	check "(e) $n: the epilog removed the job's directory in the second store" \
		node_exec "$n" test ! -e "/tmp/$user2/scr.$j"
	check "(e) $n: and in the first" node_exec "$n" test ! -e "/dev/shm/$user2/scr.$j"
done
check "(e) every file on the prefix is $user2's" owned_by "$user2" "$work2"

san_check "$cl/san/log" slurmstepd
finish
