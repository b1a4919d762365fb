/* SPDX-License-Identifier: BSD-3-Clause */
/* scr_example.c - an MPI application that checkpoints through SCR the way
 * SCR applications do, and checks every byte when it restarts.
 *
 * Each rank writes --files files per checkpoint under ckpt/ in the prefix
 * (default: the current directory).  Sizes vary by rank and file, from 0
 * bytes up to --size, and every fourth rank writes no files at all.  The
 * content is a function of (rank, file, step), so a restart can verify it.
 *
 *   --steps N          run to step N (default 10)
 *   --every K          checkpoint every K steps (default 2)
 *   --files F          files per rank (default 2)
 *   --size BYTES       largest file (default 1 MiB)
 *   --die-in-ckpt S    at step S, every rank dies (SIGKILL) halfway through
 *                      writing its checkpoint
 *   --die-after-ckpt S right after checkpoint S completes, every rank dies
 *   --one-dies-after S right after checkpoint S completes, rank 1 alone dies
 *                      and the others go on (they wait on it in the next
 *                      checkpoint until the launcher ends the run)
 *   --touch-after-ckpt S  right after checkpoint S completes, rank 2 appends
 *                      a byte to its file 1 (an application bug SCR reports)
 *   --expect-restart S fail unless the run restarts from step S (0: none)
 *   --sleep-ms MS      compute time per step (default 0)
 *   --ckpt-dirs 1      write checkpoint N's files under ckpt.<step>/ instead of
 *                      reusing the names under ckpt/ (on the prefix every
 *                      flushed checkpoint then keeps its own files)
 *   --output 1         at the end, write an output dataset "final" with
 *                      out/rank_<r>.txt (flushed to the prefix)
 *   --tolerate 1       a failed write (full cache) marks the checkpoint
 *                      invalid and the run goes on, instead of aborting
 *   --exit-status N    after a normal finish (SCR_Finalize), exit with N
 *   --threads 1        MPI_Init_thread(MPI_THREAD_MULTIPLE), as
 *                      SCR_REDUNDANCY_ASYNC=1 needs
 *   --wait-file PATH   after SCR_Init and the restart, wait (at most 120 s)
 *                      until PATH exists: a test starts two jobs together
 *
 * After each checkpoint it asks SCR_Should_exit and stops early when told.
 * Exits 0 when it reached --steps with every check passed.
 */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "scr.h"

static struct {
    int rank, ranks, steps, every, files, die_in, die_after, one_dies, touch_after,
        expect, sleep_ms, output, tolerate, exit_status, ckpt_dirs;
    char touch[SCR_MAX_FILENAME];
    char wait[SCR_MAX_FILENAME];
    long size;
} app = {.steps = 10,
         .every = 2,
         .files = 2,
         .die_in = -1,
         .die_after = -1,
         .one_dies = -1,
         .touch_after = -1,
         .expect = -1,
         .size = 1 << 20};

static long file_size(int rank, int f)
{
    if (rank % 4 == 3)
        return -1; /* this rank writes no files */
    long sizes[4] = {0, app.size / 3 + 1, app.size, app.size / 2 + 17};
    return sizes[(rank + f) % 4];
}

static unsigned char byte_at(int rank, int f, int step, long i)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ ((uint64_t)rank << 40) ^
                 ((uint64_t)f << 32) ^ (uint64_t)step;
    x ^= x >> 29;
    return (unsigned char)(x * 0xBF58476D1CE4E5B9ull >> 56);
}

