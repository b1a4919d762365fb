/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_types.c - FTI's composite types (FTI_InitCompositeType,
 * FTI_AddScalarField, FTI_AddVectorField).  In FTI they only describe a
 * type's fields for HDF5 output; its binary checkpoints hold the bytes.  So
 * here: a composite type is a type of its size (FTI_InitType), and its
 * fields are kept with FTI 1.6's checks (a composite handle, a known field
 * type, at most 128 fields, 1 to 32 dimensions of positive length). */
#include <stdlib.h>
#include <string.h>

#include "fti.h"
#include "fti_priv.h"
#include "log.h"

#define FIELDS_MAX 128
#define DIMS_MAX 32

typedef struct {
    fti_id_t handle;
    char name[FTI_BUFS];
    int nfields;
} composite_t;

static struct {
    composite_t *c;
    int n;
} ct;

static composite_t *ct_find(fti_id_t handle)
{
    for (int i = 0; i < ct.n; i++)
        if (ct.c[i].handle == handle)
            return &ct.c[i];
    return NULL;
}

fti_id_t FTI_InitCompositeType(const char *name, size_t size, FTIT_H5Group *h5g)
{
    (void)h5g; /* HDF5 groups: not provided (docs/fti.md) */
    fti_id_t handle;
    if (size == 0 || size > (size_t)INT32_MAX ||
        FTI_InitType(&handle, (int)size) != FTI_SCES) {
        log_err("FTI_InitCompositeType: %s: a type of %zu bytes cannot be made",
                name ? name : "(no name)", size);
        return FTI_NSCS;
    }
    composite_t *c = realloc(ct.c, sizeof(*c) * (size_t)(ct.n + 1));
    if (!c) {
        log_err("FTI_InitCompositeType: out of memory");
        return FTI_NSCS;
    }
    ct.c = c;
    c = &ct.c[ct.n++];
    memset(c, 0, sizeof(*c));
    c->handle = handle;
    /* FTI's default name: Type<handle> */
    if (name && *name)
        snprintf(c->name, sizeof(c->name), "%s", name);
    else
        snprintf(c->name, sizeof(c->name), "Type%d", handle);
    return handle;
}

int FTI_AddScalarField(fti_id_t id, const char *name, fti_id_t fid, size_t offset)
{
    (void)name;
    (void)offset; /* FTI does not check offsets either: use offsetof */
    composite_t *c = ct_find(id);
    if (!c || !fti_type_known(fid)) {
        log_err("FTI_AddScalarField: %s %d is not %s", !c ? "type" : "field type",
                !c ? id : fid, !c ? "a composite type" : "a type handle");
        return FTI_NSCS;
    }
    if (c->nfields >= FIELDS_MAX) {
        log_err("FTI_AddScalarField: %s: a composite type has at most %d fields", c->name,
                FIELDS_MAX);
        return FTI_NSCS;
    }
    c->nfields++;
    return FTI_SCES;
}

int FTI_AddVectorField(fti_id_t id, const char *name, fti_id_t tid, size_t offset,
                       int ndims, int *dim_sizes)
{
    int ok = dim_sizes && ndims >= 1 && ndims <= DIMS_MAX;
    for (int i = 0; ok && i < ndims; i++)
        ok = dim_sizes[i] >= 1;
    if (!ok) {
        log_err("FTI_AddVectorField: type %d: a field has 1 to %d dimensions, each of "
                "positive length",
                id, DIMS_MAX);
        return FTI_NSCS;
    }
    return FTI_AddScalarField(id, name, tid, offset);
}

void fti_types_free(void)
{
    free(ct.c);
    memset(&ct, 0, sizeof(ct));
}
