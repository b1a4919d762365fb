/* SPDX-License-Identifier: BSD-3-Clause */
/* scr-model.c - SCR's metadata work for 10^3 .. 10^6 ranks, without MPI
 * (issue 40, item 2).
 *
 * Each step calls the real MPI-free code of lib/core/, lib/common/ and
 * prolog/ on real files in a scratch directory, with the inputs that the
 * process doing it would have in a job of N ranks on N/P nodes:
 *
 *   filemap_merge     a node reads and merges its P ranks' filemaps
 *   r2f_write         the rank2file tree as r2f_write_tree builds it: levels
 *                     grouped by r2f_assign, each writer merges its bucket
 *   r2f_lookup        the tree read top-down as r2f_read_tree does
 *   summary           rank 0 writes and reads the summary
 *   index_update      rank 0's index and flush-file updates of a flush and
 *                     a fetch (index_add, flushfile_set, index_mark_*)
 *   r2f_read_all      rank 0 reads the whole tree in one process (the
 *                     serial tools' read: place_supersede, place_remove)
 *   rpfs_open         a restart on the prefix: the tree's entries read
 *                     spread and sent to the ranks that judge their names
 *   supersede         a flush that reuses an older dataset's file names:
 *                     the older tree's names spread over the ranks, joined
 *                     with theirs where they hash to, the older dropped
 *   scavenge_node     one node's epilog copies its ranks (scavenge_pick,
 *                     scavenge_own) and writes its record (one file per
 *                     node, in 512 KiB parts); after the verdict it moves
 *                     its ranks' files to their own paths (scavenge_place)
 *   scavenge_marks    every node marks COPIED and FINISHED (prolog/scavmark.c:
 *                     a leaf file of 256 nodes, and the root when its mark
 *                     completes the leaf); the last one is elected
 *   epilog_nodelists  every node's epilog: live nodes and the run's nodes
 *                     (nodelist_minus, nodelist_intersect)
 *   index_scan        the elected node indexes the dataset (dsindex_dataset,
 *                     the nodes' records landed: it places nothing itself)
 *   index_r2f         a rank2file tree written whole by one process
 *                     (dsindex_write_r2f: the tests' serial writer; the
 *                     indexer now writes its tree as the records stream by)
 *   run_nodes         `scr run`'s down-node and spare bookkeeping, the calls
 *                     of cmd/cmd_job.c and cmd/cmd_run.c on the job's nodes
 *
 * Every measured part runs in a forked child: seconds of one core are
 * CLOCK_PROCESS_CPUTIME_ID around the busiest participant's share, memory is
 * the peak RSS growth of that share (VmHWM after /proc/self/clear_refs reset
 * it, less VmRSS at the start).  A loop over many participants stops after
 * --max-seconds and is scaled up by the entries it did; a step that one
 * process does for the whole job runs at growing sizes until the next would
 * exceed --max-seconds and is extrapolated from the last two sizes.  Lines
 * say which.  Usage: scr-model [--ranks LIST] [--files-per-rank LIST]
 * [--ranks-per-node LIST] [--dir DIR] [--max-seconds S] [--step NAME] [--table]
 * [--check].  --step runs one step alone: a series or per-node step, or
 * r2f_write, or r2f_lookup, supersede and rpfs_open after the r2f_write
 * they need (the others need the files earlier steps make).  The scratch
 * directory is made inside --dir (default /var/tmp) and removed at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crc32.h"
#include "dsindex.h"
#include "dsrec.h"
#include "filemap.h"
#include "io.h"
#include "kvtree.h"
#include "nameset.h"
#include "nodelist.h"
#include "pfs.h"
#include "place.h"
#include "r2f.h"
#include "scavenge.h"

#define MODEL_ID 9    /* the dataset a flush or scavenge writes */
#define MODEL_OLDER 8 /* datasets already in the index */
#define MODEL_MAXLIST 16
#define MODEL_MAXROWS 1024
#define MODEL_FILE_BYTES (64ULL << 20) /* a rank's checkpoint, split over its files */

/* ---- options ---- */

typedef struct {
    long ranks[MODEL_MAXLIST];
    int nranks;
    long fpr[MODEL_MAXLIST];
    int nfpr;
    long rpn[MODEL_MAXLIST];
    int nrpn;
    char dir[4096];
    double max_seconds;
    int table, check;
    char only[32]; /* --step: this step alone (no totals) */
} model_opts_t;

static model_opts_t opt;

/* does --step leave step out */
static int model_skip(const char *step)
{
    /* the steps that read the tree need it written first */
    int needs_tree = strcmp(opt.only, "r2f_lookup") == 0 ||
                     strcmp(opt.only, "supersede") == 0 ||
                     strcmp(opt.only, "rpfs_open") == 0;
    if (needs_tree && strcmp(step, "r2f_write") == 0)
        return 0;
    return opt.only[0] && strcmp(opt.only, step) != 0;
}

/* ---- results ---- */

/* the metrics, in the order of the growth strings of series_t */
enum { M_WRITTEN, M_READ, M_FILES, M_BIGGEST, M_MEM, M_CPU, M_ALL, M_HELD, M_PROCS, M_N };

typedef struct {
    char step[32], who[48];
    long ranks;
    int fpr, rpn;     /* rpn 0: the step does not depend on it */
    double m[M_N];    /* bytes written, read, prefix files, biggest file, memory
                         (bytes), cpu of the busiest (s), cpu of all (s), ranks
                         the busiest holds, processes doing it */
    int extrap;       /* 1: scaled up from a part, or from smaller sizes */
    char how[160];    /* how it was extrapolated */
    int files_target; /* 1: its files count against the per-dataset budget */
    int cpu_target;   /* 1: a flush total, held to 10 s */
} result_t;

static result_t rows[MODEL_MAXROWS];
static int nrows, failures;

/* a message on stderr; always -1 */
static int model_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int model_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("scr-model: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return -1;
}

/* ---- clocks and memory ---- */

static double model_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double model_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* a field of /proc/self/status in KiB, -1 if absent */
static long meter_status_kib(const char *key)
{
    char line[256];
    long v = -1;
    size_t klen = strlen(key);
    FILE *fp = fopen("/proc/self/status", "r");
    while (fp && fgets(line, sizeof(line), fp))
        if (strncmp(line, key, klen) == 0 && line[klen] == ':')
            v = atol(line + klen + 1);
    if (fp)
        fclose(fp);
    return v;
}

typedef struct {
    double cpu0;
    long rss0;
} meter_t;

/* start measuring one participant's share: the peak RSS starts again here */
static void meter_begin(meter_t *m)
{
    malloc_trim(0);
    int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (write(fd, "5", 1) < 0)
            model_err("clear_refs: %s", strerror(errno));
        close(fd);
    }
    m->rss0 = meter_status_kib("VmRSS");
    m->cpu0 = model_cpu();
}

/* add the share's CPU seconds to *cpu and raise *mem to its peak growth */
static void meter_end(const meter_t *m, double *cpu, double *mem)
{
    *cpu += model_cpu() - m->cpu0;
    double grew = (double)(meter_status_kib("VmHWM") - m->rss0) * 1024.0;
    if (grew > *mem)
        *mem = grew;
}

/* ---- files ---- */

static int model_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

static void model_rmtree(const char *path)
{
    nftw(path, model_rm, 32, FTW_DEPTH | FTW_PHYS);
}

static double model_file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size : 0;
}

/* ---- the job's data ---- */

/* file f of rank r, relative to the prefix */
static void model_rel(int rank, int f, char *buf, size_t len)
{
    snprintf(buf, len, "ckpt.10/rank_%d.%d.dat", rank, f);
}

static uint32_t model_crc(int rank, int f)
{
    return (uint32_t)rank * 2654435761u ^ (uint32_t)f * 40503u;
}

/* a rank's files as a flush lists them for the tree: rel -> {SIZE, CRC} */
static kvtree_t *model_rank_files(int rank, int fpr)
{
    kvtree_t *t = kvtree_new();
    char rel[256];
    for (int f = 0; f < fpr; f++) {
        model_rel(rank, f, rel, sizeof(rel));
        kvtree_t *x = kvtree_set(t, rel, NULL);
        kvtree_util_set_u64(x, "SIZE", MODEL_FILE_BYTES / (uint64_t)fpr);
        kvtree_util_set_crc32(x, "CRC", model_crc(rank, f));
    }
    return t;
}

static kvtree_t *model_entry(int rank, int fpr)
{
    kvtree_t *files = model_rank_files(rank, fpr);
    kvtree_t *e = r2f_entry_files(rank, files);
    kvtree_delete(&files);
    return e;
}

/* the packed size of a rank's level 0 entry: names differ only in the
 * rank's digits, so one rank of each length stands for all (--check
 * compares every rank) */
static uint64_t model_entry_size(int rank, int fpr)
{
    static uint64_t cache[12];
    static int cached_fpr = -1;
    int digits = 1;
    for (int r = rank; r >= 10; r /= 10)
        digits++;
    if (cached_fpr != fpr) {
        memset(cache, 0, sizeof(cache));
        cached_fpr = fpr;
    }
    if (!cache[digits]) {
        int rep = 1;
        for (int d = 1; d < digits; d++)
            rep *= 10;
        kvtree_t *e = model_entry(rep, fpr);
        cache[digits] = kvtree_pack_size(e);
        kvtree_delete(&e);
    }
    return cache[digits];
}

/* a dataset descriptor as the filemap has it */
static kvtree_t *model_desc(int id, long ranks, int fpr, const char *dir)
{
    char name[64];
    kvtree_t *d = kvtree_new();
    snprintf(name, sizeof(name), "ckpt.%d", id);
    kvtree_util_set_int(d, "ID", id);
    kvtree_util_set_str(d, "NAME", name);
    kvtree_util_set_int(d, "FLAGS", 1);
    kvtree_util_set_int(d, "CKPT", id);
    kvtree_util_set_u64(d, "CREATED", 1700000000000000ULL + (uint64_t)id);
    kvtree_util_set_str(d, "USER", "model");
    kvtree_util_set_str(d, "JOBID", "4242");
    kvtree_util_set_int(d, "RANKS", (int)ranks);
    kvtree_util_set_int(d, "COMPLETE", 1);
    kvtree_util_set_u64(d, "SIZE", MODEL_FILE_BYTES * (uint64_t)ranks);
    kvtree_util_set_int(d, "FILES", (int)(ranks * fpr));
    if (dir)
        kvtree_util_set_str(d, "DIR", dir);
    return d;
}

/* ---- the rank2file tree, planned as r2f_write_tree groups it ---- */

typedef struct {
    int nwriters;
    int *writer;   /* the writers' ranks */
    int *first;    /* level 0: first rank; above: first writer index below */
    int *count;    /* entries each writer merges */
    double *bytes; /* their packed bytes */
} plan_level_t;

typedef struct {
    long ranks;
    int fpr, levels;
    plan_level_t lv[16];
    int busiest;    /* the rank that writes the most bytes over all levels */
    double entries; /* entries of all levels */
} plan_t;

