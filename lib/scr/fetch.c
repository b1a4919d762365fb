/* SPDX-License-Identifier: BSD-3-Clause */
/* fetch.c - copy a checkpoint from the prefix into cache */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agree.h"
#include "cache.h"
#include "desc.h"
#include "evlog.h"
#include "fault.h"
#include "fetch.h"
#include "filemap.h"
#include "flow.h"
#include "flush.h"
#include "io.h"
#include "kvtree_mpi.h"
#include "log.h"
#include "path.h"
#include "pfs.h"
#include "place.h"
#include "r2f_mpi.h"
#include "red.h"
#include "rpfs.h"

/* fetch_one: the dataset has another number of ranks than this job */
#define FETCH_SHAPE (-3)

typedef struct {
    scr_ctx_t *ctx;
    int id;
    const char *name; /* its directory in the index */
    char pfsdir[SCR_PATH_MAX];
    char dir[SCR_PATH_MAX]; /* cache dataset directory */
    kvtree_t *files;        /* rel -> {SIZE, CRC} */
    scr_error_t err;
    int bad; /* the copy on the prefix is known bad (missing, size, CRC32) */
} fetch_job_t;

/* after each block copied into cache */
static void fetch_block(uint64_t done, double busy, void *arg)
{
    (void)done;
    (void)busy;
    fault_point("fetch.block", ((fetch_job_t *)arg)->ctx->rank);
}

/* copy and verify this rank's files */
static int fetch_copy(void *arg)
{
    fetch_job_t *j = arg;
    scr_error_t err;
    for (kvtree_elem_t *e = kvtree_first(j->files); e; e = kvtree_elem_next(e)) {
        const char *rel = kvtree_elem_key(e);
        char src[SCR_PATH_MAX * 2], dst[SCR_PATH_MAX * 2];
        uint32_t crc, want;
        uint64_t size;
        if (!path_is_safe_relative(rel))
            return errprintf(&j->err, "unsafe file name '%s'", rel), -1;
        io_copy_t o = {.bufsize = j->ctx->file_buf_size,
                       .progress = fetch_block,
                       .arg = j,
                       .serial = !j->ctx->overlap};
        place_file_path(j->ctx->prefix, j->name, rel, src, sizeof(src));
        snprintf(dst, sizeof(dst), "%s/%s", j->dir, rel);
        char *parent = strdup(dst);
        *strrchr(parent, '/') = '\0';
        int64_t n = -1;
        if (io_mkdir_p(parent, 0700, &err) == 0)
            n = io_copy_file(src, dst, &o, &crc, &err);
        free(parent);
        /* every error of the copy names the file it is about; only a file
         * that is not there says the checkpoint is bad, not EIO or EACCES */
        if (n < 0 && strstr(err.text, src) && access(src, F_OK) < 0 && errno == ENOENT)
            j->bad = 1;
        if (n < 0)
            return errprintf(&j->err, "%s", err.text), -1;
        kvtree_t *m = kvtree_elem_tree(e);
        j->bad = 1; /* for the two checks below */
        if (kvtree_util_get_u64(m, "SIZE", &size) == 0 && (uint64_t)n != size)
            return errprintf(&j->err, "%s: %lld bytes, expected %llu", src, (long long)n,
                             (unsigned long long)size),
                   -1;
        if (kvtree_util_get_crc32(m, "CRC", &want) == 0 && want != crc)
            return errprintf(&j->err, "%s: CRC32 0x%08x, expected 0x%08x", src, crc,
                             want),
                   -1;
        j->bad = 0;
        kvtree_t *fm = filemap_file(j->ctx->filemap, j->id, j->ctx->rank, dst);
        kvtree_util_set_int(fm, "COMPLETE", 1);
        kvtree_util_set_crc32(fm, "CRC", crc);
    }
    return 0;
}

