/* SPDX-License-Identifier: BSD-3-Clause */
/* halt.c - halt file */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "halt.h"
#include "io.h"
#include "units.h"

void halt_path(const char *prefix, char *buf, size_t len)
{
    snprintf(buf, len, "%s/.scr/halt.scr", prefix);
}

int halt_read(const char *prefix, kvtree_t *t, scr_error_t *err)
{
    char path[4200];
    halt_path(prefix, path, sizeof(path));
    if (kvtree_read_with_lock(path, t, err) < 0 && errno != ENOENT)
        return -1;
    return 0;
}

typedef struct {
    const char *key, *value;
    int decrement;
    int result;
} halt_arg_t;

static int halt_do(kvtree_t *t, void *arg)
{
    halt_arg_t *a = arg;
    int left;
    if (a->decrement) {
        if (kvtree_util_get_int(t, "CheckpointsLeft", &left) < 0)
            return 1; /* no counter: nothing to write */
        a->result = left > 0 ? left - 1 : 0;
        kvtree_util_set_int(t, "CheckpointsLeft", a->result);
    } else if (a->value)
        kvtree_util_set_str(t, a->key, a->value);
    else if (a->key)
        kvtree_unset(t, a->key);
    else
        kvtree_clear(t);
    return 0;
}

static int halt_modify(const char *prefix, halt_arg_t *a, int decrement, scr_error_t *err)
{
    char path[4200];
    halt_path(prefix, path, sizeof(path));
    a->decrement = decrement;
    a->result = -1;
    return kvtree_update_file(path, halt_do, a, 1, err);
}

int halt_set(const char *prefix, const char *key, const char *value, scr_error_t *err)
{
    halt_arg_t a = {key, value, 0, 0};
    return halt_modify(prefix, &a, 0, err);
}

int halt_unset(const char *prefix, const char *key, scr_error_t *err)
{
    halt_arg_t a = {key, NULL, 0, 0};
    return halt_modify(prefix, &a, 0, err);
}

int halt_remove(const char *prefix, scr_error_t *err)
{
    halt_arg_t a = {NULL, NULL, 0, 0};
    return halt_modify(prefix, &a, 0, err);
}

int halt_decrement(const char *prefix, scr_error_t *err)
{
    halt_arg_t a = {NULL, NULL, 1, -1};
    if (halt_modify(prefix, &a, 1, err) < 0)
        return -1;
    return a.result;
}

int halt_finished(const kvtree_t *t)
{
    const char *r = kvtree_get_val(t, "ExitReason");
    return r && strcmp(r, HALT_FINALIZE_CALLED) == 0;
}

typedef struct {
    char *job;
    size_t len;
    int cleared;
} finished_arg_t;

static int halt_do_clear_finished(kvtree_t *t, void *arg)
{
    finished_arg_t *a = arg;
    if (!halt_finished(t))
        return 1; /* cleared by another since the read: nothing to write */
    const char *job = kvtree_get_val(t, "JOBID");
    if (a->len)
        snprintf(a->job, a->len, "%s", job ? job : "?");
    kvtree_unset(t, "ExitReason");
    kvtree_unset(t, "JOBID");
    a->cleared = 1;
    return 0;
}

int halt_clear_finished(const char *prefix, char *job, size_t len, scr_error_t *err)
{
    /* read first: a prefix without the mark gets no halt or lock file */
    kvtree_t *t = kvtree_new();
    int finished = halt_read(prefix, t, NULL) == 0 && halt_finished(t);
    kvtree_delete(&t);
    if (!finished)
        return 0;
    char path[4200];
    finished_arg_t a = {job, len, 0};
    halt_path(prefix, path, sizeof(path));
    if (kvtree_update_file(path, halt_do_clear_finished, &a, 1, err) < 0)
        return -1;
    return a.cleared;
}

