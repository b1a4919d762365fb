/* SPDX-License-Identifier: BSD-3-Clause */
/* scr-mem.c - the memory-protect API (scr_mem.h) against the file API, and
 * its differential checkpoints against its full ones (issue 17).
 *
 * Each rank protects --vars variables totalling --bytes bytes, filled with
 * a deterministic pseudo-random stream.  Phases (one per launch, bench/run):
 *
 *   ckpt   SCR_DCP=0.  Per repetition, SCR_Checkpoint of every variable and
 *          the same bytes through the file API (SCR_Start_output,
 *          SCR_Route_file, write() of each variable into one file,
 *          SCR_Complete_output), the order swapped every repetition.
 *          mem_over_file is their ratio (target <= 1.05).
 *   dcp    SCR_DCP=1, SCR_DCP_FULL_EVERY=4.  Per repetition, a full
 *          checkpoint, then differential ones after 0 %, 10 % and 100 % of
 *          the SCR_DCP_BLOCK blocks changed; each over that repetition's full
 *          one (targets <= 0.1, <= 0.25, <= 1.1).  The event log's dataset
 *          sizes show that the differential ones were differential.  The
 *          0 % one is made by SCR_Checkpoint_begin, _add and _end, each
 *          timed (dcp_d0_begin, _add, _end: the slowest rank's).  Then
 *          what no differential checkpoint avoids, per repetition: every
 *          rank hashing all its blocks at once, and an empty dataset
 *          (SCR_Start_output to SCR_Complete_output, no bytes).
 *          Last, what the time step pays: one write to every page of
 *          every variable right after a checkpoint.
 *   dcptrack  the same with SCR_DCP_TRACK=1: the kernel says which pages
 *          were written, so only their blocks are hashed; the first write
 *          to a page after a checkpoint takes a minor fault instead.
 *   flush  SCR_DCP=1, SCR_DCP_FULL_EVERY=2, SCR_FLUSH=1.  Per repetition a
 *          full checkpoint, then one after 10 % of the blocks changed, each
 *          flushed as it completes.  Rank 0 sums the sizes of the files in
 *          each dataset's files on the prefix (<prefix>/.scr/mem.<id>/,
 *          the id from the event log): prefix_d10_over_full (target <= 0.15).
 *   hash   rank 0 alone, no SCR: XXH3-128 on one core over a 256 MiB buffer,
 *          at once, streamed in 1 MiB pieces (a full checkpoint's way) and
 *          64 KiB at a time (a differential checkpoint's way); memcpy beside
 *          it (target >= 5 GB/s).
 *
 * The program sets SCR_DCP, SCR_DCP_BLOCK, SCR_DCP_FULL_EVERY, SCR_DCP_TRACK
 * and SCR_FLUSH itself with SCR_Config before SCR_Init, and stops when the environment
 * overrides them.  Times are the slowest rank's, each after a barrier; ckpt
 * and dcp begin with an untimed round.  Rank 0 appends one JSON line of raw samples
 * per metric to --json (phase "mem.<phase>") and prints a table.
 *
 *   scr-mem --phase ckpt|dcp|dcptrack|flush|hash [--bytes N] [--vars V] [--block N]
 *           [--reps R] [--json FILE] [--scheme NAME] [--label TEXT]
 *           [--compute-ms MS]
 *
 * --compute-ms sleeps after each checkpoint, outside the timing, as a time
 * step would: what SCR does behind the application (deleting evicted
 * files, the CRC pass) then runs there, not inside the next checkpoint.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nftw */
#endif
#include <fcntl.h>
#include <ftw.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
#ifdef SCR_HAVE_XXH_DISPATCH
#include <xxh_x86dispatch.h> /* as lib/core/ftiff.c hashes */
#endif

#include "benchutil.h"
#include "scr.h"
#include "scr_mem.h"

#define MAXREPS 64
#define MAXVARS 1024

static struct {
    int rank, ranks, reps, nvars, compute_ms, track;
    long long bytes, block;
    const char *phase, *scheme, *label, *json;
    char *var[MAXVARS];
    size_t size[MAXVARS];
} m = {.reps = 5,
       .nvars = 8,
       .bytes = 64LL << 20,
       .block = 65536,
       .phase = "ckpt",
       .scheme = "SINGLE",
       .label = "",
       .json = "mem.json"};

