/* SPDX-License-Identifier: BSD-3-Clause */
/* scr-bench.c - SCR's costs against baselines measured in the same run.
 *
 * Phases (one per launch, see bench/run):
 *   ckpt     per repetition: a baseline write of the checkpoint bytes with
 *            write + fsync into the cache directory; the same bytes written
 *            through SCR_Route_file; SCR_Complete_checkpoint.  Every second
 *            checkpoint is flushed (SCR_FLUSH=2): its time comes from SCR's
 *            event log, and the baseline is cp + fsync of the same files to
 *            the same prefix.  Also SCR_Need_checkpoint latency and
 *            SCR_Init/SCR_Finalize time.
 *   fetch    after every cache was wiped: the fetch (event log) against cp +
 *            fsync of the same files back into cache
 *   rebuild  after a node was lost: the cache rebuild (event log)
 *   micro    rank 0 alone: memcpy, CRC32 and XOR throughput on one core
 *   init     SCR_Init, SCR_Need_checkpoint, SCR_Finalize only
 *
 * Times are the slowest rank's (what the application waits for).  Rank 0
 * appends one JSON object per metric (min/median/max over repetitions) to
 * --json.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <isa-l/crc.h>
#include <isa-l/raid.h>

#include "benchutil.h"
#include "scr.h"

#define MAXREPS 64

static struct {
    int rank, ranks, reps, files;
    long long bytes;
    const char *phase, *scheme, *json, *label;
    char cache[1024];
    char (*last)[SCR_MAX_FILENAME + 64]; /* [files]: routed paths of the last
                                           checkpoint */
} b = {.reps = 5,
       .files = 1,
       .bytes = 64LL << 20,
       .phase = "ckpt",
       .scheme = "XOR",
       .json = "bench.json",
       .label = ""};

static void emit(const char *metric, const double *v, int n, const char *unit)
{
    bench_run_t r = {b.json, b.phase, b.scheme, b.label, b.rank, b.ranks, b.bytes};
    bench_emit(&r, metric, v, n, unit);
}

static char *pattern(size_t n)
{
    char *p = malloc(n);
    for (size_t i = 0; i < n; i++)
        p[i] = (char)(i * 131 + (size_t)b.rank);
    return p;
}

