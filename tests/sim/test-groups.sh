#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-groups.sh EXAMPLE SUBCOMM: failure groups and topology on simulated
# nodes, and groups of ranks that each run SCR on their own communicator.
#  - GROUPS= lines put node1+node2 on power supply A and node3+node4 on B;
#    XOR sets over GROUP=POWER hold one rank of each supply, so losing both
#    nodes of supply A at once is still recoverable
#  - all ranks on one node: XOR says it cannot protect them and runs SINGLE;
#    three ranks on one node, one on each of two others: the rank left in
#    no set it can join runs SINGLE, the others XOR
#  - SCR_TOPOLOGY=mpi: the MPI fallback finds the same nodes as PMIx; with
#    PMIx the node communicator and the job's nodes come from its lists,
#    without it (and for SCR_Init_comm) from messages between the ranks
#  - SCR_Init_comm (SUBCOMM, tests/sim/subcomm.c): two groups sharing every
#    node, XOR to one prefix and PARTNER to another, and a rank outside
#    both; a lost node rebuilt for each group, then every cache lost: the
#    group that flushed fetches, the other starts over
source "$(dirname "$0")/lib.sh"
ex=$(readlink -f "$1")
sc=$(readlink -f "$2")
out=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$out"' EXIT
ALL=node1:2,node2:2,node3:2,node4:2

sim_setup 5
cat >"$pfs/groups.conf" <<EOC
GROUPS=node1 POWER=psuA
GROUPS=node2 POWER=psuA
GROUPS=node3 POWER=psuB
GROUPS=node4 POWER=psuB
GROUPS=node5 POWER=psuB
CKPT=0 TYPE=XOR GROUP=POWER SET_SIZE=8
EOC
SIM_ENV=(-x SCR_CONF_FILE="$pfs/groups.conf" -x SCR_DEBUG=1 -x SCR_FLUSH=0)
check "groups: checkpoint with XOR over power supplies" \
	sim_run "$out/g1" "$ALL" "$ex" --steps 4 --size 200000
check "groups: XOR sets of 2 (one rank per supply)" \
	sh -c "test \$(find $("$simnode" shm "$sim_dir") -name '*_of_2_in_*.xor' | wc -l) -eq 8"
check "groups: the sets made row by row, no rank partitioning the job" \
	sh -c "! grep -q 'rank 0 partitions the job' '$out/g1'"
for n in node1 node2; do
	"$simnode" kill "$sim_dir" $n
	"$simnode" wipe "$sim_dir" $n
done
check "groups: both nodes of supply A lost, restart rebuilds from supply B" \
	sim_run "$out/g2" node3:3,node4:3,node5:2 "$ex" --steps 6 --size 200000 --expect-restart 4
check "groups: four ranks rebuilt" has "$out/g2" "dataset 2 \(step.4\) ready, 4 ranks rebuilt"

sim_setup 1
SIM_ENV=(-x SCR_COPY_TYPE=XOR -x SCR_DEBUG=1 -x SCR_FLUSH=0)
export SIM_NP=4
check "one node: runs" sim_run "$out/one" node1:4 "$ex" --steps 2 --size 1000
check "one node: XOR falls back to SINGLE, said once" \
	sh -c "test \$(grep -c 'falling back to SINGLE' '$out/one') -eq 1"
check "one node: the checkpoint is SINGLE" has "$out/one" "dataset 1 \(step.2\).*SINGLE"

# uneven nodes: node1 runs three ranks, node2 and node3 one each; its third
# rank is a row of one, too short for sets made row by row, so rank 0
# partitions the job, which leaves one of node1's ranks in no set it can
# join, and that rank alone keeps its data as SINGLE
sim_setup 3
SIM_ENV=(-x SCR_COPY_TYPE=XOR -x SCR_SET_SIZE=4 -x SCR_DEBUG=1 -x SCR_FLUSH=0)
export SIM_NP=5
check "uneven nodes: runs" sim_run "$out/uneven" node1:3,node2:1,node3:1 "$ex" --steps 2 --size 1000
check "uneven nodes: a row too short, rank 0 partitions" \
	has "$out/uneven" "a row of the failure groups is too short or too long.*rank 0 partitions the job"
