/* SPDX-License-Identifier: BSD-3-Clause */
/* scr-ckpt.c - the checkpoint as an application sees it, for comparing SCR
 * implementations: it uses the scr.h API only, so the same source builds
 * against this project's libscr and against LLNL SCR's (bench/run
 * --against DIR).
 *
 * Back to back, as SCR's own example programs do: each repetition is
 * SCR_Start_output, SCR_Route_file and the write of every file, then
 * SCR_Complete_output; the time is from just before SCR_Start_output to
 * the return of SCR_Complete_output on the slowest rank, so starting,
 * routing, evicting older datasets and any background work that competes
 * with the application's writes all count.  A barrier lines the ranks up
 * before each checkpoint (an application's time step would).
 *
 *   scr-ckpt --bytes N --files F --reps R --json FILE --impl NAME
 *            --scheme NAME --label TEXT [--threads 1] [--compute-ms MS] [--sleep 1]
 *            [--restart cache|rebuild|fetch] [--coll 1] [--mem-sample MS]
 *            [--bare-flush 1]
 *
 * --threads 1 initializes MPI with MPI_THREAD_MULTIPLE (asynchronous
 * redundancy, SCR_REDUNDANCY_ASYNC=1, needs it); --compute-ms computes
 * after each checkpoint, outside the timing, as an application's time step
 * would: a loop of MS milliseconds of one CPU (calibrated in CPU time), so
 * background work the library leaves running takes CPU from it as from an
 * application on every core; --sleep 1 sleeps MS instead.
 *
 * Rank 0 appends one JSON line (raw samples) per metric to FILE, phase
 * "whole.NAME": ckpt_whole (s), ckpt_bw (aggregate GB/s), the slowest
 * rank's start_output, route_and_write and complete_output (s), init and
 * finalize (s); net_sendrecv (s): after SCR_Finalize, with no library
 * work left, the checkpoint's bytes sent to the same rank of the next node,
 * once per repetition (the report's floor for a scheme, bench/README.md);
 * bare_scheme (s), without --threads: what the scheme must do to the
 * bytes with no library around it (bare.h, in SCR_CACHE_BASE; for SINGLE
 * a whole checkpoint of nothing but the writes and two agreements), once
 * in each repetition's compute step, halfway through it, so the library's
 * own background work is over and the next checkpoint still follows a
 * pause (its mappings are left out of extra_mem_per_rank: the peak is read
 * before it and started again after it, /proc/self/clear_refs);
 * and complete_over_bare (x), each repetition's complete_last_writer over
 * that repetition's bare_scheme: the library's Complete against the work
 * it cannot avoid, measured moments apart on the same machine (SINGLE:
 * whole_over_bare, ckpt_whole over bare_scheme);
 * with --mem-sample MS, extra_anon_per_rank (MiB): the growth of the
 * anonymous memory's peak over SCR_Init to the last checkpoint's compute
 * step, sampled every MS ms (sample_start below);
 * with --coll 1, coll_bare (s): after SCR_Finalize, the machine's floor
 * for an agreement at this size, an MPI_Barrier and an MPI_Allreduce
 * (bench/scale.sh reports each step over it);
 * with --bare-flush 1 (run without the library's flush), bare_flush_s: a
 * bare background flush (bareflush.h) over each compute step, whose
 * compute_s is then the floor of a background flush's cost to it, and
 * bare_flush_cpu_s, its threads' CPU time summed over the ranks;
 * and when the prefix's event log (SCR_LOG_ENABLE=1) has
 * REDUNDANCY_END events, redundancy_bg: each background encode's end,
 * seconds after its SCR_Start_output; FLUSH_END events, flush_s (each
 * flush's seconds) and flush_cpu_s (its copies' CPU, summed over ranks).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT (bareflush.h), built outside our CMake too */
#endif
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bare.h"
#include "bareflush.h"
#include "benchutil.h"
#include "scr.h"

#define MAXREPS 64

