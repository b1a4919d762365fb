/* SPDX-License-Identifier: BSD-3-Clause */
/* flow.h - flow control for many processes hitting the parallel file system
 * (guide 2.32.7): at most width processes work at once, rank 0 handing out
 * a go-ahead as each finishes.  Once any process fails, later ones are told
 * to skip their work, so a broken file system costs at most one window of
 * failures, not thousands.
 *
 * The guide has rank 0 work alone first and only then start the window.
 * That runs rank 0's files on their own: for a job that fits one window it
 * doubles the time (bench/README.md).  Here rank 0 takes one of the
 * window's places and starts the first others before its own work; the
 * callers have rank 0 write the prefix's metadata before any data moves,
 * so an unusable file system still fails on rank 0 first.  Collective;
 * every process gets the same verdict.
 */
#ifndef SCR_FLOW_H
#define SCR_FLOW_H

#include <mpi.h>

/* work returns 0 on success; it is not called on a process told to skip */
typedef int (*flow_work_fn)(void *arg);

/* returns 1 when every process's work succeeded */
int flow_run(MPI_Comm comm, int width, flow_work_fn work, void *arg);

#endif
