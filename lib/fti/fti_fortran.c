/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_fortran.c - the one call FTI's Fortran module (use FTI, written by
 * lib/fti/fti_f90.sh) cannot bind to directly: FTI_Init takes an MPI
 * communicator, which Fortran holds as an integer handle.  The rest of the
 * module binds to fti.h's functions as they are.  It lives in libscr, so a
 * program built against the module needs libscrf only for the module's
 * own procedures. */
#include <mpi.h>

#include "fti.h"

int scr_fti_init_f(const char *file, MPI_Fint *comm);

/* FTI_Init for Fortran.  On success COMM becomes FTI_COMM_WORLD's handle,
 * as FTI's module returns it: FTI programs go on with the communicator
 * they are handed back. */
int scr_fti_init_f(const char *file, MPI_Fint *comm)
{
    int rc = FTI_Init(file, MPI_Comm_f2c(*comm));

    if (rc == FTI_SCES)
        *comm = MPI_Comm_c2f(FTI_COMM_WORLD);
    return rc;
}
