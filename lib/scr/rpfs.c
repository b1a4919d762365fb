/* SPDX-License-Identifier: BSD-3-Clause */
/* rpfs.c - restart straight from the prefix */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agree.h"
#include "io.h"
#include "kvtree_mpi.h"
#include "log.h"
#include "nameset.h"
#include "path.h"
#include "pfs.h"
#include "place.h"
#include "r2f.h"
#include "r2f_mpi.h"
#include "rpfs.h"

struct rpfs {
    int id;
    char dir[256];
    char name[1024];
};

/* rank 0: the summary; 0, -1 (known bad), -2 */
static int rpfs_read(scr_ctx_t *ctx, const char *dsetdir, int id, kvtree_t *dset,
                     scr_error_t *err)
{
    kvtree_t *summary = kvtree_new();
    int rc = 0, complete = 0, ranks = 0;
    if (summary_read(dsetdir, summary, err) < 0)
        rc = -1;
    else if (kvtree_util_get_int(summary, "COMPLETE", &complete) < 0 || !complete)
        rc = -1, errprintf(err, "%s is marked incomplete", dsetdir);
    kvtree_merge(dset, kvtree_get(summary, "DSET"));
    kvtree_util_get_int(dset, "RANKS", &ranks);
    if (rc == 0 && kvtree_get(dset, "MEM") && ranks != ctx->ranks)
        rc = -2, errprintf(err,
                           "dataset %d holds memory checkpoints (SCR_Protect) of %d "
                           "ranks; they restore only in a job of %d ranks",
                           id, ranks, ranks);
    kvtree_delete(&summary);
    return rc;
}

/* This rank's share of the dataset's files (rel -> {SIZE, CRC}), each name
 * once in the job: the tree read spread over the ranks (r2f_read_names),
 * every entry sent to the rank that judges its name (nameset.h), so a file
 * several ranks recorded (a bypass dataset's shared file) is checked once
 * and no rank holds every rank's names.  Collective; -1 if the tree could
 * not be read. */
static int rpfs_share(scr_ctx_t *ctx, const char *dsetdir, kvtree_t *mine,
                      scr_error_t *err)
{
    kvtree_t *read = kvtree_new(), *send = kvtree_new(), *recv = kvtree_new();
    int rc = r2f_read_names(ctx->comm, dsetdir, read, err);
    nameset_route_entries(send, read, ctx->ranks);
    kvtree_exchange(send, recv, ctx->comm);
    for (kvtree_elem_t *e = kvtree_first(recv); e; e = kvtree_elem_next(e))
        kvtree_merge(mine, kvtree_elem_tree(e));
    kvtree_delete(&read);
    kvtree_delete(&send);
    kvtree_delete(&recv);
    return rc;
}

/* my share of the files: finish a placement cut short, then check size and
 * CRC32.  0, -1 (known bad), -2 (could not place) */
static int rpfs_check(scr_ctx_t *ctx, const char *dir, const kvtree_t *files,
                      scr_error_t *err)
{
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e)) {
        const char *rel = kvtree_elem_key(e);
        kvtree_t *m = kvtree_elem_tree(e);
        char path[SCR_PATH_MAX * 2];
        uint64_t size, want;
        uint32_t crc, wcrc;
        struct stat st;
        if (place_staged(dir) && place_file(ctx->prefix, dir, rel, err) < 0) {
            char staged[SCR_PATH_MAX * 2];
            snprintf(staged, sizeof(staged), "%s/%s/%s", ctx->prefix, dir, rel);
            snprintf(path, sizeof(path), "%s/%s", ctx->prefix, rel);
            /* neither staged nor placed: the file is gone */
            return lstat(staged, &st) < 0 && lstat(path, &st) < 0 ? -1 : -2;
        }
        place_file_path(ctx->prefix, dir, rel, path, sizeof(path));
        int have_crc = kvtree_util_get_crc32(m, "CRC", &wcrc) == 0;
        if (have_crc ? io_file_crc(path, &crc, &size, err) < 0 : lstat(path, &st) < 0)
            return have_crc ? -1 : (errprintf(err, "%s: %s", path, strerror(errno)), -1);
        if (!have_crc)
            size = (uint64_t)st.st_size;
        if (kvtree_util_get_u64(m, "SIZE", &want) == 0 && want != size)
            return errprintf(err, "%s: %llu bytes, expected %llu", path,
                             (unsigned long long)size, (unsigned long long)want),
                   -1;
        if (have_crc && crc != wcrc)
            return errprintf(err, "%s: CRC32 0x%08x, expected 0x%08x", path, crc, wcrc),
                   -1;
    }
    return 0;
}