check "uneven nodes: one rank has no partner outside its node, said once" \
	sh -c "test \$(grep -c 'no XOR partner outside failure group of rank [0-9]*; its data is kept as SINGLE' '$out/uneven') -eq 1"
check "uneven nodes: the others are in XOR sets" \
	sh -c "test \$(find $("$simnode" shm "$sim_dir") -name '*_of_2_in_*.xor' | wc -l) -ge 4"
export SIM_NP=4

sim_setup 2
SIM_ENV=(-x SCR_TOPOLOGY=mpi -x SCR_DEBUG=1)
check "MPI topology: runs" sim_run "$out/mpi" node1:2,node2:2 "$ex" --steps 2 --size 1000
check "MPI topology: says so" has "$out/mpi" "4 ranks on 2 nodes \(topology from mpi\)"
check "MPI topology: the node communicator from a rendezvous" \
	has "$out/mpi" "node communicator from a rendezvous on host names\$"
check "MPI topology: the job's nodes sent to rank 0" has "$out/mpi" "the job's nodes node\[1-2\] \(sent to rank 0\)"
SIM_ENV=(-x SCR_DEBUG=1)
check "PMIx topology: runs" sim_run "$out/pmix" node1:2,node2:2 "$ex" --steps 2 --size 1000
check "PMIx topology: says so" has "$out/pmix" "4 ranks on 2 nodes \(topology from pmix\)"
check "PMIx topology: the node communicator from PMIx's lists" \
	has "$out/pmix" "node communicator from PMIx's list of the node's ranks"
check "PMIx topology: the job's nodes from PMIx" has "$out/pmix" "the job's nodes node\[1-2\] \(from PMIx\)"
sim_setup 5
SIM_ENV=(-x SCR_DEBUG=1)
unset SIM_NP
check "subcomm: two groups checkpoint, a rank outside both" \
	sim_run "$out/s1" node1:2,node2:2,node3:2,node4:2 "$sc" --steps 4 --size 300000
check "subcomm: group A, 4 ranks, to step 4" has "$out/s1" "group A checkpointed up to step 4"
check "subcomm: group B, 3 ranks, to step 3" has "$out/s1" "group B checkpointed up to step 3"
check "subcomm: SCR never waited for the rank outside" has "$out/s1" "helper: group A is done"
check "subcomm: the rank outside got one line from SCR_Init_comm" \
	has "$out/s1" "SCR_Init_comm: MPI_COMM_NULL"
check "subcomm: a second SCR_Init_comm is refused, one line" \
	has "$out/s1" "SCR_Init_comm: called twice"
check "subcomm: each group counts its own nodes" has "$out/s1" "3 ranks on 3 nodes"
check "subcomm: a group meets by host name (PMIx speaks of the whole job)" \
	has "$out/s1" "node communicator from a rendezvous on host names\$"
check "subcomm: group A flushed to its own prefix" test -d "$pfs/prefixA/step.4"
check "subcomm: group B flushed nothing" sh -c "! ls '$pfs/prefixB' | grep -q step"
shm=$("$simnode" shm "$sim_dir")
check "subcomm: the groups keep apart on a node shared by both" \
	sh -c "test \$(find '$shm/node1' -maxdepth 4 -type d -name 'comm.*' | wc -l) -eq 2"
"$simnode" kill "$sim_dir" node3
"$simnode" wipe "$sim_dir" node3
check "subcomm: node3 lost, each group restarts from its cache" \
	sim_run "$out/s2" node1:2,node2:2,node5:2,node4:2 "$sc" --steps 6 --size 300000 --expect-a 4 --expect-b 3
check "subcomm: XOR rebuilt group A's rank on node5" has "$out/s2" "\(step.4\) ready, 1 rank rebuilt"
check "subcomm: group A read every byte of step 4" has "$out/s2" "group A of 4 ranks: restarted from step 4"
# PARTNER brings the lost rank's copy home from its partner's node
check "subcomm: group B read every byte of step 3" has "$out/s2" "group B of 3 ranks: restarted from step 3"
for n in node1 node2 node4 node5; do "$simnode" wipe "$sim_dir" $n; done
check "subcomm: every cache lost: A fetches step 6, B starts over" \
	sim_run "$out/s3" node1:2,node2:2,node5:2,node4:2 "$sc" --steps 7 --size 300000 --expect-a 6 --expect-b 0
finish
