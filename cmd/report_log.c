/* SPDX-License-Identifier: BSD-3-Clause */
/* report_log.c - parse the lines of SCR's event log, skipping bad ones */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_log.h"

/* "2026-11-21T18:30:05": digits first, then digits and date/time marks */
static int rlog_is_stamp(const char *s)
{
    if (!(*s >= '0' && *s <= '9') || strlen(s) < 10)
        return 0;
    return strspn(s, "0123456789-T:.+Z") == strlen(s);
}

static int rlog_is_key(const char *s, size_t len)
{
    if (len == 0 || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '_'))
            return 0;
    return 1;
}

/* a whole string as a finite, non-negative double */
static int rlog_number(const char *s, double *v)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(d) || d < 0)
        return -1;
    *v = d;
    return 0;
}

/* the key=value tokens after the two times; a token of another form (a
 * name with a blank in it split in two) is passed over */
static void rlog_pairs(rlog_event_t *ev, char *save)
{
    char *tok;
    while ((tok = strtok_r(NULL, " ", &save)) && ev->nkeys < RLOG_MAX_KEYS) {
        char *eq = strchr(tok, '=');
        if (!eq || !rlog_is_key(tok, (size_t)(eq - tok)))
            continue;
        *eq = '\0';
        ev->key[ev->nkeys] = tok;
        ev->val[ev->nkeys++] = eq + 1;
    }
}

int rlog_parse_line(const char *line, rlog_event_t *ev)
{
    size_t len = strlen(line);
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    ev->nkeys = 0;
    ev->event = NULL;
    if (len == 0 || len >= sizeof(ev->buf))
        return -1;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
            return -1;
    memcpy(ev->buf, line, len);
    ev->buf[len] = '\0';
    char *save = NULL, *stamp = strtok_r(ev->buf, " ", &save);
    char *unix_t = strtok_r(NULL, " ", &save);
    double t;
    if (!stamp || !unix_t || !rlog_is_stamp(stamp) || rlog_number(unix_t, &t) < 0)
        return -1;
    ev->t = t;
    rlog_pairs(ev, save);
    const char *name = rlog_get(ev, "event"), *job = rlog_get(ev, "job");
    if (!name || !*name ||
        strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") != strlen(name) || !job ||
        !*job)
        return -1;
    ev->event = (char *)name;
    /* newer lines carry the time to the millisecond */
    const char *precise = rlog_get(ev, "time");
    if (precise && rlog_number(precise, &t) == 0)
        ev->t = t;
    return 0;
}

int rlog_read(FILE *fp, rlog_fn fn, void *arg, rlog_stats_t *st)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    rlog_event_t *ev = malloc(sizeof(*ev));
    memset(st, 0, sizeof(*st));
    if (!ev)
        return -1;
    int rc = 0;
    while (rc == 0 && (n = getline(&line, &cap, fp)) >= 0) {
        st->lines++;
        /* a NUL inside (a torn write) makes the line garbage, not shorter */
        if (memchr(line, '\0', (size_t)n) || rlog_parse_line(line, ev) < 0) {
            st->bad++;
            if (!st->first_bad)
                st->first_bad = st->lines;
            continue;
        }
        ev->lineno = st->lines;
        rc = fn(ev, arg);
    }
    free(line);
    free(ev);
    return rc;
}

const char *rlog_get(const rlog_event_t *ev, const char *key)
{
    for (int i = 0; i < ev->nkeys; i++)
        if (strcmp(ev->key[i], key) == 0)
            return ev->val[i];
    return NULL;
}

int rlog_get_int(const rlog_event_t *ev, const char *key, int *v)
{
    const char *s = rlog_get(ev, key);
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    long l = strtol(s, &end, 10);
    if (*end || errno || l < -2147483647L - 1 || l > 2147483647L)
        return -1;
    *v = (int)l;
    return 0;
}

int rlog_get_u64(const rlog_event_t *ev, const char *key, uint64_t *v)
{
    const char *s = rlog_get(ev, key);
    char *end;
    if (!s || !(*s >= '0' && *s <= '9'))
        return -1;
    errno = 0;
    unsigned long long u = strtoull(s, &end, 10);
    if (*end || errno)
        return -1;
    *v = (uint64_t)u;
    return 0;
}

int rlog_get_double(const rlog_event_t *ev, const char *key, double *v)
{
    const char *s = rlog_get(ev, key);
    return s ? rlog_number(s, v) : -1;
}