static void fail(const char *what, const char *path)
{
    fprintf(stderr, "scr_example: rank %d: %s %s\n", app.rank, what, path);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void file_name(int f, int step, char *buf, size_t len)
{
    if (app.ckpt_dirs)
        snprintf(buf, len, "ckpt.%d/rank_%d_f%d.dat", step, app.rank, f);
    else
        snprintf(buf, len, "ckpt/rank_%d_f%d.dat", app.rank, f);
}

/* returns 0, or -1 when --tolerate and the write failed */
static int write_file(int f, int step)
{
    char name[256], path[SCR_MAX_FILENAME];
    file_name(f, step, name, sizeof(name));
    if (SCR_Route_file(name, path) != SCR_SUCCESS)
        fail("cannot route", name);
    FILE *fp = fopen(path, "wb");
    int ok = fp != NULL;
    long n = file_size(app.rank, f);
    unsigned char buf[65536];
    for (long off = 0; ok && off < n; off += (long)sizeof(buf)) {
        long m = n - off < (long)sizeof(buf) ? n - off : (long)sizeof(buf);
        for (long i = 0; i < m; i++)
            buf[i] = byte_at(app.rank, f, step, off + i);
        ok = fwrite(buf, 1, (size_t)m, fp) == (size_t)m;
    }
    if (fp && fclose(fp) != 0)
        ok = 0;
    if (f == 1)
        snprintf(app.touch, sizeof(app.touch), "%s", path);
    if (!ok && !app.tolerate)
        fail("cannot write", path);
    if (!ok)
        fprintf(stderr, "scr_example: rank %d: writing %s failed\n", app.rank, path);
    return ok ? 0 : -1;
}

/* 1 if the file holds exactly what step wrote */
static int check_file(int f, int step)
{
    char name[256], path[SCR_MAX_FILENAME];
    file_name(f, step, name, sizeof(name));
    if (SCR_Route_file(name, path) != SCR_SUCCESS) {
        fprintf(stderr, "scr_example: rank %d: %s is not in the checkpoint\n", app.rank,
                name);
        return 0;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "scr_example: rank %d: cannot open %s\n", app.rank, path);
        return 0;
    }
    long n = file_size(app.rank, f), i = 0;
    int c, good = 1;
    while (good && (c = fgetc(fp)) != EOF) {
        good = i < n && (unsigned char)c == byte_at(app.rank, f, step, i);
        i++;
    }
    fclose(fp);
    if (!good || i != n)
        fprintf(stderr, "scr_example: rank %d: %s differs from step %d's data\n",
                app.rank, path, step);
    return good && i == n;
}

/* restart from the newest good checkpoint; returns its step or 0 */
static int restart(void)
{
    int flag = 0;
    char name[SCR_MAX_FILENAME];
    while (SCR_Have_restart(&flag, name) == SCR_SUCCESS && flag) {
        int step = 0;
        if (SCR_Start_restart(name) != SCR_SUCCESS || sscanf(name, "step.%d", &step) != 1)
            fail("cannot start restart from", name);
        int valid = 1;
        for (int f = 0; f < app.files && file_size(app.rank, 0) >= 0; f++)
            valid &= check_file(f, step);
        if (SCR_Complete_restart(valid) == SCR_SUCCESS) {
            if (app.rank == 0)
                printf("scr_example: restarted from %s, every byte verified\n", name);
            return step;
        }
        if (app.rank == 0)
            printf("scr_example: restart from %s failed, trying an older one\n", name);
    }
    return 0;
}

static void checkpoint(int step)
{
    char name[64];
    snprintf(name, sizeof(name), "step.%d", step);
    if (SCR_Start_output(name, SCR_FLAG_CHECKPOINT) != SCR_SUCCESS)
        fail("cannot start checkpoint", name);
    int nfiles = file_size(app.rank, 0) < 0 ? 0 : app.files, valid = 1;
    /* rank 0 logs the start after the others may have left SCR_Start_output:
     * nobody dies before it has, so the log always shows what was cut off */
    if (step == app.die_in)
        MPI_Barrier(MPI_COMM_WORLD);
    for (int f = 0; f < nfiles; f++) {
        if (step == app.die_in && f == nfiles / 2)
            raise(SIGKILL);
        if (write_file(f, step) < 0)
            valid = 0;
    }
    if (step == app.die_in) {
        MPI_Barrier(MPI_COMM_WORLD); /* the ranks without files die here */
        raise(SIGKILL);
    }
    if (SCR_Complete_output(valid) != SCR_SUCCESS) {
        if (!app.tolerate)
            fail("checkpoint failed:", name);
        if (app.rank == 0)
            printf("scr_example: checkpoint %s failed, going on\n", name);
        return;
    }
    if (app.rank == 0)
        printf("scr_example: checkpoint %s complete\n", name);
    if (step == app.touch_after && app.rank == 2) {
        FILE *fp = fopen(app.touch, "ab");
        if (!fp || fputc('!', fp) == EOF || fclose(fp) != 0)
            fail("cannot append to", app.touch);
    }
    if (step == app.die_after) {
        MPI_Barrier(MPI_COMM_WORLD);
        raise(SIGKILL);
    }
    if (step == app.one_dies && app.rank == 1)
        raise(SIGKILL);
}