/* record the dataset and its files in the filemap before creating them */
static void fetch_register(fetch_job_t *j, const kvtree_t *dset, const reddesc_t *rd,
                           int protect)
{
    scr_ctx_t *ctx = j->ctx;
    kvtree_t *d = kvtree_dup(dset);
    kvtree_t *r = protect ? reddesc_to_kvtree(ctx, rd) : reddesc_single_kvtree(ctx, rd);
    kvtree_util_set_str(d, "DIR", j->dir);
    kvtree_util_set_int(d, "COMPLETE", 0);
    kvtree_unset(d, "FLUSHING");
    filemap_set_desc(ctx->filemap, j->id, "DSETDESC", d);
    filemap_set_desc(ctx->filemap, j->id, "REDDESC", r);
    kvtree_delete(&d);
    kvtree_delete(&r);
    int n = 0;
    for (kvtree_elem_t *e = kvtree_first(j->files); e; e = kvtree_elem_next(e), n++) {
        char path[SCR_PATH_MAX * 2], orig[SCR_PATH_MAX * 2];
        snprintf(path, sizeof(path), "%s/%s", j->dir, kvtree_elem_key(e));
        snprintf(orig, sizeof(orig), "%s/%s", ctx->prefix, kvtree_elem_key(e));
        kvtree_t *m = kvtree_dup(kvtree_elem_tree(e));
        kvtree_util_set_str(m, "TYPE", FM_TYPE_USER);
        kvtree_util_set_str(m, "ORIG", orig);
        kvtree_util_set_str(m, "REL", kvtree_elem_key(e));
        kvtree_util_set_int(m, "COMPLETE", 0);
        filemap_add_file(ctx->filemap, j->id, ctx->rank, path, m);
        kvtree_delete(&m);
    }
    kvtree_util_set_int(filemap_rank(ctx->filemap, j->id, ctx->rank), "FILES", n);
    filemap_write(ctx->filemap_path, ctx->filemap, NULL);
}

/* the lowest rank with an error reports it; returns 1 if all ok */
static int fetch_agree(scr_ctx_t *ctx, int ok, const char *why, int id)
{
    int first = agree_first_failure(ctx->comm, !ok);
    if (first == ctx->rank)
        log_err("fetch of dataset %d failed: %s", id,
                why && *why ? why : "unknown error");
    return first == ctx->ranks;
}

/* rank 0 reads the summary; everyone gets it */
static int fetch_summary(scr_ctx_t *ctx, fetch_job_t *j, kvtree_t *summary)
{
    scr_error_t err = {""};
    int ok = 1, complete = 0;
    if (ctx->rank == 0) {
        ok = summary_read(j->pfsdir, summary, &err) == 0;
        if (ok && (kvtree_util_get_int(summary, "COMPLETE", &complete) < 0 || !complete))
            ok = errprintf(&err, "%s is marked incomplete", j->pfsdir) == 0;
    }
    if (!fetch_agree(ctx, ok, err.text, j->id))
        return -1;
    kvtree_bcast(summary, 0, ctx->comm);
    return 0;
}

/* This rank's fetched files have their recorded sizes in cache.  The
 * copy's CRC32 is of the bytes read from the prefix, and the write of each
 * block was checked; what is left is a file that did not land whole (a
 * torn write), which a size catches without reading the bytes again: a
 * read-back cost a third of the copy (bench/README.md). */
static int fetch_landed(fetch_job_t *j)
{
    for (kvtree_elem_t *e = kvtree_first(j->files); e; e = kvtree_elem_next(e)) {
        char path[SCR_PATH_MAX * 2];
        uint64_t recorded;
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", j->dir, kvtree_elem_key(e));
        if (lstat(path, &st) < 0)
            return errprintf(&j->err, "%s: %s", path, strerror(errno)), -1;
        if (kvtree_util_get_u64(kvtree_elem_tree(e), "SIZE", &recorded) == 0 &&
            (uint64_t)st.st_size != recorded)
            return errprintf(&j->err,
                             "%s: %llu bytes in cache, %s than its recorded size %llu",
                             path, (unsigned long long)st.st_size,
                             (uint64_t)st.st_size < recorded ? "shorter" : "longer",
                             (unsigned long long)recorded),
                   -1;
    }
    return 0;
}

/* Protect a fetched checkpoint in cache: with SCR_FETCH_PROTECT=1 by its
 * redundancy, as SCR 3.1 does; by default its copy on the prefix is its
 * redundancy (a lost node fetches it again) until the next checkpoint, and
 * the cache copies' sizes are checked.  Collective; 0 on every rank or -1. */
static int fetch_protect(scr_ctx_t *ctx, fetch_job_t *j, reddesc_t *rd, int protect)
{
    scr_error_t err = {""};
    if (protect) {
        if (red_apply(ctx, rd, j->id, j->dir, ctx->comm, &err) == 0)
            return 0;
        if (agree_first_failure(ctx->comm, err.text[0] != '\0') == ctx->rank)
            log_err("fetch of dataset %d: protecting it in cache failed: %s", j->id,
                    err.text);
        return -1;
    }
    if (!fetch_agree(ctx, fetch_landed(j) == 0, j->err.text, j->id))
        return -1;
    if (ctx->rank == 0 && rd->type != RED_SINGLE)
        log_dbg(1,
                "fetch of dataset %d: kept in cache without its %s redundancy; its copy "
                "on the prefix stands for it until the next checkpoint",
                j->id, desc_type_name(rd->type));
    return 0;
}

