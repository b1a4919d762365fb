/* SPDX-License-Identifier: BSD-3-Clause */
/* flush.c - synchronous and background flush */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agree.h"
#include "cache.h"
#include "crcbg.h"
#include "evlog.h"
#include "fault.h"
#include "filemap.h"
#include "filepool.h"
#include "flow.h"
#include "flush.h"
#include "io.h"
#include "kvtree_mpi.h"
#include "log.h"
#include "namejoin.h"
#include "nameset.h"
#include "path.h"
#include "pfs.h"
#include "place.h"
#include "progress.h"
#include "r2f.h"
#include "r2f_mpi.h"

struct flush_async {
    int id;
    char pfsdir[SCR_PATH_MAX];
    kvtree_t *list; /* "<i>" -> {PATH, DEST, REL, SIZE, CRC} */
    kvtree_t *r2f;  /* rel -> {SIZE, CRC} */
    uint64_t bytes;
    double t0;
    double cpu; /* this process's copy: CPU seconds of the thread that ran it */
    int ok;
    int check_crc;         /* SCR_CRC_ON_FLUSH */
    size_t bufsize;        /* SCR_FILE_BUF_SIZE */
    int overlap;           /* read ahead on a helper thread (scr_ctx.h) */
    int direct;            /* SCR_FLUSH_DIRECT: past the prefix's page cache */
    struct filepool *pool; /* the prefix's replaced files to write over */
    int rank;              /* for the fault points */
    scr_error_t err;
    progress_t progress; /* foreground, rank 0: its own files (progress.h) */
    /* background only */
    int background;
    pthread_t thread;
    atomic_int done;
    double bw;   /* bytes/s for this process, 0: unlimited */
    int percent; /* CPU percent, 0: unlimited */
    char transfer[SCR_PATH_MAX + 64];
    double transfer_t; /* when it was last written */
};

typedef struct flush_async flush_job_t;

/* sleep to keep under the bandwidth and CPU limits */
static void flush_throttle(flush_job_t *j, uint64_t done, double busy)
{
    double elapsed = scr_now() - j->t0, wait = 0;
    if (j->bw > 0)
        wait = (double)done / j->bw - elapsed;
    if (j->percent > 0 && j->percent < 100) {
        double cpu_wait = busy * (100.0 - j->percent) / j->percent;
        wait = cpu_wait > wait ? cpu_wait : wait;
    }
    if (wait > 0) {
        struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

/* after each block: a background flush keeps under its limits */
typedef struct {
    flush_job_t *j;
    uint64_t before; /* bytes of earlier files */
} flush_progress_t;

static void flush_progress(uint64_t done, double busy, void *arg)
{
    flush_progress_t *p = arg;
    fault_point("flush.block", p->j->rank);
    if (p->j->background)
        flush_throttle(p->j, p->before + done, busy);
    else
        progress_set(&p->j->progress, p->before + done);
}

/* copy one file, checking its size and CRC32 against the ones recorded at
 * completion; a file recorded without a CRC (its SINGLE pass was stopped)
 * gets the one taken on the way, on the prefix and (flush_finish) in cache */
static int flush_copy(flush_job_t *j, kvtree_t *m, uint64_t *total)
{
    const char *src = kvtree_get_val(m, "PATH"), *dst = kvtree_get_val(m, "DEST");
    scr_error_t err;
    char *parent = strdup(dst);
    *strrchr(parent, '/') = '\0';
    int rc = io_mkdir_p(parent, 0700, &err);
    free(parent);
    if (rc < 0)
        return errprintf(&j->err, "%s", err.text), -1;
    int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    /* the file lands at the application's own path: the mode it gave it */
    mode_t mode = in >= 0 && fstat(in, &st) == 0 ? st.st_mode & 0777 : 0600;
    uint32_t crc = 0, want;
    uint64_t size = 0;
    kvtree_util_get_u64(m, "SIZE", &size);
    /* over the blocks of a file an earlier flush replaced, when one is
     * kept: faster than new ones on a disk file system */
    int out = in < 0 ? -1 : filepool_open(j->pool, dst, size, NULL, &err);
    if (out >= 0 && fchmod(out, mode) < 0) {
        close(out);
        out = -1;
    }
    flush_progress_t p = {j, *total};
    io_copy_t o = {src, dst, j->bufsize, flush_progress, &p, !j->overlap, j->direct};
    int64_t n = 0;
    j->err.text[0] = '\0';
    if (in < 0 || out < 0)
        errprintf(&j->err, "open %s: %s", in < 0 ? src : dst, strerror(errno));
    else if ((n = io_copy_fd(in, out, &o, &crc, &j->err)) >= 0) {
        if (fsync(out) < 0)
            errprintf(&j->err, "fsync %s: %s", dst, strerror(errno));
        else if (kvtree_util_get_u64(m, "SIZE", &size) == 0 && size != (uint64_t)n)
            errprintf(&j->err, "%s changed in cache: %lld bytes, recorded %llu", src,
                      (long long)n, (unsigned long long)size);
        else if (j->check_crc && kvtree_util_get_crc32(m, "CRC", &want) == 0 &&
                 want != crc)
            errprintf(&j->err, "%s changed in cache: CRC32 0x%08x, recorded 0x%08x", src,
                      crc, want);
        else if (!kvtree_get(m, "CRC")) {
            kvtree_t *r = kvtree_get(j->r2f, kvtree_get_val(m, "REL"));
            kvtree_util_set_crc32(m, "CRC", crc);
            if (r)
                kvtree_util_set_crc32(r, "CRC", crc);
        }
    }
    if (n > 0)
        *total += (uint64_t)n;
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) < 0 && !j->err.text[0])
        errprintf(&j->err, "close %s: %s", dst, strerror(errno));
    return j->err.text[0] ? -1 : 0;
}

