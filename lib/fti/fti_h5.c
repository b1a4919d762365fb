/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_h5.c - FTI's HDF5 names: groups (FTI_InitGroup, FTI_RenameGroup),
 * a variable's dataset name, shape and group (FTI_DefineDataset) and its
 * attributes (FTI_SetAttribute), and the global datasets of FTI's HDF5
 * mode (FTI_DefineGlobalDataset and the six calls around it).
 *
 * FTI built without HDF5 keeps the names and shapes with its checks and
 * writes its binary checkpoints as if they were not there; its global
 * dataset calls fail with FTI_NSCS and a warning.  SCR's checkpoints are
 * binary too (the bytes of each variable, whatever its shape), so here is
 * that FTI: the checks are FTI 1.6's.  A dataset's name, shape and
 * attributes have no reader here (FTI writes them only into its HDF5 and
 * metadata files), so only the groups, which the caller sees, are kept.  A global dataset
 * is one HDF5 file on the file system that every process writes its part into, which is
 * what SCR's cache, its redundancy and its rebuild exist to avoid; docs/fti.md says so.
 */
#include <stdlib.h>
#include <string.h>

#include "fti.h"
#include "fti_priv.h"
#include "log.h"

#define DIMS_MAX 32

/* a group as FTI keeps it; groups[0] is the root "/" */
static struct {
    FTIT_H5Group *g;
    int n;
} grp;

static int grp_root(void)
{
    if (grp.n > 0)
        return 0;
    grp.g = calloc(1, sizeof(*grp.g));
    if (!grp.g) {
        log_err("FTI_InitGroup: out of memory");
        return -1;
    }
    snprintf(grp.g[0].name, sizeof(grp.g[0].name), "/");
    grp.n = 1;
    return 0;
}

/* the group h (NULL: the root) as FTI knows it, or NULL with a line */
static FTIT_H5Group *grp_known(const char *fn, const FTIT_H5Group *h)
{
    if (grp_root() < 0)
        return NULL;
    if (!h)
        return &grp.g[0];
    if (h->id < 0 || h->id >= grp.n) {
        log_err("%s: group id %d was not made by FTI_InitGroup", fn, h->id);
        return NULL;
    }
    return &grp.g[h->id];
}

/* g's full name: its parent's, "/", its own; cut at FTI_BUFS as FTI's */
static void grp_path(FTIT_H5Group *g, const char *parent)
{
    size_t n = strnlen(parent, FTI_BUFS - 1), room;
    memmove(g->fullName, parent, n);
    room = FTI_BUFS - 1 - n;
    if (room > 0) {
        g->fullName[n++] = '/';
        room--;
    }
    size_t m = strnlen(g->name, room);
    memcpy(g->fullName + n, g->name, m);
    g->fullName[n + m] = '\0';
}

static int grp_has_child(const FTIT_H5Group *p, const char *name, int except)
{
    for (int i = 0; i < p->childrenNo; i++)
        if (p->childrenID[i] != except && strcmp(grp.g[p->childrenID[i]].name, name) == 0)
            return 1;
    return 0;
}

static int grp_parent(int id)
{
    for (int i = 0; i < grp.n; i++)
        for (int c = 0; c < grp.g[i].childrenNo; c++)
            if (grp.g[i].childrenID[c] == id)
                return i;
    return 0;
}

int FTI_InitGroup(FTIT_H5Group *h5group, const char *name, FTIT_H5Group *parent)
{
    if (!fti_ready("FTI_InitGroup"))
        return FTI_NSCS;
    FTIT_H5Group *p = grp_known("FTI_InitGroup", parent);
    if (!p)
        return FTI_NSCS;
    if (!h5group || !name || !*name || p->childrenNo >= FTI_BUFS) {
        log_err("FTI_InitGroup: %s", !h5group ? "NULL group"
                                     : !name || !*name
                                         ? "a group needs a name"
                                         : "a group has at most 256 children");
        return FTI_NSCS;
    }
    if (grp_has_child(p, name, -1)) {
        log_err("FTI_InitGroup: group %s already has the %s child", p->name, name);
        return FTI_NSCS;
    }
    int pid = (int)(p - grp.g);
    FTIT_H5Group *g = realloc(grp.g, sizeof(*g) * (size_t)(grp.n + 1));
    if (!g) {
        log_err("FTI_InitGroup: out of memory");
        return FTI_NSCS;
    }
    grp.g = g;
    g = &grp.g[grp.n];
    memset(g, 0, sizeof(*g));
    g->id = grp.n;
    snprintf(g->name, sizeof(g->name), "%s", name);
    grp_path(g, grp.g[pid].fullName);
    grp.g[pid].childrenID[grp.g[pid].childrenNo++] = g->id;
    grp.n++;
    *h5group = *g; /* FTI fills in the caller's copy as well */
    return FTI_SCES;
}