static void die(const char *what)
{
    fprintf(stderr, "scr-mem: rank %d: %s\n", m.rank, what);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static void emit(const char *metric, const double *v, int n, const char *unit)
{
    char phase[32];
    snprintf(phase, sizeof(phase), "mem.%s", m.phase);
    bench_run_t r = {m.json, phase, m.scheme, m.label, m.rank, m.ranks, m.bytes};
    bench_emit(&r, metric, v, n, unit);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* one line of the human table: median, min and max of v, and the target */
static void show(const char *what, const double *v, int n, const char *unit,
                 const char *op, double bound)
{
    double s[MAXREPS];
    if (m.rank != 0 || n <= 0 || n > MAXREPS)
        return;
    memcpy(s, v, sizeof(double) * (size_t)n);
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    double med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    printf("  %-30s %10.4g %10.4g %10.4g %-5s", what, med, s[0], s[n - 1], unit);
    if (op)
        printf("  %s %-5g %s", op, bound,
               (op[0] == '<' ? med <= bound : med >= bound) ? "met" : "MISSED");
    printf("\n");
}

static void show_head(const char *title)
{
    if (m.rank == 0)
        printf("scr-mem %s (%s, %d ranks, %lld bytes per rank in %d variables):\n"
               "  %-30s %10s %10s %10s %-5s  target\n",
               title, m.scheme, m.ranks, m.bytes, m.nvars, "metric", "median", "min",
               "max", "unit");
}

/* xorshift64*: the same bytes every run, different on every rank */
static void fill(char *p, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        uint64_t v = x * 0x2545F4914F6CDD1DULL;
        memcpy(p + i, &v, 8);
    }
    for (; i < n; i++)
        p[i] = (char)(x >> (8 * (i % 8)));
}

/* the variables: equal shares (multiples of 8 bytes), the last one takes
 * the rest; each protected under its index */
static void protect_all(void)
{
    size_t share = (size_t)(m.bytes / m.nvars) & ~(size_t)7, left = (size_t)m.bytes;
    for (int i = 0; i < m.nvars; i++) {
        m.size[i] = i + 1 < m.nvars ? share : left;
        left -= m.size[i];
        m.var[i] = malloc(m.size[i] ? m.size[i] : 1);
        if (!m.var[i])
            die("out of memory");
        fill(m.var[i], m.size[i], (uint64_t)m.rank * MAXVARS + (uint64_t)i);
        if (SCR_Protect(i, m.var[i], (int64_t)m.size[i], 1) != SCR_SUCCESS)
            die("SCR_Protect failed");
    }
}

/* change pct % of the blocks (the containers SCR_DCP_BLOCK cuts each
 * variable into), spread evenly and shifted by round: one 8-byte word of a
 * chosen block changes, so its hash does; returns the blocks changed */
static long touch(int pct, int round)
{
    long g = 0, changed = 0;
    for (int i = 0; i < m.nvars; i++)
        for (size_t off = 0; off < m.size[i]; off += (size_t)m.block, g++) {
            long k = g + round;
            if ((k + 1) * pct / 100 == k * pct / 100)
                continue;
            uint64_t w = 0;
            size_t n = m.size[i] - off < 8 ? m.size[i] - off : 8;
            memcpy(&w, m.var[i] + off, n);
            w += 0x9E3779B97F4A7C15ULL;
            memcpy(m.var[i] + off, &w, n);
            changed++;
        }
    return changed;
}

/* the time step between checkpoints (--compute-ms) */
static void compute(void)
{
    struct timespec ts = {m.compute_ms / 1000, (long)(m.compute_ms % 1000) * 1000000};
    if (m.compute_ms > 0)
        nanosleep(&ts, NULL);
}

static double mem_ckpt(const char *name)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    if (SCR_Checkpoint(name) != SCR_SUCCESS)
        die("SCR_Checkpoint failed");
    double s = bench_slowest(bench_now() - t0);
    compute();
    return s;
}

/* the same as SCR_Checkpoint in its three calls, each timed on every rank:
 * split gets the slowest rank's begin, adds and end */
