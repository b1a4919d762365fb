/* SPDX-License-Identifier: BSD-3-Clause */
/* mem.c - the memory-protect API's write side: SCR_Protect, SCR_Unprotect
 * and the checkpoint calls.
 *
 * A checkpoint is an ordinary SCR output: SCR_Start_output, one routed file
 * per rank (MEM_FILE_FMT), SCR_Complete_output.  So the redundancy scheme,
 * the flush, the fetch and the scavenge treat it as any other dataset, and
 * a differential checkpoint, whose file holds only the changed chunks, costs
 * them only the changed bytes.  A differential dataset records its base
 * (DSETDESC BASE): the cache keeps a base while a newer dataset needs it,
 * a flush writes the base first, a fetch brings the chain.
 *
 * Never in place: every checkpoint is a new file in a new dataset, and the
 * layout and hashes of the last good one change only once the new one is
 * complete, so a crash at any step leaves the previous checkpoint whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api_util.h"
#include "cache.h"
#include "fault.h"
#include "filemap.h"
#include "io.h"
#include "log.h"
#include "mem.h"
#include "mem_track.h"
#include "scr_mem.h"
#include "units.h"

/* bytes hashed then written at a time: small enough that write() finds
 * the piece the hash just read still in a core's L2 (bench/README.md) */
#define MEM_PIECE (256 << 10)

struct mem_state *mem_get(scr_ctx_t *ctx)
{
    if (!ctx->mem) {
        ctx->mem = calloc(1, sizeof(*ctx->mem));
        if (ctx->mem) {
            ctx->mem->prev_id = -1;
            ctx->mem->w.fd = -1;
        }
    }
    return ctx->mem;
}

static void writer_reset(mem_writer_t *w)
{
    if (w->fd >= 0)
        close(w->fd);
    ftiff_layout_free(&w->work);
    free(w->added);
    memset(w, 0, sizeof(*w));
    w->fd = -1;
}

void mem_free(scr_ctx_t *ctx)
{
    if (!ctx->mem)
        return;
    writer_reset(&ctx->mem->w);
    ftiff_layout_free(&ctx->mem->layout);
    for (int i = 0; i < ctx->mem->nvars; i++)
        mem_track_reset(&ctx->mem->vars[i]);
    mem_track_free(ctx->mem);
    free(ctx->mem->vars);
    free(ctx->mem);
    ctx->mem = NULL;
}

static int var_find(const struct mem_state *m, int id)
{
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].id == id)
            return i;
    return -1;
}

int SCR_Protect(int id, void *ptr, int64_t count, size_t elem_size)
{
    struct mem_state *m = mem_get(scr_ctx());
    if (!m || id < 0 || count < 0 || elem_size == 0 || (!ptr && count > 0) ||
        (uint64_t)count > (uint64_t)INT64_MAX / elem_size) {
        log_err("SCR_Protect: variable %d: %s", id,
                !m               ? "out of memory"
                : id < 0         ? "the id must be >= 0"
                : !ptr && count  ? "NULL buffer"
                : elem_size == 0 ? "element size 0"
                                 : "bad count");
        return SCR_FAILURE;
    }
    if (m->w.open) {
        log_err("SCR_Protect: variable %d: inside SCR_Checkpoint_begin", id);
        return SCR_FAILURE;
    }
    int i = var_find(m, id);
    if (i < 0) {
        mem_var_t *v = realloc(m->vars, sizeof(*v) * ((size_t)m->nvars + 1));
        if (!v)
            return log_err("SCR_Protect: out of memory"), SCR_FAILURE;
        m->vars = v;
        i = m->nvars++;
        m->vars[i] = (mem_var_t){.id = id};
    }
    mem_var_t *v = &m->vars[i];
    int64_t size = (int64_t)count * (int64_t)elem_size;
    /* FTI programs protect the same buffer again every step: not a change */
    if (v->ptr != ptr || v->size != size)
        mem_track_reset(v);
    v->ptr = ptr;
    v->size = size;
    return SCR_SUCCESS;
}