/* Fetch dataset id from directory name of the prefix into cache and
 * protect it; placed: the index marks it PLACED (else its files move to
 * their own paths once they checked out).  Returns 0; -1 when the copy on
 * the prefix is known bad; -2 when something else failed (the cache full
 * or unwritable, the prefix unreadable for now: nothing against the
 * dataset, which is not to be marked FAILED); FETCH_SHAPE when it has
 * another number of ranks than this job. */
static int fetch_one(scr_ctx_t *ctx, int id, const char *name, int placed,
                     uint64_t *bytes, double *protect_secs)
{
    fetch_job_t j = {.ctx = ctx, .id = id, .name = name};
    scr_error_t err = {""};
    if (snprintf(j.pfsdir, sizeof(j.pfsdir), "%s/%s", ctx->prefix, name) >=
        (int)sizeof(j.pfsdir))
        return -1; /* the same on every process: nobody enters a collective */
    kvtree_t *summary = kvtree_new();
    j.files = kvtree_new();
    int rc = -1;
    if (fetch_summary(ctx, &j, summary) < 0)
        goto out;
    kvtree_t *dset = kvtree_get(summary, "DSET");
    int ranks = 0;
    if (kvtree_util_get_int(dset, "RANKS", &ranks) == 0 && ranks != ctx->ranks) {
        rc = FETCH_SHAPE; /* the same summary everywhere: the same answer */
        goto out;
    }
    if (!fetch_agree(ctx, r2f_read_tree(ctx->comm, j.pfsdir, j.files, &err) == 0,
                     err.text, id))
        goto out;
    int ckpt = 0;
    kvtree_util_get_int(dset, "CKPT", &ckpt);
    reddesc_t *rd = desc_select(ctx, ckpt > 0 ? ckpt : id);
    int protect =
        rd->type != RED_SINGLE && config_get_int(ctx->cfg, "SCR_FETCH_PROTECT", 0);
    const store_t *st = &ctx->stores[rd->store];
    cache_delete_dset(ctx, id);
    cache_evict(ctx, st, 1);
    cache_dset_dir(st, id, j.dir, sizeof(j.dir));
    if (!fetch_agree(ctx, io_mkdir_p(j.dir, 0700, &err) == 0, err.text, id)) {
        rc = -2;
        goto out;
    }
    fetch_register(&j, dset, rd, protect);
    int width = config_get_int(ctx->cfg, "SCR_FETCH_WIDTH", 256);
    int ok = flow_run(ctx->comm, width, fetch_copy, &j);
    if (agree_first_failure(ctx->comm, j.err.text[0] != '\0') == ctx->rank)
        log_err("fetch of dataset %d failed: %s", id, j.err.text);
    int bad = j.err.text[0] && j.bad, any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, ctx->comm);
    double t0 = scr_now();
    if (ok)
        fault_point("fetch.copied", ctx->rank); /* checked, not protected */
    /* a placement cut short is finished now that every file checked out */
    if (ok && place_staged(name) && !placed)
        flush_place(ctx, id, name, j.files);
    /* its files have checked out, so a failure now is the cache's */
    if (ok && fetch_protect(ctx, &j, rd, protect) < 0)
        ok = 0;
    *protect_secs = scr_now() - t0;
    if (!ok) {
        rc = any_bad ? -1 : -2;
        cache_delete_dset(ctx, id);
        goto out;
    }
    fault_point("fetch.protected", ctx->rank); /* COMPLETE not recorded */
    kvtree_util_set_int(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "COMPLETE", 1);
    if (filemap_write(ctx->filemap_path, ctx->filemap, &err) < 0)
        log_err("fetch of dataset %d: %s", id, err.text);
    kvtree_util_get_u64(dset, "SIZE", bytes);
    rc = 0;
out:
    kvtree_delete(&summary);
    kvtree_delete(&j.files);
    return rc;
}

/* a differential checkpoint needs its bases in cache too: fetch each one
 * not there yet (rank 0 finds it in the index) */