static struct {
    int rank, ranks, reps, files, threads, compute_ms, sleep, coll, mem_sample,
        bare_flush;
    long long bytes;
    const char *json, *impl, *scheme, *label, *restart;
} c = {.reps = 5,
       .files = 1,
       .bytes = 64LL << 20,
       .json = "ckpt.json",
       .impl = "scr",
       .scheme = "",
       .label = ""};

static void emit(const char *metric, const double *v, int n, const char *unit)
{
    char phase[64];
    snprintf(phase, sizeof(phase), "whole.%s", c.impl);
    bench_run_t r = {c.json, phase, c.scheme, c.label, c.rank, c.ranks, c.bytes};
    bench_emit(&r, metric, v, n, unit);
}

/* --coll 1: the machine's floor for an agreement at this size */
static void emit_coll(void)
{
    if (c.coll) {
        double bare = bench_coll_bare();
        emit("coll_bare", &bare, 1, "s");
    }
}

static void die(const char *what)
{
    fprintf(stderr, "scr-ckpt: rank %d: %s\n", c.rank, what);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/* one checkpoint, Start to Complete; the slowest rank's seconds, and in
 * part[] the slowest rank's time in SCR_Start_output, in routing and
 * writing, and in SCR_Complete_output (taken apart after the fact, so the
 * checkpoint itself runs without extra synchronization), and the shortest
 * time in SCR_Complete_output: the last writer's, who waits for nobody, so
 * the library's own cost without the others' write imbalance */
static double checkpoint(int step, const char *buf, size_t per, double part[4])
{
    char name[64], file[256], path[SCR_MAX_FILENAME];
    snprintf(name, sizeof(name), "ckpt.%d", step);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    if (SCR_Start_output(name, SCR_FLAG_CHECKPOINT) != SCR_SUCCESS)
        die("SCR_Start_output failed");
    double t1 = bench_now();
    int valid = 1;
    for (int f = 0; f < c.files; f++) {
        snprintf(file, sizeof(file), "ckpt/rank_%d_f%d.dat", c.rank, f);
        if (SCR_Route_file(file, path) != SCR_SUCCESS)
            die("SCR_Route_file failed");
        FILE *fp = fopen(path, "w");
        if (!fp || fwrite(buf, 1, per, fp) != per || fclose(fp) != 0)
            valid = 0;
    }
    double t2 = bench_now();
    if (SCR_Complete_output(valid) != SCR_SUCCESS)
        die("SCR_Complete_output failed");
    double t3 = bench_now(), mine[3] = {t1 - t0, t2 - t1, t3 - t2};
    MPI_Allreduce(mine, part, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&mine[2], &part[3], 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    return bench_slowest(t3 - t0);
}

static void parse(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--bytes"))
            c.bytes = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--files"))
            c.files = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            c.reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--json"))
            c.json = argv[i + 1];
        else if (!strcmp(argv[i], "--impl"))
            c.impl = argv[i + 1];
        else if (!strcmp(argv[i], "--scheme"))
            c.scheme = argv[i + 1];
        else if (!strcmp(argv[i], "--label"))
            c.label = argv[i + 1];
        else if (!strcmp(argv[i], "--threads"))
            c.threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--compute-ms"))
            c.compute_ms = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sleep"))
            c.sleep = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--restart"))
            c.restart = argv[i + 1];
        else if (!strcmp(argv[i], "--coll"))
            c.coll = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--mem-sample"))
            c.mem_sample = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--bare-flush"))
            c.bare_flush = atoi(argv[i + 1]);
        else
            die(argv[i]);
    }
    if (c.reps < 1 || c.reps > MAXREPS || c.files < 1 || c.bytes < c.files)
        die("bad --reps, --files or --bytes");
}

/* rank 0: the value of key (" secs=", " cpu=") in every ok event of one
 * kind (REDUNDANCY_END, FLUSH_END) in our event log (LLNL SCR's has none
 * of them) */
static int bg_values(const char *event, const char *key, double *v, int max)
{
    FILE *fp = fopen(".scr/log", "r");
    char line[2048];
    int n = 0;
    while (fp && n < max && fgets(line, sizeof(line), fp)) {
        const char *s = strstr(line, key);
        const char *e = strstr(line, "event=");
        size_t len = strlen(event);
        if (e && !strncmp(e + 6, event, len) && e[6 + len] == ' ' && s &&
            strstr(line, " ok=1"))
            v[n++] = atof(s + strlen(key));
    }
    if (fp)
        fclose(fp);
    return n;
}

/* the application's work: a loop of n steps the compiler cannot drop */
static double spin(long n)
{
    volatile double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

/* loop steps in one millisecond of one CPU, measured once over 50 ms */
static double spin_per_ms(void)
{
    static double rate;
    long n = 0, chunk = 100000;
    if (rate > 0)
        return rate;
    double t0 = bench_thread_cpu(), t;
    while ((t = bench_thread_cpu() - t0) < 0.05) {
        spin(chunk);
        n += chunk;
    }
    rate = (double)n / (t * 1e3);
    return rate;
}

/* a time step: ms milliseconds of one CPU's work (--sleep: asleep) */
static void compute(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    if (ms > 0 && c.sleep)
        nanosleep(&ts, NULL);
    else if (ms > 0)
        spin((long)(spin_per_ms() * ms));
}

/* --mem-sample MS: the peak of the process's anonymous memory, read from
 * /proc/self/statm every MS milliseconds by a thread.  VmHWM also counts
 * the pages of files the process maps, and a library that moves pieces
 * through mappings of its cached files (ours) touches pages that are in
 * the node's memory anyway: resident less shared is what it takes from
 * the application (buffers, metadata, MPI's own).  A sampler can miss a
 * peak shorter than MS; the buffers of a transfer live for all of it. */
static struct {
    pthread_t thread;
    pthread_mutex_t lock;
    int fd, on, stop;
    long peak; /* pages */
} smp = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static long anon_pages(int fd)
{
    char line[256];
    long size, resident, shared;
    ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
    if (n <= 0)
        return 0;
    line[n] = '\0';
    if (sscanf(line, "%ld %ld %ld", &size, &resident, &shared) != 3)
        return 0;
    return resident - shared;
}

static void *sample_loop(void *arg)
{
    struct timespec ts = {c.mem_sample / 1000, (long)(c.mem_sample % 1000) * 1000000};
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&smp.lock);
        if (smp.stop) {
            pthread_mutex_unlock(&smp.lock);
            return NULL;
        }
        long a = smp.on ? anon_pages(smp.fd) : 0;
        if (a > smp.peak)
            smp.peak = a;
        pthread_mutex_unlock(&smp.lock);
        nanosleep(&ts, NULL);
    }
}