int SCR_Unprotect(int id)
{
    struct mem_state *m = mem_get(scr_ctx());
    int i = m ? var_find(m, id) : -1;
    if (i < 0 || m->w.open) {
        log_err("SCR_Unprotect: variable %d %s", id,
                i < 0 ? "is not protected" : "is in an open SCR_Checkpoint_begin");
        return SCR_FAILURE;
    }
    mem_track_reset(&m->vars[i]);
    memmove(&m->vars[i], &m->vars[i + 1], sizeof(mem_var_t) * (size_t)(m->nvars - i - 1));
    m->nvars--;
    return SCR_SUCCESS;
}

uint64_t mem_app_tag(scr_ctx_t *ctx)
{
    const char *tag = config_get(ctx->cfg, "SCR_MEM_TAG", NULL);
    char exe[SCR_PATH_MAX] = "";
    if (!tag) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        exe[n > 0 ? n : 0] = '\0';
        /* an executable rebuilt while it runs reads "NAME (deleted)" */
        char *del = strstr(exe, " (deleted)");
        if (del && del[10] == '\0')
            *del = '\0';
        tag = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    }
    return ftiff_app_tag(tag);
}

/* may this checkpoint be differential: SCR_DCP, a good previous one still
 * in cache everywhere, and the chain shorter than SCR_DCP_FULL_EVERY */
static int ckpt_diff(scr_ctx_t *ctx, struct mem_state *m)
{
    int every = config_get_int(ctx->cfg, "SCR_DCP_FULL_EVERY", 10);
    int mine = config_get_int(ctx->cfg, "SCR_DCP", 0) && m->prev_id >= 0 &&
               m->prev_seq + 1 < every && m->layout.nblocks > 0;
    mine = mine && cache_dset_complete(ctx, m->prev_id);
    int all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, ctx->comm);
    return all;
}

