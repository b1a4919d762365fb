/* SPDX-License-Identifier: BSD-3-Clause */
/* red_rs.h - encode and recovery of RS sets with the code of spread.h.
 *
 * Called by red_ec.c, which owns the redundancy file (header, CRCs, filemap
 * records) and gives each member's job (ecpipe.h) with its files open.
 * Both are collective over the set's communicator.
 */
#ifndef SCR_RED_RS_H
#define SCR_RED_RS_H

#include <mpi.h>

#include "ecpipe.h"

/* each member's slices to the others, their parity chunks into its file */
int red_rs_encode(ec_job_t *j, const scr_ctx_t *ctx, MPI_Comm comm, scr_error_t *err);

/* lost[r] flags the nlost (1..m) members that write their files again;
 * the survivors read theirs */
int red_rs_recover(ec_job_t *j, const scr_ctx_t *ctx, MPI_Comm comm, const int *lost,
                   int nlost, scr_error_t *err);

#endif