static double mem_ckpt_split(const char *name, double split[3])
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    if (SCR_Checkpoint_begin(name) != SCR_SUCCESS)
        die("SCR_Checkpoint_begin failed");
    double t1 = bench_now();
    for (int i = 0; i < m.nvars; i++)
        if (SCR_Checkpoint_add(i) != SCR_SUCCESS)
            die("SCR_Checkpoint_add failed");
    double t2 = bench_now();
    if (SCR_Checkpoint_end() != SCR_SUCCESS)
        die("SCR_Checkpoint_end failed");
    double t3 = bench_now();
    double s = bench_slowest(t3 - t0);
    split[0] = bench_slowest(t1 - t0);
    split[1] = bench_slowest(t2 - t1);
    split[2] = bench_slowest(t3 - t2);
    compute();
    return s;
}

static int write_full(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t got = write(fd, p, n);
        if (got <= 0)
            return -1;
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

/* the same bytes as an application writes them with the file API (data 0:
 * an empty file, what SCR's start and completion cost alone) */
static double file_ckpt(const char *name, int data)
{
    char rel[64], path[SCR_MAX_FILENAME];
    snprintf(rel, sizeof(rel), "file/rank_%d.dat", m.rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    if (SCR_Start_output(name, SCR_FLAG_CHECKPOINT) != SCR_SUCCESS ||
        SCR_Route_file(rel, path) != SCR_SUCCESS)
        die("SCR_Start_output or SCR_Route_file failed");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), valid = fd >= 0;
    for (int i = 0; i < m.nvars && valid && data; i++)
        valid = write_full(fd, m.var[i], m.size[i]) == 0;
    if (fd >= 0 && close(fd) < 0)
        valid = 0;
    if (SCR_Complete_output(valid) != SCR_SUCCESS)
        die("SCR_Complete_output failed");
    double s = bench_slowest(bench_now() - t0);
    compute();
    return s;
}

/* rank 0, after SCR_Finalize: from this job's event log, the id and bytes
 * of the dataset named name (DATASET_END), and the bytes and seconds of its
 * flush (FLUSH_END); the last such line wins.  0 when found. */
static struct {
    char prefix[4096];
    char job[256];
} where;

static int log_dataset(const char *name, int *id, double *bytes, double *fbytes,
                       double *fsecs)
{
    char path[4200], line[2048], want[300];
    snprintf(path, sizeof(path), "%s/.scr/log", where.prefix);
    FILE *fp = fopen(path, "r");
    *id = -1;
    *fbytes = *fsecs = -1;
    if (!fp)
        return -1;
    snprintf(want, sizeof(want), " name=%s ", name);
    while (fgets(line, sizeof(line), fp)) {
        const char *d = strstr(line, " dset="), *b = strstr(line, " bytes=");
        if (!d || !b || (where.job[0] && !strstr(line, where.job)))
            continue;
        if (strstr(line, "event=DATASET_END ") && strstr(line, want)) {
            *id = atoi(d + 6);
            *bytes = atof(b + 7);
        } else if (strstr(line, "event=FLUSH_END ") && *id >= 0 && atoi(d + 6) == *id) {
            const char *s = strstr(line, " secs=");
            *fbytes = atof(b + 7);
            *fsecs = s ? atof(s + 6) : -1;
        }
    }
    fclose(fp);
    return *id >= 0 ? 0 : -1;
}

static double tree_bytes;

static int add_size(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)path;
    (void)f;
    if (type == FTW_F && S_ISREG(st->st_mode))
        tree_bytes += (double)st->st_size;
    return 0;
}

/* bytes in the regular files of memory dataset id on the prefix (its files
 * at their own paths, <prefix>/.scr/mem.<id>/), -1 if none */
static double prefix_bytes(int id)
{
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/.scr/mem.%d", where.prefix, id);
    tree_bytes = 0;
    return nftw(dir, add_size, 16, FTW_PHYS) == 0 ? tree_bytes : -1;
}