/* the file is ours to write: routed, opened, the layout fitted */
static int writer_open(scr_ctx_t *ctx, struct mem_state *m, int diff, scr_error_t *err)
{
    mem_writer_t *w = &m->w;
    char name[SCR_PATH_MAX * 2], file[SCR_MAX_FILENAME];
    snprintf(name, sizeof(name), "%s/" MEM_PATH_FMT, ctx->prefix, ctx->out.id, ctx->rank);
    if (SCR_Route_file(name, file) != SCR_SUCCESS)
        return errprintf(err, "cannot route %s", name);
    snprintf(w->path, sizeof(w->path), "%s", file);
    if (ftiff_layout_copy(&m->layout, &w->work) < 0)
        return errprintf(err, "out of memory");
    ftiff_var_t *v = calloc((size_t)m->nvars + 1, sizeof(*v));
    w->added = calloc((size_t)m->nvars + 1, sizeof(int));
    for (int i = 0; v && i < m->nvars; i++)
        v[i] = (ftiff_var_t){m->vars[i].id, m->vars[i].size};
    int64_t block = config_get_int(ctx->cfg, "SCR_DCP", 0)
                        ? config_get_bytes(ctx->cfg, "SCR_DCP_BLOCK", 65536)
                        : 0;
    int rc = !v || !w->added ? errprintf(err, "out of memory")
                             : ftiff_layout_update(&w->work, v, m->nvars, block, err);
    free(v);
    if (rc < 0)
        return -1;
    w->meta = (ftiff_meta_t){
        .rank = ctx->rank, .ranks = ctx->ranks, .base = -1, .app_tag = mem_app_tag(ctx)};
    if (diff) {
        w->meta.flags = FTIFF_FLAG_DIFF;
        w->meta.base = m->prev_id;
        w->meta.seq = m->prev_seq + 1;
    }
    ftiff_layout_place(&w->work, &w->meta);
    w->data_end = FTIFF_FB_SIZE + ftiff_layout_meta_size(&w->work);
    w->fd = open(w->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (w->fd < 0)
        return errprintf(err, "%s: %s", w->path, strerror(errno));
    w->ok = 1;
    w->open = 1;
    return 0;
}

/* a full file: hash while writing each chunk into its container */
static int chunk_write_full(mem_writer_t *w, const char *src, ftiff_chunk_t *c)
{
    ftiff_hasher_t *h = ftiff_hasher_new();
    if (!h)
        return errno = ENOMEM, -1;
    int rc = 0;
    for (int64_t off = 0; off < c->chunksize && rc == 0; off += MEM_PIECE) {
        int64_t n = c->chunksize - off < MEM_PIECE ? c->chunksize - off : MEM_PIECE;
        ftiff_hasher_add(h, src + off, (size_t)n);
        rc = io_pwrite_full(w->fd, src + off, (size_t)n, (off_t)(c->fptr + off));
    }
    ftiff_hasher_end(h, &c->hash);
    return rc;
}

/* a differential file: an unchanged chunk stays in the base.  A chunk
 * whose pages nobody wrote (mem_track.h) keeps its hash unread. */
static int chunk_write_diff(mem_writer_t *w, const mem_var_t *v, ftiff_chunk_t *c)
{
    const char *src = (const char *)v->ptr + c->dptr;
    ftiff_hash_t h = c->hash;
    w->chunks++;
    if (mem_track_changed(v, c->dptr, c->chunksize)) {
        ftiff_hash(src, (size_t)c->chunksize, &h);
        w->hashed++;
    }
    int same = memcmp(&h, &c->hash, sizeof(h)) == 0;
    c->hash = h;
    c->hascontent = !same;
    c->fptr = same ? 0 : w->data_end;
    if (same)
        return 0;
    w->written++;
    w->data_end += c->chunksize;
    return io_pwrite_full(w->fd, src, (size_t)c->chunksize, (off_t)c->fptr);
}

/* write variable i's chunks */
static int writer_add(struct mem_state *m, int i, scr_error_t *err)
{
    mem_writer_t *w = &m->w;
    int diff = (w->meta.flags & FTIFF_FLAG_DIFF) != 0;
    const mem_var_t *v = &m->vars[i];
    mem_track_take(scr_ctx(), m, i);
    for (int b = 0; b < w->work.nblocks; b++)
        for (int k = 0; k < w->work.blocks[b].numvars; k++) {
            ftiff_chunk_t *c = &w->work.blocks[b].vars[k];
            if (c->id != v->id || c->chunksize == 0)
                continue;
            const char *src = (const char *)v->ptr + c->dptr;
            int rc = diff ? chunk_write_diff(w, v, c) : chunk_write_full(w, src, c);
            if (rc < 0) {
                w->ok = 0;
                return errprintf(err, "%s: write: %s", w->path, strerror(errno));
            }
        }
    w->added[i] = 1;
    fault_point("mem.var", w->meta.rank); /* after each variable */
    return 0;
}

/* ptFs: the file size of the next member of this rank's redundancy set
 * (FTI's partner), 0 under SINGLE */
static int64_t partner_fs(const reddesc_t *rd, int64_t fs)
{
    int64_t pt = 0;
    if (!rd || rd->type == RED_SINGLE || rd->set_size < 2)
        return 0;
    int n = rd->set_size;
    MPI_Sendrecv(&fs, 1, MPI_INT64_T, (rd->set_rank + n - 1) % n, 0, &pt, 1, MPI_INT64_T,
                 (rd->set_rank + 1) % n, 0, rd->comm, MPI_STATUS_IGNORE);
    return pt;
}

/* the metadata and the file block go last: a file cut short by a crash
 * has no valid FB and is never mistaken for a checkpoint */
static int writer_seal(scr_ctx_t *ctx, mem_writer_t *w, scr_error_t *err)
{
    if (w->meta.flags & FTIFF_FLAG_DIFF) {
        w->meta.fs = w->data_end;
        w->meta.ckpt_size =
            w->data_end - FTIFF_FB_SIZE - ftiff_layout_meta_size(&w->work);
    }
    MPI_Allreduce(&w->meta.fs, &w->meta.max_fs, 1, MPI_INT64_T, MPI_MAX, ctx->comm);
    w->meta.pt_fs = partner_fs(ctx->out.rd, w->meta.fs);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    w->meta.timestamp = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    ftiff_layout_checksum(&w->work, &w->meta);
    int64_t off = FTIFF_FB_SIZE;
    for (int b = 0; b < w->work.nblocks && w->ok; b++) {
        const ftiff_block_t *bl = &w->work.blocks[b];
        size_t n = FTIFF_BMD_SIZE + (size_t)bl->numvars * FTIFF_VMD_SIZE;
        uint8_t *buf = malloc(n);
        if (!buf)
            return w->ok = 0, errprintf(err, "out of memory");
        ftiff_block_encode(bl, buf);
        w->ok = io_pwrite_full(w->fd, buf, n, (off_t)off) == 0;
        free(buf);
        off += bl->dbsize;
    }
    fault_point("mem.meta", ctx->rank); /* the blocks written, not the FB */
    uint8_t fb[FTIFF_FB_SIZE];
    ftiff_meta_encode(&w->meta, fb);
    if (w->ok)
        w->ok = io_pwrite_full(w->fd, fb, FTIFF_FB_SIZE, 0) == 0 &&
                ftruncate(w->fd, (off_t)w->meta.fs) == 0;
    if (!w->ok)
        errprintf(err, "%s: write: %s", w->path, strerror(errno));
    if (close(w->fd) < 0 && w->ok)
        w->ok = errprintf(err, "%s: close: %s", w->path, strerror(errno)) == 0;
    w->fd = -1;
    return w->ok ? 0 : -1;
}

/* the dataset says what it is and what it builds on */
static void dset_mark(scr_ctx_t *ctx, const mem_writer_t *w)
{
    kvtree_t *d = filemap_get_desc(ctx->filemap, ctx->out.id, "DSETDESC");
    kvtree_util_set_int(d, "MEM", 1);
    if (w->meta.base >= 0)
        kvtree_util_set_int(d, "BASE", (int)w->meta.base);
    filemap_write(ctx->filemap_path, ctx->filemap, NULL);
}

static int ckpt_begin(const char *fn, const char *name, const mem_opts_t *o)
{
    scr_ctx_t *ctx = scr_ctx();
    struct mem_state *m = mem_get(ctx);
    if (!scr_check_init(ctx, fn))
        return SCR_FAILURE;
    if (!ctx->enabled)
        return SCR_SUCCESS; /* SCR_ENABLE=0: nothing is kept */
    if (!m || m->w.open) {
        log_err("%s: %s", fn, m ? "a checkpoint is already open" : "out of memory");
        return SCR_FAILURE;
    }
    int diff = ckpt_diff(ctx, m);
    if (scr_output_start(ctx, name, SCR_FLAG_CHECKPOINT, o ? o->rd_index : -1, 1) !=
        SCR_SUCCESS)
        return SCR_FAILURE;
    scr_error_t err = {""};
    int ok = writer_open(ctx, m, diff, &err) == 0;
    if (ok)
        dset_mark(ctx, &m->w);
    if (!scr_agree(ctx, ok, fn, &err)) {
        writer_reset(&m->w);
        SCR_Complete_output(0);
        return SCR_FAILURE;
    }
    m->w.flush = o && o->flush;
    fault_point("mem.begin", ctx->rank);
    return SCR_SUCCESS;
}

const char *mem_cache_dir(void)
{
    scr_ctx_t *ctx = scr_ctx();
    return ctx->initialized && ctx->stores ? ctx->stores[0].dir : NULL;
}

int SCR_Checkpoint_begin(const char *name)
{
    return ckpt_begin("SCR_Checkpoint_begin", name, NULL);
}

int mem_checkpoint_begin(const char *name, const mem_opts_t *o)
{
    return ckpt_begin("SCR_Checkpoint_begin", name, o);
}

int SCR_Checkpoint_add(int id)
{
    scr_ctx_t *ctx = scr_ctx();
    struct mem_state *m = ctx->mem;
    int i = m ? var_find(m, id) : -1;
    if (ctx->initialized && !ctx->enabled && i >= 0)
        return SCR_SUCCESS;
    if (!m || !m->w.open || i < 0) {
        log_err("SCR_Checkpoint_add: variable %d: %s", id,
                !m || !m->w.open ? "no SCR_Checkpoint_begin" : "not protected");
        return SCR_FAILURE;
    }
    scr_error_t err;
    if (m->w.added[i])
        return SCR_SUCCESS;
    if (writer_add(m, i, &err) < 0) {
        log_err("SCR_Checkpoint_add: %s", err.text);
        return SCR_FAILURE;
    }
    return SCR_SUCCESS;
}

/* the checkpoint is good: it is what the next one starts from */
static void ckpt_commit(struct mem_state *m, int id)
{
    ftiff_layout_free(&m->layout);
    m->layout = m->w.work;
    memset(&m->w.work, 0, sizeof(m->w.work));
    m->prev_seq = (int)m->w.meta.seq;
    m->prev_id = id;
}

/* a checkpoint the caller gave up on: nothing more is written, and the
 * dataset ends as failed (every process alike) */
static int ckpt_abandon(scr_ctx_t *ctx, struct mem_state *m)
{
    scr_output_complete(ctx, 0, m->w.flush);
    mem_track_settle(m, 0);
    writer_reset(&m->w);
    return SCR_FAILURE;
}

int mem_checkpoint_end(int valid)
{
    scr_ctx_t *ctx = scr_ctx();
    struct mem_state *m = ctx->mem;
    if (ctx->initialized && !ctx->enabled)
        return SCR_SUCCESS;
    if (!m || !m->w.open) {
        log_err("SCR_Checkpoint_end: no SCR_Checkpoint_begin");
        return SCR_FAILURE;
    }
    if (!valid)
        return ckpt_abandon(ctx, m);
    scr_error_t err = {""};
    for (int i = 0; i < m->nvars && m->w.ok; i++)
        if (!m->w.added[i] && writer_add(m, i, &err) < 0)
            log_err("SCR_Checkpoint_end: %s", err.text);
    if (writer_seal(ctx, &m->w, &err) < 0)
        log_err("SCR_Checkpoint_end: %s", err.text);
    int id = ctx->out.id;
    fault_point("mem.sealed", ctx->rank); /* the file whole, the dataset not */
    if (m->w.meta.flags & FTIFF_FLAG_DIFF)
        log_dbg(2, "differential checkpoint %d: %lld chunks, %lld hashed, %lld written",
                id, (long long)m->w.chunks, (long long)m->w.hashed,
                (long long)m->w.written);
    int rc = scr_output_complete(ctx, m->w.ok, m->w.flush);
    mem_track_settle(m, rc == SCR_SUCCESS);
    if (rc == SCR_SUCCESS)
        ckpt_commit(m, id);
    writer_reset(&m->w);
    return rc;
}

int SCR_Checkpoint_end(void)
{
    return mem_checkpoint_end(1);
}

int mem_checkpoint(const char *name, const mem_opts_t *o)
{
    const char *fn = "SCR_Checkpoint";
    if (ckpt_begin(fn, name, o) != SCR_SUCCESS)
        return SCR_FAILURE;
    return SCR_Checkpoint_end();
}

int SCR_Checkpoint(const char *name)
{
    return mem_checkpoint(name, NULL);
}