/* background progress for anyone watching: the transfer file */
static void flush_transfer_write(flush_job_t *j, const char *state, int done)
{
    j->transfer_t = scr_now();
    if (!j->background)
        return;
    kvtree_t *t = kvtree_new();
    for (kvtree_elem_t *e = kvtree_first(j->list); e; e = kvtree_elem_next(e)) {
        kvtree_t *m = kvtree_elem_tree(e);
        kvtree_t *f = kvtree_setf(t, NULL, "FILES %s", kvtree_get_val(m, "PATH"));
        kvtree_util_set_str(f, "DESTINATION", kvtree_get_val(m, "DEST"));
        kvtree_util_set_str(f, "SIZE", kvtree_get_val(m, "SIZE"));
        kvtree_util_set_str(f, "WRITTEN", kvtree_get_val(m, "WRITTEN") ?: "0");
    }
    kvtree_util_set_double(t, "BW", j->bw);
    kvtree_util_set_double(t, "PERCENT", j->percent);
    kvtree_util_set_str(t, "COMMAND", "RUN");
    kvtree_util_set_str(t, "STATE", state);
    if (done)
        kvtree_util_set_str(t, "FLAG", "DONE");
    kvtree_write_file(j->transfer, t, NULL);
    kvtree_delete(&t);
}

/* CPU time of the calling thread: in the background, what the flush took
 * from the application on a node whose every core runs a rank */
static double flush_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int flush_copy_all(void *arg)
{
    flush_job_t *j = arg;
    uint64_t total = 0;
    int rc = 0;
    double cpu0 = flush_thread_cpu();
    flush_transfer_write(j, "RUNNING", 0);
    for (kvtree_elem_t *e = kvtree_first(j->list); e && rc == 0;
         e = kvtree_elem_next(e)) {
        uint64_t before = total;
        rc = flush_copy(j, kvtree_elem_tree(e), &total);
        kvtree_util_set_u64(kvtree_elem_tree(e), "WRITTEN", total - before);
        /* at most once a second: the file names every file, and rewriting
         * it after each made a flush of n files O(n^2) (12,000 files a
         * rank: 9 s for 24,000 bytes) */
        if (scr_now() - j->transfer_t >= 1.0)
            flush_transfer_write(j, "RUNNING", 0);
    }
    j->ok = rc == 0;
    j->cpu = flush_thread_cpu() - cpu0;
    flush_transfer_write(j, "STOPPED", 1);
    progress_end(&j->progress); /* rank 0's own files are done */
    return rc;
}

static void *flush_thread(void *arg)
{
    flush_job_t *j = arg;
    flush_copy_all(j);
    atomic_store(&j->done, 1);
    return NULL;
}

/* rank 0: the prefix's dataset id is this one, not another job's of the
 * same id (two jobs writing to one prefix at once count alike) */
static int flush_same_dset(scr_ctx_t *ctx, int id)
{
    kvtree_t *index = kvtree_new();
    kvtree_t *mine = filemap_get_desc(ctx->filemap, id, "DSETDESC");
    uint64_t a = 0, b = 0;
    int same = 1;
    if (mine && index_read(ctx->prefix, index, NULL) == 0 &&
        kvtree_util_get_u64(index_dset_desc(index, id), "CREATED", &a) == 0 &&
        kvtree_util_get_u64(mine, "CREATED", &b) == 0)
        same = a == b;
    kvtree_delete(&index);
    return same;
}

