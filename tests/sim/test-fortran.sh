#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-fortran.sh PROGRAM: the Fortran module on simulated nodes: a
# checkpoint written from Fortran, then a restart that checks the data,
# with SCR on a communicator of the program's (SCR_INIT_COMM, both styles).
source "$(dirname "$0")/lib.sh"
prog=$(readlink -f "$1")
out=$(mktemp -d)
trap 'sim_cleanup; rm -rf "$out"' EXIT
export SIM_NP=4
sim_setup 2
check "Fortran: checkpoint written" sim_run "$out/1" node1:2,node2:2 "$prog"
check "Fortran: wrote fckpt.1" has "$out/1" "fortran: wrote fckpt.1"
check "Fortran: restart run" sim_run "$out/2" node1:2,node2:2 "$prog"
check "Fortran: memory recovered and verified" has "$out/2" "fortran: recovered fmem.2"
check "Fortran: restarted and verified" has "$out/2" "fortran: restarted from fckpt.1"
check "Fortran: clean finish" has "$out/2" "fortran: ok"
check "Fortran: SCR_INIT_COMM put SCR on the communicator given" \
	sh -c "ls -d $("$simnode" shm "$sim_dir")/node1/*/scr.*/comm.* >/dev/null"
finish