/* an output dataset: goes to the prefix, is never restarted from */
static void write_output(void)
{
    char name[64], path[SCR_MAX_FILENAME];
    if (SCR_Start_output("final", SCR_FLAG_OUTPUT) != SCR_SUCCESS)
        fail("cannot start output", "final");
    snprintf(name, sizeof(name), "out/rank_%d.txt", app.rank);
    if (SCR_Route_file(name, path) != SCR_SUCCESS)
        fail("cannot route", name);
    FILE *fp = fopen(path, "w");
    if (!fp ||
        fprintf(fp, "rank %d of %d finished step %d\n", app.rank, app.ranks, app.steps) <
            0 ||
        fclose(fp) != 0)
        fail("cannot write", path);
    if (SCR_Complete_output(1) != SCR_SUCCESS)
        fail("output failed:", "final");
    if (app.rank == 0)
        printf("scr_example: output final complete\n");
}

static void parse(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        long v = atol(argv[i + 1]);
        if (!strcmp(argv[i], "--steps"))
            app.steps = (int)v;
        else if (!strcmp(argv[i], "--every"))
            app.every = (int)v;
        else if (!strcmp(argv[i], "--files"))
            app.files = (int)v;
        else if (!strcmp(argv[i], "--size"))
            app.size = v;
        else if (!strcmp(argv[i], "--die-in-ckpt"))
            app.die_in = (int)v;
        else if (!strcmp(argv[i], "--die-after-ckpt"))
            app.die_after = (int)v;
        else if (!strcmp(argv[i], "--one-dies-after"))
            app.one_dies = (int)v;
        else if (!strcmp(argv[i], "--touch-after-ckpt"))
            app.touch_after = (int)v;
        else if (!strcmp(argv[i], "--expect-restart"))
            app.expect = (int)v;
        else if (!strcmp(argv[i], "--sleep-ms"))
            app.sleep_ms = (int)v;
        else if (!strcmp(argv[i], "--output"))
            app.output = (int)v;
        else if (!strcmp(argv[i], "--ckpt-dirs"))
            app.ckpt_dirs = (int)v;
        else if (!strcmp(argv[i], "--tolerate"))
            app.tolerate = (int)v;
        else if (!strcmp(argv[i], "--exit-status"))
            app.exit_status = (int)v;
        else if (!strcmp(argv[i], "--wait-file"))
            snprintf(app.wait, sizeof(app.wait), "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--threads"))
            continue; /* read before MPI_Init */
        else
            fail("unknown option", argv[i]);
    }
}

/* rank 0 waits for the file, the others for rank 0 */
static void wait_file(void)
{
    struct timespec ts = {0, 100 * 1000000};
    int i = 0;
    while (app.rank == 0 && access(app.wait, F_OK) != 0 && i++ < 1200)
        nanosleep(&ts, NULL);
    if (app.rank == 0 && access(app.wait, F_OK) != 0)
        fail("waited 120 s for", app.wait);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows up as it happens */
    /* --threads 1: MPI_THREAD_MULTIPLE, which SCR_REDUNDANCY_ASYNC=1 needs */
    int threads = 0, provided;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
    if (threads)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &app.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &app.ranks);
    parse(argc, argv);
    if (SCR_Init() != SCR_SUCCESS)
        fail("SCR_Init failed", "");
    int start = restart();
    if (app.expect >= 0 && start != app.expect) {
        char msg[64];
        snprintf(msg, sizeof(msg), "%d, expected %d", start, app.expect);
        fail("restarted from step", msg);
    }
    if (app.rank == 0 && start == 0)
        printf("scr_example: starting from the beginning\n");
    if (app.wait[0])
        wait_file();
    int step;
    for (step = start + 1; step <= app.steps; step++) {
        int need = 0, stop = 0;
        if (app.sleep_ms > 0) {
            struct timespec ts = {app.sleep_ms / 1000,
                                  (long)(app.sleep_ms % 1000) * 1000000};
            nanosleep(&ts, NULL);
        }
        if (step % app.every != 0)
            continue;
        if (SCR_Need_checkpoint(&need) == SCR_SUCCESS && need)
            checkpoint(step);
        if (SCR_Should_exit(&stop) == SCR_SUCCESS && stop) {
            if (app.rank == 0)
                printf("scr_example: SCR says stop, halting after step %d\n", step);
            break;
        }
    }
    if (app.output && step > app.steps)
        write_output();
    if (SCR_Finalize() != SCR_SUCCESS)
        fail("SCR_Finalize failed", "");
    if (app.rank == 0 && step > app.steps)
        printf("scr_example: done at step %d\n", app.steps);
    MPI_Finalize();
    return app.exit_status;
}