int flush_done(scr_ctx_t *ctx, int id)
{
    int on = ctx->rank == 0 ? flushfile_location(ctx->prefix, id, "PFS") : 0;
    if (on && !flush_same_dset(ctx, id))
        on = 0; /* its flush says why it cannot go there */
    MPI_Bcast(&on, 1, MPI_INT, 0, ctx->comm);
    return on;
}

int flush_wanted(scr_ctx_t *ctx, int id)
{
    kvtree_t *d = filemap_get_desc(ctx->filemap, id, "DSETDESC");
    int flags = 0, ckpt = 0;
    kvtree_util_get_int(d, "FLAGS", &flags);
    kvtree_util_get_int(d, "CKPT", &ckpt);
    if (flags & 2)
        return 1; /* output datasets always go to the prefix */
    return ctx->flush_every > 0 && (flags & 1) && ckpt > 0 &&
           ckpt % ctx->flush_every == 0;
}

/* this rank's files and where they go */
static void flush_list(scr_ctx_t *ctx, flush_job_t *j)
{
    j->list = kvtree_new();
    j->r2f = kvtree_new();
    kvtree_t *files =
        kvtree_get(filemap_get_rank(ctx->filemap, j->id, ctx->rank), "FILE");
    int i = 0;
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e)) {
        kvtree_t *m = kvtree_elem_tree(e);
        const char *type = kvtree_get_val(m, "TYPE"), *rel = kvtree_get_val(m, "REL");
        if (!type || strcmp(type, FM_TYPE_USER) != 0 || !rel ||
            !path_is_safe_relative(rel))
            continue;
        kvtree_t *x = kvtree_setf(j->list, kvtree_dup(m), "%d", i++);
        char dest[SCR_PATH_MAX * 2];
        snprintf(dest, sizeof(dest), "%s/%s", j->pfsdir, rel);
        kvtree_util_set_str(x, "PATH", kvtree_elem_key(e));
        kvtree_util_set_str(x, "DEST", dest);
        uint64_t size = 0;
        kvtree_util_get_u64(m, "SIZE", &size);
        j->bytes += size;
        kvtree_t *r = kvtree_set(j->r2f, rel, NULL);
        kvtree_util_set_u64(r, "SIZE", size);
        if (kvtree_get(m, "CRC"))
            kvtree_util_set_str(r, "CRC", kvtree_get_val(m, "CRC"));
    }
}

static void flush_mark(scr_ctx_t *ctx, int id, int flushing)
{
    kvtree_t *d = filemap_get_desc(ctx->filemap, id, "DSETDESC");
    if (flushing)
        kvtree_util_set_int(d, "FLUSHING", 1);
    else
        kvtree_unset(d, "FLUSHING");
    scr_error_t err;
    if (filemap_write(ctx->filemap_path, ctx->filemap, &err) < 0)
        log_err("flush of dataset %d: %s", id, err.text);
}

/* rank 0 announces the flush in the index and flush file and makes the
 * directory; everyone marks the dataset FLUSHING and builds its list */
static flush_job_t *flush_prepare(scr_ctx_t *ctx, int id)
{
    flush_job_t *j = calloc(1, sizeof(*j));
    j->id = id;
    j->check_crc = config_get_int(ctx->cfg, "SCR_CRC_ON_FLUSH", 1);
    j->bufsize = ctx->file_buf_size;
    j->overlap = ctx->overlap;
    j->direct = config_get_int(ctx->cfg, "SCR_FLUSH_DIRECT", 1);
    j->pool = ctx->pfs_pool;
    j->rank = ctx->rank;
    j->t0 = scr_now();
    pfs_dset_dir(ctx->prefix, id, j->pfsdir, sizeof(j->pfsdir));
    scr_error_t err = {""};
    int ok = 1;
    if (ctx->rank == 0) {
        char name[64], meta[SCR_PATH_MAX + 16];
        pfs_dset_name(id, name, sizeof(name));
        snprintf(meta, sizeof(meta), "%s/.scr", j->pfsdir);
        kvtree_t *d = filemap_get_desc(ctx->filemap, id, "DSETDESC");
        ok = io_mkdir_p(meta, 0700, &err) == 0 &&
             index_add(ctx->prefix, id, name, d, 0, &err) == 0 &&
             flushfile_set(ctx->prefix, id, "FLUSHING", 1, &err) == 0;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, ctx->comm);
    if (!ok) {
        if (ctx->rank == 0)
            log_err("flush of dataset %d to %s failed: %s; it stays in cache", id,
                    ctx->prefix, err.text);
        free(j);
        return NULL;
    }
    flush_mark(ctx, id, 1);
    flush_list(ctx, j);
    return j;
}

