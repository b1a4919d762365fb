/* SPDX-License-Identifier: BSD-3-Clause */
/* api_init.c - SCR_Init, SCR_Finalize, SCR_Config (program flow "SCR_Init") */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agree.h"
#include "api_util.h"
#include "cache.h"
#include "crcbg.h"
#include "mem.h"
#include "mtbf.h"
#include "desc.h"
#include "env.h"
#include "evlog.h"
#include "dsindex.h"
#include "fetch.h"
#include "filemap.h"
#include "filepool.h"
#include "flush.h"
#include "halt.h"
#include "pfs.h"
#include "place.h"
#include "rpfs.h"
#include "bypass.h"
#include "io.h"
#include "jobrec.h"
#include "kvtree_mpi.h"
#include "log.h"
#include "progress.h"
#include "redbg.h"
#include "nodelist.h"
#include "rebuild.h"
#include "scr.h"
#include "scr_build.h"

static scr_ctx_t the_ctx = {.restart_id = -1, .comm = MPI_COMM_NULL};

scr_ctx_t *scr_ctx(void)
{
    return &the_ctx;
}

int scr_agree(scr_ctx_t *ctx, int ok, const char *what, const scr_error_t *err)
{
    return scr_agree_on(ctx, ctx->comm, ok, what, err);
}

int scr_agree_on(scr_ctx_t *ctx, MPI_Comm comm, int ok, const char *what,
                 const scr_error_t *err)
{
    int failed = agree_first_failure(comm, !ok);
    if (failed == ctx->ranks)
        return 1;
    /* a collective step fails on every rank when one fails: the lowest rank
     * that knows why speaks, not one that only learnt of it */
    int why = !ok && err && err->text[0];
    int first = agree_first_failure(comm, why);
    if (first == ctx->rank)
        log_err("%s: %s", what, err->text);
    else if (first == ctx->ranks && failed == ctx->rank)
        log_err("%s failed", what);
    return 0;
}

int scr_check_init(scr_ctx_t *ctx, const char *fn)
{
    if (ctx->finalized) {
        log_err("%s: called after SCR_Finalize", fn);
        return 0;
    }
    if (!ctx->initialized) {
        log_err("%s: called before SCR_Init (or SCR_Init failed)", fn);
        return 0;
    }
    return 1;
}

/* the configuration: env and files as rank 0 sees them, plus this
 * process's own SCR_Config settings */
static int init_config(scr_ctx_t *ctx, MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (!ctx->cfg && !(ctx->cfg = config_new()))
        return -1;
    kvtree_t *t = kvtree_new();
    if (rank == 0) {
        scr_config_t *sys = config_new();
        config_load_standard(sys, SCR_SYSTEM_CONFIG_FILE);
        kvtree_delete(&t);
        t = config_export(sys);
        kvtree_unsetf(t, "SRC %d", CONFIG_SRC_APP);
        config_delete(&sys);
    }
    kvtree_bcast(t, 0, comm);
    int rc = config_import(ctx->cfg, t);
    kvtree_delete(&t);
    return rc;
}