static void write_file(const char *path, const char *buf, size_t n, int do_fsync)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, buf, n) != (ssize_t)n || (do_fsync && fsync(fd) < 0) ||
        close(fd) < 0) {
        fprintf(stderr, "scr-bench: rank %d: cannot write %s\n", b.rank, path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* values of key= in this job's ok events of one kind, from SCR's event log */
static int log_values(const char *event, const char *key, double *v, int max)
{
    char line[2048], want[128], job[128], field[64];
    const char *id = getenv("SCR_JOB_ID");
    int n = 0;
    FILE *fp = fopen(".scr/log", "r");
    snprintf(want, sizeof(want), "event=%s ", event);
    snprintf(job, sizeof(job), "job=%s ", id ? id : "");
    snprintf(field, sizeof(field), " %s=", key);
    while (fp && n < max && fgets(line, sizeof(line), fp)) {
        const char *s = strstr(line, field);
        if (strstr(line, want) && strstr(line, job) && strstr(line, "ok=1") && s &&
            !strstr(line, "lost_ranks=0 "))
            v[n++] = atof(s + strlen(field));
    }
    if (fp)
        fclose(fp);
    return n;
}

static int log_secs(const char *event, double *v, int max)
{
    return log_values(event, "secs", v, max);
}

static void file_name(int f, char *buf, size_t len)
{
    snprintf(buf, len, "bench/rank_%d_f%d.dat", b.rank, f);
}

/* write the checkpoint: baseline, through SCR, completion */
static void ckpt_rep(char *buf, size_t per, double *tb, double *tw, double *tc)
{
    char path[SCR_MAX_FILENAME + 64], name[256];
    /* first: it finishes the last checkpoint's background CRC pass, which
     * must not run during the baseline */
    SCR_Start_checkpoint();
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    for (int f = 0; f < b.files; f++) {
        snprintf(path, sizeof(path), "%s/bench-base.%d.%d", b.cache, b.rank, f);
        write_file(path, buf, per, 1);
    }
    *tb = bench_slowest(bench_now() - t0);
    for (int f = 0; f < b.files; f++) {
        snprintf(path, sizeof(path), "%s/bench-base.%d.%d", b.cache, b.rank, f);
        unlink(path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = bench_now();
    for (int f = 0; f < b.files; f++) {
        file_name(f, name, sizeof(name));
        SCR_Route_file(name, path);
        write_file(path, buf, per, 0);
        snprintf(b.last[f], sizeof(b.last[f]), "%s", path);
    }
    *tw = bench_slowest(bench_now() - t0);
    /* the ranks finish writing at different times: without the barrier the
     * early ones would count their wait for the last one as SCR's cost */
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = bench_now();
    if (SCR_Complete_checkpoint(1) != SCR_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);
    *tc = bench_slowest(bench_now() - t0);
}

/* cp + fsync of this rank's cached files to the prefix */
static double cp_out(void)
{
    char src[SCR_MAX_FILENAME], dst[SCR_MAX_FILENAME + 64];
    /* start from clean page caches, as the flush before it did */
    sync();
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    for (int f = 0; f < b.files; f++) {
        snprintf(src, sizeof(src), "%s", b.last[f]);
        snprintf(dst, sizeof(dst), "bench-cp.%d.%d", b.rank, f);
        bench_cp_fsync(b.rank, src, dst);
    }
    double t = bench_slowest(bench_now() - t0);
    for (int f = 0; f < b.files; f++) {
        snprintf(dst, sizeof(dst), "bench-cp.%d.%d", b.rank, f);
        unlink(dst);
    }
    return t;
}

static double need_latency(void)
{
    int flag;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    for (int i = 0; i < 200; i++)
        SCR_Need_checkpoint(&flag);
    return bench_slowest(bench_now() - t0) / 200;
}

static void phase_ckpt(double t_init)
{
    size_t per = (size_t)(b.bytes / b.files);
    char *buf = pattern(per);
    double base[MAXREPS], wr[MAXREPS], comp[MAXREPS], cp[MAXREPS], ratio[MAXREPS], tb, tw,
        tc;
    int n = 0, ncp = 0;
    for (int i = 1; i <= 2 * b.reps; i++) {
        /* the prefix is on disk: neither the flush nor the cp after it may
         * pay for the other's dirty pages */
        if (i % 2 == 0)
            sync();
        ckpt_rep(buf, per, &tb, &tw, &tc);
        if (i % 2 == 1) { /* SCR_FLUSH=2: odd checkpoints stay in cache */
            base[n] = tb;
            wr[n] = tw;
            comp[n] = tc;
            ratio[n++] = tc / tb;
        } else {
            cp[ncp++] = cp_out();
        }
    }
    double net[MAXREPS], over[MAXREPS];
    for (int i = 0; i < b.reps; i++)
        net[i] = bench_net_sendrecv(buf, per, b.files);
    double need = need_latency(), t0 = bench_now();
    SCR_Finalize();
    double fin = bench_slowest(bench_now() - t0), flush[MAXREPS], bw[MAXREPS];
    int nf = b.rank == 0 ? log_secs("FLUSH_END", flush, MAXREPS) : 0;
    emit("baseline_write_fsync", base, n, "s");
    emit("app_write", wr, n, "s");
    emit("complete_checkpoint", comp, n, "s");
    emit("complete_over_baseline", ratio, n, "x");
    emit("net_sendrecv", net, b.reps, "s");
    for (int i = 0; i < n && i < b.reps; i++)
        over[i] = comp[i] / net[i];
    emit("complete_over_net", over, n < b.reps ? n : b.reps, "x");
    double crc[MAXREPS];
    int nc = b.rank == 0 ? log_secs("CRC", crc, MAXREPS) : 0;
    emit("crc_background", crc, nc, "s");
    emit("cp_to_prefix", cp, ncp, "s");
    emit("flush", flush, nf, "s");
    for (int i = 0; i < nf && i < ncp; i++)
        bw[i] = cp[i] / flush[i];
    emit("flush_bw_over_cp", bw, nf < ncp ? nf : ncp, "x");
    emit("init", &t_init, 1, "s");
    emit("finalize", &fin, 1, "s");
    emit("need_checkpoint", &need, 1, "s");
    free(buf);
}

/* the fetch happened in SCR_Init, from a prefix out of the page cache
 * (bench/run evicts it); the baseline copies the same files back, as cold */
static void phase_fetch(void)
{
    char name[SCR_MAX_FILENAME], src[SCR_MAX_FILENAME * 2], dst[SCR_MAX_FILENAME + 64];
    int flag = 0;
    SCR_Have_restart(&flag, name);
    if (!flag) {
        if (b.rank == 0)
            fprintf(stderr, "scr-bench: nothing was fetched\n");
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    SCR_Start_restart(name);
    SCR_Complete_restart(1);
    for (int f = 0; f < b.files; f++) { /* cold, as the fetch read them */
        char rel[256];
        file_name(f, rel, sizeof(rel));
        bench_evict(rel);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    for (int f = 0; f < b.files; f++) {
        char rel[256];
        file_name(f, rel, sizeof(rel));
        snprintf(src, sizeof(src), "%s", rel); /* at its own path in the prefix */
        snprintf(dst, sizeof(dst), "%s/bench-fetch.%d.%d", b.cache, b.rank, f);
        bench_cp_fsync(b.rank, src, dst);
        unlink(dst);
    }
    double cp = bench_slowest(bench_now() - t0);
    SCR_Finalize();
    double fetch[MAXREPS], prot[MAXREPS], ratio, copy, total;
    int nf = b.rank == 0 ? log_secs("FETCH", fetch, MAXREPS) : 0;
    int np = b.rank == 0 ? log_values("FETCH", "protect", prot, MAXREPS) : 0;
    if (nf > 0 && np == nf) {
        /* the fetch proper (read, CRC check, write to cache), then the
         * redundancy encode that protects the fetched checkpoint */
        copy = fetch[nf - 1] - prot[np - 1];
        ratio = cp / copy;
        total = cp / fetch[nf - 1];
        emit("fetch", &fetch[nf - 1], 1, "s");
        emit("fetch_copy", &copy, 1, "s");
        emit("fetch_protect", &prot[np - 1], 1, "s");
        emit("cp_from_prefix", &cp, 1, "s");
        emit("fetch_bw_over_cp", &ratio, 1, "x");
        emit("fetch_total_bw_over_cp", &total, 1, "x");
    }
}

static void phase_rebuild(void)
{
    SCR_Finalize();
    double v[MAXREPS];
    int n = b.rank == 0 ? log_secs("REBUILD", v, MAXREPS) : 0;
    if (n > 0)
        emit("rebuild", &v[n - 1], 1, "s");
}

static void phase_micro(void)
{
    if (b.rank != 0)
        return;
    size_t n = 256u << 20;
    char *x = aligned_alloc(64, n), *y = aligned_alloc(64, n), *z = aligned_alloc(64, n);
    memset(x, 1, n);
    memset(y, 2, n);
    memset(z, 0, n);
    double mc[MAXREPS], crc[MAXREPS], xr[MAXREPS];
    volatile uint32_t sink = 0;
    for (int r = 0; r < b.reps; r++) {
        double t0 = bench_now();
        memcpy(z, x, n);
        mc[r] = (double)n / (bench_now() - t0) / 1e9;
        t0 = bench_now();
        sink ^= crc32_gzip_refl(0, (unsigned char *)x, n);
        crc[r] = (double)n / (bench_now() - t0) / 1e9;
        void *v[3] = {x, y, z};
        t0 = bench_now();
        xor_gen(3, (int)n, v);
        xr[r] = (double)n / (bench_now() - t0) / 1e9;
    }
    (void)sink;
    emit("memcpy_gbps", mc, b.reps, "GB/s");
    emit("crc32_gbps", crc, b.reps, "GB/s");
    emit("xor_gbps", xr, b.reps, "GB/s");
    free(x);
    free(y);
    free(z);
}

static void parse(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--phase"))
            b.phase = argv[i + 1];
        else if (!strcmp(argv[i], "--scheme"))
            b.scheme = argv[i + 1];
        else if (!strcmp(argv[i], "--label"))
            b.label = argv[i + 1];
        else if (!strcmp(argv[i], "--json"))
            b.json = argv[i + 1];
        else if (!strcmp(argv[i], "--reps"))
            b.reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--files"))
            b.files = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--bytes"))
            b.bytes = atoll(argv[i + 1]);
        else {
            fprintf(stderr, "scr-bench: unknown option %s\n", argv[i]);
            exit(2);
        }
    }
    if (b.reps < 1 || b.reps > MAXREPS / 2 || b.files < 1 || b.files > 100000 ||
        b.bytes < b.files) {
        fprintf(stderr, "scr-bench: bad --reps (1-%d), --files (1-100000) or --bytes\n",
                MAXREPS / 2);
        exit(2);
    }
    if (!(b.last = calloc((size_t)b.files, sizeof(*b.last)))) {
        fprintf(stderr, "scr-bench: out of memory for %d file names\n", b.files);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.ranks);
    parse(argc, argv);
    const char *cache = getenv("SCR_CACHE_BASE");
    snprintf(b.cache, sizeof(b.cache), "%s", cache ? cache : "/dev/shm");
    if (!strcmp(b.phase, "micro")) {
        phase_micro();
        MPI_Finalize();
        return 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    if (SCR_Init() != SCR_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 2);
    double t_init = bench_slowest(bench_now() - t0);
    if (!strcmp(b.phase, "ckpt"))
        phase_ckpt(t_init);
    else if (!strcmp(b.phase, "fetch"))
        phase_fetch();
    else if (!strcmp(b.phase, "rebuild"))
        phase_rebuild();
    else if (!strcmp(b.phase, "init")) {
        double need = need_latency();
        t0 = bench_now();
        SCR_Finalize();
        double fin = bench_slowest(bench_now() - t0);
        emit("init", &t_init, 1, "s");
        emit("need_checkpoint", &need, 1, "s");
        emit("finalize", &fin, 1, "s");
    }
    MPI_Finalize();
    return 0;
}