/* CRCs the copy took for files recorded without one go into the filemap
 * (written by flush_mark) */
static void flush_keep_crcs(scr_ctx_t *ctx, flush_job_t *j)
{
    for (kvtree_elem_t *e = kvtree_first(j->list); e; e = kvtree_elem_next(e)) {
        kvtree_t *m = kvtree_elem_tree(e);
        kvtree_t *fm =
            filemap_file(ctx->filemap, j->id, ctx->rank, kvtree_get_val(m, "PATH"));
        if (fm && !kvtree_get(fm, "CRC") && kvtree_get(m, "CRC"))
            kvtree_util_set_str(fm, "CRC", kvtree_get_val(m, "CRC"));
    }
}

/* rank2file, summary, index, flush file; then the job is done */
static int flush_finish(scr_ctx_t *ctx, flush_job_t *j, int ok)
{
    fault_point("flush.copied", ctx->rank); /* before the summary and index */
    scr_error_t err = {""};
    /* bytes, files and microseconds of CPU, summed in one reduction */
    uint64_t mine[3] = {j->bytes, (uint64_t)kvtree_size(j->list),
                        (uint64_t)(j->cpu * 1e6)},
             sum[3];
    MPI_Allreduce(mine, sum, 3, MPI_UINT64_T, MPI_SUM, ctx->comm);
    uint64_t bytes = sum[0];
    int nfiles = (int)sum[1];
    if (ok && r2f_write_tree(ctx->comm, j->pfsdir, j->r2f, &err) < 0)
        ok = 0;
    if (ctx->rank == 0) {
        kvtree_t *d = kvtree_dup(filemap_get_desc(ctx->filemap, j->id, "DSETDESC"));
        char name[64];
        pfs_dset_name(j->id, name, sizeof(name));
        kvtree_unset(d, "DIR");
        kvtree_unset(d, "FLUSHING");
        kvtree_util_set_int(d, "FILES", nfiles);
        if (ok && summary_write(j->pfsdir, d, 1, &err) < 0)
            ok = 0;
        if (ok)
            fault_point("flush.summary", ctx->rank); /* not in the index yet */
        if (ok && index_add(ctx->prefix, j->id, name, d, 1, &err) < 0)
            ok = 0;
        if (ok)
            fault_point("flush.indexed", ctx->rank); /* flush file not updated */
        if (ok && flushfile_set(ctx->prefix, j->id, "PFS", 1, &err) < 0)
            ok = 0;
        flushfile_set(ctx->prefix, j->id, "FLUSHING", 0, NULL);
        kvtree_delete(&d);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, ctx->comm);
    if (ok) {
        char name[64];
        pfs_dset_name(j->id, name, sizeof(name));
        flush_place(ctx, j->id, name, j->r2f);
    }
    /* the copy's own failure was told (flush_report); one after it here */
    if (agree_first_failure(ctx->comm, err.text[0] != '\0') == ctx->rank)
        log_err("flush of dataset %d to %s failed: %s; it stays in cache", j->id,
                j->pfsdir, err.text);
    flush_keep_crcs(ctx, j);
    flush_mark(ctx, j->id, 0);
    double secs = scr_now() - j->t0;
    if (ctx->rank == 0) {
        double mbs = secs > 0 ? (double)bytes / secs / 1e6 : 0;
        if (ok)
            log_dbg(1, "flushed dataset %d: %llu bytes in %.3f s (%.1f MB/s)", j->id,
                    (unsigned long long)bytes, secs, mbs);
        evlog_event(ctx, "FLUSH_END",
                    "dset=%d bytes=%llu secs=%.3f mbps=%.1f cpu=%.3f ok=%d", j->id,
                    (unsigned long long)bytes, secs, mbs, (double)sum[2] * 1e-6, ok);
    }
    kvtree_delete(&j->list);
    kvtree_delete(&j->r2f);
    free(j);
    return ok ? 0 : -1;
}

/* the lowest rank with an error says why */
static void flush_report(scr_ctx_t *ctx, flush_job_t *j, int all_ok)
{
    int first = agree_first_failure(ctx->comm, j->err.text[0] != '\0');
    if (first == ctx->rank)
        log_err("flush of dataset %d to %s failed: %s; it stays in cache", j->id,
                j->pfsdir, j->err.text);
    else if (!all_ok && first == ctx->ranks && ctx->rank == 0)
        log_err("flush of dataset %d to %s failed; it stays in cache", j->id, j->pfsdir);
}

/* a dataset on the prefix whose placement an earlier run cut short: its
 * files move to their own paths now (the rank2file map says which are
 * whose).  Always 0: the dataset is on the prefix either way. */