/* the worst verdict of all ranks, told once by the lowest rank that has it:
 * known bad bytes (-1) anywhere outweigh any other failure (-2) */
static int rpfs_agree(scr_ctx_t *ctx, int rc, const scr_error_t *err, int id)
{
    int mine[2] = {rc == -1, rc == -2}, any[2];
    MPI_Allreduce(mine, any, 2, MPI_INT, MPI_LOR, ctx->comm);
    int worst = any[0] ? -1 : any[1] ? -2 : 0;
    if (agree_first_failure(ctx->comm, worst < 0 && rc == worst) == ctx->rank)
        log_err("restart of dataset %d from the prefix: %s", id, err->text);
    return worst;
}

int rpfs_open(scr_ctx_t *ctx, int id, const char *dir)
{
    char dsetdir[SCR_PATH_MAX + 256];
    scr_error_t err = {""};
    kvtree_t *dset = kvtree_new(), *files = kvtree_new();
    int rc = 0, nfiles = 0, total = 0;
    snprintf(dsetdir, sizeof(dsetdir), "%s/%s", ctx->prefix, dir);
    if (ctx->rank == 0)
        rc = rpfs_read(ctx, dsetdir, id, dset, &err);
    rc = rpfs_agree(ctx, rc, &err, id);
    if (rc == 0) {
        kvtree_bcast(dset, 0, ctx->comm);
        rc = rpfs_agree(ctx, rpfs_share(ctx, dsetdir, files, &err), &err, id);
    }
    if (rc == 0)
        rc = rpfs_agree(ctx, rpfs_check(ctx, dir, files, &err), &err, id);
    if (rc == 0 && place_staged(dir) && ctx->rank == 0)
        index_mark_placed(ctx->prefix, id, dir, NULL);
    nfiles = kvtree_size(files);
    kvtree_delete(&files);
    if (rc < 0) {
        kvtree_delete(&dset);
        return rc;
    }
    MPI_Reduce(&nfiles, &total, 1, MPI_INT, MPI_SUM, 0, ctx->comm);
    rpfs_close(ctx);
    struct rpfs *r = calloc(1, sizeof(*r));
    r->id = id;
    snprintf(r->dir, sizeof(r->dir), "%s", dir);
    const char *name = kvtree_get_val(dset, "NAME");
    snprintf(r->name, sizeof(r->name), "%s", name ? name : "");
    ctx->rpfs = r;
    int ranks = 0, ckpt = 0;
    kvtree_util_get_int(dset, "RANKS", &ranks);
    if (kvtree_util_get_int(dset, "CKPT", &ckpt) == 0 && ckpt > ctx->checkpoint_id)
        ctx->checkpoint_id = ckpt;
    if (ctx->rank == 0)
        log_msg("restart from the prefix: dataset %d (%s) of %d ranks, %d files, read "
                "where they are in %s by this job of %d ranks",
                id, r->name, ranks, total, ctx->prefix, ctx->ranks);
    kvtree_delete(&dset);
    return 0;
}

const char *rpfs_name(const scr_ctx_t *ctx)
{
    return ctx->rpfs ? ctx->rpfs->name : NULL;
}

int rpfs_route(const scr_ctx_t *ctx, const char *rel, char *file, size_t len)
{
    struct stat st;
    if (!ctx->rpfs || !path_is_safe_relative(rel))
        return -1;
    place_file_path(ctx->prefix, ctx->rpfs->dir, rel, file, len);
    return lstat(file, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
}

void rpfs_close(scr_ctx_t *ctx)
{
    if (!ctx->rpfs)
        return;
    free(ctx->rpfs);
    ctx->rpfs = NULL;
}