/* a directory exists (created if mkdir), and a file can be created in it */
static int init_dir(const char *dir, int mkdir, scr_error_t *err)
{
    if (mkdir && io_mkdir_p(dir, 0700, err) < 0)
        return -1;
    if (!mkdir && access(dir, F_OK) < 0)
        return errprintf(err, "%s: %s (MKDIR=0)", dir, strerror(errno));
    char probe[SCR_PATH_MAX + 64];
    snprintf(probe, sizeof(probe), "%s/.scr_probe.%d", dir, (int)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return errprintf(err, "%s is not writable: %s", dir, strerror(errno));
    close(fd);
    unlink(probe);
    return 0;
}

/* evicted files to write over (filepool.h); a crashed run's are removed
 * here, before the agreement that follows lets any rank evict */
static int init_pool(scr_ctx_t *ctx, scr_error_t *err)
{
    if (!(ctx->pool = filepool_new()))
        return errprintf(err, "out of memory");
    for (int i = 0; i < ctx->nstores; i++)
        if (ctx->stores[i].enabled &&
            filepool_add_root(ctx->pool, ctx->stores[i].dir) < 0)
            return errprintf(err, "out of memory");
    filepool_sweep(ctx->pool);
    if (!config_get_int(ctx->cfg, "SCR_CACHE_REUSE", 1))
        filepool_free(&ctx->pool);
    ctx->cache_defer = ctx->pool && config_get_int(ctx->cfg, "SCR_CACHE_DEFER", 1);
    return 0;
}

static int init_dirs(scr_ctx_t *ctx, scr_error_t *err)
{
    const char *base = config_get(ctx->cfg, "SCR_CNTL_BASE", NULL);
    if (snprintf(ctx->cntl_dir, sizeof(ctx->cntl_dir), "%s/%s/%s", base, ctx->user,
                 ctx->jobdir) >= (int)sizeof(ctx->cntl_dir) ||
        snprintf(ctx->filemap_path, sizeof(ctx->filemap_path), "%s/filemap_%d.scrinfo",
                 ctx->cntl_dir, ctx->rank) >= (int)sizeof(ctx->filemap_path))
        return errprintf(err, "SCR_CNTL_BASE=%s: path too long", base);
    if (init_dir(ctx->cntl_dir, 1, err) < 0)
        return -1;
    for (int i = 0; i < ctx->nstores; i++)
        if (ctx->stores[i].enabled &&
            init_dir(ctx->stores[i].dir, ctx->stores[i].mkdir, err) < 0)
            return -1;
    return init_pool(ctx, err);
}

/* The run's nodes from PMIx's list of the job's (topo.h), compressed, when
 * every rank has one that holds its node and as many as the job has;
 * NULL on every rank otherwise.  Sends nothing between nodes (topo.c says
 * why that matters). */
static char *init_listed_nodes(scr_ctx_t *ctx)
{
    nodelist_t *nodes = nodelist_new();
    int ok = ctx->topo.nodes && nodes, all_ok = 0;
    char *list = ok ? strdup(ctx->topo.nodes) : NULL, *save = NULL;
    for (char *h = list ? strtok_r(list, ",", &save) : NULL; h;
         h = strtok_r(NULL, ",", &save))
        nodelist_append(nodes, h);
    free(list);
    if (ok) {
        nodelist_uniq(nodes);
        ok = nodelist_count(nodes) == ctx->topo.node.ngroups &&
             nodelist_find(nodes, ctx->topo.hostname) >= 0;
    }
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, ctx->comm);
    char *str = all_ok ? nodelist_compress(nodes) : NULL;
    nodelist_delete(&nodes);
    return str;
}

/* the run's nodes as a compressed host list, on every rank: PMIx's, else
 * each node's first rank sends its host name to rank 0 */
static char *init_run_nodes(scr_ctx_t *ctx)
{
    char *str = init_listed_nodes(ctx);
    if (str) {
        log_dbg(1, "the job's nodes %s (from PMIx)", str);
        return str;
    }
    kvtree_t *mine = kvtree_new(), *got = kvtree_new(), *list = kvtree_new();
    if (ctx->topo.local_rank == 0)
        kvtree_set_kv(kvtree_set(mine, "0", kvtree_new()), "HOST", ctx->topo.hostname);
    kvtree_exchange(mine, got, ctx->comm);
    if (ctx->rank == 0) {
        nodelist_t *nodes = nodelist_new();
        for (kvtree_elem_t *e = kvtree_first(got); e; e = kvtree_elem_next(e))
            nodelist_append(nodes, kvtree_get_val(kvtree_elem_tree(e), "HOST"));
        str = nodelist_compress(nodes);
        kvtree_util_set_str(list, "NODES", str ? str : "");
        free(str);
        nodelist_delete(&nodes);
    }
    kvtree_bcast(list, 0, ctx->comm);
    const char *v = kvtree_get_val(list, "NODES");
    str = strdup(v ? v : "");
    log_dbg(1, "the job's nodes %s (sent to rank 0)", str);
    kvtree_delete(&mine);
    kvtree_delete(&got);
    kvtree_delete(&list);
    return str;
}

/* The job's epilog and `scr postrun` act on the prefix this run uses,
 * which the job script or the application may have chosen after the job
 * was submitted: each node's first rank records it (jobrec.h). */