static int flush_finish_placing(scr_ctx_t *ctx, int id)
{
    char dir[64], pfsdir[SCR_PATH_MAX + 64];
    pfs_dset_name(id, dir, sizeof(dir));
    int todo = 0;
    if (ctx->rank == 0) {
        kvtree_t *index = kvtree_new();
        todo = index_read(ctx->prefix, index, NULL) == 0 &&
               kvtree_getf(index, "DSET %d DIR %s", id, dir) &&
               !place_done(index, id, dir);
        kvtree_delete(&index);
    }
    MPI_Bcast(&todo, 1, MPI_INT, 0, ctx->comm);
    if (!todo)
        return 0;
    kvtree_t *files = kvtree_new();
    scr_error_t err = {""};
    snprintf(pfsdir, sizeof(pfsdir), "%s/%s", ctx->prefix, dir);
    int ok = r2f_read_tree(ctx->comm, pfsdir, files, &err) == 0;
    int first = agree_first_failure(ctx->comm, !ok);
    if (first == ctx->rank)
        log_err("dataset %d: its files cannot be moved to their own paths: %s", id,
                err.text);
    if (first == ctx->ranks)
        flush_place(ctx, id, dir, files);
    kvtree_delete(&files);
    return 0;
}

/* both modes: wait for a background flush, skip a dataset already on the
 * prefix (0 with *j NULL), else announce and prepare (-1 if that failed) */
static int flush_begin(scr_ctx_t *ctx, int id, const char *mode, flush_job_t **j)
{
    *j = NULL;
    flush_async_poll(ctx, 1);
    /* the flush reads the files and takes their CRCs on the way */
    crcbg_release(ctx, id);
    if (flush_done(ctx, id))
        return flush_finish_placing(ctx, id);
    /* a differential checkpoint on the prefix is worth only as much as its
     * base there: write the chain first */
    int base = cache_dset_base(ctx, id);
    if (base >= 0 && filemap_get_desc(ctx->filemap, base, "DSETDESC") &&
        flush_sync(ctx, base) < 0)
        return -1;
    if (ctx->rank == 0)
        evlog_event(ctx, "FLUSH_START", "dset=%d mode=%s", id, mode);
    *j = flush_prepare(ctx, id);
    return *j ? 0 : -1;
}

int flush_sync(scr_ctx_t *ctx, int id)
{
    flush_job_t *j;
    if (flush_begin(ctx, id, "sync", &j) < 0)
        return -1;
    if (!j)
        return 0;
    int width = config_get_int(ctx->cfg, "SCR_FLUSH_WIDTH", 256);
    if (ctx->rank == 0)
        progress_begin(&j->progress, j->bytes, "flush of dataset %d, rank 0's files", id);
    int ok = flow_run(ctx->comm, width, flush_copy_all, j);
    flush_report(ctx, j, ok);
    int rc = flush_finish(ctx, j, ok);
    if (rc == 0)
        flush_prune(ctx);
    return rc;
}

int flush_async_start(scr_ctx_t *ctx, int id)
{
    flush_job_t *j;
    if (flush_begin(ctx, id, "async", &j) < 0)
        return -1;
    if (!j)
        return 0;
    j->background = 1;
    int local = ctx->topo.local_size > 0 ? ctx->topo.local_size : 1;
    j->bw =
        (double)config_get_bytes(ctx->cfg, "SCR_FLUSH_ASYNC_BW", 200ULL << 20) / local;
    j->percent = config_get_int(ctx->cfg, "SCR_FLUSH_ASYNC_PERCENT", 0);
    snprintf(j->transfer, sizeof(j->transfer), "%s/transfer_%d.scrinfo", ctx->cntl_dir,
             ctx->rank);
    atomic_store(&j->done, 0);
    int ok = pthread_create(&j->thread, NULL, flush_thread, j) == 0;
    if (!ok) {
        errprintf(&j->err, "cannot start the flush thread");
        atomic_store(&j->done, 1);
    }
    j->ok = ok;
    ctx->async = j;
    log_dbg(1, "background flush of dataset %d started", id);
    return 0;
}

