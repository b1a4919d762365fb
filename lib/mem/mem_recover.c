/* SPDX-License-Identifier: BSD-3-Clause */
/* mem_recover.c - the memory-protect API's read side: SCR_Recover,
 * SCR_Recover_var, SCR_Stored_size.
 *
 * Recovery reads the checkpoint SCR offers for restart (the newest that
 * SCR_Init found or rebuilt, or SCR_CURRENT).  It goes in two steps, each
 * agreed by every rank: first the metadata of every rank's file is checked
 * against what the application protected, so a wrong size, an unknown id or
 * a file of another program fails before any byte of the application's
 * memory changes; then the chunks are read straight into the buffers, each
 * checked against its hash, following a differential file's chain of bases
 * for the chunks it does not hold.  A damaged or incomplete checkpoint is
 * dropped and the next older one tried, as SCR_Complete_restart(0) does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_util.h"
#include "evlog.h"
#include "filemap.h"
#include "io.h"
#include "log.h"
#include "mem.h"
#include "redbg.h"
#include "scr_mem.h"

enum { REC_OK, REC_DAMAGED, REC_MISUSE };

typedef struct {
    int fd;
    char path[SCR_PATH_MAX * 2];
    ftiff_meta_t m;
    ftiff_layout_t l;
} mfile_t;

static void mfile_close(mfile_t *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    ftiff_layout_free(&f->l);
}

/* this rank's file of dataset id, opened and its metadata checked */
static int mfile_open(scr_ctx_t *ctx, int id, mfile_t *f, scr_error_t *err)
{
    char want[64];
    snprintf(want, sizeof(want), MEM_FILE_FMT, ctx->rank);
    memset(f, 0, sizeof(*f));
    f->fd = -1;
    kvtree_t *files = kvtree_get(filemap_get_rank(ctx->filemap, id, ctx->rank), "FILE");
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e)) {
        const char *rel = kvtree_get_val(kvtree_elem_tree(e), "REL");
        const char *base = rel ? strrchr(rel, '/') : NULL;
        if (rel && strcmp(base ? base + 1 : rel, want) == 0)
            snprintf(f->path, sizeof(f->path), "%s", kvtree_elem_key(e));
    }
    if (!f->path[0])
        return errprintf(err, "dataset %d holds no memory checkpoint of rank %d in cache",
                         id, ctx->rank);
    struct stat st;
    f->fd = open(f->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (f->fd < 0 || fstat(f->fd, &st) < 0)
        return errprintf(err, "%s: %s", f->path, strerror(errno));
    return ftiff_read(f->fd, f->path, (int64_t)st.st_size, &f->m, &f->l, err);
}

/* the application's side of the bargain: same program, same ranks, and
 * every variable to recover with the size it was checkpointed with */
static int mfile_fits(scr_ctx_t *ctx, const mfile_t *f, const int *ids, int n,
                      scr_error_t *err)
{
    struct mem_state *m = ctx->mem;
    if (f->m.app_tag != mem_app_tag(ctx))
        return errprintf(err,
                         "%s was written by another program (set SCR_MEM_TAG "
                         "alike to recover across programs)",
                         f->path);
    if (f->m.rank != ctx->rank || f->m.ranks != ctx->ranks)
        return errprintf(err, "%s belongs to rank %d of %d, not %d of %d", f->path,
                         f->m.rank, f->m.ranks, ctx->rank, ctx->ranks);
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (m->vars[k].id != ids[i])
            k++;
        int64_t have = ftiff_layout_var_size(&f->l, ids[i]);
        if (have < 0)
            return errprintf(err, "variable %d is not in %s", ids[i], f->path);
        if (have != m->vars[k].size)
            return errprintf(
                err,
                "variable %d: the checkpoint holds %lld bytes, the protected "
                "buffer has %lld (SCR_Stored_size tells the size)",
                ids[i], (long long)have, (long long)m->vars[k].size);
    }
    return 0;
}

static int read_verify(const mfile_t *f, const ftiff_chunk_t *at,
                       const ftiff_chunk_t *want, char *dst, scr_error_t *err)
{
    ssize_t got = io_pread_full(f->fd, dst, (size_t)want->chunksize, (off_t)at->fptr);
    if (got != want->chunksize)
        return errprintf(err, "%s: read: %s", f->path,
                         got < 0 ? strerror(errno) : "unexpected end of file");
    ftiff_hash_t h;
    ftiff_hash(dst, (size_t)want->chunksize, &h);
    if (memcmp(&h, &want->hash, sizeof(h)) != 0)
        return errprintf(err,
                         "%s: variable %d container %d (%lld bytes at %lld) does not "
                         "match its hash",
                         f->path, want->id, want->containerid, (long long)want->chunksize,
                         (long long)at->fptr);
    return 0;
}

