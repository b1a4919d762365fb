/* SPDX-License-Identifier: BSD-3-Clause */
/* test_progress.c - progress lines: throttled by time, off by default,
 * percent and rate in the line, a last line only after a progress line */
#include <string.h>
#include <time.h>

#include "progress.h"
#include "tap.h"

static struct {
    int n;
    char last[320];
} got;

static void capture(const char *line, void *arg)
{
    (void)arg;
    got.n++;
    snprintf(got.last, sizeof(got.last), "%s", line);
}

static void reset(void)
{
    memset(&got, 0, sizeof(got));
}

static void test_off(void)
{
    progress_t p;
    reset();
    progress_enable(0, capture, NULL);
    ok(progress_interval() == 0, "off: interval 0");
    progress_begin_at(&p, 10, 100, "copy");
    progress_set_at(&p, 50, 1000);
    progress_end_at(&p, 2000);
    ok(got.n == 0, "off: nothing printed (%d lines)", got.n);
    ok(p.done == 50, "off: the count is still kept");
}

static void test_throttle(void)
{
    progress_t p;
    reset();
    progress_enable(0.25, capture, NULL);
    progress_begin_at(&p, 0, 1600, "copy");
    /* a block every 1/8 s for 2 s: one line per 1/4 s */
    for (int k = 1; k <= 16; k++)
        progress_set_at(&p, (uint64_t)k * 100, k * 0.125);
    ok(got.n == 8, "16 blocks in 2 s at 0.25 s: 8 lines (%d)", got.n);
    ok(strcmp(got.last, "copy: 1.6 KiB of 1.6 KiB (100%), 800.0 B/s") == 0, "line: %s",
       got.last);
    progress_end_at(&p, 2.5);
    ok(got.n == 9, "a last line after progress lines");
    ok(strcmp(got.last, "copy: 1.6 KiB in 2.5 s, 640.0 B/s") == 0, "last: %s", got.last);
}

static void test_fast(void)
{
    progress_t p;
    reset();
    progress_enable(1, capture, NULL);
    progress_begin_at(&p, 5, 1000, "quick");
    progress_set_at(&p, 500, 5.4);
    progress_set_at(&p, 1000, 5.9);
    progress_end_at(&p, 5.95);
    ok(got.n == 0, "an operation shorter than the interval prints nothing (%d)", got.n);
}

static void test_lines(void)
{
    progress_t p;
    char buf[320];
    progress_enable(1, capture, NULL);
    progress_begin_at(&p, 0, 2ULL << 30, "flush of dataset 4 (rank 0)");
    p.done = 512ULL << 20;
    progress_format(&p, 0.5, 0, buf, sizeof(buf));
    ok(strcmp(buf, "flush of dataset 4 (rank 0): 512.0 MiB of 2.0 GiB (25%), 1.1 GB/s") ==
           0,
       "percent and rate: %s", buf);
    progress_begin_at(&p, 0, 0, "scavenge");
    p.done = 3ULL << 20;
    progress_format(&p, 2, 0, buf, sizeof(buf));
    ok(strcmp(buf, "scavenge: 3.0 MiB, 1.6 MB/s") == 0, "unknown total: %s", buf);
    progress_begin_at(&p, 0, 10, "grew");
    p.done = 20;
    progress_format(&p, 1, 0, buf, sizeof(buf));
    ok(strcmp(buf, "grew: 20 B, 20.0 B/s") == 0, "more than the total: no percent: %s",
       buf);
    progress_begin_at(&p, 7, 10, "zero time");
    progress_format(&p, 7, 0, buf, sizeof(buf));
    ok(strcmp(buf, "zero time: 0 B of 10 B (0%), 0.0 B/s") == 0, "no time yet: %s", buf);
}

static void test_parse(void)
{
    double v = -5;
    ok(progress_parse_interval(NULL, &v) == 0 && v == 1.0, "unset: 1 s");
    ok(progress_parse_interval("", &v) == 0 && v == 1.0, "empty: 1 s");
    ok(progress_parse_interval("0.25", &v) == 0 && v == 0.25, "0.25");
    ok(progress_parse_interval("0", &v) == 0 && v == 0, "0: off");
    ok(progress_parse_interval("-1", &v) < 0, "negative rejected");
    ok(progress_parse_interval("1s", &v) < 0, "junk rejected");
}

/* the real clock: a copy slower than the interval prints */
static void test_clock(void)
{
    progress_t p;
    struct timespec nap = {0, 30 * 1000 * 1000};
    reset();
    progress_enable(0.01, capture, NULL);
    progress_begin(&p, 300, "slow %s", "copy");
    for (int i = 1; i <= 3; i++) {
        nanosleep(&nap, NULL);
        progress_set(&p, (uint64_t)i * 100);
    }
    progress_end(&p);
    ok(got.n == 4, "3 blocks 30 ms apart at 10 ms: 3 lines and a last (%d)", got.n);
    ok(strncmp(got.last, "slow copy: 300 B in 0.", 22) == 0, "last: %s", got.last);
    progress_enable(0, NULL, NULL);
}

int main(void)
{
    test_off();
    test_throttle();
    test_fast();
    test_lines();
    test_parse();
    test_clock();
    return done_testing();
}