static void init_jobrec(scr_ctx_t *ctx)
{
    char *nodes = init_run_nodes(ctx);
    scr_error_t err;
    if (ctx->topo.local_rank == 0 &&
        jobrec_write(ctx->cntl_dir, ctx->prefix, nodes,
                     config_get_int(ctx->cfg, "SCR_FLUSH_DIRECT", 1), &err) < 0)
        log_warn("the job epilog may not find prefix %s: %s", ctx->prefix, err.text);
    free(nodes);
    /* and every store, so the epilog cleans the ones a config file named */
    const char **bases = calloc((size_t)ctx->nstores + 1, sizeof(char *));
    int n = 0;
    for (int i = 0; bases && i < ctx->nstores; i++)
        if (ctx->stores[i].enabled)
            bases[n++] = ctx->stores[i].base;
    if (ctx->topo.local_rank == 0 &&
        (!bases || jobrec_add_stores(ctx->cntl_dir, bases, n, &err) < 0))
        log_warn("the job epilog may not clean every store: %s",
                 bases ? err.text : "out of memory");
    free(bases);
}

/* Helper threads (worker.h) overlap reading with sending or writing, but
 * only pay where a core would otherwise idle: with a rank on every core
 * they take cycles from the ranks (measured in bench/README.md).  Auto:
 * when this process may run on more than one CPU and the node's ranks
 * leave CPUs free. */
static int init_overlap(scr_ctx_t *ctx)
{
    int v = config_get_int(ctx->cfg, "SCR_OVERLAP", -1);
    if (v >= 0)
        return v > 0;
    cpu_set_t set;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int mine = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
    return mine > 1 && online > ctx->topo.local_size;
}

/* a pipeline block size: 4 KiB to 1 GiB, a multiple of 64 (ISA-L vectors);
 * anything else is reported and the 1 MiB default used */
static size_t init_buf_size(scr_ctx_t *ctx, const char *name)
{
    uint64_t v = config_get_bytes(ctx->cfg, name, 1 << 20);
    if (v < 4096 || v > (1u << 30)) {
        if (ctx->rank == 0)
            log_err("SCR_Init: %s=%llu is outside 4KB..1GB; using 1MB", name,
                    (unsigned long long)v);
        v = 1 << 20;
    }
    return (size_t)v & ~(size_t)63;
}

/* Groups of one job that each call SCR_Init_comm may share nodes, and
 * rank r of one would take rank r's filemap of the other: a group smaller
 * than the job keeps its files in a directory of its own.  Its prefix
 * names it, since the prefix is what tells the groups apart on restart
 * (each must have its own) and stays the same from run to run. */
static void init_jobdir(scr_ctx_t *ctx)
{
    if (ctx->whole) {
        snprintf(ctx->jobdir, sizeof(ctx->jobdir), "scr.%s", ctx->jobid);
        return;
    }
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)ctx->prefix; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    snprintf(ctx->jobdir, sizeof(ctx->jobdir), "scr.%s/comm.%016llx", ctx->jobid,
             (unsigned long long)h);
}

/* job facts everyone must agree on come from rank 0 */
static void init_identity(scr_ctx_t *ctx)
{
    if (ctx->rank == 0) {
        env_user(ctx->cfg, ctx->user, sizeof(ctx->user));
        env_jobid(ctx->cfg, ctx->jobid, sizeof(ctx->jobid));
        if (env_prefix(ctx->cfg, ctx->prefix, sizeof(ctx->prefix)) < 0)
            ctx->prefix[0] = '\0';
    }
    MPI_Bcast(ctx->user, sizeof(ctx->user), MPI_CHAR, 0, ctx->comm);
    MPI_Bcast(ctx->jobid, sizeof(ctx->jobid), MPI_CHAR, 0, ctx->comm);
    MPI_Bcast(ctx->prefix, sizeof(ctx->prefix), MPI_CHAR, 0, ctx->comm);
    init_jobdir(ctx);
}