/* now + secs >= when; the file's numbers may be anything a long holds */
static int halt_reached(time_t now, long secs, time_t when)
{
    time_t sum;
    if (__builtin_add_overflow(now, secs, &sum))
        return secs > 0;
    return sum >= when;
}

int halt_check(const kvtree_t *t, time_t now, time_t end_time, long halt_seconds,
               int flags, char *reason, size_t len)
{
    const char *r = kvtree_get_val(t, "ExitReason");
    long v, before, secs = halt_seconds;
    if ((flags & HALT_IGNORE_FINISHED) && halt_finished(t))
        r = NULL;
    if (r && *r)
        return snprintf(reason, len, "%s", r), 1;
    if (kvtree_get_val(t, "CheckpointsLeft") &&
        units_parse_long(kvtree_get_val(t, "CheckpointsLeft"), &v) == 0 && v <= 0)
        return snprintf(reason, len, "CHECKPOINTS_LEFT"), 1;
    if (kvtree_get_val(t, "ExitAfter") &&
        units_parse_long(kvtree_get_val(t, "ExitAfter"), &v) == 0 && now >= v)
        return snprintf(reason, len, "EXIT_AFTER"), 1;
    if (kvtree_get_val(t, "HaltSeconds"))
        units_parse_long(kvtree_get_val(t, "HaltSeconds"), &secs);
    if (kvtree_get_val(t, "ExitBefore") &&
        units_parse_long(kvtree_get_val(t, "ExitBefore"), &before) == 0 &&
        halt_reached(now, secs, before))
        return snprintf(reason, len, "EXIT_BEFORE"), 1;
    if (end_time > 0 && secs > 0 && halt_reached(now, secs, end_time))
        return snprintf(reason, len, "TIME_LIMIT"), 1;
    return 0;
}

/* "+90", "+30m", "+2h", "+1d" */
static int halt_parse_relative(const char *s, time_t now, time_t *out)
{
    char *end;
    errno = 0;
    long v = strtol(s + 1, &end, 10);
    if (errno || end == s + 1 || v < 0)
        return -1;
    long mult = 1;
    if (*end == 's' || *end == '\0')
        mult = 1;
    else if (*end == 'm')
        mult = 60;
    else if (*end == 'h')
        mult = 3600;
    else if (*end == 'd')
        mult = 86400;
    else
        return -1;
    if ((*end && end[1]) || __builtin_mul_overflow(v, mult, &v) ||
        __builtin_add_overflow(now, v, out))
        return -1; /* later than a time_t can say */
    return 0;
}

int halt_parse_time(const char *s, time_t now, time_t *out)
{
    long v;
    if (!s || !*s)
        return -1;
    if (strcmp(s, "now") == 0)
        return *out = now, 0;
    if (s[0] == '+')
        return halt_parse_relative(s, now, out);
    if (units_parse_long(s[0] == '@' ? s + 1 : s, &v) == 0 && v >= 0)
        return *out = v, 0;
    static const char *const fmts[] = {"%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S",
                                       "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d"};
    for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
        struct tm tm = {0};
        tm.tm_isdst = -1;
        const char *end = strptime(s, fmts[i], &tm);
        if (end && *end == '\0')
            return *out = mktime(&tm), 0;
    }
    /* a clock time: the next time the clock shows it */
    struct tm tm;
    localtime_r(&now, &tm);
    int h, m, sec = 0;
    char extra;
    int got = sscanf(s, "%d:%d:%d%c", &h, &m, &sec, &extra);
    if ((got == 2 || got == 3) && h >= 0 && h < 24 && m >= 0 && m < 60 && sec >= 0 &&
        sec < 60 && !strchr(s, ' ')) {
        tm.tm_hour = h;
        tm.tm_min = m;
        tm.tm_sec = sec;
        tm.tm_isdst = -1;
        time_t t = mktime(&tm);
        if (t <= now)
            t += 86400;
        return *out = t, 0;
    }
    return -1;
}
