/* SPDX-License-Identifier: BSD-3-Clause */
/* units.c - byte counts and strict number parsing */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>

#include "units.h"

static int units_suffix_shift(const char *s, int *shift)
{
    static const struct {
        const char *names[4];
        int shift;
    } table[] = {
        {{"", "b", NULL}, 0},           {{"k", "kb", "kib", NULL}, 10},
        {{"m", "mb", "mib", NULL}, 20}, {{"g", "gb", "gib", NULL}, 30},
        {{"t", "tb", "tib", NULL}, 40}, {{"p", "pb", "pib", NULL}, 50},
        {{"e", "eb", "eib", NULL}, 60},
    };
    while (isspace((unsigned char)*s))
        s++;
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        for (int j = 0; table[i].names[j]; j++) {
            if (strcasecmp(s, table[i].names[j]) == 0) {
                *shift = table[i].shift;
                return 0;
            }
        }
    }
    return -1;
}

int units_parse_bytes(const char *str, uint64_t *val)
{
    char *end;
    int shift;
    if (!str || !*str || isspace((unsigned char)*str) || *str == '-')
        return -1;
    errno = 0;
    double num = strtod(str, &end);
    if (errno != 0 || end == str || !isfinite(num) || num < 0)
        return -1;
    if (units_suffix_shift(end, &shift) < 0)
        return -1;
    double bytes = ldexp(num, shift);
    if (bytes >= 18446744073709551616.0)
        return -1;
    *val = (uint64_t)bytes;
    return 0;
}

int units_parse_long(const char *str, long *val)
{
    char *end;
    if (!str || !*str || isspace((unsigned char)*str))
        return -1;
    errno = 0;
    long v = strtol(str, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *val = v;
    return 0;
}

int units_parse_ulong(const char *str, unsigned long *val)
{
    char *end;
    if (!str || !*str || isspace((unsigned char)*str) || *str == '-')
        return -1;
    errno = 0;
    unsigned long v = strtoul(str, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *val = v;
    return 0;
}

int units_parse_double(const char *str, double *val)
{
    char *end;
    if (!str || !*str || isspace((unsigned char)*str))
        return -1;
    errno = 0;
    double v = strtod(str, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v))
        return -1;
    *val = v;
    return 0;
}

void units_format_bytes(uint64_t val, char *buf, size_t len)
{
    static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)val;
    int i = 0;
    while (v >= 1024.0 && i < 6) {
        v /= 1024.0;
        i++;
    }
    if (i == 0)
        snprintf(buf, len, "%llu B", (unsigned long long)val);
    else
        snprintf(buf, len, "%.1f %s", v, names[i]);
}

double scr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void units_wait_start(units_wait_t *w, double every)
{
    w->t0 = scr_now();
    w->every = every;
    w->next = w->t0 + every;
}

double units_wait_elapsed(const units_wait_t *w)
{
    return scr_now() - w->t0;
}

int units_wait_due(units_wait_t *w)
{
    double now = scr_now();
    if (now < w->next)
        return 0;
    while (w->next <= now)
        w->next += w->every;
    return 1;
}