static void plan_free(plan_t *p)
{
    for (int l = 0; l < p->levels; l++) {
        free(p->lv[l].writer);
        free(p->lv[l].first);
        free(p->lv[l].count);
        free(p->lv[l].bytes);
    }
    memset(p, 0, sizeof(*p));
}

static uint64_t plan_pointer_size(int level, int writer)
{
    kvtree_t *e = r2f_entry_pointer(level, writer);
    uint64_t n = kvtree_pack_size(e);
    kvtree_delete(&e);
    return n;
}

/* one level: r2f_assign over every rank's entry size (zero: no entry) */
static int plan_level(plan_t *p, int level, uint64_t *sizes, int *writer)
{
    plan_level_t *lv = &p->lv[level];
    int n = (int)p->ranks, nw = r2f_assign(sizes, n, writer);
    lv->writer = calloc((size_t)nw, sizeof(int));
    lv->first = calloc((size_t)nw, sizeof(int));
    lv->count = calloc((size_t)nw, sizeof(int));
    lv->bytes = calloc((size_t)nw, sizeof(double));
    if (!lv->writer || !lv->first || !lv->count || !lv->bytes)
        return -1;
    int w = -1, idx = 0; /* idx: the entry's index among this level's entries */
    for (int r = 0; r < n; r++) {
        if (writer[r] < 0)
            continue;
        if (w < 0 || lv->writer[w] != writer[r]) {
            lv->writer[++w] = writer[r];
            lv->first[w] = idx;
        }
        lv->count[w]++;
        lv->bytes[w] += (double)sizes[r];
        p->entries++;
        idx++;
    }
    lv->nwriters = nw;
    return nw;
}

static int plan_make(plan_t *p, long ranks, int fpr)
{
    memset(p, 0, sizeof(*p));
    p->ranks = ranks;
    p->fpr = fpr;
    uint64_t *sizes = calloc((size_t)ranks, sizeof(uint64_t));
    int *writer = calloc((size_t)ranks, sizeof(int)), rc = 0;
    double *by = calloc((size_t)ranks, sizeof(double));
    if (!sizes || !writer || !by)
        rc = -1;
    for (long r = 0; rc == 0 && r < ranks; r++)
        sizes[r] = model_entry_size((int)r, fpr);
    for (int level = 0; rc == 0; level++) {
        int nw = plan_level(p, level, sizes, writer);
        p->levels = level + 1;
        if (nw < 0)
            rc = -1;
        if (rc < 0 || nw <= 1 || level + 1 == 16)
            break;
        memset(sizes, 0, sizeof(uint64_t) * (size_t)ranks);
        for (int w = 0; w < nw; w++)
            sizes[p->lv[level].writer[w]] =
                plan_pointer_size(level, p->lv[level].writer[w]);
    }
    for (int l = 0; rc == 0 && l < p->levels; l++)
        for (int w = 0; w < p->lv[l].nwriters; w++)
            by[p->lv[l].writer[w]] += p->lv[l].bytes[w];
    for (long r = 0; rc == 0 && r < ranks; r++)
        if (by[r] > by[p->busiest])
            p->busiest = (int)r;
    free(sizes);
    free(writer);
    free(by);
    if (rc < 0)
        model_err("out of memory planning %ld ranks", ranks);
    return rc;
}

/* the index of rank among a level's writers, -1 */
static int plan_find(const plan_level_t *lv, int rank)
{
    for (int w = 0; w < lv->nwriters; w++)
        if (lv->writer[w] == rank)
            return w;
    return -1;
}

/* entry i of a level: a rank's files, or a pointer to a file below */
static kvtree_t *plan_entry(const plan_t *p, int level, int i)
{
    if (level == 0)
        return model_entry(i, p->fpr);
    return r2f_entry_pointer(level - 1, p->lv[level - 1].writer[i]);
}

/* Writer w of a level: receive the bucket's entries (packed and unpacked
 * as kvtree_exchange moves them), merge, write its file.  *bytes gets the
 * file's size. */
static int plan_write_one(const plan_t *p, const char *dsetdir, int level, int w,
                          double *bytes)
{
    const plan_level_t *lv = &p->lv[level];
    kvtree_t *recv = kvtree_new();
    scr_error_t err;
    int rc = 0;
    for (int i = lv->first[w]; rc == 0 && i < lv->first[w] + lv->count[w]; i++) {
        kvtree_t *e = plan_entry(p, level, i);
        size_t n = kvtree_pack_size(e);
        void *buf = malloc(n);
        if (!buf)
            rc = -1;
        else {
            kvtree_pack(buf, e);
            if (kvtree_unpack(buf, n, kvtree_setf(recv, NULL, "%d", i), &err) < 0)
                rc = -1;
        }
        free(buf);
        kvtree_delete(&e);
    }
    kvtree_t *file = r2f_file_from(level, recv);
    char rel[128], path[4400];
    r2f_name(level, lv->writer[w], 0, rel, sizeof(rel));
    snprintf(path, sizeof(path), "%s/%s", dsetdir, rel);
    if (rc == 0 && kvtree_write_file(path, file, &err) < 0) {
        model_err("%s", err.text);
        rc = -1;
    }
    *bytes = model_file_size(path);
    kvtree_delete(&file);
    kvtree_delete(&recv);
    return rc;
}

/* the root, written by the one writer of the top level */
static int plan_write_root(const plan_t *p, const char *dsetdir, double *bytes)
{
    int top = p->levels - 1;
    kvtree_t *e = r2f_entry_pointer(top, p->lv[top].writer[0]);
    kvtree_t *root = r2f_file(p->levels, (int)p->ranks, e);
    char path[4400];
    scr_error_t err;
    snprintf(path, sizeof(path), "%s/.scr/rank2file.scr", dsetdir);
    int rc = kvtree_write_file(path, root, &err);
    if (rc < 0)
        model_err("%s", err.text);
    *bytes = model_file_size(path);
    kvtree_delete(&root);
    kvtree_delete(&e);
    return rc;
}

/* every file of the tree (a setup, not measured) */
static int plan_write_all(const plan_t *p, const char *dsetdir)
{
    double b;
    for (int l = 0; l < p->levels; l++)
        for (int w = 0; w < p->lv[l].nwriters; w++)
            if (plan_write_one(p, dsetdir, l, w, &b) < 0)
                return -1;
    return plan_write_root(p, dsetdir, &b);
}

static int model_mkdirs(const char *dir)
{
    scr_error_t err;
    char meta[4400];
    if (snprintf(meta, sizeof(meta), "%s/.scr", dir) >= (int)sizeof(meta))
        return model_err("%s: name too long", dir);
    if (io_mkdir_p(meta, 0700, &err) < 0)
        return model_err("%s", err.text);
    return 0;
}

/* ---- one case: N ranks, F files each, in its own scratch prefix ---- */

typedef struct {
    long ranks;
    int fpr, rpn;
    char prefix[4200];
    plan_t plan;
    int tree_whole;      /* r2f_write wrote every file */
    double tree_biggest; /* the largest file of the tree at N ranks */
} model_case_t;

static void result_init(result_t *r, const model_case_t *c, const char *step,
                        const char *who, int rpn)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->step, sizeof(r->step), "%s", step);
    snprintf(r->who, sizeof(r->who), "%s", who);
    r->ranks = c->ranks;
    r->fpr = c->fpr;
    r->rpn = rpn;
}

/* ---- forked measurement ---- */

typedef int (*model_fn)(const model_case_t *c, long n, result_t *r);

/* run fn in a child; its result comes back through a pipe.  -1 when the
 * child failed (an invariant, an error: it said why on stderr) */
static int model_child(model_fn fn, const model_case_t *c, long n, result_t *r)
{
    int fds[2];
    if (pipe(fds) < 0)
        return model_err("pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return model_err("fork: %s", strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        int rc = fn(c, n, r);
        if (io_write_full(fds[1], r, sizeof(*r)) < 0)
            rc = -1;
        fflush(stderr);
        _exit(rc < 0 ? 1 : 0);
    }
    close(fds[1]);
    size_t got = 0;
    while (got < sizeof(*r)) {
        ssize_t k = read(fds[0], (char *)r + got, sizeof(*r) - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got != sizeof(*r) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        model_err("step %s at %ld failed", r->step, n);
        return -1;
    }
    return 0;
}

/* ---- steps measured once, at the full size ---- */

/* a node's P filemaps in cntldir (ranks first..first+P-1), each with its
 * files in cachedir (1 byte each when make_files) */
static int node_setup(const model_case_t *c, const char *cntldir, const char *cachedir,
                      int first, int make_files)
{
    scr_error_t err;
    if (io_mkdir_p(cntldir, 0700, &err) < 0 || io_mkdir_p(cachedir, 0700, &err) < 0)
        return model_err("%s", err.text);
    char sub[4400];
    snprintf(sub, sizeof(sub), "%s/ckpt.10", cachedir);
    if (make_files && io_mkdir_p(sub, 0700, &err) < 0)
        return model_err("%s", err.text);
    uint32_t crc = crc32_update(0, "x", 1);
    for (int r = first; r < first + c->rpn; r++) {
        kvtree_t *fm = kvtree_new(),
                 *d = model_desc(MODEL_ID, c->ranks, c->fpr, cachedir);
        filemap_set_desc(fm, MODEL_ID, "DSETDESC", d);
        kvtree_delete(&d);
        for (int f = 0; f < c->fpr; f++) {
            char rel[256], path[4700], orig[4500];
            model_rel(r, f, rel, sizeof(rel));
            snprintf(path, sizeof(path), "%s/%s", cachedir, rel);
            snprintf(orig, sizeof(orig), "%s/%s", c->prefix, rel);
            kvtree_t *m = kvtree_new();
            kvtree_util_set_str(m, "TYPE", FM_TYPE_USER);
            kvtree_util_set_str(m, "ORIG", orig);
            kvtree_util_set_str(m, "REL", rel);
            kvtree_util_set_u64(m, "SIZE", 1);
            kvtree_util_set_crc32(m, "CRC", crc);
            kvtree_util_set_int(m, "COMPLETE", 1);
            filemap_add_file(fm, MODEL_ID, r, path, m);
            kvtree_delete(&m);
            if (make_files) {
                int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
                if (fd < 0 || io_write_full(fd, "x", 1) < 0)
                    return model_err("%s: %s", path, strerror(errno));
                close(fd);
            }
        }
        kvtree_util_set_int(filemap_rank(fm, MODEL_ID, r), "FILES", c->fpr);
        char fmpath[4400];
        snprintf(fmpath, sizeof(fmpath), "%s/filemap_%d.scrinfo", cntldir, r);
        int rc = kvtree_write_file_nosync(fmpath, fm, &err);
        kvtree_delete(&fm);
        if (rc < 0)
            return model_err("%s", err.text);
    }
    return 0;
}

/* an invariant of the model: a message and -1 when it does not hold */
static int model_expect(int ok, const char *what, long a, long b)
{
    if (ok)
        return 0;
    model_err("invariant broken: %s (%ld, expected %ld)", what, a, b);
    return -1;
}

static long model_nodes(long ranks, int rpn)
{
    return (ranks + rpn - 1) / rpn;
}

/* files in dir whose names contain has: count, bytes and the largest */
static void model_dir_sum(const char *dir, const char *has, double *files, double *bytes,
                          double *biggest)
{
    char path[4400];
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strstr(e->d_name, has))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        double size = model_file_size(path);
        *files += 1;
        *bytes += size;
        if (biggest && size > *biggest)
            *biggest = size;
    }
    if (d)
        closedir(d);
}