/* the prefix and job id, for rank 0's look into the event log */
static void where_init(void)
{
    char *p = (char *)SCR_Config("SCR_PREFIX");
    if (p)
        snprintf(where.prefix, sizeof(where.prefix), "%s", p);
    else if (!getcwd(where.prefix, sizeof(where.prefix)))
        die("getcwd failed");
    free(p);
    const char *job = getenv("SCR_JOB_ID");
    if (job)
        snprintf(where.job, sizeof(where.job), " job=%s ", job);
}

/* the settings this phase needs, before SCR_Init (one key per call) */
static void configure(int dcp, int every, int flush)
{
    SCR_Configf("SCR_DCP=%d", dcp);
    SCR_Configf("SCR_DCP_TRACK=%d", m.track);
    SCR_Configf("SCR_DCP_BLOCK=%lld", m.block);
    SCR_Configf("SCR_DCP_FULL_EVERY=%d", every);
    SCR_Configf("SCR_FLUSH=%d", flush);
}

/* after SCR_Init: the settings took (a value in the environment wins over
 * SCR_Config) */
static void check(const char *key, long long want)
{
    char *v = (char *)SCR_Config(key), msg[256];
    int ok = v && atoll(v) == want && strspn(v, "0123456789") == strlen(v);
    if (!ok) {
        snprintf(msg, sizeof(msg), "%s is %s, not %lld (set in the environment?)", key,
                 v ? v : "unset", want);
        die(msg);
    }
    free(v);
}

static void checks(int dcp, int every, int flush)
{
    check("SCR_DCP", dcp);
    check("SCR_DCP_TRACK", m.track);
    check("SCR_DCP_BLOCK", m.block);
    check("SCR_DCP_FULL_EVERY", every);
    check("SCR_FLUSH", flush);
}

static void phase_ckpt(void)
{
    char name[64];
    double tm[MAXREPS], tf[MAXREPS], ratio[MAXREPS], bw[MAXREPS];
    file_ckpt("warm.file", 1);
    mem_ckpt("warm.mem");
    for (int i = 0; i < m.reps; i++) {
        snprintf(name, sizeof(name), "file.%d", i);
        if (i % 2)
            tf[i] = file_ckpt(name, 1);
        snprintf(name, sizeof(name), "mem.%d", i);
        tm[i] = mem_ckpt(name);
        snprintf(name, sizeof(name), "file.%d", i);
        if (i % 2 == 0)
            tf[i] = file_ckpt(name, 1);
        ratio[i] = tm[i] / tf[i];
        bw[i] = (double)m.bytes * m.ranks / tm[i] / 1e9;
    }
    SCR_Finalize();
    emit("file_ckpt", tf, m.reps, "s");
    emit("mem_ckpt", tm, m.reps, "s");
    emit("mem_bw", bw, m.reps, "GB/s");
    emit("mem_over_file", ratio, m.reps, "x");
    show_head("full checkpoint, memory API against file API");
    show("file API checkpoint", tf, m.reps, "s", NULL, 0);
    show("SCR_Checkpoint", tm, m.reps, "s", NULL, 0);
    show("SCR_Checkpoint / file API", ratio, m.reps, "x", "<=", 1.05);
}

/* what no differential checkpoint avoids: hashing every block (all ranks
 * at once, the slowest one's time) */
static double hash_all(void)
{
    volatile uint64_t sink = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    for (int i = 0; i < m.nvars; i++)
        for (size_t off = 0; off < m.size[i]; off += (size_t)m.block) {
            size_t n =
                m.size[i] - off < (size_t)m.block ? m.size[i] - off : (size_t)m.block;
            sink ^= XXH3_128bits(m.var[i] + off, n).low64;
        }
    (void)sink;
    return bench_slowest(bench_now() - t0);
}

/* one write to every page of every variable (slowest rank) */
static double write_pages(void)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    for (int i = 0; i < m.nvars; i++)
        for (size_t off = 0; off < m.size[i]; off += pg)
            m.var[i][off]++;
    return bench_slowest(bench_now() - t0);
}

/* differential checkpoints: full, then 0 %, 10 %, 100 % changed; then the
 * floor under the 0 % one: hashing every block plus an empty output */
