/* SPDX-License-Identifier: BSD-3-Clause */
/* benchutil.h - what the bench programs share: a clock, the slowest rank's
 * time, and the JSON line per metric that scr-bench-report merges.  Header
 * only, MPI and libc alone, so scr-ckpt.c still builds against any scr.h
 * (bench/run --against).
 */
#ifndef SCR_BENCHUTIL_H
#define SCR_BENCHUTIL_H

#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the calling thread's CPU time, which a rank sharing its CPU does not see
 * pass while another process runs */
static inline double bench_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the slowest rank's time for a collective step */
static inline double bench_slowest(double t)
{
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* drop path's pages from the page cache (clean pages: a flushed file's),
 * so a copy of it reads the storage, as a restart on other nodes would */
static inline void bench_evict(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return;
    /* dirty pages stay whatever the advice: written back first */
    (void)fdatasync(fd);
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
}

/* cp SRC DST, then fsync DST: the baseline for flush and fetch */
static inline void bench_cp_fsync(int rank, const char *src, const char *dst)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/cp", "cp", src, dst, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    int fd = open(dst, O_RDONLY);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || fd < 0 || fsync(fd) < 0) {
        fprintf(stderr, "bench: rank %d: cp %s %s failed\n", rank, src, dst);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    close(fd);
}

/* The network baseline: files times per bytes from buf to the same rank
 * of the next node, in 16 MiB messages; the slowest rank's seconds.  That
 * is a partner copy's traffic, and no fewer bytes than an XOR encode must
 * send off a node (every byte of a lost node comes back from what left
 * it). */
static inline double bench_net_sendrecv(const char *buf, size_t per, int files)
{
    MPI_Comm node;
    int local, rank, ranks, piece = 16 << 20;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    int to = (rank + local) % ranks, from = (rank - local + ranks) % ranks;
    char *in = malloc((size_t)piece);
    if (!in)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    for (int f = 0; f < files; f++)
        for (size_t off = 0; off < per; off += (size_t)piece) {
            int n = per - off < (size_t)piece ? (int)(per - off) : piece;
            MPI_Sendrecv(buf + off, n, MPI_BYTE, to, 7, in, n, MPI_BYTE, from, 7,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    double t = bench_slowest(bench_now() - t0);
    free(in);
    return t;
}

/* the machine's floor for SCR's agreements at this job's size (bench/
 * scale.sh): one MPI_Barrier and one MPI_Allreduce of an int, the slowest
 * rank's seconds for a pair, median of 15 after 5 to warm up */
static inline double bench_coll_bare(void)
{
    double t[20];
    int one = 1, all;
    for (int i = 0; i < 20; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = bench_now();
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        t[i] = bench_slowest(bench_now() - t0);
    }
    for (int i = 6; i < 20; i++) /* insertion sort of the last 15 */
        for (int k = i; k > 5 && t[k] < t[k - 1]; k--) {
            double x = t[k];
            t[k] = t[k - 1];
            t[k - 1] = x;
        }
    return t[5 + 7];
}

/* what every JSON line of one launch says besides the metric */
typedef struct {
    const char *json, *phase, *scheme, *label;
    int rank, ranks;
    long long bytes;
} bench_run_t;

/* one JSON line per metric with the raw samples (rank 0 only) */
static inline void bench_emit(const bench_run_t *r, const char *metric, const double *v,
                              int n, const char *unit)
{
    if (r->rank != 0 || n <= 0)
        return;
    FILE *fp = fopen(r->json, "a");
    if (!fp)
        return;
    fprintf(fp,
            "{\"phase\":\"%s\",\"scheme\":\"%s\",\"label\":\"%s\",\"ranks\":%d,"
            "\"bytes_per_rank\":%lld,\"metric\":\"%s\",\"unit\":\"%s\",\"samples\":[",
            r->phase, r->scheme, r->label, r->ranks, r->bytes, metric, unit);
    for (int i = 0; i < n; i++)
        fprintf(fp, "%s%.6g", i ? "," : "", v[i]);
    fprintf(fp, "]}\n");
    fclose(fp);
}

#endif