/* start sampling; the baseline is the anonymous memory now */
static long sample_start(void)
{
    if (c.mem_sample <= 0)
        return 0;
    if ((smp.fd = open("/proc/self/statm", O_RDONLY)) < 0)
        die("open /proc/self/statm");
    smp.on = 1;
    if (pthread_create(&smp.thread, NULL, sample_loop, NULL) != 0)
        die("pthread_create");
    return anon_pages(smp.fd);
}

/* sampling off (1) or on again (0), around work that is not the library's */
static void sample_pause(int off)
{
    if (c.mem_sample <= 0)
        return;
    pthread_mutex_lock(&smp.lock);
    smp.on = !off;
    pthread_mutex_unlock(&smp.lock);
}

/* stop; the peak's growth over base, in MiB */
static double sample_stop(long base)
{
    if (c.mem_sample <= 0)
        return 0;
    long last = anon_pages(smp.fd);
    pthread_mutex_lock(&smp.lock);
    smp.stop = 1;
    pthread_mutex_unlock(&smp.lock);
    pthread_join(smp.thread, NULL);
    close(smp.fd);
    long peak = smp.peak > last ? smp.peak : last;
    return (double)(peak - base) * (double)sysconf(_SC_PAGESIZE) / (1 << 20);
}

/* peak resident memory of this process so far (VmHWM), in MiB */
static double peak_mib(void)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;
    while (fp && fgets(line, sizeof(line), fp))
        if (sscanf(line, "VmHWM: %lf kB", &kb) == 1)
            break;
    if (fp)
        fclose(fp);
    return kb / 1024;
}