static void phase_dcp(void)
{
    static const int pct[4] = {-1, 0, 10, 100};
    static const char *kind[4] = {"full", "d0", "d10", "d100"};
    char name[64];
    double t[4][MAXREPS], over[4][MAXREPS], frac[4][MAXREPS], bytes[4][MAXREPS];
    double split[3][MAXREPS], sp[3];
    long blocks = touch(100, 0);
    for (int r = 0; r <= m.reps; r++) /* round 0 is untimed */
        for (int k = 0; k < 4; k++) {
            long n = pct[k] >= 0 ? touch(pct[k], r) : 0, all = 0, sum = 0;
            MPI_Allreduce(&n, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            MPI_Allreduce(&blocks, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            snprintf(name, sizeof(name), "dcp.%d.%s", r, kind[k]);
            /* the 0 % one in its three calls: where its time goes */
            double s = k == 1 ? mem_ckpt_split(name, sp) : mem_ckpt(name);
            if (r == 0)
                continue;
            for (int x = 0; x < 3 && k == 1; x++)
                split[x][r - 1] = sp[x];
            t[k][r - 1] = s;
            over[k][r - 1] = s / t[0][r - 1];
            frac[k][r - 1] = pct[k] >= 0 ? (double)sum / (double)all : 1;
        }
    /* the floor: first evict the chain (untimed), then per repetition an
     * empty dataset and a pass of hashing */
    double te[MAXREPS], th[MAXREPS], low[MAXREPS];
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof(name), "dcp.evict.%d", i);
        file_ckpt(name, 0);
    }
    for (int r = 0; r < m.reps; r++) {
        snprintf(name, sizeof(name), "dcp.empty.%d", r);
        te[r] = file_ckpt(name, 0);
        th[r] = hash_all();
        low[r] = (te[r] + th[r]) / t[0][r];
    }
    /* the time step's side: a page's first write after a checkpoint */
    double tw[MAXREPS];
    for (int r = 0; r < m.reps; r++) {
        snprintf(name, sizeof(name), "dcp.pages.%d", r);
        mem_ckpt(name);
        tw[r] = write_pages();
    }
    SCR_Finalize();
    int nb = 0;
    for (int r = 1; r <= m.reps && m.rank == 0; r++) {
        int id, found = 1;
        double fb, fs;
        for (int k = 0; k < 4; k++) {
            snprintf(name, sizeof(name), "dcp.%d.%s", r, kind[k]);
            found = found && log_dataset(name, &id, &bytes[k][r - 1], &fb, &fs) == 0;
        }
        nb += found;
    }
    /* a differential checkpoint that was written in full would make every
     * ratio here meaningless */
    if (nb == m.reps)
        for (int r = 0; r < nb; r++)
            if (bytes[1][r] > bytes[0][r] / 2)
                die("the 0 % checkpoint wrote as much as a full one: not differential");
    for (int k = 0; k < 4; k++) {
        char metric[64];
        snprintf(metric, sizeof(metric), "dcp_%s", kind[k]);
        emit(metric, t[k], m.reps, "s");
        if (k > 0) {
            snprintf(metric, sizeof(metric), "dcp_%s_over_full", kind[k]);
            emit(metric, over[k], m.reps, "x");
            snprintf(metric, sizeof(metric), "dcp_%s_blocks_changed", kind[k]);
            emit(metric, frac[k], m.reps, "fraction");
        }
        if (nb == m.reps) {
            snprintf(metric, sizeof(metric), "dcp_%s_bytes", kind[k]);
            emit(metric, bytes[k], nb, "B");
        }
    }
    emit("dcp_d0_begin", split[0], m.reps, "s");
    emit("dcp_d0_add", split[1], m.reps, "s");
    emit("dcp_d0_end", split[2], m.reps, "s");
    emit("dcp_hash_all", th, m.reps, "s");
    emit("dcp_empty_output", te, m.reps, "s");
    emit("dcp_d0_floor_over_full", low, m.reps, "x");
    emit("dcp_write_every_page", tw, m.reps, "s");
    show_head(m.track ? "differential checkpoints (SCR_DCP=1, SCR_DCP_TRACK=1)"
                      : "differential checkpoints (SCR_DCP=1)");
    static const double bound[4] = {0, 0.1, 0.25, 1.1};
    for (int k = 0; k < 4; k++) {
        char what[64];
        snprintf(what, sizeof(what), "%s checkpoint", kind[k]);
        show(what, t[k], m.reps, "s", NULL, 0);
        if (nb == m.reps) {
            snprintf(what, sizeof(what), "%s dataset bytes", kind[k]);
            show(what, bytes[k], nb, "B", NULL, 0);
        }
        if (k > 0) {
            snprintf(what, sizeof(what), "%s / full", kind[k]);
            show(what, over[k], m.reps, "x", "<=", bound[k]);
        }
    }
    show("0 %: SCR_Checkpoint_begin", split[0], m.reps, "s", NULL, 0);
    show("0 %: SCR_Checkpoint_add (all)", split[1], m.reps, "s", NULL, 0);
    show("0 %: SCR_Checkpoint_end", split[2], m.reps, "s", NULL, 0);
    show("hash every block, all ranks", th, m.reps, "s", NULL, 0);
    show("empty output dataset", te, m.reps, "s", NULL, 0);
    show("(hash + empty) / full", low, m.reps, "x", NULL, 0);
    show("write every page after a ckpt", tw, m.reps, "s", NULL, 0);
}