typedef struct {
    kvtree_t *view;
    double bytes, biggest;
} merge_t;

static int merge_visit(int rank, const char *path, const kvtree_t *fm,
                       const scr_error_t *ferr, void *arg)
{
    merge_t *m = arg;
    (void)rank;
    if (!fm)
        return model_err("%s", ferr->text);
    double size = model_file_size(path);
    m->bytes += size;
    m->biggest = size > m->biggest ? size : m->biggest;
    return kvtree_merge(m->view, fm);
}

/* a node reads every filemap of its control directory into one view (the
 * restart's inventory, the scavenge's pick) */
static int step_filemap_merge(const model_case_t *c, long n, result_t *r)
{
    (void)n;
    char node[4300], cntl[4400], cache[4400];
    snprintf(node, sizeof(node), "%s/node", c->prefix);
    snprintf(cntl, sizeof(cntl), "%s/cntl", node);
    snprintf(cache, sizeof(cache), "%s/cache", node);
    int first = (int)(c->ranks - c->rpn); /* the ranks with the longest numbers */
    if (node_setup(c, cntl, cache, first < 0 ? 0 : first, 0) < 0)
        return -1;
    merge_t m = {kvtree_new(), 0, 0};
    scr_error_t err;
    meter_t mt;
    meter_begin(&mt);
    int rc = filemap_foreach(cntl, merge_visit, &m, &err);
    meter_end(&mt, &r->m[M_CPU], &r->m[M_MEM]);
    int got = kvtree_size(kvtree_getf(m.view, "DSET %d RANK", MODEL_ID));
    kvtree_delete(&m.view);
    model_rmtree(node);
    if (rc < 0 ||
        model_expect(got == c->rpn, "ranks in a node's merged filemaps", got, c->rpn) < 0)
        return -1;
    double nodes = (double)model_nodes(c->ranks, c->rpn);
    r->m[M_READ] = m.bytes * nodes;
    r->m[M_BIGGEST] = m.biggest;
    r->m[M_HELD] = c->rpn;
    r->m[M_PROCS] = nodes;
    r->m[M_ALL] = r->m[M_CPU] * nodes;
    return 0;
}

/* every rank's entry has the size the plan took for it (--check) */
static int check_entry_sizes(const model_case_t *c)
{
    for (long rank = 0; rank < c->ranks; rank++) {
        kvtree_t *e = model_entry((int)rank, c->fpr);
        uint64_t real = kvtree_pack_size(e),
                 planned = model_entry_size((int)rank, c->fpr);
        kvtree_delete(&e);
        if (model_expect(real == planned, "entry size of a rank", (long)real,
                         (long)planned) < 0)
            return -1;
    }
    return 0;
}

/* the rank2file tree the way r2f_write_tree writes it: the busiest writer
 * first (measured), then every other writer until --max-seconds */
static int step_r2f_write(const model_case_t *c, long n, result_t *r)
{
    (void)n;
    const plan_t *p = &c->plan;
    char dsetdir[4300];
    pfs_dset_dir(c->prefix, MODEL_ID, dsetdir, sizeof(dsetdir));
    if (model_mkdirs(dsetdir) < 0 || (opt.check && check_entry_sizes(c) < 0))
        return -1;
    double b = 0, done = 0, own = 0, written = 0, loop_written = 0, loop_cpu = 0;
    int top = p->levels - 1, rc = 0;
    meter_t mt;
    meter_begin(&mt);
    for (int l = 0; rc == 0 && l < p->levels; l++) {
        int w = plan_find(&p->lv[l], p->busiest);
        if (w < 0)
            continue;
        rc = plan_write_one(p, dsetdir, l, w, &b);
        written += b;
        own += p->lv[l].count[w];
        r->m[M_BIGGEST] = b > r->m[M_BIGGEST] ? b : r->m[M_BIGGEST];
        if (l == 0)
            r->m[M_HELD] = p->lv[l].count[w];
    }
    if (rc == 0 && p->lv[top].writer[0] == p->busiest) {
        rc = plan_write_root(p, dsetdir, &b);
        written += b;
    }
    meter_end(&mt, &r->m[M_CPU], &r->m[M_MEM]);
    double deadline = model_wall() + opt.max_seconds;
    int capped = 0;
    if (rc == 0 && p->lv[top].writer[0] != p->busiest) {
        rc = plan_write_root(p, dsetdir, &b);
        written += b;
    }
    for (int l = top; rc == 0 && l >= 0 && !capped; l--)
        for (int w = 0; rc == 0 && w < p->lv[l].nwriters; w++) {
            if (p->lv[l].writer[w] == p->busiest)
                continue;
            if (model_wall() > deadline) {
                capped = 1;
                break;
            }
            double t0 = model_cpu();
            rc = plan_write_one(p, dsetdir, l, w, &b);
            loop_cpu += model_cpu() - t0;
            loop_written += b;
            done += p->lv[l].count[w];
            r->m[M_BIGGEST] = b > r->m[M_BIGGEST] ? b : r->m[M_BIGGEST];
        }
    if (rc < 0)
        return -1;
    if (capped) {
        double scale = (p->entries - own) / done;
        loop_cpu *= scale;
        loop_written *= scale;
        r->extrap = 1;
        snprintf(r->how, sizeof(r->how), "other_writers_scaled_from=%.0f/%.0f_entries",
                 done, p->entries - own);
    }
    r->m[M_WRITTEN] = written + loop_written;
    r->m[M_ALL] = r->m[M_CPU] + loop_cpu;
    r->m[M_FILES] = 1;
    for (int l = 0; l < p->levels; l++)
        r->m[M_FILES] += p->lv[l].nwriters;
    r->m[M_PROCS] = p->lv[0].nwriters;
    r->files_target = 1;
    return model_expect(r->m[M_BIGGEST] <= R2F_LIMIT, "rank2file file within 1 MiB",
                        (long)r->m[M_BIGGEST], R2F_LIMIT);
}

/* one file of the tree as r2f_read_level reads it: parse, and address each
 * pointer to its reader and each rank's entry to its owner */
static int lookup_one(const char *dsetdir, const char *rel, kvtree_t *ranks,
                      kvtree_t *pointers, double *bytes)
{
    char path[4400];
    scr_error_t err;
    kvtree_t *t = kvtree_new(), *send = kvtree_new();
    int rc = r2f_read_file(dsetdir, rel, t, &err);
    if (rc < 0)
        model_err("%s", err.text);
    if (rc == 0 && r2f_parse(t, ranks, pointers) < 0)
        rc = model_err("%s/%s: not a rank2file map", dsetdir, rel);
    for (kvtree_elem_t *e = kvtree_first(pointers); rc == 0 && e; e = kvtree_elem_next(e))
        kvtree_setf(send, kvtree_dup(kvtree_elem_tree(e)), "%s P %s", kvtree_elem_key(e),
                    kvtree_elem_key(e));
    for (kvtree_elem_t *e = kvtree_first(ranks); rc == 0 && e; e = kvtree_elem_next(e))
        kvtree_setf(send, kvtree_dup(kvtree_elem_tree(e)), "%s R", kvtree_elem_key(e));
    snprintf(path, sizeof(path), "%s/%s", dsetdir, rel);
    *bytes = model_file_size(path);
    kvtree_delete(&t);
    kvtree_delete(&send);
    return rc;
}

/* rank 0 reads the root and its own file of every level */
static int lookup_rank0(const char *dsetdir, result_t *r)
{
    char rel[128];
    double b;
    kvtree_t *ranks = kvtree_new(), *ptrs = kvtree_new();
    r2f_name(0, 0, 1, rel, sizeof(rel));
    int rc = 0;
    for (;;) {
        kvtree_t *mine = NULL;
        kvtree_delete(&ranks);
        kvtree_delete(&ptrs);
        ranks = kvtree_new();
        ptrs = kvtree_new();
        if (lookup_one(dsetdir, rel, ranks, ptrs, &b) < 0) {
            rc = -1;
            break;
        }
        r->m[M_BIGGEST] = b > r->m[M_BIGGEST] ? b : r->m[M_BIGGEST];
        if (kvtree_size(ranks) > 0)
            r->m[M_HELD] = kvtree_size(ranks);
        if (!(mine = kvtree_get(ptrs, "0")))
            break;
        snprintf(rel, sizeof(rel), "%s", kvtree_get_val(mine, "FILE"));
    }
    kvtree_delete(&ranks);
    kvtree_delete(&ptrs);
    return rc;
}

/* every rank's entry came back once, with its files (a whole tree only) */
static int lookup_count(const kvtree_t *ranks, int fpr, unsigned char *seen, long n)
{
    for (kvtree_elem_t *e = kvtree_first(ranks); e; e = kvtree_elem_next(e)) {
        int rank = -1;
        kvtree_elem_key_int(e, &rank);
        int files = kvtree_size(kvtree_get(kvtree_elem_tree(e), "FILE"));
        if (model_expect(rank >= 0 && rank < n && !seen[rank], "rank found once", rank,
                         n) < 0 ||
            model_expect(files == fpr, "files of a rank found", files, fpr) < 0)
            return -1;
        seen[rank] = 1;
    }
    return 0;
}

/* the tree read top-down as r2f_read_tree does: rank 0's share measured,
 * then every file level by level until --max-seconds */