static void init_counters(scr_ctx_t *ctx)
{
    int n, *ids, maxid = 0, maxckpt = 0;
    if (filemap_list_dsets(ctx->filemap, &n, &ids) == 0) {
        for (int i = 0; i < n; i++) {
            int c = 0;
            maxid = ids[i] > maxid ? ids[i] : maxid;
            kvtree_util_get_int(filemap_get_desc(ctx->filemap, ids[i], "DSETDESC"),
                                "CKPT", &c);
            maxckpt = c > maxckpt ? c : maxckpt;
        }
        free(ids);
    }
    /* ids go on above every dataset on the prefix too, so a new dataset
     * never lands in the directory of an older one */
    if (ctx->rank == 0) {
        kvtree_t *index = kvtree_new();
        int *pids, np;
        if (index_read(ctx->prefix, index, NULL) == 0 &&
            kvtree_list_int(kvtree_get(index, "DSET"), &np, &pids) == 0) {
            if (np > 0 && pids[np - 1] > maxid)
                maxid = pids[np - 1];
            free(pids);
        }
        kvtree_delete(&index);
    }
    MPI_Allreduce(&maxid, &ctx->dataset_id, 1, MPI_INT, MPI_MAX, ctx->comm);
    MPI_Allreduce(&maxckpt, &ctx->checkpoint_id, 1, MPI_INT, MPI_MAX, ctx->comm);
    ctx->restart_id = cache_newest_ckpt(ctx, INT32_MAX);
    MPI_Bcast(&ctx->restart_id, 1, MPI_INT, 0, ctx->comm);
}

/* A halt condition at start stops this run before it does anything.
 * SCR_FINALIZE_CALLED is not one: an earlier run finished, and this one (a
 * rerun in the same job, or a new job) restarts from the newest checkpoint.
 * The mark is cleared, since this run has not finished: if it fails, `scr
 * run` must relaunch it. */
static void init_halt_check(scr_ctx_t *ctx)
{
    char reason[SCR_HALT_REASON_MAX] = "";
    if (ctx->rank == 0) {
        char job[128];
        scr_error_t err;
        int cleared = halt_clear_finished(ctx->prefix, job, sizeof(job), &err);
        if (cleared > 0)
            log_dbg(1, "job %s finished a run earlier; job %s runs again", job,
                    ctx->jobid);
        else if (cleared < 0)
            log_warn("cannot clear SCR_FINALIZE_CALLED: %s", err.text);
    }
    if (!scr_halt_check(ctx, reason, sizeof(reason)))
        return;
    if (ctx->rank == 0) {
        log_err("halt condition %s holds for prefix %s: not running (list it with "
                "'scr halt --list', clear it with 'scr halt --remove')",
                reason, ctx->prefix);
        evlog_event(ctx, "HALT", "reason=%s at=init", reason);
    }
    MPI_Barrier(ctx->comm);
    MPI_Finalize();
    exit(0);
}

/* the prefix's replaced files, kept for the next flush to write over
 * (flush.c, SCR_PREFIX_REUSE); rank 0 removes a crashed run's here, before
 * the collective calls that come before any flush */
static void init_pfs_pool(scr_ctx_t *ctx)
{
    char dir[SCR_PATH_MAX + 32];
    if (!ctx->prefix[0] || !(ctx->pfs_pool = filepool_new()))
        return;
    snprintf(dir, sizeof(dir), "%s/.scr/%s", ctx->prefix, FILEPOOL_DIR);
    if (filepool_add_root_dir(ctx->pfs_pool, ctx->prefix, dir) < 0)
        filepool_free(&ctx->pfs_pool);
    if (ctx->rank == 0)
        filepool_sweep(ctx->pfs_pool);
    if (!config_get_int(ctx->cfg, "SCR_PREFIX_REUSE", 1))
        filepool_free(&ctx->pfs_pool);
}