/* flushed: full, then 10 % changed; what each put on the prefix */
static void phase_flush(void)
{
    char name[64];
    double pb[2][MAXREPS], fb[2][MAXREPS], fs[2][MAXREPS], ratio[MAXREPS],
        fratio[MAXREPS], sratio[MAXREPS];
    touch(100, 0);
    for (int r = 0; r < m.reps; r++) {
        snprintf(name, sizeof(name), "flush.%d.full", r);
        mem_ckpt(name);
        touch(10, r);
        snprintf(name, sizeof(name), "flush.%d.d10", r);
        mem_ckpt(name);
    }
    SCR_Finalize();
    int n = 0;
    for (int r = 0; r < m.reps && m.rank == 0; r++) {
        int ok = 1;
        for (int k = 0; k < 2; k++) {
            int id;
            double bytes;
            snprintf(name, sizeof(name), "flush.%d.%s", r, k ? "d10" : "full");
            ok = ok && log_dataset(name, &id, &bytes, &fb[k][n], &fs[k][n]) == 0 &&
                 fb[k][n] > 0 && (pb[k][n] = prefix_bytes(id)) > 0;
        }
        if (!ok) {
            fprintf(stderr,
                    "scr-mem: flush.%d: no flushed dataset on %s (SCR_LOG_ENABLE=1?)\n",
                    r, where.prefix);
            continue;
        }
        ratio[n] = pb[1][n] / pb[0][n];
        fratio[n] = fb[1][n] / fb[0][n];
        sratio[n] = fs[1][n] / fs[0][n];
        n++;
    }
    emit("prefix_bytes_full", pb[0], n, "B");
    emit("prefix_bytes_d10", pb[1], n, "B");
    emit("prefix_d10_over_full", ratio, n, "x");
    emit("flush_bytes_d10_over_full", fratio, n, "x");
    emit("flush_full", fs[0], n, "s");
    emit("flush_d10", fs[1], n, "s");
    emit("flush_d10_over_full", sratio, n, "x");
    show_head("flush of a 10 %-changed differential checkpoint (SCR_FLUSH=1)");
    show("prefix bytes, full", pb[0], n, "B", NULL, 0);
    show("prefix bytes, 10 % changed", pb[1], n, "B", NULL, 0);
    show("prefix bytes d10 / full", ratio, n, "x", "<=", 0.15);
    show("flushed bytes d10 / full (log)", fratio, n, "x", NULL, 0);
    show("flush seconds d10 / full (log)", sratio, n, "x", NULL, 0);
}

