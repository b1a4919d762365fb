/* SPDX-License-Identifier: BSD-3-Clause */
/* test_halt.c - halt conditions: time parsing, each condition, the file */
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "halt.h"
#include "tap.h"
#include "testutil.h"

static int parses(const char *s, time_t now, time_t want)
{
    time_t t = 0;
    int r = halt_parse_time(s, now, &t) == 0 && t == want;
    if (!r)
        diag("'%s' -> %lld, want %lld", s, (long long)t, (long long)want);
    return r;
}

static int holds_flags(kvtree_t *t, time_t now, time_t end, long secs, int flags,
                       const char *want)
{
    char reason[64] = "";
    int h = halt_check(t, now, end, secs, flags, reason, sizeof(reason));
    return want ? h && strcmp(reason, want) == 0 : !h;
}

static int holds(kvtree_t *t, time_t now, time_t end, long secs, const char *want)
{
    return holds_flags(t, now, end, secs, 0, want);
}

int main(void)
{
    time_t now = 1800000000;
    ok(parses("now", now, now), "now");
    ok(parses("+90", now, now + 90) && parses("+30m", now, now + 1800) &&
           parses("+2h", now, now + 7200) && parses("+1d", now, now + 86400),
       "relative times");
    ok(parses("1795000000", now, 1795000000) && parses("@1795000000", now, 1795000000),
       "unix seconds");
    struct tm tm = {.tm_year = 126,
                    .tm_mon = 10,
                    .tm_mday = 21,
                    .tm_hour = 18,
                    .tm_min = 30,
                    .tm_isdst = -1};
    time_t t1830 = mktime(&tm);
    ok(parses("2026-11-21 18:30", now, t1830) &&
           parses("2026-11-21T18:30:00", now, t1830),
       "dates with times");
    time_t t;
    ok(halt_parse_time("18:30", t1830 - 60, &t) == 0 && t == t1830,
       "clock time later today");
    ok(halt_parse_time("18:30", t1830 + 60, &t) == 0 && t == t1830 + 86400,
       "clock time already past means tomorrow");
    ok(halt_parse_time("tomorrow", now, &t) < 0 && halt_parse_time("+5x", now, &t) < 0 &&
           halt_parse_time("25:00", now, &t) < 0 && halt_parse_time("", now, &t) < 0 &&
           halt_parse_time("18:30:00x", now, &t) < 0,
       "nonsense rejected");

    kvtree_t *h = kvtree_new();
    ok(holds(h, now, 0, 0, NULL), "no conditions: no halt");
    kvtree_util_set_int(h, "CheckpointsLeft", 1);
    ok(holds(h, now, 0, 0, NULL), "CheckpointsLeft 1: keep going");
    kvtree_util_set_int(h, "CheckpointsLeft", 0);
    ok(holds(h, now, 0, 0, "CHECKPOINTS_LEFT"), "CheckpointsLeft 0: halt");
    kvtree_unset(h, "CheckpointsLeft");
    kvtree_util_set_int(h, "ExitAfter", (int)(now + 10));
    ok(holds(h, now, 0, 0, NULL) && holds(h, now + 10, 0, 0, "EXIT_AFTER"), "ExitAfter");
    kvtree_unset(h, "ExitAfter");
    kvtree_util_set_int(h, "ExitBefore", (int)(now + 100));
    kvtree_util_set_int(h, "HaltSeconds", 30);
    ok(holds(h, now + 69, 0, 0, NULL) && holds(h, now + 70, 0, 0, "EXIT_BEFORE"),
       "ExitBefore minus HaltSeconds");
    kvtree_clear(h);
    ok(holds(h, now, now + 100, 50, NULL) &&
           holds(h, now + 50, now + 100, 50, "TIME_LIMIT"),
       "the job's end time and SCR_HALT_SECONDS");
    kvtree_util_set_str(h, "ExitReason", "SCR_FINALIZE_CALLED");
    ok(holds(h, now, 0, 0, "SCR_FINALIZE_CALLED"), "ExitReason halts at once");
    ok(halt_finished(h), "SCR_FINALIZE_CALLED: a run finished");
    ok(holds_flags(h, now, 0, 0, HALT_IGNORE_FINISHED, NULL),
       "HALT_IGNORE_FINISHED: a finished run does not halt the library");
    kvtree_util_set_int(h, "CheckpointsLeft", 0);
    ok(holds_flags(h, now, 0, 0, HALT_IGNORE_FINISHED, "CHECKPOINTS_LEFT"),
       "HALT_IGNORE_FINISHED: other conditions still hold");
    kvtree_unset(h, "CheckpointsLeft");
    kvtree_util_set_str(h, "ExitReason", "SCR_HALT_IMMEDIATE");
    ok(!halt_finished(h) &&
           holds_flags(h, now, 0, 0, HALT_IGNORE_FINISHED, "SCR_HALT_IMMEDIATE"),
       "HALT_IGNORE_FINISHED: any other ExitReason halts");

    /* fuzz_halt: numbers near the end of a long overflowed the sums (UB) */
    ok(halt_parse_time("+999999999999999d", now, &t) < 0 &&
           halt_parse_time("+9223372036854775807", now, &t) < 0,
       "a relative time past the end of time_t is refused");
    kvtree_t *big = kvtree_new();
    kvtree_util_set_str(big, "HaltSeconds", "9223372036854775807");
    kvtree_util_set_str(big, "ExitBefore", "9223372036854775000");
    ok(holds(big, now, 0, 0, "EXIT_BEFORE"),
       "HaltSeconds near LONG_MAX: ExitBefore holds");
    kvtree_util_set_str(big, "HaltSeconds", "-9223372036854775807");
    ok(holds(big, now, now + 60, 0, NULL) &&
           holds(big, now, 0, 9223372036854775807L, NULL),
       "HaltSeconds near LONG_MIN: nothing holds");
    kvtree_unset(big, "HaltSeconds");
    kvtree_unset(big, "ExitBefore");
    ok(holds(big, 0x7fffffff, 0x7fffffff + 60L, 9223372036854775807L, "TIME_LIMIT"),
       "SCR_HALT_SECONDS near LONG_MAX: the time limit holds");
    kvtree_delete(&big);

    char *dir = tu_tmpdir();
    scr_error_t err;
    ok(halt_set(dir, "CheckpointsLeft", "2", &err) == 0, "set in a new halt file");
    ok(halt_decrement(dir, &err) == 1 && halt_decrement(dir, &err) == 0 &&
           halt_decrement(dir, &err) == 0,
       "decrement stops at 0");
    kvtree_t *r = kvtree_new();
    ok(halt_read(dir, r, &err) == 0 && holds(r, now, 0, 0, "CHECKPOINTS_LEFT"),
       "read back: halts");
    ok(halt_remove(dir, &err) == 0, "remove");
    kvtree_clear(r);
    ok(halt_read(dir, r, &err) == 0 && kvtree_size(r) == 0, "removed: empty");
    char job[64] = "", path[4200], fresh[4200];
    struct stat st;
    snprintf(fresh, sizeof(fresh), "%s/fresh", dir);
    mkdir(fresh, 0700);
    halt_path(fresh, path, sizeof(path));
    ok(halt_clear_finished(fresh, job, sizeof(job), &err) == 0 && stat(path, &st) < 0,
       "clear_finished with no halt file: nothing, and no file made");
    halt_set(dir, "ExitReason", HALT_FINALIZE_CALLED, &err);
    halt_set(dir, "JOBID", "4242", &err);
    halt_set(dir, "CheckpointsLeft", "3", &err);
    kvtree_clear(r);
    ok(halt_clear_finished(dir, job, sizeof(job), &err) == 1 &&
           strcmp(job, "4242") == 0 && halt_read(dir, r, &err) == 0 &&
           !halt_finished(r) && !kvtree_get(r, "JOBID") &&
           kvtree_get(r, "CheckpointsLeft"),
       "clear_finished: the mark and its job go, with the job named; the rest stays");
    ok(halt_clear_finished(dir, job, sizeof(job), &err) == 0, "clear_finished again: 0");
    halt_set(dir, "ExitReason", "SCR_HALT_IMMEDIATE", &err);
    kvtree_clear(r);
    ok(halt_clear_finished(dir, NULL, 0, &err) == 0 && halt_read(dir, r, &err) == 0 &&
           kvtree_get(r, "ExitReason"),
       "clear_finished leaves another ExitReason alone");
    kvtree_delete(&r);
    kvtree_delete(&h);
    tu_rmrf(dir);
    free(dir);
    return done_testing();
}
