/* benchutil.h - what the bench programs share: a clock, the slowest rank's
 * time, and the JSON line per metric that scr-bench-report merges.  Header
 * only, MPI and libc alone, so scr-ckpt.c still builds against any scr.h
 * (bench/run --against).
 */
#ifndef SCR_BENCHUTIL_H
#define SCR_BENCHUTIL_H

#include <mpi.h>
#include <stdio.h>
#include <time.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the slowest rank's time for a collective step */
static inline double bench_slowest(double t)
{
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
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
