/* SPDX-License-Identifier: BSD-3-Clause */
/* progress.h - progress lines for operations that move many bytes: a
 * foreground flush, a scavenge, a rebuild at the prefix.
 *
 * The loop that moves the bytes reports after each block (never per byte);
 * a line is printed only once the interval has passed since the previous
 * one, so a report costs one clock read, a fast operation prints nothing,
 * and a slow one prints one line per interval and a last line when done:
 *
 *   flush of dataset 4 (rank 0): 512.0 MiB of 2.0 GiB (25%), 1.2 GB/s
 *   flush of dataset 4 (rank 0): 2.0 GiB in 1.7 s, 1.2 GB/s
 *
 * Reporting is off in a process until progress_enable() turns it on: the
 * library does on rank 0 with SCR_DEBUG>=1, the scr command when its stderr
 * is a terminal or SCR_DEBUG>=1 (SCR_PROGRESS_SECONDS sets the interval).
 * The setting is process-wide, so code deep in a copy needs no plumbing;
 * each operation keeps its own progress_t, so threads do not share state.
 */
#ifndef SCR_PROGRESS_H
#define SCR_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/* receives each finished line (default: log_msg) */
typedef void (*progress_sink_fn)(const char *line, void *arg);

typedef struct {
    char what[160]; /* "flush of dataset 4 (rank 0)" */
    uint64_t total; /* bytes expected, 0 if unknown */
    uint64_t done;
    double t0;   /* when it began (scr_now) */
    double next; /* no line before this time */
    int active;  /* reporting was on when it began */
    int lines;   /* lines printed so far */
} progress_t;

/* Report every interval seconds from now on; interval <= 0 turns reporting
 * off.  sink NULL: lines go to log_msg.  Call before any operation begins
 * (not thread-safe against running ones). */
void progress_enable(double interval, progress_sink_fn sink, void *arg);
/* the interval in force, 0 when off */
double progress_interval(void);
/* Read SCR_PROGRESS_SECONDS (a number of seconds, default 1) from str;
 * NULL or empty gives the default.  Returns -1 for a malformed value. */
int progress_parse_interval(const char *str, double *interval);

/* Start an operation of total bytes (0: unknown) named by fmt. */
void progress_begin(progress_t *p, uint64_t total, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* done bytes so far (absolute, not an increment); prints when due */
void progress_set(progress_t *p, uint64_t done);
/* the operation ended: a last line, only if a progress line was printed */
void progress_end(progress_t *p);

/* the same with the clock given, for tests */
void progress_begin_at(progress_t *p, double now, uint64_t total, const char *what);
void progress_set_at(progress_t *p, uint64_t done, double now);
void progress_end_at(progress_t *p, double now);

/* the line for p at time now (its what, bytes, percent, rate) */
void progress_format(const progress_t *p, double now, int last, char *buf, size_t len);

#endif