/* rank 0: purge, nodes file, stale flush-file marks of earlier runs */
static void init_prefix(scr_ctx_t *ctx)
{
    char path[SCR_PATH_MAX + 32];
    scr_error_t err;
    if (config_get_int(ctx->cfg, "SCR_PREFIX_PURGE", 0)) {
        kvtree_t *index = kvtree_new();
        int n = 0, *ids = NULL;
        index_read(ctx->prefix, index, NULL);
        if (kvtree_list_int(kvtree_get(index, "DSET"), &n, &ids) == 0)
            for (int i = 0; i < n; i++) {
                /* every dataset goes: no other's names to keep */
                place_remove_as(ctx->prefix, index, ids[i], PLACE_FILES_ALL, NULL);
                index_remove(ctx->prefix, ids[i], NULL);
            }
        free(ids);
        kvtree_delete(&index);
        pfs_meta_path(ctx->prefix, "flush.scr", path, sizeof(path));
        unlink(path);
        log_msg("SCR_PREFIX_PURGE: removed %d datasets from %s", n, ctx->prefix);
    }
    kvtree_t *nodes = kvtree_new();
    kvtree_util_set_int(nodes, "NODES", ctx->topo.num_nodes);
    pfs_meta_path(ctx->prefix, "nodes.scr", path, sizeof(path));
    char dir[SCR_PATH_MAX + 16];
    snprintf(dir, sizeof(dir), "%s/.scr", ctx->prefix);
    if (io_mkdir_p(dir, 0700, &err) < 0 || kvtree_write_file(path, nodes, &err) < 0)
        log_warn("cannot write the nodes file: %s", err.text);
    kvtree_delete(&nodes);
    /* a flush an earlier run did not finish is not in progress any more */
    kvtree_t *flush = kvtree_new();
    pfs_meta_path(ctx->prefix, "flush.scr", path, sizeof(path));
    kvtree_read_with_lock(path, flush, NULL);
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(flush, "DSET")); e;
         e = kvtree_elem_next(e)) {
        int id;
        if (kvtree_elem_key_int(e, &id) == 0 &&
            kvtree_get(kvtree_elem_tree(e), "FLUSHING"))
            flushfile_set(ctx->prefix, id, "FLUSHING", 0, NULL);
    }
    kvtree_delete(&flush);
}

/* a checkpoint written to the prefix in bypass, newer than the newest in
 * cache, is the one to restart from (a CKPT descriptor with BYPASS=1 every
 * few checkpoints leaves the cache with only the older ones) */
static void init_newer_bypass(scr_ctx_t *ctx)
{
    char dir[256] = "";
    int id = -1;
    if (ctx->rank == 0) {
        kvtree_t *index = kvtree_new();
        if (index_read(ctx->prefix, index, NULL) == 0)
            id = index_pick(index, NULL, INT32_MAX, dir, sizeof(dir));
        if (id <= ctx->restart_id || !kvtree_get(index_dset_desc(index, id), "BYPASS"))
            id = -1;
        kvtree_delete(&index);
    }
    MPI_Bcast(&id, 1, MPI_INT, 0, ctx->comm);
    MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, ctx->comm);
    if (id >= 0 && rpfs_open(ctx, id, dir) == 0)
        ctx->restart_id = id;
}

/* no checkpoint in cache: fetch one from the prefix (SCR_GLOBAL_RESTART:
 * open it there); and the flush on restart options */
static void init_restart_source(scr_ctx_t *ctx)
{
    int global = config_get_int(ctx->cfg, "SCR_GLOBAL_RESTART", 0);
    int fetch = global || config_get_int(ctx->cfg, "SCR_FETCH", 1);
    int flush_on_restart = global || config_get_int(ctx->cfg, "SCR_FLUSH_ON_RESTART", 0);
    if (ctx->restart_id < 0 && fetch) {
        if (ctx->rank == 0)
            dsindex_pending(ctx->prefix,
                            config_get_int(ctx->cfg, "SCR_SCAVENGE_GRACE", 60));
        int got = fetch_sync(ctx, global || ctx->cache_foreign);
        init_counters(ctx);
        if (ctx->rpfs)
            ctx->restart_id = got;
    }
    if (ctx->restart_id >= 0 && !ctx->rpfs)
        init_newer_bypass(ctx);
    if (ctx->restart_id < 0 || ctx->rpfs || !flush_on_restart)
        return;
    /* the flush also finishes a placement an earlier run cut short, so a
     * restart without SCR's restart API reads whole files */
    int flushed = ctx->flush_every != 0 && flush_sync(ctx, ctx->restart_id) == 0;
    /* memory checkpoints are restored from cache, where they are */
    int mem = kvtree_get(filemap_get_desc(ctx->filemap, ctx->restart_id, "DSETDESC"),
                         "MEM") != NULL;
    if (global && flushed && !mem) {
        char dir[64];
        pfs_dset_name(ctx->restart_id, dir, sizeof(dir));
        if (rpfs_open(ctx, ctx->restart_id, dir) < 0 && ctx->rank == 0)
            log_warn("SCR_GLOBAL_RESTART: dataset %d is read from cache instead",
                     ctx->restart_id);
    } else if (global && !mem && ctx->rank == 0)
        log_warn("SCR_GLOBAL_RESTART: dataset %d could not be flushed (SCR_FLUSH=%d); it "
                 "is read from cache",
                 ctx->restart_id, ctx->flush_every);
}

