/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_fortran.c - the calls FTI's Fortran module (use FTI, written by
 * lib/fti/fti_f90.sh) cannot bind to directly: FTI_Init takes an MPI
 * communicator, which Fortran holds as an integer handle, and
 * FTI_SetAttribute a struct by value.  The rest of the module binds to
 * fti.h's functions as they are.  It lives in libscr, so a
 * program built against the module needs libscrf only for the module's
 * own procedures. */
#include <mpi.h>

#include "fti.h"

#include <stdint.h>
#include <string.h>

int scr_fti_init_f(const char *file, MPI_Fint *comm);
int scr_fti_attr_name_f(int id, const char *name, int flag);
int scr_fti_attr_dim_f(int id, int ndims, const int64_t *dims, int flag);

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

/* FTI_SetAttribute with a name: without FTI_ATTRIBUTE_NAME in flag
 * nothing is set, as FTI's module does */
int scr_fti_attr_name_f(int id, const char *name, int flag)
{
    if (!(flag & FTI_ATTRIBUTE_NAME))
        return FTI_SCES;
    FTIT_attribute a;
    memset(&a, 0, sizeof(a));
    strncpy(a.name, name, sizeof(a.name) - 1);
    return FTI_SetAttribute(id, a, FTI_ATTRIBUTE_NAME);
}

/* FTI_SetAttribute with dimensions: a negative one is FTI_NSCS */
int scr_fti_attr_dim_f(int id, int ndims, const int64_t *dims, int flag)
{
    if (!(flag & FTI_ATTRIBUTE_DIM))
        return FTI_SCES;
    FTIT_attribute a;
    memset(&a, 0, sizeof(a));
    a.dim.ndims = ndims;
    for (int i = 0; i < ndims && i < 32; i++) {
        if (dims[i] < 0)
            return FTI_NSCS;
        a.dim.count[i] = dims[i];
    }
    return FTI_SetAttribute(id, a, FTI_ATTRIBUTE_DIM);
}