static int fetch_chain(scr_ctx_t *ctx, const kvtree_t *index, int id)
{
    for (int base = cache_dset_base(ctx, id); base >= 0;
         base = cache_dset_base(ctx, base)) {
        if (cache_dset_complete(ctx, base))
            continue;
        char dir[256] = "";
        int got =
            ctx->rank == 0 ? index_pick(index, NULL, base + 1, dir, sizeof(dir)) : -1;
        MPI_Bcast(&got, 1, MPI_INT, 0, ctx->comm);
        MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, ctx->comm);
        uint64_t bytes = 0;
        double protect = 0;
        int placed = ctx->rank == 0 && place_done(index, got, dir);
        MPI_Bcast(&placed, 1, MPI_INT, 0, ctx->comm);
        if (got != base || fetch_one(ctx, base, dir, placed, &bytes, &protect) < 0) {
            if (ctx->rank == 0)
                log_err("dataset %d is differential and its base, dataset %d, cannot be "
                        "fetched",
                        id, base);
            return -1;
        }
        if (ctx->rank == 0)
            evlog_event(ctx, "FETCH", "dset=%d dir=%s bytes=%llu base_of=%d ok=1", base,
                        dir, (unsigned long long)bytes, id);
    }
    return 0;
}

int fetch_sync(scr_ctx_t *ctx, int direct)
{
    kvtree_t *index = kvtree_new();
    const char *want = config_get(ctx->cfg, "SCR_CURRENT", NULL);
    int below = INT32_MAX, found = -1;
    scr_error_t err, rerr;
    errno = 0;
    if (ctx->rank == 0 && index_read(ctx->prefix, index, &err) < 0 && errno != ENOENT) {
        /* damaged (a torn write): the summaries still say what is whole */
        int n = errno == EBADMSG ? index_recover(ctx->prefix, index, &rerr) : -1;
        if (n < 0)
            log_err("%s; no checkpoint can be fetched from the prefix", err.text);
        else
            log_err("%s; set aside as index.scr.damaged, and written again from the "
                    "summaries of the %d complete datasets on the prefix",
                    err.text, n);
    }
    for (;;) {
        char dir[256] = "";
        int id = ctx->rank == 0 ? index_pick(index, want, below, dir, sizeof(dir)) : -1;
        MPI_Bcast(&id, 1, MPI_INT, 0, ctx->comm);
        MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, ctx->comm);
        if (id < 0)
            break;
        double t0 = scr_now();
        uint64_t bytes = 0;
        double protect = 0;
        /* placed; written in bypass (restarted from where it is, never
         * cached); memory checkpoints (restored from cache only) */
        int how[3] = {0, 0, 0};
        if (ctx->rank == 0) {
            kvtree_t *d = index_dset_desc(index, id);
            how[0] = place_done(index, id, dir);
            how[1] = kvtree_get(d, "BYPASS") != NULL;
            how[2] = kvtree_get(d, "MEM") != NULL;
        }
        MPI_Bcast(how, 3, MPI_INT, 0, ctx->comm);
        int got = (direct || how[1]) && !how[2]
                      ? FETCH_SHAPE
                      : fetch_one(ctx, id, dir, how[0], &bytes, &protect);
        /* another number of ranks: the cache cannot serve it, the prefix can */
        if (got == FETCH_SHAPE && (got = rpfs_open(ctx, id, dir)) == 0) {
            found = id;
            break;
        }
        int fetched = got == 0;
        if (fetched && fetch_chain(ctx, index, id) < 0) {
            cache_delete_dset(ctx, id); /* useless without its bases */
            fetched = 0;
            got = -2; /* its own bytes checked out: not FAILED */
        }
        if (fetched) {
            if (ctx->rank == 0) {
                double secs = scr_now() - t0;
                index_mark_fetched(ctx->prefix, id, dir, NULL);
                flushfile_set(ctx->prefix, id, "CACHE", 1, NULL);
                flushfile_set(ctx->prefix, id, "PFS", 1, NULL);
                log_msg(
                    "restart from the prefix: dataset %d fetched from %s/%s, %llu bytes "
                    "in %.3f s",
                    id, ctx->prefix, dir, (unsigned long long)bytes, secs);
                evlog_event(ctx, "FETCH",
                            "dset=%d dir=%s bytes=%llu secs=%.3f protect=%.3f ok=1", id,
                            dir, (unsigned long long)bytes, secs, protect);
            }
            found = id;
            break;
        }
        if (ctx->rank == 0 && got == -2) {
            log_err("dataset %d (%s) could not be restarted from (nothing against its "
                    "files on the prefix); trying an older one",
                    id, dir);
            evlog_event(ctx, "FETCH", "dset=%d dir=%s ok=0 cache=1", id, dir);
        } else if (ctx->rank == 0) {
            log_err("dataset %d (%s) is marked FAILED in the index; trying an older one",
                    id, dir);
            index_mark_failed(ctx->prefix, id, dir, NULL);
            evlog_event(ctx, "FETCH", "dset=%d dir=%s ok=0", id, dir);
        }
        below = id;
        want = NULL;
    }
    kvtree_delete(&index);
    return found;
}
