/* SPDX-License-Identifier: BSD-3-Clause */
/* namejoin.h - which of several sets of file names meet a job's own names,
 * found without any one process holding every rank's names: each name is
 * sent to the rank that judges it (nameset.h), which sees every copy.  A
 * flush uses it to find the older datasets that named one of its files
 * (flush.c).
 */
#ifndef SCR_NAMEJOIN_H
#define SCR_NAMEJOIN_H

#include <mpi.h>

#include "kvtree.h"

/* mine: this process's names (rel -> anything); theirs[i], i < k: its share
 * of set i's names, the same way.  hit[i] becomes 1 on every process if a
 * name of set i is one of any process's own names, else 0.  Collective. */
int namejoin_hits(MPI_Comm comm, const kvtree_t *mine, kvtree_t *const *theirs, int k,
                  int *hit);

#endif
