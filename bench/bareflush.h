/* SPDX-License-Identifier: BSD-3-Clause */
/* bareflush.h - what a background flush must do, with no library around
 * it: the floor of a flush's cost to the application's compute step.
 *
 * On a node whose every core runs a rank, work behind the application
 * takes CPU from it: a flush cannot cost the compute step less than the
 * CPU its copy needs.  bare_flush_start starts a thread that does only
 * what any flush that checks its data must: read the rank's checkpoint
 * from cache in 1 MiB blocks, take their CRC32 (ISA-L's, when built with
 * BENCH_HAVE_ISAL; without, no CRC at all, a lower floor), and write them
 * to the prefix the cheapest way measured here, O_DIRECT (no copy into the
 * page cache), then fsync.  scr-ckpt --bare-flush runs one over each
 * compute step, started when the step starts (as a flush starts when the
 * checkpoint completes) and joined after the step is timed.
 *
 * The source is written once, untimed (bare_flush_setup), to
 * <cache>/bare.<rank>.fsrc; the copy goes to ./bare.<rank>.flush, in the
 * directory the launch runs in (the prefix, as bench/run starts it). */
#ifndef SCR_BENCH_BAREFLUSH_H
#define SCR_BENCH_BAREFLUSH_H

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef BENCH_HAVE_ISAL
#include <isa-l/crc.h>
#endif

#include "benchutil.h"

#define BARE_FLUSH_BLOCK (1 << 20)

typedef struct {
    char src[512], dst[512];
    pthread_t thread;
    int running;
    double secs;  /* the last copy's */
    double cpu;   /* its thread's CPU seconds */
    uint32_t crc; /* kept, so the CRC is not optimized away */
} bare_flush_t;

static inline void bare_flush_die(const char *what, const char *path)
{
    fprintf(stderr, "scr-ckpt: bare flush: %s %s failed\n", what, path);
    exit(1);
}

/* the source file of len bytes from buf (untimed) */
static inline void bare_flush_setup(bare_flush_t *f, const char *cache, int rank,
                                    const char *buf, size_t len)
{
    snprintf(f->src, sizeof(f->src), "%s/bare.%d.fsrc", cache, rank);
    snprintf(f->dst, sizeof(f->dst), "bare.%d.flush", rank);
    f->running = 0;
    FILE *fp = fopen(f->src, "w");
    if (!fp || fwrite(buf, 1, len, fp) != len || fclose(fp) != 0)
        bare_flush_die("write", f->src);
}

static inline void *bare_flush_run(void *arg)
{
    bare_flush_t *f = arg;
    double t0 = bench_now(), c0 = bench_thread_cpu();
    unsigned char *b = aligned_alloc(4096, BARE_FLUSH_BLOCK);
    int in = open(f->src, O_RDONLY);
    int out = open(f->dst, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0600);
    if (out < 0) /* a file system without O_DIRECT: through its cache */
        out = open(f->dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (!b || in < 0 || out < 0)
        bare_flush_die("open", f->dst);
    uint32_t crc = 0;
    ssize_t n;
    off_t at = 0;
    while ((n = pread(in, b, BARE_FLUSH_BLOCK, at)) > 0) {
#ifdef BENCH_HAVE_ISAL
        crc = crc32_gzip_refl(crc, b, (uint64_t)n);
#endif
        if (n % 4096) /* the short last block */
            (void)!fcntl(out, F_SETFL, fcntl(out, F_GETFL) & ~O_DIRECT);
        if (pwrite(out, b, (size_t)n, at) != n)
            bare_flush_die("write", f->dst);
        at += n;
    }
    if (n < 0 || fsync(out) < 0)
        bare_flush_die("copy", f->dst);
    close(in);
    close(out);
    free(b);
    f->crc ^= crc;
    f->secs = bench_now() - t0;
    f->cpu = bench_thread_cpu() - c0;
    return NULL;
}

static inline void bare_flush_start(bare_flush_t *f)
{
    if (pthread_create(&f->thread, NULL, bare_flush_run, f) != 0)
        bare_flush_die("start", f->dst);
    f->running = 1;
}

/* the copy's seconds, after it ended */
static inline double bare_flush_wait(bare_flush_t *f)
{
    if (f->running)
        pthread_join(f->thread, NULL);
    f->running = 0;
    return f->secs;
}

static inline void bare_flush_done(bare_flush_t *f)
{
    unlink(f->src);
    unlink(f->dst);
}

#endif
