/* SPDX-License-Identifier: BSD-3-Clause */
/* progress.c - time-throttled progress lines for long byte-moving operations */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "progress.h"
#include "units.h"

static struct {
    double interval; /* 0: off */
    progress_sink_fn sink;
    void *arg;
} progress_cfg;

void progress_enable(double interval, progress_sink_fn sink, void *arg)
{
    progress_cfg.interval = interval > 0 ? interval : 0;
    progress_cfg.sink = sink;
    progress_cfg.arg = arg;
}

double progress_interval(void)
{
    return progress_cfg.interval;
}

int progress_parse_interval(const char *str, double *interval)
{
    double v = 1.0;
    if (str && *str && (units_parse_double(str, &v) < 0 || v < 0))
        return -1;
    *interval = v;
    return 0;
}

/* "1.2 GB/s": rates in powers of 1000, as the flush log prints MB/s */
static void progress_rate(double bps, char *buf, size_t len)
{
    static const char *names[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
    int i = 0;
    while (bps >= 1000.0 && i < 4) {
        bps /= 1000.0;
        i++;
    }
    snprintf(buf, len, "%.1f %s", bps, names[i]);
}

void progress_format(const progress_t *p, double now, int last, char *buf, size_t len)
{
    char done[32], total[32], rate[32];
    double secs = now - p->t0;
    units_format_bytes(p->done, done, sizeof(done));
    progress_rate(secs > 0 ? (double)p->done / secs : 0, rate, sizeof(rate));
    if (last)
        snprintf(buf, len, "%s: %s in %.1f s, %s", p->what, done, secs, rate);
    else if (p->total > 0 && p->done <= p->total) {
        units_format_bytes(p->total, total, sizeof(total));
        snprintf(buf, len, "%s: %s of %s (%d%%), %s", p->what, done, total,
                 (int)((double)p->done * 100.0 / (double)p->total), rate);
    } else
        snprintf(buf, len, "%s: %s, %s", p->what, done, rate);
}

static void progress_print(progress_t *p, double now, int last)
{
    char line[320];
    progress_format(p, now, last, line, sizeof(line));
    if (progress_cfg.sink)
        progress_cfg.sink(line, progress_cfg.arg);
    else
        log_msg("%s", line);
    p->lines++;
}

void progress_begin_at(progress_t *p, double now, uint64_t total, const char *what)
{
    memset(p, 0, sizeof(*p));
    snprintf(p->what, sizeof(p->what), "%s", what);
    p->total = total;
    p->t0 = now;
    p->active = progress_cfg.interval > 0;
    p->next = now + progress_cfg.interval;
}

void progress_begin(progress_t *p, uint64_t total, const char *fmt, ...)
{
    char what[sizeof(p->what)] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    progress_begin_at(p, scr_now(), total, what);
}

void progress_set_at(progress_t *p, uint64_t done, double now)
{
    p->done = done;
    if (!p->active || now < p->next)
        return;
    progress_print(p, now, 0);
    /* the next line one interval after this one, not after the last due
     * time: a stalled copy does not print a burst when it resumes */
    p->next = now + progress_cfg.interval;
}

void progress_set(progress_t *p, uint64_t done)
{
    if (p->active)
        progress_set_at(p, done, scr_now());
    else
        p->done = done;
}

void progress_end_at(progress_t *p, double now)
{
    if (p->active && p->lines > 0)
        progress_print(p, now, 1);
    p->active = 0;
}

void progress_end(progress_t *p)
{
    if (p->active && p->lines > 0)
        progress_end_at(p, scr_now());
    p->active = 0;
}
