/* SPDX-License-Identifier: BSD-3-Clause */
/* r2f_mpi.h - collective write and read of the rank2file tree (r2f.h).
 * files: this rank's "<rel>" -> {SIZE, CRC}; read fills the same form. */
#ifndef SCR_R2F_MPI_H
#define SCR_R2F_MPI_H

#include <mpi.h>

#include "error.h"
#include "kvtree.h"

int r2f_write_tree(MPI_Comm comm, const char *dsetdir, const kvtree_t *files,
                   scr_error_t *err);
int r2f_read_tree(MPI_Comm comm, const char *dsetdir, kvtree_t *myfiles,
                  scr_error_t *err);
/* Every name of a tree written by a job of any size, spread over comm: this
 * process gets those of ranks r with r % size == its rank, in the same form
 * (names two such ranks share merge into one).  Collective. */
int r2f_read_names(MPI_Comm comm, const char *dsetdir, kvtree_t *names, scr_error_t *err);

#endif