static int step_r2f_lookup(const model_case_t *c, long n, result_t *r)
{
    (void)n;
    char dsetdir[4300];
    pfs_dset_dir(c->prefix, MODEL_ID, dsetdir, sizeof(dsetdir));
    meter_t mt;
    meter_begin(&mt);
    int rc = lookup_rank0(dsetdir, r);
    meter_end(&mt, &r->m[M_CPU], &r->m[M_MEM]);
    unsigned char *seen = calloc((size_t)c->ranks, 1);
    kvtree_t *level = kvtree_new();
    double deadline = model_wall() + opt.max_seconds, t0 = model_cpu(), nread = 0, b;
    kvtree_util_set_str(level, "root", ".scr/rank2file.scr");
    int capped = 0;
    while (rc == 0 && kvtree_size(level) > 0 && !capped) {
        kvtree_t *next = kvtree_new();
        for (kvtree_elem_t *e = kvtree_first(level); rc == 0 && e;
             e = kvtree_elem_next(e)) {
            if (model_wall() > deadline) {
                capped = 1;
                break;
            }
            const char *rel = kvtree_elem_key(e);
            if (strcmp(rel, "root") == 0)
                rel = kvtree_get_val(level, "root");
            char path[4700];
            struct stat st;
            snprintf(path, sizeof(path), "%s/%s", dsetdir, rel);
            if (!c->tree_whole && stat(path, &st) < 0)
                continue; /* a file the capped write left out */
            kvtree_t *ranks = kvtree_new(), *ptrs = kvtree_new();
            rc = lookup_one(dsetdir, rel, ranks, ptrs, &b);
            r->m[M_READ] += b;
            r->m[M_BIGGEST] = b > r->m[M_BIGGEST] ? b : r->m[M_BIGGEST];
            nread++;
            for (kvtree_elem_t *p = kvtree_first(ptrs); p; p = kvtree_elem_next(p))
                kvtree_set(next, kvtree_get_val(kvtree_elem_tree(p), "FILE"), NULL);
            if (rc == 0 && seen && c->tree_whole)
                rc = lookup_count(ranks, c->fpr, seen, c->ranks);
            kvtree_delete(&ranks);
            kvtree_delete(&ptrs);
        }
        kvtree_delete(&level);
        level = next;
    }
    kvtree_delete(&level);
    r->m[M_ALL] = model_cpu() - t0;
    double total = 1;
    for (int l = 0; l < c->plan.levels; l++)
        total += c->plan.lv[l].nwriters;
    if (rc == 0 && (capped || !c->tree_whole) && nread < total) {
        r->m[M_ALL] *= total / nread;
        r->m[M_READ] *= total / nread;
        r->extrap = 1;
        snprintf(r->how, sizeof(r->how), "scaled_from=%.0f/%.0f_files", nread, total);
    }
    for (long k = 0; rc == 0 && c->tree_whole && !capped && k < c->ranks; k++)
        rc = model_expect(seen[k], "every rank found in the tree", k, c->ranks);
    free(seen);
    r->m[M_PROCS] = c->plan.lv[0].nwriters;
    return rc;
}

/* rank 0 writes the summary; a fetch reads it */
static int step_summary(const model_case_t *c, long n, result_t *r)
{
    (void)n;
    char dsetdir[4300], path[4400];
    scr_error_t err;
    pfs_dset_dir(c->prefix, MODEL_ID, dsetdir, sizeof(dsetdir));
    snprintf(path, sizeof(path), "%s/.scr/summary.scr", dsetdir);
    kvtree_t *d = model_desc(MODEL_ID, c->ranks, c->fpr, NULL), *s = kvtree_new();
    meter_t mt;
    meter_begin(&mt);
    int rc = summary_write(dsetdir, d, 1, &err) < 0 || summary_read(dsetdir, s, &err) < 0;
    meter_end(&mt, &r->m[M_CPU], &r->m[M_MEM]);
    kvtree_delete(&d);
    kvtree_delete(&s);
    if (rc)
        return model_err("%s", err.text);
    r->m[M_WRITTEN] = r->m[M_READ] = r->m[M_BIGGEST] = model_file_size(path);
    r->m[M_FILES] = 1;
    r->m[M_ALL] = r->m[M_CPU];
    r->m[M_PROCS] = 1;
    r->files_target = 1;
    return 0;
}

/* bytes of the index and the flush file, before or after an update */
static double index_bytes(const char *prefix)
{
    char a[4400], b[4400];
    pfs_meta_path(prefix, "index.scr", a, sizeof(a));
    pfs_meta_path(prefix, "flush.scr", b, sizeof(b));
    return model_file_size(a) + model_file_size(b);
}

/* the older datasets a long-running job left in the index */
static int index_setup(const char *prefix, long ranks, int fpr, int upto)
{
    scr_error_t err;
    for (int id = 1; id <= upto; id++) {
        char name[64];
        kvtree_t *d = model_desc(id, ranks, fpr, NULL);
        pfs_dset_name(id, name, sizeof(name));
        int rc = index_add(prefix, id, name, d, 1, &err) < 0 ||
                 flushfile_set(prefix, id, "PFS", 1, &err) < 0;
        kvtree_delete(&d);
        if (rc)
            return model_err("%s", err.text);
    }
    return 0;
}

/* rank 0's updates of index and flush file in one flush (flush_prepare,
 * flush_finish, flush_place, flush_done) and one fetch (index_pick,
 * index_mark_fetched): each a locked read and write of the whole file */
static int step_index_update(const model_case_t *c, long n, result_t *r)
{
    (void)n;
    char name[64], dir[256];
    scr_error_t err = {""};
    if (index_setup(c->prefix, c->ranks, c->fpr, MODEL_OLDER) < 0)
        return -1;
    pfs_dset_name(MODEL_ID, name, sizeof(name));
    kvtree_t *d = model_desc(MODEL_ID, c->ranks, c->fpr, NULL), *index = kvtree_new();
    double before = index_bytes(c->prefix);
    meter_t mt;
    meter_begin(&mt);
    int rc = flushfile_location(c->prefix, MODEL_ID, "PFS") != 0 ||
             index_add(c->prefix, MODEL_ID, name, d, 0, &err) < 0 ||
             flushfile_set(c->prefix, MODEL_ID, "FLUSHING", 1, &err) < 0 ||
             index_add(c->prefix, MODEL_ID, name, d, 1, &err) < 0 ||
             flushfile_set(c->prefix, MODEL_ID, "PFS", 1, &err) < 0 ||
             flushfile_set(c->prefix, MODEL_ID, "FLUSHING", 0, &err) < 0 ||
             index_mark_placed(c->prefix, MODEL_ID, name, &err) < 0 ||
             index_read(c->prefix, index, &err) < 0 ||
             index_pick(index, NULL, 1 << 30, dir, sizeof(dir)) != MODEL_ID ||
             index_mark_fetched(c->prefix, MODEL_ID, dir, &err) < 0;
    meter_end(&mt, &r->m[M_CPU], &r->m[M_MEM]);
    kvtree_delete(&d);
    kvtree_delete(&index);
    if (rc)
        return model_err("index update: %s", err.text);
    double after = index_bytes(c->prefix);
    /* 8 locked updates and 2 reads of files between before and after */
    r->m[M_READ] = 5 * (before + after);
    r->m[M_WRITTEN] = 4 * (before + after);
    r->m[M_BIGGEST] = after;
    r->m[M_ALL] = r->m[M_CPU];
    r->m[M_PROCS] = 1;
    return 0;
}

/* a scratch prefix of its own for one size of a series */
static void series_prefix(const model_case_t *c, long n, char *buf, size_t len)
{
    snprintf(buf, len, "%s/series.%ld", c->prefix, n);
}

/* the tree of a dataset of n ranks in prefix (a setup) */
static int tree_setup(const model_case_t *c, const char *prefix, int id, long n)
{
    plan_t p;
    char dsetdir[4300];
    pfs_dset_dir(prefix, id, dsetdir, sizeof(dsetdir));
    if (model_mkdirs(dsetdir) < 0 || plan_make(&p, n, c->fpr) < 0)
        return -1;
    int rc = plan_write_all(&p, dsetdir);
    plan_free(&p);
    return rc;
}

/* the whole tree in rank 0, as rpfs_read reads it for every process */
static int read_all_flat(const char *dsetdir, kvtree_t *all, kvtree_t *files)
{
    scr_error_t err;
    if (r2f_read_all(dsetdir, all, &err) < 0)
        return model_err("%s", err.text);
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(all, "RANK")); e;
         e = kvtree_elem_next(e))
        kvtree_merge(files, kvtree_get(kvtree_elem_tree(e), "FILE"));
    return 0;
}

static int step_r2f_read_all(const model_case_t *c, long n, result_t *r)
{
    char prefix[4300], dsetdir[4400];
    series_prefix(c, n, prefix, sizeof(prefix));
    pfs_dset_dir(prefix, MODEL_ID, dsetdir, sizeof(dsetdir));
    if (tree_setup(c, prefix, MODEL_ID, n) < 0)
        return -1;
    kvtree_t *all = kvtree_new(), *files = kvtree_new();
    meter_t mt;
    meter_begin(&mt);
    int rc = read_all_flat(dsetdir, all, files);
    meter_end(&mt, &r->m[M_CPU], &r->m[M_MEM]);
    int ranks = kvtree_size(kvtree_get(all, "RANK")), nfiles = kvtree_size(files);
    kvtree_delete(&all);
    kvtree_delete(&files);
    char meta[4500];
    snprintf(meta, sizeof(meta), "%s/.scr", dsetdir);
    double count = 0;
    model_dir_sum(meta, "rank2file", &count, &r->m[M_READ], &r->m[M_BIGGEST]);
    model_rmtree(prefix);
    if (rc < 0 || model_expect(ranks == n, "ranks read by r2f_read_all", ranks, n) < 0 ||
        model_expect(nfiles == n * c->fpr, "files read by r2f_read_all", nfiles,
                     n * c->fpr) < 0)
        return -1;
    r->m[M_ALL] = r->m[M_CPU];
    r->m[M_HELD] = (double)n;
    r->m[M_PROCS] = 1;
    return 0;
}

/* place_drop with stderr quiet: it says in one line which dataset leaves
 * the index */
static void drop_quiet(const char *prefix, const kvtree_t *index, int other)
{
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0)
        dup2(null, 2);
    place_drop(prefix, index, MODEL_ID, other);
    fflush(stderr);
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
    }
    if (null >= 0)
        close(null);
}

/* what kvtree_exchange does to send ("<rank>" -> tree) at one process:
 * each tree packed and unpacked, merged into got as if one judge received
 * them all; 1 if every one came through */
static int model_exchange(const kvtree_t *send, kvtree_t *got)
{
    int ok = 1;
    for (kvtree_elem_t *e = kvtree_first(send); e && ok; e = kvtree_elem_next(e)) {
        size_t len = kvtree_pack_size(kvtree_elem_tree(e));
        char *buf = malloc(len);
        kvtree_t *t = kvtree_new();
        ok = buf && kvtree_pack(buf, kvtree_elem_tree(e)) == len &&
             kvtree_unpack(buf, len, t, NULL) >= 0;
        kvtree_merge(got, t);
        kvtree_delete(&t);
        free(buf);
    }
    return ok;
}

/* rank 0's part of the name join (namejoin_hits): its own names and its
 * share of the older dataset's (ranks r % n == 0: its own), packed as flat
 * records for their judges, taken as xchg_bytes hands them over, and
 * judged together (a judge receives about as many).  Returns 1 if they
 * met. */
#define MODEL_JOIN_REPS 200

