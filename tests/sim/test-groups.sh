#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-groups.sh EXAMPLE: failure groups and topology on simulated nodes.
#  - GROUPS= lines put node1+node2 on power supply A and node3+node4 on B;
#    XOR sets over GROUP=POWER hold one rank of each supply, so losing both
#    nodes of supply A at once is still recoverable
#  - all ranks on one node: XOR says it cannot protect them and runs SINGLE
#  - SCR_TOPOLOGY=mpi: the MPI fallback finds the same nodes as PMIx
source "$(dirname "$0")/lib.sh"
ex=$(readlink -f "$1")
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

sim_setup 2
SIM_ENV=(-x SCR_TOPOLOGY=mpi -x SCR_DEBUG=1)
check "MPI topology: runs" sim_run "$out/mpi" node1:2,node2:2 "$ex" --steps 2 --size 1000
check "MPI topology: says so" has "$out/mpi" "4 ranks on 2 nodes \(topology from mpi\)"
SIM_ENV=(-x SCR_DEBUG=1)
check "PMIx topology: runs" sim_run "$out/pmix" node1:2,node2:2 "$ex" --steps 2 --size 1000
check "PMIx topology: says so" has "$out/pmix" "4 ranks on 2 nodes \(topology from pmix\)"
finish