/* the cache holds datasets of another number of ranks: this job neither
 * rebuilds, evicts nor rewrites them (its filemaps go elsewhere), writes
 * its own datasets to the prefix and restarts from there */
static void init_leave_cache(scr_ctx_t *ctx)
{
    ctx->cache_foreign = 1;
    kvtree_clear(ctx->filemap);
    char *dot = strrchr(ctx->filemap_path, '.'); /* filemap_<rank>.scrinfo */
    if (dot)
        snprintf(dot, sizeof(ctx->filemap_path) - (size_t)(dot - ctx->filemap_path),
                 ".of%d.scrinfo", ctx->ranks);
}

/* progress lines of a long flush (progress.h): rank 0, with SCR_DEBUG */
static void init_progress(scr_ctx_t *ctx)
{
    double secs = 0;
    const char *v = config_get(ctx->cfg, "SCR_PROGRESS_SECONDS", NULL);
    if (ctx->rank == 0 && ctx->debug >= 1 && progress_parse_interval(v, &secs) < 0) {
        log_warn("SCR_PROGRESS_SECONDS=%s is not a number of seconds; using 1", v);
        secs = 1;
    }
    progress_enable(ctx->rank == 0 && ctx->debug >= 1 ? secs : 0, NULL, NULL);
}

/* everything after the communicator exists; -1 leaves SCR unusable */
static int init_body(scr_ctx_t *ctx)
{
    scr_error_t err = {""};
    char terr[256];
    ctx->debug = config_get_int(ctx->cfg, "SCR_DEBUG", 0);
    log_set_debug(ctx->rank == 0 ? ctx->debug : 0);
    init_progress(ctx);
    const char *src = config_get(ctx->cfg, "SCR_TOPOLOGY", NULL);
    int ok = topo_create(ctx->comm, !src || strcmp(src, "mpi") != 0, ctx->whole,
                         &ctx->topo, terr, sizeof(terr)) == 0;
    if (!ok)
        errprintf(&err, "%s", terr);
    if (!scr_agree(ctx, ok, "SCR_Init", &err))
        return -1;
    log_dbg(1, "SCR %s: %d ranks on %d nodes (topology from %s)", SCR_VERSION_STRING,
            ctx->ranks, ctx->topo.num_nodes, ctx->topo.source);
    log_dbg(1, "node communicator from %s", ctx->topo.node_from);
    init_identity(ctx);
    if (!ctx->prefix[0]) {
        if (ctx->rank == 0)
            log_err("SCR_Init: SCR_PREFIX is not usable");
        return -1;
    }
    ctx->buf_size = init_buf_size(ctx, "SCR_MPI_BUF_SIZE");
    ctx->file_buf_size = init_buf_size(ctx, "SCR_FILE_BUF_SIZE");
    ctx->overlap = init_overlap(ctx);
    ctx->copy_map = config_get_int(ctx->cfg, "SCR_COPY_MAP", 1) != 0;
    log_dbg(2, "helper threads in pipelines: %s", ctx->overlap ? "yes" : "no");
    ctx->crc_on_copy = config_get_int(ctx->cfg, "SCR_CRC_ON_COPY", 0);
    /* the configuration is identical everywhere, so only rank 0 reports */
    ok = desc_create(ctx, &err) == 0;
    if (!ok && ctx->rank == 0)
        log_err("SCR_Init: bad configuration: %s", err.text);
    if (!ok)
        return -1;
    ok = init_dirs(ctx, &err) == 0;
    if (!scr_agree(ctx, ok, "SCR_Init", &err)) {
        filepool_free(&ctx->pool);
        return -1;
    }
    init_jobrec(ctx);
    ctx->flush_every = config_get_int(ctx->cfg, "SCR_FLUSH", 10);
    mtbf_init(ctx);
    if (ctx->rank == 0 && config_get_int(ctx->cfg, "SCR_USE_CONTAINERS", 0))
        log_warn(
            "SCR_USE_CONTAINERS=1 is not supported yet: files are flushed one by one");
    evlog_open(ctx);
    init_halt_check(ctx);
    init_pfs_pool(ctx);
    if (ctx->rank == 0)
        init_prefix(ctx);
    ctx->filemap = kvtree_new();
    if (filemap_read(ctx->filemap_path, ctx->filemap, &err) < 0 && errno != ENOENT)
        log_warn("ignoring my damaged filemap: %s", err.text);
    if (config_get_int(ctx->cfg, "SCR_CACHE_PURGE", 0))
        kvtree_clear(ctx->filemap);
    if (bypass_cache_foreign(ctx))
        init_leave_cache(ctx);
    else
        rebuild_cache(ctx);
    init_counters(ctx);
    init_restart_source(ctx);
    redbg_init(ctx);
    if (ctx->rank == 0)
        evlog_event(ctx, "RUN_START", "ranks=%d nodes=%d restart=%d init_secs=%.3f",
                    ctx->ranks, ctx->topo.num_nodes, ctx->restart_id,
                    scr_now() - ctx->t_init);
    return 0;
}