static int model_join(int fpr, long ranks)
{
    kvtree_t *mine = model_rank_files(0, fpr);
    const kvtree_t *sets[2] = {mine, mine};
    nameset_out_t out;
    nameset_in_t in = {0};
    int hit = 0, ok = nameset_pack(sets, 2, (int)ranks, &out) == 0;
    for (int i = 0; ok && i < out.n; i++)
        ok = nameset_take(&in, out.buf[i], (size_t)out.len[i]) == 0;
    if (ok && nameset_judge(&in, 2, &hit) < 0)
        hit = 0;
    nameset_out_free(&out);
    nameset_in_free(&in);
    kvtree_delete(&mine);
    return hit;
}

/* rank 0's part of rpfs_share: its share of the tree's entries (its own
 * rank's, {SIZE, CRC} each) sent to the ranks that judge their names,
 * packed and unpacked as kvtree_exchange moves them, and merged (a judge
 * receives about as many).  Returns the entries merged. */
static long model_share(int fpr, long ranks)
{
    kvtree_t *mine = model_rank_files(0, fpr), *send = kvtree_new(), *got = kvtree_new();
    nameset_route_entries(send, mine, (int)ranks);
    int ok = model_exchange(send, got);
    long n = ok ? kvtree_size(got) : -1;
    kvtree_delete(&mine);
    kvtree_delete(&send);
    kvtree_delete(&got);
    return n;
}

/* a restart on the prefix (rpfs_open): every process reads its share of the
 * tree (r2f_read_names, as r2f_lookup) and sends each entry to the rank
 * that judges its name (model_share, the busiest share rank 0's), which
 * checks the file (per file, spread as before: not modelled) */
static int step_rpfs_open(const model_case_t *c, long n, result_t *r)
{
    if (step_r2f_lookup(c, n, r) < 0)
        return -1;
    double cpu = 0, mem = 0;
    meter_t mt;
    meter_begin(&mt);
    long got = model_share(c->fpr, c->ranks);
    meter_end(&mt, &cpu, &mem);
    if (model_expect(got == c->fpr, "entries routed and merged", got, c->fpr) < 0)
        return -1;
    r->m[M_CPU] += cpu;
    r->m[M_MEM] = mem > r->m[M_MEM] ? mem : r->m[M_MEM];
    r->m[M_ALL] += cpu * (double)c->ranks;
    return 0;
}

/* a flush whose files an older complete dataset named too (flush_supersede):
 * every process reads its share of the older tree's names (r2f_read_names
 * reads as r2f_read_tree does: r2f_lookup, on the same names), joins them
 * with its own where they hash to (model_join, the busiest share rank
 * 0's), and rank 0 drops the older dataset from the index */
static int step_supersede(const model_case_t *c, long n, result_t *r)
{
    if (step_r2f_lookup(c, n, r) < 0)
        return -1;
    char older[4300];
    scr_error_t err = {""};
    pfs_dset_dir(c->prefix, MODEL_OLDER, older, sizeof(older));
    if (index_setup(c->prefix, c->ranks, c->fpr, MODEL_OLDER) < 0 ||
        model_mkdirs(older) < 0)
        return -1;
    double before = index_bytes(c->prefix), cpu = 0, mem = 0;
    kvtree_t *index = kvtree_new(), *list = kvtree_new();
    /* a join takes microseconds: timed over many, each rank's part */
    double j0 = model_cpu();
    for (int i = 0; i < MODEL_JOIN_REPS; i++)
        model_join(c->fpr, c->ranks);
    double join = (model_cpu() - j0) / MODEL_JOIN_REPS;
    meter_t mt;
    meter_begin(&mt);
    int hit = model_join(c->fpr, c->ranks), k = -1;
    if (index_read(c->prefix, index, &err) == 0)
        k = place_older_staged(index, MODEL_ID, list);
    if (hit && k > 0)
        drop_quiet(c->prefix, index, MODEL_OLDER);
    meter_end(&mt, &cpu, &mem);
    kvtree_delete(&index);
    kvtree_delete(&list);
    struct stat st;
    int left = stat(older, &st) == 0;
    if (k < 0)
        return model_err("supersede: %s", err.text);
    if (model_expect(hit, "names met in the join", hit, 1) < 0 ||
        model_expect(k == MODEL_OLDER, "older complete datasets listed", k, MODEL_OLDER) <
            0 ||
        model_expect(!left, "older staging area removed", left, 0) < 0)
        return -1;
    r->m[M_CPU] += cpu;
    r->m[M_MEM] = mem > r->m[M_MEM] ? mem : r->m[M_MEM];
    r->m[M_ALL] += join * (double)c->ranks + (cpu > join ? cpu - join : 0);
    r->m[M_READ] += before;
    r->m[M_WRITTEN] = index_bytes(c->prefix);
    return 0;
}

/* RANK <r> FILE <rel> {SIZE, CRC} of n ranks, as dsindex_collect makes it */
static kvtree_t *index_files(long n, int fpr)
{
    kvtree_t *t = kvtree_new();
    for (long rank = 0; rank < n; rank++)
        kvtree_setf(t, model_rank_files((int)rank, fpr), "RANK %ld FILE", rank);
    return t;
}

/* a step the elected node does alone for the whole job: it holds every
 * rank's metadata, and the prefix gets its files once per dataset */
static void model_by_indexer(result_t *r, long n)
{
    r->m[M_ALL] = r->m[M_CPU];
    r->m[M_HELD] = (double)n;
    r->m[M_PROCS] = 1;
    r->files_target = 1;
}

/* a rank2file tree written whole by one process (dsindex_write_r2f) */
static int step_index_r2f(const model_case_t *c, long n, result_t *r)
{
    char prefix[4300], dsetdir[4400], meta[4500];
    scr_error_t err;
    series_prefix(c, n, prefix, sizeof(prefix));
    pfs_dset_dir(prefix, MODEL_ID, dsetdir, sizeof(dsetdir));
    snprintf(meta, sizeof(meta), "%s/.scr", dsetdir);
    if (model_mkdirs(dsetdir) < 0)
        return -1;
    kvtree_t *files = index_files(n, c->fpr);
    meter_t mt;
    meter_begin(&mt);
    int rc = dsindex_write_r2f(dsetdir, (int)n, files, &err);
    meter_end(&mt, &r->m[M_CPU], &r->m[M_MEM]);
    kvtree_delete(&files);
    if (rc < 0)
        return model_err("%s", err.text);
    kvtree_t *all = kvtree_new();
    rc = r2f_read_all(dsetdir, all, &err);
    int ranks = kvtree_size(kvtree_get(all, "RANK"));
    kvtree_delete(&all);
    model_dir_sum(meta, "rank2file", &r->m[M_FILES], &r->m[M_WRITTEN], &r->m[M_BIGGEST]);
    model_rmtree(prefix);
    if (rc < 0 || model_expect(ranks == n, "ranks in the indexer's tree", ranks, n) < 0)
        return -1;
    model_by_indexer(r, n);
    return 0;
}

/* rank's part of its node's record (fm) as scavenge_rank adds it.  The
 * record is landed, so the indexer looks at none of the rank's files and
 * leaves them to the node to place: none are made (making 10^6 files was
 * what kept the table from measuring this step beyond 2,000 ranks) */
static int scan_setup_rank(const model_case_t *c, const char *prefix, const char *dsetdir,
                           int rank, kvtree_t *fm)
{
    kvtree_t *rk = kvtree_setf(fm, NULL, "RANK %d DSET %d", rank, MODEL_ID);
    kvtree_setf(fm, NULL, "DSET %d RANK %d", MODEL_ID, rank);
    kvtree_set(rk, "DSETDESC", model_desc(MODEL_ID, c->ranks, c->fpr, NULL));
    kvtree_util_set_int(rk, "FILES", c->fpr);
    /* the node compared each file as it landed; no name was taken */
    kvtree_util_set_int(rk, DSREC_LANDED, 1);
    kvtree_util_set_int(rk, DSREC_TAKEN, 0);
    int rc = 0;
    for (int f = 0; rc == 0 && f < c->fpr; f++) {
        char rel[256], orig[4600];
        model_rel(rank, f, rel, sizeof(rel));
        if (snprintf(orig, sizeof(orig), "%s/%s", prefix, rel) >= (int)sizeof(orig))
            rc = model_err("%s: name too long", dsetdir);
        if (rc < 0)
            break;
        kvtree_t *m =
            kvtree_setf(fm, NULL, "RANK %d DSET %d FILE %s META", rank, MODEL_ID, rel);
        kvtree_util_set_str(m, "TYPE", FM_TYPE_USER);
        kvtree_util_set_str(m, "ORIG", orig);
        kvtree_util_set_str(m, "REL", rel);
        kvtree_util_set_u64(m, "SIZE", 0);
        kvtree_util_set_int(m, "COMPLETE", 1);
        kvtree_util_set_crc32(m, "CRC", 0);
        kvtree_util_set_str(m, "FILE", rel);
    }
    return rc;
}

/* every node's .scr/node.<host>.scrfilemap as scavenge_own writes it: the
 * records of its rpn ranks (8 per node when the case has no node size) */
static int scan_setup(const model_case_t *c, const char *prefix, const char *dsetdir)
{
    int rpn = c->rpn > 0 ? c->rpn : 8, rc = 0;
    for (int first = 0; rc == 0 && first < c->ranks; first += rpn) {
        kvtree_t *fm = kvtree_new();
        for (int rank = first; rc == 0 && rank < first + rpn && rank < c->ranks; rank++)
            rc = scan_setup_rank(c, prefix, dsetdir, rank, fm);
        char host[64];
        scr_error_t err;
        snprintf(host, sizeof(host), "node%d", first / rpn);
        /* one part, as dsrec_node_write names it, without its fsync (the
         * setup's wall time decides how far the table measures) */
        char path[4400];
        dsrec_node_name(dsetdir, host, 0, path, sizeof(path));
        int one = kvtree_pack_size(fm) <= DSREC_PART_BYTES;
        if (rc == 0 && (one ? kvtree_write_file_nosync(path, fm, &err)
                            : dsrec_node_write(dsetdir, host, fm, &err)) < 0)
            rc = model_err("%s", err.text);
        kvtree_delete(&fm);
    }
    return rc;
}

/* the elected node indexes what every node scavenged (dsindex_dataset:
 * scan, rank2file tree, summary, index; the files are the nodes' to check
 * and place) */