typedef struct {
    ftiff_chunk_t c; /* as the newest file describes it */
    char *dst;
    int done;
} pending_t;

/* the chunks of the variables to recover */
static pending_t *pending_list(scr_ctx_t *ctx, const mfile_t *f, const int *ids, int n,
                               int *count)
{
    pending_t *p = NULL;
    *count = 0;
    for (int b = 0; b < f->l.nblocks; b++)
        for (int k = 0; k < f->l.blocks[b].numvars; k++) {
            const ftiff_chunk_t *c = &f->l.blocks[b].vars[k];
            int want = 0, v = 0;
            for (int i = 0; i < n; i++)
                want |= ids[i] == c->id;
            if (!want || c->idx < 0 || c->chunksize == 0)
                continue;
            while (ctx->mem->vars[v].id != c->id)
                v++;
            pending_t *q = realloc(p, sizeof(*p) * ((size_t)*count + 1));
            if (!q)
                break;
            p = q;
            p[*count] = (pending_t){*c, (char *)ctx->mem->vars[v].ptr + c->dptr, 0};
            (*count)++;
        }
    return p;
}

/* the same chunk in an older file of the chain */
static const ftiff_chunk_t *chunk_in(const mfile_t *f, const ftiff_chunk_t *c)
{
    for (int b = 0; b < f->l.nblocks; b++)
        for (int k = 0; k < f->l.blocks[b].numvars; k++) {
            const ftiff_chunk_t *o = &f->l.blocks[b].vars[k];
            if (o->id == c->id && o->containerid == c->containerid &&
                o->dptr == c->dptr && o->chunksize == c->chunksize)
                return o;
        }
    return NULL;
}

/* read what f holds of the pending chunks; the rest waits for its base */
static int read_from(const mfile_t *f, pending_t *p, int n, scr_error_t *err)
{
    for (int i = 0; i < n; i++) {
        const ftiff_chunk_t *at = p[i].done ? NULL : chunk_in(f, &p[i].c);
        if (!at || !at->hascontent)
            continue;
        if (read_verify(f, at, &p[i].c, p[i].dst, err) < 0)
            return -1;
        p[i].done = 1;
    }
    return 0;
}

/* read every chunk, down the chain of bases as far as needed */
static int mfile_restore(scr_ctx_t *ctx, const mfile_t *top, const int *ids, int nids,
                         scr_error_t *err)
{
    int n, rc = 0, left = 0;
    pending_t *p = pending_list(ctx, top, ids, nids, &n);
    rc = read_from(top, p, n, err);
    int64_t base = top->m.flags & FTIFF_FLAG_DIFF ? top->m.base : -1;
    for (int i = 0; i < n; i++)
        left += !p[i].done;
    while (rc == 0 && left && base >= 0) {
        mfile_t f;
        rc = mfile_open(ctx, (int)base, &f, err);
        if (rc == 0)
            rc = read_from(&f, p, n, err);
        base = rc == 0 && (f.m.flags & FTIFF_FLAG_DIFF) ? f.m.base : -1;
        mfile_close(&f);
        left = 0;
        for (int i = 0; i < n; i++)
            left += !p[i].done;
    }
    if (rc == 0 && left)
        rc =
            errprintf(err, "%s: %d chunks are in no checkpoint of its differential chain",
                      top->path, left);
    free(p);
    return rc;
}

/* every rank reports its verdict; the lowest rank with the worst one says
 * why; everyone returns the worst */
static int agree_worst(scr_ctx_t *ctx, int mine, const char *fn, const scr_error_t *err)
{
    int worst, first;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, ctx->comm);
    int me = worst != REC_OK && mine == worst ? ctx->rank : ctx->ranks;
    MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (first == ctx->rank)
        log_err("%s: %s", fn, err->text);
    return worst;
}

/* the next good checkpoint starts from the recovered one's layout */
static void mem_seed(struct mem_state *m, mfile_t *f, int id)
{
    ftiff_layout_free(&m->layout);
    m->layout = f->l;
    memset(&f->l, 0, sizeof(f->l));
    m->prev_id = id;
    m->prev_seq = (int)f->m.seq;
}

