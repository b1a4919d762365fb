/* flow.h - flow control for many processes hitting the parallel file system
 * (guide 2.32.7): rank 0 works first, then lets at most width others work at
 * once, handing out a go-ahead as each finishes.  Once any process fails,
 * later ones are told to skip their work, so a broken file system costs one
 * failure, not thousands.  Collective; every process gets the same verdict.
 */
#ifndef SCR_FLOW_H
#define SCR_FLOW_H

#include <mpi.h>

/* work returns 0 on success; it is not called on a process told to skip */
typedef int (*flow_work_fn)(void *arg);

/* returns 1 when every process's work succeeded */
int flow_run(MPI_Comm comm, int width, flow_work_fn work, void *arg);

#endif