static int step_index_scan(const model_case_t *c, long n, result_t *r)
{
    char prefix[4300], dsetdir[4400], meta[4500], sub[4500];
    series_prefix(c, n, prefix, sizeof(prefix));
    pfs_dset_dir(prefix, MODEL_ID, dsetdir, sizeof(dsetdir));
    snprintf(meta, sizeof(meta), "%s/.scr", dsetdir);
    snprintf(sub, sizeof(sub), "%s/ckpt.10", dsetdir);
    scr_error_t err;
    if (model_mkdirs(dsetdir) < 0 || io_mkdir_p(sub, 0700, &err) < 0)
        return -1;
    model_case_t cc = *c;
    cc.ranks = n;
    if (scan_setup(&cc, prefix, dsetdir) < 0)
        return -1;
    double count = 0;
    model_dir_sum(meta, "scrfilemap", &count, &r->m[M_READ], &r->m[M_BIGGEST]);
    dsindex_report_t rep;
    meter_t mt;
    meter_begin(&mt);
    int rc = dsindex_dataset(prefix, MODEL_ID, DSINDEX_NODES_PLACE, &rep, &err);
    meter_end(&mt, &r->m[M_CPU], &r->m[M_MEM]);
    if (rc < 0)
        model_err("%s", err.text);
    model_dir_sum(meta, "rank2file", &r->m[M_FILES], &r->m[M_WRITTEN], &r->m[M_BIGGEST]);
    model_dir_sum(meta, "summary", &r->m[M_FILES], &r->m[M_WRITTEN], NULL);
    r->m[M_WRITTEN] += index_bytes(prefix);
    model_rmtree(prefix);
    if (rc < 0 || model_expect(rep.ranks == n, "ranks indexed", rep.ranks, n) < 0 ||
        model_expect(rep.files == n * c->fpr, "files indexed", rep.files, n * c->fpr) <
            0 ||
        model_expect(rep.left == n, "ranks left to their nodes to place", rep.left, n) <
            0)
        return -1;
    model_by_indexer(r, n);
    /* it reads one node's record at a time (dsrec_each), keeping a byte of
     * flags per rank */
    r->m[M_HELD] = c->rpn > 0 ? c->rpn : 8;
    return 0;
}

/* one node's epilog copies its P ranks: scavenge_pick_below, scavenge_own
 * (1-byte files: the metadata work, not the bytes) */
static int step_scavenge_node(const model_case_t *c, long n, result_t *r)
{
    (void)n;
    char node[4300], cntl[4400], cache[4400], dsetdir[4400], meta[4500];
    snprintf(node, sizeof(node), "%s/node", c->prefix);
    snprintf(cntl, sizeof(cntl), "%s/cntl", node);
    snprintf(cache, sizeof(cache), "%s/cache", node);
    pfs_dset_dir(node, MODEL_ID, dsetdir, sizeof(dsetdir));
    snprintf(meta, sizeof(meta), "%s/.scr", dsetdir);
    int first = (int)(c->ranks - c->rpn);
    if (node_setup(c, cntl, cache, first < 0 ? 0 : first, 1) < 0)
        return -1;
    double fms = 0, count = 0;
    model_dir_sum(cntl, "filemap_", &count, &fms, NULL);
    scavenge_t s = {.prefix = node, .cntldir = cntl, .host = "node0", .id = MODEL_ID};
    scr_error_t err = {""};
    int id = -1;
    meter_t mt;
    meter_begin(&mt);
    int picked = scavenge_pick_below(node, cntl, "node0", 1 << 30, &id, &err);
    int rc = picked == 1 ? scavenge_own(&s, &err) : -1;
    scavenge_done(&s);
    /* after the verdict the node moves its ranks' files to their own paths */
    int placed = 0;
    if (rc == 0 && scavenge_place(node, "node0", MODEL_ID, &placed) != 0)
        rc = errprintf(&err, "%d files not placed", c->rpn * c->fpr - placed);
    meter_end(&mt, &r->m[M_CPU], &r->m[M_MEM]);
    double files = 0, bytes = 0;
    model_dir_sum(meta, "scrfilemap", &files, &bytes, &r->m[M_BIGGEST]);
    model_rmtree(node);
    if (rc < 0)
        return model_err("scavenge: %s", err.text);
    if (model_expect(id == MODEL_ID, "dataset picked", id, MODEL_ID) < 0 ||
        model_expect(s.files == c->rpn * c->fpr && !s.failed, "files scavenged", s.files,
                     c->rpn * c->fpr) < 0 ||
        model_expect(placed == c->rpn * c->fpr, "files placed", placed, c->rpn * c->fpr) <
            0 ||
        model_expect(files >= 1 && files <= 1 + bytes / (DSREC_PART_BYTES / 2),
                     "node record parts written", (long)files, 1) < 0)
        return -1;
    double nodes = (double)model_nodes(c->ranks, c->rpn);
    r->m[M_READ] = 2 * fms * nodes;
    r->m[M_WRITTEN] = bytes * nodes;
    r->m[M_FILES] = files * nodes;
    r->m[M_HELD] = c->rpn;
    r->m[M_PROCS] = nodes;
    r->m[M_ALL] = r->m[M_CPU] * nodes;
    r->files_target = 1;
    return 0;
}

static nodelist_t *model_hosts(long nodes)
{
    char spec[64];
    scr_error_t err;
    snprintf(spec, sizeof(spec), "node[0-%ld]", nodes - 1);
    nodelist_t *h = nodelist_from_str(spec, &err);
    if (!h)
        model_err("%s", err.text);
    return h;
}

/* a file's size and modification time, to tell whether a mark wrote it */
static void model_file_stamp(const char *path, double *size, struct timespec *mtime)
{
    struct stat st;
    *size = stat(path, &st) == 0 ? (double)st.st_size : 0;
    *mtime = st.st_mtim;
    if (*size == 0)
        memset(mtime, 0, sizeof(*mtime));
}

/* one mark, with the bytes of the locked reads and writes: the node's leaf
 * file (a job of more than SCAVMARK_FANIN nodes), and the root when it
 * marks it (no leaf, or its mark completed the leaf) */
static int marks_one(const char *prefix, const char *host, const char *phase,
                     const nodelist_t *live, int *index_id, result_t *r)
{
    scr_error_t err;
    char root[4400], leaf[4400];
    double rb, ra, lb = 0, la = 0;
    struct timespec rt0, rt1, lt;
    scavenge_mark_files(prefix, "4242", live, host, root, leaf, sizeof(root));
    model_file_stamp(root, &rb, &rt0);
    if (leaf[0])
        model_file_stamp(leaf, &lb, &lt);
    int rc =
        scavenge_mark_try(prefix, "4242", 0, host, phase, MODEL_ID, live, index_id, &err);
    model_file_stamp(root, &ra, &rt1);
    if (leaf[0])
        model_file_stamp(leaf, &la, &lt);
    int root_too =
        !leaf[0] || ra != rb || rt1.tv_sec != rt0.tv_sec || rt1.tv_nsec != rt0.tv_nsec;
    r->m[M_READ] += lb + (root_too ? rb : 0);
    r->m[M_WRITTEN] += la + (root_too ? ra : 0);
    /* the leaf and the root together: a bound on either that follows the
     * root's growth, which is small beside the leaf's size at the sizes
     * the model can run */
    double big = la + (root_too ? ra : 0);
    r->m[M_BIGGEST] = big > r->m[M_BIGGEST] ? big : r->m[M_BIGGEST];
    if (rc < 0)
        model_err("%s", err.text);
    return rc;
}

/* metadata files the marks made: the root, the leaves, their locks */
static int model_mark_files(const char *prefix)
{
    char dir[4400];
    pfs_meta_path(prefix, "", dir, sizeof(dir));
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strncmp(e->d_name, "scavenge.4242.", 14) == 0;
    if (d)
        closedir(d);
    return n;
}

/* every node of n marks COPIED, then FINISHED with the live nodes, as
 * lifecycle_try does; the last one's two marks are the busiest (its leaf's
 * and the root's last) */
static int step_scavenge_marks(const model_case_t *c, long n, result_t *r)
{
    char prefix[4300], host[64];
    series_prefix(c, n, prefix, sizeof(prefix));
    nodelist_t *live = model_hosts(n);
    if (!live)
        return -1;
    int rc = 0, elected = 0, who = -1, index_id = -1;
    double t0 = model_cpu();
    meter_t mt;
    for (int pass = 0; pass < 2; pass++)
        for (long i = 0; rc == 0 && i < n; i++) {
            snprintf(host, sizeof(host), "node%ld", i);
            if (i == n - 1)
                meter_begin(&mt);
            rc =
                marks_one(prefix, host, pass ? "FINISHED" : "COPIED", live, &index_id, r);
            if (i == n - 1)
                meter_end(&mt, &r->m[M_CPU], &r->m[M_MEM]);
            if (pass && index_id >= 0) {
                elected++;
                who = (int)i;
            }
        }
    r->m[M_ALL] = model_cpu() - t0;
    nodelist_delete(&live);
    r->m[M_FILES] = model_mark_files(prefix);
    model_rmtree(prefix);
    if (rc < 0 || model_expect(elected == 1, "indexers elected", elected, 1) < 0 ||
        model_expect(who == n - 1, "the last node elected", who, n - 1) < 0)
        return -1;
    r->m[M_PROCS] = (double)n;
    return 0;
}

/* every node's epilog: the job's nodes less the down ones, and the run's
 * recorded nodes among those (lifecycle_epilog, lifecycle_run_live) */
static int step_epilog_nodelists(const model_case_t *c, long n, result_t *r)
{
    (void)c;
    scr_error_t err;
    meter_t mt;
    meter_begin(&mt);
    nodelist_t *nodes = model_hosts(n), *down = nodelist_from_str("node7", &err);
    nodelist_t *recorded = model_hosts(n);
    nodelist_t *live = nodes && down ? nodelist_minus(nodes, down) : NULL;
    nodelist_t *both = live && recorded ? nodelist_intersect(live, recorded) : NULL;
    meter_end(&mt, &r->m[M_CPU], &r->m[M_MEM]);
    long want = n > 7 ? n - 1 : n;
    int rc = !both ? -1 : 0;
    if (rc == 0)
        rc = model_expect(nodelist_count(live) == want, "live nodes",
                          nodelist_count(live), want) |
             model_expect(nodelist_count(both) == want, "the run's live nodes",
                          nodelist_count(both), want);
    nodelist_delete(&nodes);
    nodelist_delete(&down);
    nodelist_delete(&recorded);
    nodelist_delete(&live);
    nodelist_delete(&both);
    r->m[M_PROCS] = (double)n;
    r->m[M_ALL] = r->m[M_CPU] * (double)n;
    return rc;
}

/* the down-node calls of cmd_job_check_nodes on the job's n nodes: one
 * node the scheduler calls down, one that fails the health check; then
 * run_plan, run_pick (SCR_SPARES=2) and the host lists printed and given
 * to the launcher (cmd/ is not a library: the same nodelist_* calls in the
 * same order) */