int flush_async_poll(scr_ctx_t *ctx, int wait)
{
    int running = ctx->async != NULL, any;
    /* unconditional: SCR_Start_output counts on it as its barrier */
    MPI_Allreduce(&running, &any, 1, MPI_INT, MPI_LOR, ctx->comm);
    if (!any)
        return 0;
    flush_job_t *j = ctx->async;
    int done = !j || wait ? 1 : atomic_load(&j->done), all;
    MPI_Allreduce(&done, &all, 1, MPI_INT, MPI_LAND, ctx->comm);
    if (!all)
        return 1;
    if (!j)
        return 0; /* cannot happen: flushes start collectively */
    pthread_join(j->thread, NULL);
    int ok = j->ok, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, ctx->comm);
    flush_report(ctx, j, all_ok);
    unlink(j->transfer);
    ctx->async = NULL;
    if (flush_finish(ctx, j, all_ok) == 0)
        flush_prune(ctx);
    return 0;
}

int flush_pending_ckpt(scr_ctx_t *ctx)
{
    int id = cache_newest_ckpt(ctx, INT32_MAX);
    MPI_Bcast(&id, 1, MPI_INT, 0, ctx->comm);
    return id >= 0 && !flush_done(ctx, id) ? id : -1;
}

/* this rank's share (r2f_read_names) of the names of the dataset of entry
 * (DSET <id> DIR <dir>..., as place_older_staged lists it) into names; an
 * unreadable tree names nothing, as place_supersede reads it.  Collective. */
static void flush_dset_names(scr_ctx_t *ctx, const kvtree_t *entry, kvtree_t *names)
{
    kvtree_elem_t *d = kvtree_first(kvtree_get(entry, "DSET"));
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(kvtree_elem_tree(d), "DIR")); e;
         e = kvtree_elem_next(e)) {
        char dsetdir[SCR_PATH_MAX * 2];
        snprintf(dsetdir, sizeof(dsetdir), "%s/%s", ctx->prefix, kvtree_elem_key(e));
        r2f_read_names(ctx->comm, dsetdir, names, NULL);
    }
}

/* the names of each dataset of older, this rank's share */
static kvtree_t **flush_older_names(scr_ctx_t *ctx, const kvtree_t *older, int k)
{
    kvtree_t **theirs = calloc((size_t)k + 1, sizeof(*theirs));
    if (!theirs)
        MPI_Abort(ctx->comm, 1);
    for (int i = 0; i < k; i++) {
        theirs[i] = kvtree_new();
        flush_dset_names(ctx, kvtree_getf(older, "%d", i), theirs[i]);
    }
    return theirs;
}

/* every older complete dataset that names one of names (each rank's own)
 * leaves the index (as place_supersede).  The names are compared where
 * they hash to (namejoin.h): no rank reads any dataset's tree whole. */
static void flush_supersede_join(scr_ctx_t *ctx, int id, const kvtree_t *names)
{
    kvtree_t *index = kvtree_new(), *older = kvtree_new();
    scr_error_t err;
    if (ctx->rank == 0 && index_read(ctx->prefix, index, &err) < 0 && errno != ENOENT)
        log_warn("dataset %d: %s", id, err.text);
    else if (ctx->rank == 0)
        place_older_staged(index, id, older);
    kvtree_bcast(older, 0, ctx->comm);
    int k = kvtree_size(older);
    kvtree_t **theirs = flush_older_names(ctx, older, k);
    int *hit = calloc((size_t)k + 1, sizeof(int));
    if (!hit)
        MPI_Abort(ctx->comm, 1);
    namejoin_hits(ctx->comm, names, theirs, k, hit);
    for (int i = 0; i < k; i++) {
        kvtree_elem_t *d = kvtree_first(kvtree_getf(older, "%d DSET", i));
        if (hit[i] && ctx->rank == 0)
            place_drop(ctx->prefix, index, id, atoi(kvtree_elem_key(d)));
        kvtree_delete(&theirs[i]);
    }
    free(theirs);
    free(hit);
    kvtree_delete(&index);
    kvtree_delete(&older);
    MPI_Barrier(ctx->comm);
}

void flush_supersede_names(scr_ctx_t *ctx, int id, const kvtree_t *names)
{
    int have = kvtree_size(names) > 0, any = 0;
    MPI_Allreduce(&have, &any, 1, MPI_INT, MPI_LOR, ctx->comm);
    if (any)
        flush_supersede_join(ctx, id, names);
}

/* before the first rename: a dataset whose files this one is about to
 * replace leaves the index, so the index never points at a mix of two
 * checkpoints.  When any rank finds one of its files at its own path, every
 * name of the dataset is compared (one older dataset may name a file no
 * rank of this one has placed yet). */
static void flush_supersede(scr_ctx_t *ctx, int id, const kvtree_t *files)
{
    int clash = 0, any = 0;
    for (kvtree_elem_t *e = kvtree_first(files); e && !clash; e = kvtree_elem_next(e)) {
        char path[SCR_PATH_MAX * 2];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", ctx->prefix, kvtree_elem_key(e));
        clash = lstat(path, &st) == 0;
    }
    MPI_Allreduce(&clash, &any, 1, MPI_INT, MPI_LOR, ctx->comm);
    if (any)
        flush_supersede_join(ctx, id, files);
}

