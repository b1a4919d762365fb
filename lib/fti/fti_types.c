/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_types.c - FTI's composite types (FTI_InitCompositeType,
 * FTI_AddScalarField, FTI_AddVectorField).  In FTI they describe a type's
 * fields for HDF5 output; its binary checkpoints hold the bytes.  So here:
 * a composite type is a type of its size (FTI_InitType), its fields are
 * checked as FTI 1.6 checks them (a composite handle, a known field type,
 * at most 128 fields, 1 to 32 dimensions of positive length), and each
 * checkpoint carries their description as one more variable,
 * FTI_TYPES_ID: text that `scr print` shows ("type 11 Particle 32 bytes",
 * a line per field, "variable 2: type 11"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fti.h"
#include "fti_priv.h"
#include "log.h"
#include "scr.h"
#include "scr_mem.h"

#define FIELDS_MAX 128
#define DIMS_MAX 32

typedef struct {
    char name[FTI_BUFS];
    fti_id_t type;
    size_t offset;
    int ndims; /* 0: a scalar */
    int dims[DIMS_MAX];
} field_t;

typedef struct {
    fti_id_t handle;
    char name[FTI_BUFS];
    size_t size;
    int nfields;
    field_t *fields;
} composite_t;

static struct {
    composite_t *c;
    int n;
    char *text; /* the description as checkpointed */
    size_t len;
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
    (void)h5g; /* a binary checkpoint has no groups; FTI does not check it */
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
    c->size = size;
    /* FTI's default name: Type<handle> */
    if (name && *name)
        snprintf(c->name, sizeof(c->name), "%s", name);
    else
        snprintf(c->name, sizeof(c->name), "Type%d", handle);
    return handle;
}

static int field_add(const char *fn, fti_id_t id, const char *name, fti_id_t tid,
                     size_t offset, int ndims, const int *dims)
{
    composite_t *c = ct_find(id);
    if (!c || !fti_type_known(tid)) {
        log_err("%s: %s %d is not %s", fn, !c ? "type" : "field type", !c ? id : tid,
                !c ? "a composite type" : "a type handle");
        return FTI_NSCS;
    }
    if (c->nfields >= FIELDS_MAX) {
        log_err("%s: %s: a composite type has at most %d fields", fn, c->name,
                FIELDS_MAX);
        return FTI_NSCS;
    }
    field_t *f = realloc(c->fields, sizeof(*f) * (size_t)(c->nfields + 1));
    if (!f) {
        log_err("%s: out of memory", fn);
        return FTI_NSCS;
    }
    c->fields = f;
    f = &c->fields[c->nfields++];
    memset(f, 0, sizeof(*f));
    /* FTI's default field name: T<n> */
    if (name && *name)
        snprintf(f->name, sizeof(f->name), "%s", name);
    else
        snprintf(f->name, sizeof(f->name), "T%d", c->nfields - 1);
    f->type = tid;
    f->offset = offset; /* FTI does not check offsets either: use offsetof */
    f->ndims = ndims;
    if (ndims > 0)
        memcpy(f->dims, dims, sizeof(int) * (size_t)ndims);
    return FTI_SCES;
}

int FTI_AddScalarField(fti_id_t id, const char *name, fti_id_t fid, size_t offset)
{
    return field_add("FTI_AddScalarField", id, name, fid, offset, 0, NULL);
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
    return field_add("FTI_AddVectorField", id, name, tid, offset, ndims, dim_sizes);
}

/* the name a type handle goes by in the description */
static const char *type_name(fti_id_t t, char *buf, size_t len)
{
    static const char *basic[] = {"char", "short", "int",   "long",   "uchar",  "ushort",
                                  "uint", "ulong", "float", "double", "ldouble"};
    if (t >= 0 && t < (fti_id_t)(sizeof(basic) / sizeof(basic[0])))
        return basic[t];
    snprintf(buf, len, "type %d", t);
    return buf;
}

/* a type and its fields in the description */
static void text_add(FILE *f, const composite_t *c)
{
    char tb[32];
    fprintf(f, "type %d %s %zu bytes\n", c->handle, c->name, c->size);
    for (int i = 0; i < c->nfields; i++) {
        const field_t *d = &c->fields[i];
        fprintf(f, "  %s %s at %zu", d->name, type_name(d->type, tb, sizeof(tb)),
                d->offset);
        for (int k = 0; k < d->ndims; k++)
            fprintf(f, "%s%d", k ? "x" : " [", d->dims[k]);
        fprintf(f, "%s\n", d->ndims ? "]" : "");
    }
}

int fti_types_protect(void)
{
    if (ct.n == 0)
        return 0;
    free(ct.text);
    ct.text = NULL;
    ct.len = 0;
    FILE *f = open_memstream(&ct.text, &ct.len);
    if (!f) {
        log_err("FTI: out of memory for the composite types");
        return -1;
    }
    for (int i = 0; i < ct.n; i++)
        text_add(f, &ct.c[i]);
    for (int i = 0; i < fti_var_count(); i++) {
        void *ptr;
        int64_t count;
        fti_id_t type;
        int id = fti_var_id(i);
        if (fti_var_info(id, &ptr, &count, &type) == 0 && ct_find(type))
            fprintf(f, "variable %d: %lld of type %d\n", id, (long long)count, type);
    }
    if (fclose(f) != 0 || !ct.text) {
        log_err("FTI: out of memory for the composite types");
        return -1;
    }
    return SCR_Protect(FTI_TYPES_ID, ct.text, (int64_t)ct.len, 1) == SCR_SUCCESS ? 0 : -1;
}

int fti_types_add_icp(void)
{
    if (!ct.text)
        return 0;
    return SCR_Checkpoint_add(FTI_TYPES_ID) == SCR_SUCCESS ? 0 : -1;
}

void fti_types_unprotect(void)
{
    if (ct.text)
        SCR_Unprotect(FTI_TYPES_ID);
}

void fti_types_free(void)
{
    for (int i = 0; i < ct.n; i++)
        free(ct.c[i].fields);
    free(ct.c);
    free(ct.text);
    memset(&ct, 0, sizeof(ct));
}