static int step_run_nodes(const model_case_t *c, long n, result_t *r)
{
    char path[4400];
    scr_error_t err;
    snprintf(path, sizeof(path), "%s/downnodes.scr", c->prefix);
    meter_t mt;
    meter_begin(&mt);
    nodelist_t *nodes = model_hosts(n), *down = nodelist_new(), *ok = nodelist_new();
    kvtree_t *reasons = kvtree_new();
    const char *sched_down = n > 7 ? "node7" : "node0",
               *failing = n > 11 ? "node11" : NULL;
    if (nodelist_find(down, sched_down) < 0) /* cmd_job_sched_down */
        nodelist_append(down, sched_down);
    kvtree_util_set_str(reasons, sched_down, "down in the scheduler");
    nodelist_t *cand = nodelist_minus(nodes, down);
    char *cmdline = nodelist_compress(cand);       /* the launcher's per-node step */
    for (int i = 0; i < nodelist_count(cand); i++) /* the answers of the check */
        if (!failing || strcmp(nodelist_nth(cand, i), failing) != 0)
            nodelist_append(ok, nodelist_nth(cand, i));
    nodelist_t *failed = nodelist_minus(cand, ok); /* cmd_job_probe */
    for (int i = 0; i < nodelist_count(failed); i++) {
        const char *h = nodelist_nth(failed, i);
        if (nodelist_find(down, h) < 0) { /* cmd_job_mark_down */
            nodelist_append(down, h);
            kvtree_util_set_str(reasons, h, "failed the SCR health check");
        }
    }
    nodelist_delete(&failed);
    int rc = kvtree_write_file(path, reasons, &err);
    nodelist_t *live = nodelist_minus(nodes, down), *use = nodelist_new(); /* run_plan */
    long want = n > 4 ? n - 2 : n - 1;
    for (int i = 0; i < nodelist_count(live) && i < want; i++) /* run_pick */
        nodelist_append(use, nodelist_nth(live, i));
    char *shown = nodelist_compress(use);
    nodelist_t *post = nodelist_minus(nodes, down); /* cmd_job_postrun */
    char *again = nodelist_compress(post);
    meter_end(&mt, &r->m[M_CPU], &r->m[M_MEM]);
    long have = nodelist_count(use),
         expect = want < nodelist_count(live) ? want : nodelist_count(live);
    r->m[M_WRITTEN] = model_file_size(path);
    free(cmdline);
    free(shown);
    free(again);
    nodelist_delete(&nodes);
    nodelist_delete(&down);
    nodelist_delete(&ok);
    nodelist_delete(&cand);
    nodelist_delete(&live);
    nodelist_delete(&use);
    nodelist_delete(&post);
    kvtree_delete(&reasons);
    if (rc < 0)
        return model_err("%s", err.text);
    r->m[M_ALL] = r->m[M_CPU];
    r->m[M_PROCS] = 1;
    return model_expect(have == expect, "nodes picked for the run", have, expect);
}

/* ---- series: one process's work for the whole job, at growing sizes ---- */

typedef struct {
    const char *step, *who;
    model_fn fn;
    int nodes; /* n counts nodes, not ranks */
    int quad;  /* the cost may grow with n^2: predict the next size so */
    /* per metric (M_WRITTEN .. M_PROCS): 0 as measured, 1 proportional to
     * n, 2 a*n + c*n^2 from the last two sizes, 3 the tree's largest file,
     * 4 a + b*n from the last two sizes (proportional from one) */
    const char *growth;
    int each;   /* every one of the processes does it: all = cpu * procs */
    long start; /* the first size (0: 1000 ranks, or 250 nodes) */
} series_t;

/* the n^2 coefficients a series found, per step, job size, rpn and metric:
 * a case with more files per rank, whose sizes stay too small to show the
 * square (its cost is the files'), takes the one of 1 file per rank, which
 * reached sizes where the square shows (it comes from loops over ranks,
 * not files) */
typedef struct {
    char step[32];
    long ranks;
    int rpn, metric;
    double c;
} learned_t;

static learned_t learned[256];
static int nlearned;

static double learned_get(const char *step, long ranks, int rpn, int metric)
{
    for (int i = 0; i < nlearned; i++)
        if (strcmp(learned[i].step, step) == 0 && learned[i].ranks == ranks &&
            learned[i].rpn == rpn && learned[i].metric == metric)
            return learned[i].c;
    return -1;
}

static void learned_put(const char *step, long ranks, int rpn, int metric, double c)
{
    if (nlearned == 256 || learned_get(step, ranks, rpn, metric) >= 0)
        return;
    learned_t *l = &learned[nlearned++];
    snprintf(l->step, sizeof(l->step), "%s", step);
    l->ranks = ranks;
    l->rpn = rpn;
    l->metric = metric;
    l->c = c;
}

/* one metric at the target size from the last two sizes (n1 = 0: one);
 * *kind says how: measured, linear, fit (a*n + c*n^2 with the square at
 * least a tenth of the last value, else it is noise), c_from_fpr1, or
 * linear_lower_bound */
static double series_fit(const series_t *s, const result_t *r, int metric, double n1,
                         double m1, double n2, double m2, double target, double tree,
                         const char **kind)
{
    int growth = s->growth[metric] - '0';
    *kind = growth == 0 ? "measured" : "linear";
    if (growth == 0)
        return m2;
    if (growth == 3)
        return tree > m2 ? tree : m2;
    if (growth == 1 || (growth == 4 && !(n1 > 0 && n1 < n2)))
        return m2 * target / n2;
    if (growth == 4) {
        double b = (m2 - m1) / (n2 - n1);
        *kind = "affine";
        return b > 0 ? m2 + b * (target - n2) : m2;
    }
    double lc = r->fpr == 1 ? -1 : learned_get(s->step, r->ranks, r->rpn, metric);
    if (n1 > 0 && n1 < n2 && lc <= 0) {
        double c = (m2 / n2 - m1 / n1) / (n2 - n1), a = m1 / n1 - c * n1;
        if (c > 0 && c * n2 * n2 >= 0.1 * m2) {
            if (a < 0) {
                a = 0;
                c = m2 / (n2 * n2);
            }
            if (r->fpr == 1)
                learned_put(s->step, r->ranks, r->rpn, metric, c);
            *kind = "fit";
            return a * target + c * target * target;
        }
    }
    double c = lc > 0 ? lc : learned_get(s->step, r->ranks, r->rpn, metric);
    if (c > 0) {
        double a = (m2 - c * n2 * n2) / n2;
        *kind = "c_from_fpr1";
        return (a > 0 ? a : 0) * target + c * target * target;
    }
    *kind = "linear_lower_bound";
    return m2 * target / n2;
}

static void series_extrapolate(const series_t *s, const result_t *p1, long n1,
                               result_t *out, long n2, long target, double tree)
{
    const char *kind[M_N];
    for (int i = 0; i < M_N; i++)
        out->m[i] = series_fit(s, out, i, (double)n1, p1 ? p1->m[i] : 0, (double)n2,
                               out->m[i], (double)target, tree, &kind[i]);
    if (s->each)
        out->m[M_ALL] = out->m[M_CPU] * out->m[M_PROCS];
    out->extrap = 1;
    char from[64];
    if (p1)
        snprintf(from, sizeof(from), "%ld,%ld", n1, n2);
    else
        snprintf(from, sizeof(from), "%ld", n2);
    snprintf(out->how, sizeof(out->how), "from_%s=%s;cpu=%s;cpu_all=%s",
             s->nodes ? "nodes" : "ranks", from, kind[M_CPU], kind[M_ALL]);
}

/* run s at 1000 ranks (or 250 nodes, or its start), doubling while the next size is
 * predicted to take at most --max-seconds, up to the job's size */
static int series_run(const series_t *s, const model_case_t *c, int rpn, result_t *out)
{
    long target = s->nodes ? model_nodes(c->ranks, rpn) : c->ranks;
    long start = s->start ? s->start : s->nodes ? 250 : 1000;
    long n = target < start ? target : start, n1 = 0;
    result_t prev;
    int have_prev = 0;
    model_case_t cc = *c;
    cc.rpn = rpn;
    for (;;) {
        result_t r;
        result_init(&r, c, s->step, s->who, s->nodes ? rpn : 0);
        double t0 = model_wall();
        if (model_child(s->fn, &cc, n, &r) < 0)
            return -1;
        double took = model_wall() - t0;
        if (n >= target) {
            *out = r;
            return 0;
        }
        long next = n * 2 > target ? target : n * 2;
        double predict = took * pow((double)next / (double)n, s->quad ? 2.0 : 1.0);
        /* a series with a start of its own fits from two sizes at least */
        if (predict > opt.max_seconds && !(s->start && n == start)) {
            *out = r;
            series_extrapolate(s, have_prev ? &prev : NULL, n1, out, n, target,
                               c->tree_biggest);
            return 0;
        }
        prev = r;
        have_prev = 1;
        n1 = n;
        n = next;
    }
}

/* ---- output ---- */

static const char *target_read(const result_t *r)
{
    return r->m[M_BIGGEST] <= R2F_LIMIT ? "met" : "missed";
}

static const char *target_hold(const result_t *r)
{
    if (r->ranks < 10000 || r->m[M_HELD] <= 0)
        return "-";
    return r->m[M_HELD] < (double)r->ranks ? "met" : "missed";
}

static const char *target_files(const result_t *r)
{
    if (!r->files_target)
        return "-";
    /* one per 1000 ranks; a dataset of fewer than 3000 ranks may have its
     * three (summary, the tree's root and one file of it) */
    double budget = (double)r->ranks / 1000.0;
    return r->m[M_FILES] <= (budget < 3 ? 3 : budget) ? "met" : "missed";
}

static const char *target_cpu(const result_t *r)
{
    if (!r->cpu_target)
        return "-";
    return r->m[M_ALL] <= 10.0 ? "met" : "missed";
}

static void print_line(const result_t *r)
{
    printf("model ranks=%ld fpr=%d rpn=%s%.0d step=%s who=%s procs=%.0f written=%.0f "
           "read=%.0f prefix_files=%.0f biggest=%.0f mem=%.0f cpu=%.4f cpu_all=%.4f "
           "held=%.0f extrap=%s%s%s t_read=%s t_hold=%s t_files=%s t_cpu=%s\n",
           r->ranks, r->fpr, r->rpn ? "" : "any", r->rpn, r->step, r->who, r->m[M_PROCS],
           r->m[M_WRITTEN], r->m[M_READ], r->m[M_FILES], r->m[M_BIGGEST], r->m[M_MEM],
           r->m[M_CPU], r->m[M_ALL], r->m[M_HELD], r->extrap ? "yes" : "no",
           r->extrap ? ":" : "", r->extrap ? r->how : "", target_read(r), target_hold(r),
           target_files(r), target_cpu(r));
    fflush(stdout);
}