int FTI_RenameGroup(FTIT_H5Group *h5group, const char *name)
{
    if (!fti_ready("FTI_RenameGroup"))
        return FTI_NSCS;
    if (!h5group || !name || !*name) {
        log_err("FTI_RenameGroup: %s", !h5group ? "NULL group" : "a group needs a name");
        return FTI_NSCS;
    }
    FTIT_H5Group *g = grp_known("FTI_RenameGroup", h5group);
    if (!g)
        return FTI_NSCS;
    if (g->id == 0) {
        log_err("FTI_RenameGroup: the root group keeps its name");
        return FTI_NSCS;
    }
    FTIT_H5Group *p = &grp.g[grp_parent(g->id)];
    if (grp_has_child(p, name, g->id)) {
        log_err("FTI_RenameGroup: group %s already has the %s child", p->name, name);
        return FTI_NSCS;
    }
    snprintf(g->name, sizeof(g->name), "%s", name);
    grp_path(g, p->fullName);
    snprintf(h5group->name, sizeof(h5group->name), "%s", g->name);
    snprintf(h5group->fullName, sizeof(h5group->fullName), "%s", g->fullName);
    return FTI_SCES;
}

/* protected variable id's element count; -1 with a line when it is not */
static int64_t h5_count(const char *fn, int id)
{
    void *ptr;
    int64_t count;
    fti_id_t type;
    if (fti_var_info(id, &ptr, &count, &type) < 0) {
        log_err("%s: variable %d is not protected (call FTI_Protect first)", fn, id);
        return -1;
    }
    return count;
}

int FTI_DefineDataset(int id, int rank, int *dimLength, const char *name,
                      FTIT_H5Group *h5group)
{
    if (!fti_ready("FTI_DefineDataset"))
        return FTI_NSCS;
    if ((rank > 0 && !dimLength) || rank > DIMS_MAX) {
        log_err("FTI_DefineDataset: variable %d: %s", id,
                rank > DIMS_MAX ? "the rank is at most 32"
                                : "a rank above 0 needs dimLength");
        return FTI_NSCS;
    }
    int64_t count = h5_count("FTI_DefineDataset", id), n = 1;
    if (count < 0 || (h5group && !grp_known("FTI_DefineDataset", h5group)))
        return FTI_NSCS;
    for (int i = 0; i < rank; i++)
        n *= dimLength[i];
    if (rank > 0 && n != count) {
        log_err("FTI_DefineDataset: variable %d: the dimensions hold %lld elements, the "
                "variable %lld",
                id, (long long)n, (long long)count);
        return FTI_NSCS;
    }
    (void)name; /* a name for the HDF5 file, which SCR does not write */
    return FTI_SCES;
}

int FTI_SetAttribute(int id, FTIT_attribute attribute, FTIT_attributeFlag flag)
{
    if (!fti_ready("FTI_SetAttribute"))
        return FTI_NSCS;
    if (h5_count("FTI_SetAttribute", id) < 0)
        return FTI_NSCS;
    if ((flag & FTI_ATTRIBUTE_DIM) &&
        (attribute.dim.ndims < 0 || attribute.dim.ndims > DIMS_MAX)) {
        log_err("FTI_SetAttribute: variable %d: %d dimensions (0 to 32)", id,
                attribute.dim.ndims);
        return FTI_NSCS;
    }
    return FTI_SCES; /* for FTI's metadata files, which SCR does not write */
}

int fti_h5_groups(void)
{
    return grp.n > 0 ? grp.n : 1;
}

void fti_h5_free(void)
{
    free(grp.g);
    memset(&grp, 0, sizeof(grp));
}

/* ---- the global datasets of FTI's HDF5 mode: FTI without HDF5 ---- */

static int h5_global(const char *fn)
{
    log_warn("%s: global datasets are FTI's HDF5 mode (ckpt_io = 5), which SCR does not "
             "write: its checkpoints are binary, each process's own",
             fn);
    return FTI_NSCS;
}

int FTI_DefineGlobalDataset(int id, int rank, FTIT_hsize_t *dimLength, const char *name,
                            FTIT_H5Group *h5group, fti_id_t tid)
{
    (void)id, (void)rank, (void)dimLength, (void)name, (void)h5group, (void)tid;
    return h5_global("FTI_DefineGlobalDataset");
}

int FTI_AddSubset(int id, int rank, FTIT_hsize_t *offset, FTIT_hsize_t *count, int did)
{
    (void)id, (void)rank, (void)offset, (void)count, (void)did;
    return h5_global("FTI_AddSubset");
}

int FTI_UpdateGlobalDataset(int id, int rank, FTIT_hsize_t *dimLength)
{
    (void)id, (void)rank, (void)dimLength;
    return h5_global("FTI_UpdateGlobalDataset");
}

int FTI_UpdateSubset(int id, int rank, FTIT_hsize_t *offset, FTIT_hsize_t *count, int did)
{
    (void)id, (void)rank, (void)offset, (void)count, (void)did;
    return h5_global("FTI_UpdateSubset");
}

int FTI_GetDatasetRank(int did)
{
    (void)did;
    return h5_global("FTI_GetDatasetRank");
}

FTIT_hsize_t *FTI_GetDatasetSpan(int did, int rank)
{
    (void)did, (void)rank;
    h5_global("FTI_GetDatasetSpan");
    return NULL;
}

int FTI_RecoverDatasetDimension(int did)
{
    (void)did;
    return h5_global("FTI_RecoverDatasetDimension");
}