/* a communicator SCR can run on, or one line saying why not */
static int init_comm_usable(MPI_Comm comm)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL) {
        log_err("SCR_Init_comm: MPI_COMM_NULL: a process outside the communicator "
                "must not call SCR_Init_comm");
        return 0;
    }
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
        log_err("SCR_Init_comm: an intercommunicator; SCR needs an intracommunicator");
        return 0;
    }
    return 1;
}

static int init_on(scr_ctx_t *ctx, MPI_Comm comm)
{
    int cmp = MPI_UNEQUAL;
    MPI_Comm_compare(comm, MPI_COMM_WORLD, &cmp);
    ctx->whole = cmp == MPI_IDENT || cmp == MPI_CONGRUENT;
    MPI_Comm_dup(comm, &ctx->comm);
    MPI_Comm_rank(ctx->comm, &ctx->rank);
    MPI_Comm_size(ctx->comm, &ctx->ranks);
    log_set_rank(ctx->rank);
    ctx->t_init = ctx->t_last_ckpt = scr_now();
    if (init_body(ctx) == 0)
        return 0;
    /* every rank fails together, and one of them said why; the caller may
     * MPI_Abort at once, which would kill a rank still about to print the
     * reason: nobody returns before everyone has written */
    MPI_Barrier(ctx->comm);
    MPI_Comm_free(&ctx->comm);
    return -1;
}

static int init_start(const char *fn, MPI_Comm comm)
{
    scr_ctx_t *ctx = scr_ctx();
    int mpi_up = 0;
    if (ctx->initialized || ctx->finalized) {
        log_err("%s: called %s", fn,
                ctx->finalized ? "after SCR_Finalize"
                               : "twice: SCR_Init or SCR_Init_comm ran before, and "
                                 "SCR_Finalize did not");
        return SCR_FAILURE;
    }
    MPI_Initialized(&mpi_up);
    if (!mpi_up) {
        log_err("%s: MPI_Init has not been called", fn);
        return SCR_FAILURE;
    }
    if (!init_comm_usable(comm))
        return SCR_FAILURE;
    if (init_config(ctx, comm) < 0) {
        log_err("%s: cannot read the configuration", fn);
        return SCR_FAILURE;
    }
    ctx->enabled = config_get_int(ctx->cfg, "SCR_ENABLE", 1) != 0;
    ctx->initialized = 1;
    if (!ctx->enabled)
        return SCR_SUCCESS;
    if (init_on(ctx, comm) < 0) {
        ctx->initialized = 0;
        ctx->init_failed = 1;
        return SCR_FAILURE;
    }
    ctx->state = SCR_STATE_IDLE;
    return SCR_SUCCESS;
}

int SCR_Init_comm(MPI_Comm comm)
{
    return init_start("SCR_Init_comm", comm);
}

int SCR_Init(void)
{
    return init_start("SCR_Init", MPI_COMM_WORLD);
}

/* the newest checkpoint must reach the prefix before the job ends */
static void finalize_flush(scr_ctx_t *ctx)
{
    flush_async_poll(ctx, 1);
    int id = ctx->flush_every != 0 ? flush_pending_ckpt(ctx) : -1;
    if (id >= 0)
        flush_sync(ctx, id);
}