/* one attempt on dataset id */
static int recover_from(scr_ctx_t *ctx, int id, const char *fn, const int *ids, int n,
                        int consume)
{
    mfile_t f;
    scr_error_t err = {""};
    int v = mfile_open(ctx, id, &f, &err) < 0       ? REC_DAMAGED
            : mfile_fits(ctx, &f, ids, n, &err) < 0 ? REC_MISUSE
                                                    : REC_OK;
    v = agree_worst(ctx, v, fn, &err);
    if (v == REC_OK)
        v = agree_worst(ctx,
                        mfile_restore(ctx, &f, ids, n, &err) < 0 ? REC_DAMAGED : REC_OK,
                        fn, &err);
    if (v == REC_OK && consume) {
        mem_seed(ctx->mem, &f, id);
        ctx->restart_id = -1;
        if (ctx->rank == 0)
            evlog_event(ctx, "RESTART", "dset=%d mem=1", id);
    }
    mfile_close(&f);
    return v;
}

static int recover(const char *fn, const int *ids, int n, int consume)
{
    scr_ctx_t *ctx = scr_ctx();
    if (!scr_check_init(ctx, fn))
        return SCR_FAILURE;
    if (!ctx->enabled) {
        log_err("%s: SCR is disabled (SCR_ENABLE=0): there is nothing to recover", fn);
        return SCR_FAILURE;
    }
    if (ctx->state != SCR_STATE_IDLE || (ctx->mem && ctx->mem->w.open)) {
        log_err("%s: called inside an open output, restart or checkpoint", fn);
        return SCR_FAILURE;
    }
    redbg_poll(ctx, 1); /* a file checkpoint's encode may still own the filemap */
    for (;;) {
        MPI_Bcast(&ctx->restart_id, 1, MPI_INT, 0, ctx->comm);
        int id = ctx->restart_id;
        if (id < 0) {
            if (ctx->rank == 0)
                log_err("%s: there is no checkpoint to recover from", fn);
            return SCR_FAILURE;
        }
        int v = recover_from(ctx, id, fn, ids, n, consume);
        if (v == REC_OK)
            return SCR_SUCCESS;
        if (v == REC_MISUSE)
            return SCR_FAILURE;
        if (ctx->rank == 0)
            log_err("%s: dataset %d cannot be recovered; trying an older checkpoint", fn,
                    id);
        scr_restart_failed(ctx, id);
    }
}

int SCR_Recover(void)
{
    scr_ctx_t *ctx = scr_ctx();
    struct mem_state *m = mem_get(ctx);
    int *ids = m ? calloc((size_t)m->nvars + 1, sizeof(int)) : NULL;
    if (!ids) {
        log_err("SCR_Recover: out of memory");
        return SCR_FAILURE;
    }
    for (int i = 0; i < m->nvars; i++)
        ids[i] = m->vars[i].id;
    int rc = recover("SCR_Recover", ids, m->nvars, 1);
    free(ids);
    return rc;
}

int SCR_Recover_var(int id)
{
    struct mem_state *m = mem_get(scr_ctx());
    int known = 0;
    for (int i = 0; m && i < m->nvars; i++)
        known |= m->vars[i].id == id;
    if (!known) {
        log_err("SCR_Recover_var: variable %d is not protected", id);
        return SCR_FAILURE;
    }
    return recover("SCR_Recover_var", &id, 1, 0);
}

int mem_have_recover(void)
{
    scr_ctx_t *ctx = scr_ctx();
    if (!ctx->initialized || !ctx->enabled || ctx->finalized)
        return 0;
    MPI_Bcast(&ctx->restart_id, 1, MPI_INT, 0, ctx->comm);
    return ctx->restart_id >= 0;
}

int SCR_Stored_size(int id, int64_t *bytes)
{
    scr_ctx_t *ctx = scr_ctx();
    if (!bytes || !scr_check_init(ctx, "SCR_Stored_size")) {
        if (!bytes)
            log_err("SCR_Stored_size: NULL bytes");
        return SCR_FAILURE;
    }
    *bytes = -1;
    if (!ctx->enabled || !mem_have_recover()) {
        if (ctx->rank == 0)
            log_err("SCR_Stored_size: there is no checkpoint to recover from");
        return SCR_FAILURE;
    }
    mfile_t f;
    scr_error_t err = {""};
    int ok = mfile_open(ctx, ctx->restart_id, &f, &err) == 0;
    if (ok)
        *bytes = ftiff_layout_var_size(&f.l, id);
    mfile_close(&f);
    return scr_agree(ctx, ok, "SCR_Stored_size", &err) ? SCR_SUCCESS : SCR_FAILURE;
}