/* start the peak again from the current size (VmHWM := VmRSS); 0, or -1
 * when the kernel cannot */
static int peak_reset(void)
{
    FILE *fp = fopen("/proc/self/clear_refs", "w");
    int ok = fp && fputs("5", fp) >= 0;
    if (fp && fclose(fp) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* the bare work's input (bare.h): all of a rank's bytes as one file, the
 * files one after the other as a scheme reads them; NULL when the scheme
 * has no such measure, there is no cache base to put its files in, the
 * redundancy runs in the compute step (--threads 1: asynchronous, which
 * the bare work would compete with), or the peak memory cannot be started
 * again after the bare work's mappings (they are not the library's; every
 * rank must agree) */
/* the scheme's bare work: 'S' (bare_single), 'P' (bare_partner), 'X'
 * (bare_xor), or 0 for none */
static int bare_kind(void)
{
    if (!strcmp(c.scheme, "SINGLE"))
        return 'S';
    if (!strcmp(c.scheme, "PARTNER"))
        return 'P';
    return strncmp(c.scheme, "XOR", 3) ? 0 : 'X';
}

static char *bare_input(const char *buf, size_t per)
{
    int can = getenv("SCR_CACHE_BASE") && bare_kind() && !c.threads && peak_reset() == 0,
        every;
    MPI_Allreduce(&can, &every, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!every)
        return NULL;
    char *all = malloc(per);
    if (!all)
        die("out of memory");
    for (size_t off = 0; off < per; off += per / (size_t)c.files)
        memcpy(all + off, buf, per / (size_t)c.files);
    return all;
}

/* compute(ms), its wall time added to *secs: what work the library leaves
 * running behind a checkpoint (a flush, an encode) costs the application */
static void compute_timed(int ms, double *secs)
{
    double t0 = bench_now();
    compute(ms);
    *secs += bench_now() - t0;
}

/* repetition i's compute step, its wall time in *comp; with all, the
 * scheme's bare work halfway through it, timed into *bare (not *comp), and
 * left out of the peak memory: *peak takes the peak before it, which starts
 * again after it */
static void compute_step(int i, const char *all, size_t per, double *comp, double *bare,
                         double *peak)
{
    *comp = 0;
    if (!all) {
        compute_timed(c.compute_ms, comp);
        return;
    }
    const char *dir = getenv("SCR_CACHE_BASE");
    int last = i + 1 == c.reps;
    compute_timed(c.compute_ms / 2, comp);
    double p = peak_mib();
    *peak = p > *peak ? p : *peak;
    sample_pause(1);
    switch (bare_kind()) {
    case 'S':
        *bare = bare_single(dir, all, per);
        break;
    case 'P':
        *bare = bare_partner(dir, all, per, last);
        break;
    default:
        *bare = bare_xor(dir, all, per, last);
    }
    peak_reset();
    sample_pause(0);
    compute_timed(c.compute_ms - c.compute_ms / 2, comp);
}

/* the fetch's baseline: this rank's files copied from the prefix (where
 * both libraries place them) into the cache's base by cp + fsync, slowest
 * rank, after the restart is over, from a cold page cache as the fetch.
 * pause: seconds between the eviction and the copy (0: none).  The fetch
 * starts a launch after bench/run's eviction, and on a virtual machine
 * that hands freed memory back to its host (free page reporting) the
 * same 512 MiB read at once took 0.26-0.30 s, and 3 s later 0.40-0.56 s
 * (bench/README.md): a cp at once is not the fetch's conditions. */
static double restart_cp_baseline(double pause)
{
    const char *base = getenv("SCR_CACHE_BASE");
    char src[64], dst[4200];
    /* the fetch read them from a cold page cache (bench/run evicts the
     * prefix's files before it): so does cp */
    for (int f = 0; f < c.files; f++) {
        snprintf(src, sizeof(src), "ckpt/rank_%d_f%d.dat", c.rank, f);
        bench_evict(src);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (pause > 0) {
        struct timespec ts = {(time_t)pause, (long)((pause - (time_t)pause) * 1e9)};
        nanosleep(&ts, NULL);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    double t0 = bench_now();
    for (int f = 0; f < c.files; f++) {
        snprintf(src, sizeof(src), "ckpt/rank_%d_f%d.dat", c.rank, f);
        snprintf(dst, sizeof(dst), "%s/bench-cp.%d.%d", base ? base : "/dev/shm", c.rank,
                 f);
        bench_cp_fsync(c.rank, src, dst);
        unlink(dst);
    }
    return bench_slowest(bench_now() - t0);
}

/* the wall clock now (the epoch, as bench/run's date +%s.%N) */
static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* seconds from bench/run's eviction of the prefix (BENCH_EVICTED_AT, the
 * epoch) to started, rank 0's, the same on every rank; 0 when not known.
 * Collective: called after the restart, out of its clock. */
static double restart_pause(double started)
{
    const char *at = getenv("BENCH_EVICTED_AT");
    double p = 0;
    if (c.rank == 0 && at) {
        p = started - strtod(at, NULL);
        if (p < 0 || p > 60)
            p = 0;
    }
    MPI_Bcast(&p, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return p;
}

/* --restart KIND: restart from the newest checkpoint as an application
 * would (SCR_Have_restart, SCR_Start_restart, every file read whole
 * through SCR_Route_file, SCR_Complete_restart); nothing is checkpointed.
 * Emits, slowest rank: restart_KIND_s, from before MPI_Init to the end of
 * SCR_Complete_restart; _init_s, SCR_Init's share; _scr_s, the time in
 * SCR's calls (the rest is MPI's start and the application's reads, the
 * same for any library; a barrier, outside the clock, lines the ranks up
 * after SCR_Init and before SCR_Complete_restart, so a rank's wait for the
 * slowest one's SCR_Init or reads is not counted as the library's; an
 * MPI_Barrier before SCR_Init, as in test_api and the checkpoint runs,
 * gives the first-contact cost of MPI's connections, 20-30 ms here, to MPI
 * rather than to the first collective of either library); and
 * for fetch its cp baseline after the restart, twice (restart_fetch_cp_s,
 * restart_fetch_cp2_s), and with BENCH_EVICTED_AT once more, as long after
 * its eviction as the fetch was (restart_fetch_cp_paused_s, that pause
 * restart_fetch_pause_s); for a
 * rebuild with BENCH_SPARE (the spare's host) and BENCH_LOST_BYTES (what the
 * lost node held per rank), the rebuild's floor after it
 * (restart_rebuild_arrive_s, bare_arrive), for XOR also the chain of XORs
 * that brings those bytes there (restart_rebuild_bare_s, bare_xor_rebuild) */
static int restart_run(char *buf, size_t per, double t_mpi)
{
    char name[SCR_MAX_FILENAME], file[64], path[SCR_MAX_FILENAME], metric[64];
    int have = 0, valid = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    double started = wall_now(), t0 = bench_now();
    if (SCR_Init() != SCR_SUCCESS)
        die("SCR_Init failed");
    double in_scr = bench_now() - t0, init = bench_slowest(in_scr);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = bench_now();
    if (SCR_Have_restart(&have, name) != SCR_SUCCESS || !have ||
        SCR_Start_restart(name) != SCR_SUCCESS)
        die("no checkpoint to restart from");
    in_scr += bench_now() - t0;
    for (int f = 0; f < c.files && valid; f++) {
        snprintf(file, sizeof(file), "ckpt/rank_%d_f%d.dat", c.rank, f);
        t0 = bench_now();
        int routed = SCR_Route_file(file, path) == SCR_SUCCESS;
        in_scr += bench_now() - t0;
        int fd = routed ? open(path, O_RDONLY) : -1;
        size_t got = 0;
        ssize_t n = 1;
        while (fd >= 0 && got < per && (n = read(fd, buf + got, per - got)) > 0)
            got += (size_t)n;
        valid = fd >= 0 && got == per && read(fd, buf, 1) == 0;
        if (fd >= 0)
            close(fd);
    }
    /* the slowest reader is the application's: the clock in
     * SCR_Complete_restart starts when every rank has read */
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = bench_now();
    if (SCR_Complete_restart(valid) != SCR_SUCCESS)
        die("SCR_Complete_restart failed");
    in_scr += bench_now() - t0;
    double secs = bench_slowest(bench_now() - t_mpi), scr = bench_slowest(in_scr);
    snprintf(metric, sizeof(metric), "restart_%s_s", c.restart);
    emit(metric, &secs, 1, "s");
    snprintf(metric, sizeof(metric), "restart_%s_init_s", c.restart);
    emit(metric, &init, 1, "s");
    snprintf(metric, sizeof(metric), "restart_%s_scr_s", c.restart);
    emit(metric, &scr, 1, "s");
    if (strcmp(c.restart, "fetch") == 0) {
        /* twice: the same cold copy's spread is what a fetch over cp can
         * resolve on a disk-bound prefix */
        double cp = restart_cp_baseline(0), cp2 = restart_cp_baseline(0),
               pause = restart_pause(started);
        emit("restart_fetch_cp_s", &cp, 1, "s");
        emit("restart_fetch_cp2_s", &cp2, 1, "s");
        if (pause > 0) {
            double cpp = restart_cp_baseline(pause);
            emit("restart_fetch_pause_s", &pause, 1, "s");
            emit("restart_fetch_cp_paused_s", &cpp, 1, "s");
        }
    }
    const char *spare = getenv("BENCH_SPARE"), *lost = getenv("BENCH_LOST_BYTES"),
               *base = getenv("SCR_CACHE_BASE");
    if (!base)
        base = "/dev/shm";
    if (strcmp(c.restart, "rebuild") == 0 && spare && lost) {
        double a = bare_arrive(base, buf, per, (size_t)strtoull(lost, NULL, 10), spare);
        emit("restart_rebuild_arrive_s", &a, 1, "s");
        if (bare_kind() == 'X') {
            double x = bare_xor_rebuild(base, buf, per, spare);
            emit("restart_rebuild_bare_s", &x, 1, "s");
        }
    }
    SCR_Finalize();
    emit_coll();
    free(buf);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    double t_mpi = bench_now();
    int provided;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--threads") && atoi(argv[i + 1]))
            MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int up;
    MPI_Initialized(&up);
    if (!up)
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.ranks);
    parse(argc, argv);
    size_t per = (size_t)(c.bytes / c.files);
    char *buf = malloc(per);
    if (!buf)
        die("out of memory");
    if (c.restart) /* nothing to write: the restart's clock runs */
        return restart_run(buf, per, t_mpi);
    for (size_t i = 0; i < per; i++)
        buf[i] = (char)(i * 7 + (size_t)c.rank);
    char *all = bare_input(buf, per * (size_t)c.files);
    int single = bare_kind() == 'S';
    MPI_Barrier(MPI_COMM_WORLD);
    /* the application's own data is resident: what the peak gains from
     * here on is the library's (and MPI's) extra memory for checkpoints */
    double peak0 = peak_mib(), peak = peak0;
    long anon0 = sample_start();
    bare_flush_t bf;
    if (c.bare_flush)
        bare_flush_setup(&bf, getenv("SCR_CACHE_BASE") ?: "/dev/shm", c.rank, buf,
                         per * (size_t)c.files);
    double t0 = bench_now();
    if (SCR_Init() != SCR_SUCCESS)
        die("SCR_Init failed");
    double init = bench_slowest(bench_now() - t0), secs[MAXREPS], bw[MAXREPS],
           part[4][MAXREPS], bare[MAXREPS], over[MAXREPS], comp[MAXREPS], bfs[MAXREPS],
           bfc[MAXREPS];
    for (int i = 0; i < c.reps; i++) {
        double p[4];
        secs[i] = checkpoint(i + 1, buf, per, p);
        bw[i] = (double)c.bytes * c.ranks / secs[i] / 1e9;
        for (int k = 0; k < 4; k++)
            part[k][i] = p[k];
        if (c.bare_flush)
            bare_flush_start(&bf);
        compute_step(i, all, per * (size_t)c.files, &comp[i], &bare[i], &peak);
        if (c.bare_flush) {
            bfs[i] = bench_slowest(bare_flush_wait(&bf));
            bfc[i] = bf.cpu;
        }
        if (all)
            over[i] = (single ? secs[i] : p[3]) / bare[i];
    }
    if (c.bare_flush)
        bare_flush_done(&bf);
    int bared = all != NULL;
    free(all);
    double now = peak_mib(), extra = (now > peak ? now : peak) - peak0, most;
    MPI_Allreduce(&extra, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double anon = sample_stop(anon0), anon_most;
    MPI_Allreduce(&anon, &anon_most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t0 = bench_now();
    SCR_Finalize();
    double fin = bench_slowest(bench_now() - t0), net[MAXREPS];
    for (int i = 0; i < c.reps; i++)
        net[i] = bench_net_sendrecv(buf, per, c.files);
    emit_coll();
    emit("ckpt_whole", secs, c.reps, "s");
    emit("ckpt_bw", bw, c.reps, "GB/s");
    emit("start_output", part[0], c.reps, "s");
    emit("route_and_write", part[1], c.reps, "s");
    emit("complete_output", part[2], c.reps, "s");
    emit("complete_last_writer", part[3], c.reps, "s");
    emit("init", &init, 1, "s");
    emit("finalize", &fin, 1, "s");
    emit("extra_mem_per_rank", &most, 1, "MiB");
    if (c.mem_sample > 0)
        emit("extra_anon_per_rank", &anon_most, 1, "MiB");
    emit("net_sendrecv", net, c.reps, "s");
    if (bared) {
        emit("bare_scheme", bare, c.reps, "s");
        emit(single ? "whole_over_bare" : "complete_over_bare", over, c.reps, "x");
    }
    if (c.compute_ms > 0) { /* the slowest rank's, step by step */
        MPI_Allreduce(MPI_IN_PLACE, comp, c.reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        emit("compute_s", comp, c.reps, "s");
    }
    if (c.bare_flush) {
        emit("bare_flush_s", bfs, c.reps, "s");
        MPI_Allreduce(MPI_IN_PLACE, bfc, c.reps, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        emit("bare_flush_cpu_s", bfc, c.reps, "s");
    }
    double bg[MAXREPS];
    int nbg = c.rank == 0 ? bg_values("REDUNDANCY_END", " secs=", bg, MAXREPS) : 0;
    if (nbg > 0)
        emit("redundancy_bg", bg, nbg, "s");
    nbg = c.rank == 0 ? bg_values("FLUSH_END", " secs=", bg, MAXREPS) : 0;
    if (nbg > 0)
        emit("flush_s", bg, nbg, "s");
    nbg = c.rank == 0 ? bg_values("FLUSH_END", " cpu=", bg, MAXREPS) : 0;
    if (nbg > 0) /* every process's, summed */
        emit("flush_cpu_s", bg, nbg, "s");
    free(buf);
    MPI_Finalize();
    return 0;
}
