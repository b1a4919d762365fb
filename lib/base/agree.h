/* SPDX-License-Identifier: BSD-3-Clause */
/* agree.h - one verdict from many processes, told once.
 *
 * After a collective step some processes may have failed, each knowing why.
 * Every process learns the lowest failing rank, so exactly one process
 * prints its reason instead of every failed process printing its own.
 */
#ifndef SCR_AGREE_H
#define SCR_AGREE_H

#include <mpi.h>

/* lowest rank of comm with failed != 0, or the size of comm if none failed */
int agree_first_failure(MPI_Comm comm, int failed);

#endif