void scr_halt_exit(scr_ctx_t *ctx, const char *reason)
{
    if (ctx->rank == 0) {
        log_msg("halting: %s (SCR_HALT_EXIT=1)", reason);
        evlog_event(ctx, "HALT", "reason=%s at=checkpoint", reason);
    }
    SCR_Finalize();
    MPI_Finalize();
    exit(0);
}

int SCR_Finalize(void)
{
    scr_ctx_t *ctx = scr_ctx();
    if (!scr_check_init(ctx, "SCR_Finalize"))
        return SCR_FAILURE;
    if (ctx->enabled) {
        if (ctx->state == SCR_STATE_OUTPUT)
            log_warn("SCR_Finalize: dataset %d was started but never completed",
                     ctx->out.id);
        scr_error_t err;
        redbg_fini(ctx);
        crcbg_finish(ctx);
        finalize_flush(ctx);
        if (ctx->pool)
            log_dbg(1,
                    "wrote over %ld evicted files instead of new ones, deleted %ld "
                    "in the background",
                    filepool_reused(ctx->pool), filepool_drained_later(ctx->pool));
        filepool_free(&ctx->pool); /* what the last eviction kept */
        if (ctx->pfs_pool)
            log_dbg(1, "the prefix: wrote over %ld replaced files instead of new ones",
                    filepool_reused(ctx->pfs_pool));
        filepool_free(&ctx->pfs_pool); /* what the last flush replaced */
        if (filemap_write(ctx->filemap_path, ctx->filemap, &err) < 0)
            log_err("SCR_Finalize: %s", err.text);
        if (ctx->rank == 0) {
            if (halt_set(ctx->prefix, "JOBID", ctx->jobid, &err) < 0 ||
                halt_set(ctx->prefix, "ExitReason", "SCR_FINALIZE_CALLED", &err) < 0)
                log_warn("cannot record SCR_FINALIZE_CALLED: %s", err.text);
            evlog_event(ctx, "RUN_END", "secs=%.3f", scr_now() - ctx->t_init);
        }
        evlog_close(ctx);
        MPI_Barrier(ctx->comm);
        desc_free(ctx);
        kvtree_delete(&ctx->halt);
        topo_free(&ctx->topo);
        kvtree_delete(&ctx->filemap);
        rpfs_close(ctx);
        kvtree_delete(&ctx->out.files); /* a bypass output never completed */
        MPI_Comm_free(&ctx->comm);
    }
    mem_free(ctx);
    free(ctx->failed);
    ctx->failed = NULL;
    config_delete(&ctx->cfg);
    ctx->initialized = 0;
    ctx->finalized = 1;
    return SCR_SUCCESS;
}

/* As in SCR v3: "KEY=VALUE ..." sets and "KEY=" unsets (before SCR_Init
 * only); "KEY" or "CKPT=0 TYPE" queries and returns a copy the caller frees. */
const char *SCR_Config(const char *config)
{
    scr_ctx_t *ctx = scr_ctx();
    scr_error_t err = {""};
    if (!config) {
        log_err("SCR_Config: NULL string");
        return NULL;
    }
    if (!ctx->cfg) {
        /* queries before SCR_Init see the environment and files too */
        if (!(ctx->cfg = config_new()))
            return NULL;
        config_load_standard(ctx->cfg, SCR_SYSTEM_CONFIG_FILE);
    }
    const char *v = config_app_query(ctx->cfg, config, &err);
    if (v)
        return strdup(v);
    if (!strstr(err.text, "is not a query")) {
        if (err.text[0]) /* malformed; an unset parameter just answers NULL */
            log_err("%s", err.text);
        return NULL;
    }
    if (ctx->initialized || ctx->finalized) {
        log_err("SCR_Config: '%s': settings must come before SCR_Init", config);
        return NULL;
    }
    if (config_app_set(ctx->cfg, config, &err) < 0)
        log_err("%s", err.text);
    return NULL;
}

const char *SCR_Configf(const char *format, ...)
{
    char *s = NULL;
    va_list ap;
    if (!format) {
        log_err("SCR_Configf: NULL format");
        return NULL;
    }
    va_start(ap, format);
    int rc = vasprintf(&s, format, ap);
    va_end(ap);
    if (rc < 0)
        return NULL;
    const char *v = SCR_Config(s);
    free(s);
    return v;
}