static void fmt_bytes(double b, char *buf, size_t len)
{
    const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

static void fmt_secs(double s, char *buf, size_t len)
{
    if (s < 0.001)
        snprintf(buf, len, "%.2f ms", s * 1000);
    else if (s < 100)
        snprintf(buf, len, "%.3f s", s);
    else
        snprintf(buf, len, "%.0f s", s);
}

static void print_table(void)
{
    printf("\n| ranks | files/rank | ranks/node | step | busiest | written | read | "
           "prefix files | biggest file | memory | cpu busiest | cpu all | "
           "1 MiB | not all ranks | files/1000 ranks | flush 10 s |\n");
    printf(
        "|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|\n");
    for (int i = 0; i < nrows; i++) {
        const result_t *r = &rows[i];
        char w[32], rd[32], big[32], mem[32], cpu[32], all[32], rpn[16];
        fmt_bytes(r->m[M_WRITTEN], w, sizeof(w));
        fmt_bytes(r->m[M_READ], rd, sizeof(rd));
        fmt_bytes(r->m[M_BIGGEST], big, sizeof(big));
        fmt_bytes(r->m[M_MEM], mem, sizeof(mem));
        fmt_secs(r->m[M_CPU], cpu, sizeof(cpu));
        fmt_secs(r->m[M_ALL], all, sizeof(all));
        snprintf(rpn, sizeof(rpn), r->rpn ? "%d" : "-", r->rpn);
        printf("| %ld | %d | %s | %s%s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | "
               "%s | "
               "%s | %s |\n",
               r->ranks, r->fpr, rpn, r->step, r->extrap ? " \\*" : "", r->who, w, rd,
               r->m[M_FILES], big, mem, cpu, all, target_read(r), target_hold(r),
               target_files(r), target_cpu(r));
    }
    printf("\n\\* extrapolated (the key=value lines say from which sizes)\n");
}

static void model_keep(const result_t *r)
{
    if (nrows < MODEL_MAXROWS)
        rows[nrows++] = *r;
    print_line(r);
}

/* a row summing the rows of one case and rpn whose steps are listed */
static void model_total(const model_case_t *c, int rpn, const char *step, const char *who,
                        const char *const *parts, int cpu_target)
{
    if (opt.only[0])
        return;
    result_t t;
    result_init(&t, c, step, who, rpn);
    t.files_target = 1;
    t.cpu_target = cpu_target;
    int found = 0;
    for (int i = 0; i < nrows; i++) {
        const result_t *r = &rows[i];
        if (r->ranks != c->ranks || r->fpr != c->fpr || (r->rpn && r->rpn != rpn))
            continue;
        for (const char *const *p = parts; *p; p++) {
            if (strcmp(*p, r->step) != 0)
                continue;
            found++;
            t.m[M_WRITTEN] += r->m[M_WRITTEN];
            t.m[M_READ] += r->m[M_READ];
            t.m[M_CPU] += r->m[M_CPU];
            t.m[M_ALL] += r->m[M_ALL];
            if (r->files_target)
                t.m[M_FILES] += r->m[M_FILES];
            for (int k = M_BIGGEST; k <= M_PROCS; k++)
                if (k != M_CPU && k != M_ALL && r->m[k] > t.m[k])
                    t.m[k] = r->m[k];
            if (r->extrap) {
                t.extrap = 1;
                snprintf(t.how, sizeof(t.how), "some_parts_extrapolated");
            }
        }
    }
    if (found)
        model_keep(&t);
}

/* ---- the cases ---- */

static int model_step(model_fn fn, model_case_t *c, const char *step, const char *who,
                      int rpn, result_t *out)
{
    if (model_skip(step))
        return 0;
    result_t r;
    result_init(&r, c, step, who, rpn);
    model_case_t cc = *c;
    cc.rpn = rpn ? rpn : cc.rpn;
    if (model_child(fn, &cc, c->ranks, &r) < 0) {
        failures++;
        return -1;
    }
    model_keep(&r);
    if (out)
        *out = r;
    return 0;
}

static const series_t model_series[] = {
    {"r2f_read_all", "rank0", step_r2f_read_all, 0, 0, "010311110", 0, 0},
    {"index_scan", "indexer-node", step_index_scan, 0, 1, "111342200", 0, 0},
    {"index_r2f", "indexer-node", step_index_r2f, 0, 1, "101312210", 0, 0},
};

static const series_t model_node_series[] = {
    /* from 4 leaves up (the sizes below have one file); the files (two per
     * leaf) and the biggest (a leaf, bounded, and the root, an entry per
     * leaf, together) grow as a + b*n */
    {"scavenge_marks", "last-node", step_scavenge_marks, 1, 1, "224411201", 0,
     4 * SCAVMARK_FANIN},
    {"epilog_nodelists", "every-node", step_epilog_nodelists, 1, 1, "000012201", 1, 0},
    {"run_nodes", "scr-run", step_run_nodes, 1, 1, "100012200", 0, 0},
};

static void model_series_step(const series_t *s, model_case_t *c, int rpn)
{
    if (model_skip(s->step))
        return;
    result_t r;
    if (series_run(s, c, rpn, &r) < 0) {
        failures++;
        return;
    }
    r.files_target =
        strcmp(s->step, "index_scan") == 0 || strcmp(s->step, "index_r2f") == 0;
    model_keep(&r);
}

static void model_per_node(model_case_t *c, int rpn)
{
    static const char *const scav[] = {"scavenge_node", "scavenge_marks",
                                       "epilog_nodelists", "index_scan", NULL};
    model_step(step_filemap_merge, c, "filemap_merge", "any-node", rpn, NULL);
    model_step(step_scavenge_node, c, "scavenge_node", "any-node", rpn, NULL);
    for (size_t i = 0; i < sizeof(model_node_series) / sizeof(model_node_series[0]); i++)
        model_series_step(&model_node_series[i], c, rpn);
    model_total(c, rpn, "scavenge_total", "job", scav, 0);
}

static int model_case(long ranks, int fpr)
{
    static const char *const flush[] = {"r2f_write", "summary", "index_update", NULL};
    static const char *const reuse[] = {"r2f_write", "summary", "index_update",
                                        "supersede", NULL};
    static const char *const fetch[] = {"r2f_lookup", "summary", "index_update", NULL};
    model_case_t c;
    memset(&c, 0, sizeof(c));
    c.ranks = ranks;
    c.fpr = fpr;
    c.rpn = (int)opt.rpn[0];
    snprintf(c.prefix, sizeof(c.prefix), "%s/n%ld.f%d", opt.dir, ranks, fpr);
    scr_error_t err;
    if (io_mkdir_p(c.prefix, 0700, &err) < 0)
        return model_err("%s", err.text);
    if (plan_make(&c.plan, ranks, fpr) < 0)
        return -1;
    result_t w;
    if (model_step(step_r2f_write, &c, "r2f_write", "busiest-writer", 0, &w) == 0) {
        c.tree_whole = !w.extrap;
        c.tree_biggest = w.m[M_BIGGEST];
        model_step(step_r2f_lookup, &c, "r2f_lookup", "rank0", 0, NULL);
        model_step(step_supersede, &c, "supersede", "rank0", 0, NULL);
        model_step(step_rpfs_open, &c, "rpfs_open", "rank0", 0, NULL);
    }
    model_step(step_summary, &c, "summary", "rank0", 0, NULL);
    model_step(step_index_update, &c, "index_update", "rank0", 0, NULL);
    for (size_t i = 0; i < sizeof(model_series) / sizeof(model_series[0]); i++)
        model_series_step(&model_series[i], &c, 0);
    model_total(&c, 0, "flush_total", "job", flush, 1);
    model_total(&c, 0, "flush_reuse_total", "job", reuse, 1);
    model_total(&c, 0, "fetch_total", "job", fetch, 0);
    for (int i = 0; i < opt.nrpn; i++)
        model_per_node(&c, (int)opt.rpn[i]);
    plan_free(&c.plan);
    model_rmtree(c.prefix);
    return 0;
}

/* ---- options ---- */

static int parse_list(const char *s, long *out, int *n, long lo, long hi)
{
    char *end;
    *n = 0;
    while (*s && *n < MODEL_MAXLIST) {
        long v = strtol(s, &end, 10);
        if (end == s || v < lo || v > hi || (*end && *end != ','))
            return -1;
        out[(*n)++] = v;
        s = *end ? end + 1 : end;
    }
    return *n > 0 && !*s ? 0 : -1;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: scr-model [--ranks LIST] [--files-per-rank LIST] "
            "[--ranks-per-node LIST] [--dir DIR] [--max-seconds S] [--step NAME] "
            "[--table] [--check]\n"
            "  --dir DIR: its scratch directory goes inside DIR (default /var/tmp)\n");
    return 2;
}

static int parse_args(int argc, char **argv)
{
    parse_list("1000,10000,100000,1000000", opt.ranks, &opt.nranks, 1, 1L << 30);
    parse_list("1,64", opt.fpr, &opt.nfpr, 1, 1 << 16);
    parse_list("8,64", opt.rpn, &opt.nrpn, 1, 1 << 16);
    snprintf(opt.dir, sizeof(opt.dir), "/var/tmp");
    opt.max_seconds = 10;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (strcmp(a, "--table") == 0)
            opt.table = 1;
        else if (strcmp(a, "--check") == 0)
            opt.check = 1;
        else if (!v)
            bad = 1;
        else if (strcmp(a, "--ranks") == 0)
            bad = parse_list(v, opt.ranks, &opt.nranks, 1, NODELIST_MAX_HOSTS), i++;
        else if (strcmp(a, "--files-per-rank") == 0)
            bad = parse_list(v, opt.fpr, &opt.nfpr, 1, 1 << 16), i++;
        else if (strcmp(a, "--ranks-per-node") == 0)
            bad = parse_list(v, opt.rpn, &opt.nrpn, 1, 1 << 16), i++;
        else if (strcmp(a, "--dir") == 0)
            bad =
                snprintf(opt.dir, sizeof(opt.dir), "%s", v) >= (int)sizeof(opt.dir) - 32,
            i++;
        else if (strcmp(a, "--step") == 0)
            bad = snprintf(opt.only, sizeof(opt.only), "%s", v) >= (int)sizeof(opt.only),
            i++;
        else if (strcmp(a, "--max-seconds") == 0)
            bad = (opt.max_seconds = atof(v)) <= 0, i++;
        else
            bad = 1;
        if (bad) {
            model_err("bad option %s%s%s", a, v ? " " : "", v ? v : "");
            return -1;
        }
    }
    /* a directory of its own inside --dir, which is all it removes at the
     * end (it once removed --dir itself: /var/tmp, and everything in it) */
    size_t len = strlen(opt.dir);
    snprintf(opt.dir + len, sizeof(opt.dir) - len, "/scr-model.%d", (int)getpid());
    return 0;
}

int main(int argc, char **argv)
{
    if (parse_args(argc, argv) < 0)
        return usage();
    scr_error_t err;
    if (io_mkdir_p(opt.dir, 0700, &err) < 0) {
        model_err("%s", err.text);
        return 1;
    }
    for (int i = 0; i < opt.nranks; i++)
        for (int j = 0; j < opt.nfpr; j++)
            if (model_case(opt.ranks[i], (int)opt.fpr[j]) < 0)
                failures++;
    model_rmtree(opt.dir);
    if (opt.table)
        print_table();
    for (int i = 0; opt.check && i < nrows; i++)
        if (rows[i].extrap) {
            fprintf(stderr, "scr-model: --check: step %s at %ld ranks was extrapolated\n",
                    rows[i].step, rows[i].ranks);
            failures++;
        }
    if (failures)
        model_err("%d failures", failures);
    return failures ? 1 : 0;
}