/* The files this dataset replaces at their own paths go to the prefix's
 * pool (filepool.h) instead of being freed by the rename: the next flush
 * writes over their blocks, and what it leaves is deleted on a background
 * thread.  On a disk file system that turns 0.5 s of block freeing at
 * every placement into a faster copy (bench/README.md).  1 when they may
 * be kept: the pool is on and the prefix has room for them. */
static int flush_pool_start(scr_ctx_t *ctx, const kvtree_t *files)
{
    uint64_t bytes = 0, size, total = 0;
    if (!ctx->pfs_pool) /* the same on every rank: SCR_PREFIX_REUSE */
        return 0;
    filepool_drain_async(ctx->pfs_pool); /* what the last flush did not take */
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e))
        if (kvtree_util_get_u64(kvtree_elem_tree(e), "SIZE", &size) == 0)
            bytes += size;
    /* room for the whole dataset twice over, decided once: each rank's own
     * share would fit where the job's does not */
    MPI_Allreduce(&bytes, &total, 1, MPI_UINT64_T, MPI_SUM, ctx->comm);
    int keep = ctx->rank == 0 && filepool_can_hold(ctx->prefix, 2 * total);
    MPI_Bcast(&keep, 1, MPI_INT, 0, ctx->comm);
    return keep;
}

/* the file at rel's own path into the pool, unless rel is placed already
 * (a placement cut short and done again) */
static void flush_pool_replaced(scr_ctx_t *ctx, const char *dir, const char *rel)
{
    char from[SCR_PATH_MAX * 2], to[SCR_PATH_MAX * 2], tag[32];
    struct stat st;
    if (!path_is_safe_relative(rel))
        return;
    snprintf(from, sizeof(from), "%s/%s/%s", ctx->prefix, dir, rel);
    snprintf(to, sizeof(to), "%s/%s", ctx->prefix, rel);
    snprintf(tag, sizeof(tag), "%d", ctx->rank);
    if (lstat(from, &st) == 0)
        (void)filepool_put(ctx->pfs_pool, to, tag);
}

int flush_place(scr_ctx_t *ctx, int id, const char *dir, const kvtree_t *files)
{
    scr_error_t err = {""};
    int bad = 0;
    flush_supersede(ctx, id, files);
    int keep = flush_pool_start(ctx, files);
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e)) {
        if (keep)
            flush_pool_replaced(ctx, dir, kvtree_elem_key(e));
        if (place_file(ctx->prefix, dir, kvtree_elem_key(e), bad ? NULL : &err) < 0)
            bad++;
    }
    fault_point("flush.placed", ctx->rank); /* PLACED not recorded */
    int first = agree_first_failure(ctx->comm, bad > 0);
    if (first == ctx->rank)
        log_err("dataset %d: %d files could not be moved to their own paths in %s: %s",
                id, bad, ctx->prefix, err.text);
    if (first != ctx->ranks)
        return -1;
    if (ctx->rank == 0 && index_mark_placed(ctx->prefix, id, dir, &err) < 0)
        log_err("dataset %d: %s", id, err.text);
    return 0;
}

/* rank 0: datasets ids (n) leave the index (as read into index) and the
 * flush file; plan gets GONE <i> DSET <id> DIR <dir> for their complete
 * staged directories and KEPT <i> ... for those of every dataset left */
static void flush_drop_plan(scr_ctx_t *ctx, kvtree_t *index, const int *ids, int n,
                            kvtree_t *plan)
{
    for (int i = 0; i < n; i++) {
        index_remove(ctx->prefix, ids[i], NULL);
        flushfile_set(ctx->prefix, ids[i], "PFS", 0, NULL);
    }
    /* every complete staged dataset, dropped or kept (index is as read) */
    kvtree_t *all = kvtree_new(), *gone = kvtree_set(plan, "GONE", NULL),
             *kept = kvtree_set(plan, "KEPT", NULL);
    int m = place_older_staged(index, INT32_MAX, all);
    for (int j = 0; j < m; j++) {
        kvtree_t *d = kvtree_getf(all, "%d", j);
        int id = atoi(kvtree_elem_key(kvtree_first(kvtree_get(d, "DSET")))), drop = 0;
        for (int i = 0; i < n; i++)
            drop |= ids[i] == id;
        kvtree_t *to = drop ? gone : kept;
        kvtree_setf(to, kvtree_dup(d), "%d", kvtree_size(to));
    }
    kvtree_delete(&all);
}