/* one core: XXH3-128 at once, in 1 MiB pieces and in 64 KiB blocks */
static void phase_hash(void)
{
    if (m.rank != 0)
        return;
    size_t n = (size_t)256 << 20;
    char *x = aligned_alloc(64, n), *y = aligned_alloc(64, n);
    if (!x || !y)
        die("out of memory");
    fill(x, n, 1);
    memset(y, 0, n);
    double once[MAXREPS], piece[MAXREPS], block[MAXREPS], mc[MAXREPS];
    volatile uint64_t sink = 0;
    XXH3_state_t *st = XXH3_createState();
    if (!st)
        die("out of memory");
    for (int r = 0; r < m.reps; r++) {
        double t0 = bench_now();
        sink ^= XXH3_128bits(x, n).low64;
        once[r] = (double)n / (bench_now() - t0) / 1e9;
        t0 = bench_now();
        XXH3_128bits_reset(st);
        for (size_t off = 0; off < n; off += (size_t)1 << 20)
            XXH3_128bits_update(st, x + off, (size_t)1 << 20);
        sink ^= XXH3_128bits_digest(st).high64;
        piece[r] = (double)n / (bench_now() - t0) / 1e9;
        t0 = bench_now();
        for (size_t off = 0; off < n; off += 65536)
            sink ^= XXH3_128bits(x + off, 65536).low64;
        block[r] = (double)n / (bench_now() - t0) / 1e9;
        t0 = bench_now();
        memcpy(y, x, n);
        mc[r] = (double)n / (bench_now() - t0) / 1e9;
        sink ^= (uint64_t)y[r];
    }
    (void)sink;
    XXH3_freeState(st);
    emit("xxh3_128_gbps", once, m.reps, "GB/s");
    emit("xxh3_128_1m_gbps", piece, m.reps, "GB/s");
    emit("xxh3_128_64k_gbps", block, m.reps, "GB/s");
    emit("memcpy_gbps", mc, m.reps, "GB/s");
    printf(
        "scr-mem hash: one core, %zu MiB buffer:\n  %-30s %10s %10s %10s %-5s  target\n",
        n >> 20, "metric", "median", "min", "max", "unit");
    show("XXH3-128, whole buffer", once, m.reps, "GB/s", ">=", 5);
    show("XXH3-128, 1 MiB pieces", piece, m.reps, "GB/s", NULL, 0);
    show("XXH3-128, 64 KiB blocks", block, m.reps, "GB/s", NULL, 0);
    show("memcpy", mc, m.reps, "GB/s", NULL, 0);
    free(x);
    free(y);
}

static void parse(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--phase"))
            m.phase = v;
        else if (!strcmp(k, "--bytes"))
            m.bytes = atoll(v);
        else if (!strcmp(k, "--vars"))
            m.nvars = atoi(v);
        else if (!strcmp(k, "--block"))
            m.block = atoll(v);
        else if (!strcmp(k, "--compute-ms"))
            m.compute_ms = atoi(v);
        else if (!strcmp(k, "--reps"))
            m.reps = atoi(v);
        else if (!strcmp(k, "--json"))
            m.json = v;
        else if (!strcmp(k, "--scheme"))
            m.scheme = v;
        else if (!strcmp(k, "--label"))
            m.label = v;
        else
            die(k);
    }
    if (m.reps < 1 || m.reps > MAXREPS || m.nvars < 1 || m.nvars > MAXVARS ||
        m.bytes < 8LL * m.nvars || m.block < 8 || m.block % 8)
        die("bad --reps (1-64), --vars (1-1024), --bytes (>= 8 per variable) or "
            "--block (a multiple of 8)");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m.ranks);
    parse(argc, argv);
    int dcp = 0, every = 10, flush = 0;
    void (*run)(void) = NULL;
    if (!strcmp(m.phase, "ckpt"))
        run = phase_ckpt;
    else if (!strcmp(m.phase, "dcp"))
        run = phase_dcp, dcp = 1, every = 4;
    else if (!strcmp(m.phase, "dcptrack"))
        run = phase_dcp, dcp = 1, every = 4, m.track = 1;
    else if (!strcmp(m.phase, "flush"))
        run = phase_flush, dcp = 1, every = 2, flush = 1;
    else if (!strcmp(m.phase, "hash")) {
        phase_hash();
        MPI_Finalize();
        return 0;
    } else
        die("--phase must be ckpt, dcp, dcptrack, flush or hash");
    configure(dcp, every, flush);
    if (SCR_Init() != SCR_SUCCESS)
        die("SCR_Init failed");
    checks(dcp, every, flush);
    where_init();
    protect_all();
    run();
    for (int i = 0; i < m.nvars; i++)
        free(m.var[i]);
    MPI_Finalize();
    return 0;
}