/* rank 0: the datasets SCR_PREFIX_SIZE drops, into ids; their plan */
static int flush_prune_plan(scr_ctx_t *ctx, int keep, kvtree_t *index, kvtree_t *plan,
                            int *ids)
{
    int n = 0;
    if (index_read(ctx->prefix, index, NULL) == 0)
        n = index_prune_list(index, keep, ids, 256);
    for (int i = 0; i < n; i++)
        log_dbg(1, "SCR_PREFIX_SIZE=%d: deleting dataset %d from the prefix", keep,
                ids[i]);
    flush_drop_plan(ctx, index, ids, n, plan);
    return n;
}

/* this rank's share of the names of every dataset in list (i -> DSET <id>
 * DIR <dir>), merged */
static kvtree_t *flush_prune_names(scr_ctx_t *ctx, const kvtree_t *list)
{
    kvtree_t *names = kvtree_new();
    for (kvtree_elem_t *e = kvtree_first(list); e; e = kvtree_elem_next(e))
        flush_dset_names(ctx, kvtree_elem_tree(e), names);
    return names;
}

/* Collective: the files at their own paths of plan's GONE datasets that no
 * KEPT one names are unlinked where their names hash to; then rank 0 (the
 * only one with n > 0) removes the datasets' directories */
static void flush_remove_spread(scr_ctx_t *ctx, kvtree_t *index, kvtree_t *plan,
                                const int *ids, int n)
{
    int ngone;
    kvtree_bcast(plan, 0, ctx->comm);
    ngone = kvtree_size(kvtree_get(plan, "GONE"));
    if (ngone > 0) {
        kvtree_t *gone = flush_prune_names(ctx, kvtree_get(plan, "GONE"));
        kvtree_t *kept = flush_prune_names(ctx, kvtree_get(plan, "KEPT"));
        kvtree_t *send = kvtree_new(), *recv = kvtree_new(), *got = kvtree_new();
        nameset_route(send, gone, "G", ctx->ranks);
        nameset_route(send, kept, "K", ctx->ranks);
        kvtree_exchange(send, recv, ctx->comm);
        for (kvtree_elem_t *e = kvtree_first(recv); e; e = kvtree_elem_next(e))
            kvtree_merge(got, kvtree_elem_tree(e));
        kvtree_t *k = kvtree_get(got, "K");
        for (kvtree_elem_t *e = kvtree_first(kvtree_get(got, "G")); e;
             e = kvtree_elem_next(e))
            if (!kvtree_get(k, kvtree_elem_key(e)))
                place_unlink(ctx->prefix, kvtree_elem_key(e));
        kvtree_delete(&gone);
        kvtree_delete(&kept);
        kvtree_delete(&send);
        kvtree_delete(&recv);
        kvtree_delete(&got);
        MPI_Barrier(ctx->comm);
    }
    /* then the datasets' directories (their files are done above) */
    for (int i = 0; i < n; i++) {
        scr_error_t err;
        if (place_remove_as(ctx->prefix, index, ids[i], PLACE_FILES_LEAVE, &err) < 0)
            log_warn("could not remove dataset %d from %s: %s", ids[i], ctx->prefix,
                     err.text);
    }
}

/* SCR_PREFIX_SIZE: keep only the newest checkpoints on the prefix.  Rank 0
 * takes the oldest out of the index; the files at their own paths that
 * only they name are found and unlinked where their names hash to
 * (nameset.h), so no process reads every dataset's tree whole.  Collective
 * (every rank has the same SCR_PREFIX_SIZE). */
void flush_prune(scr_ctx_t *ctx)
{
    int keep = config_get_int(ctx->cfg, "SCR_PREFIX_SIZE", 0), ids[256], n = 0;
    if (keep <= 0)
        return;
    kvtree_t *index = kvtree_new(), *plan = kvtree_new();
    if (ctx->rank == 0)
        n = flush_prune_plan(ctx, keep, index, plan, ids);
    flush_remove_spread(ctx, index, plan, ids, n);
    kvtree_delete(&index);
    kvtree_delete(&plan);
}

void flush_delete(scr_ctx_t *ctx, const int *ids, int n)
{
    kvtree_t *index = kvtree_new(), *plan = kvtree_new();
    if (ctx->rank == 0 && n > 0) {
        index_read(ctx->prefix, index, NULL);
        flush_drop_plan(ctx, index, ids, n, plan);
    }
    flush_remove_spread(ctx, index, plan, ids, ctx->rank == 0 ? n : 0);
    kvtree_delete(&index);
    kvtree_delete(&plan);
}
