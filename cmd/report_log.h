/* SPDX-License-Identifier: BSD-3-Clause */
/* report_log.h - read SCR's event log (<prefix>/.scr/log) for `scr report`.
 *
 * A line is   <ISO time> <unix time> event=<NAME> job=<id> [key=value ...]
 * written by libscr's rank 0 (lib/base/evlog.c) and by the epilog and the
 * scr command (SCAVENGE, INDEX).  Keys are lowercase, values have no
 * spaces; newer lines carry more keys (time= with milliseconds, type=,
 * init_secs=), so a reader takes what a line has and never requires them.
 *
 * A line that is not of that form (garbage, a line cut short by a crash, a
 * line too long) is skipped and counted, never fatal.
 */
#ifndef SCR_REPORT_LOG_H
#define SCR_REPORT_LOG_H

#include <stdint.h>
#include <stdio.h>

#define RLOG_MAX_KEYS 32
#define RLOG_MAX_LINE 4096

typedef struct {
    double t;    /* unix seconds: time= if the line has it, else the integer */
    long lineno; /* 1-based line in the file */
    char *event; /* NAME; points into buf */
    int nkeys;   /* key=value pairs after the two times, event= included */
    char *key[RLOG_MAX_KEYS];
    char *val[RLOG_MAX_KEYS];
    char buf[RLOG_MAX_LINE];
} rlog_event_t;

typedef struct {
    long lines;     /* lines read */
    long bad;       /* lines skipped */
    long first_bad; /* line number of the first skipped one, 0 if none */
} rlog_stats_t;

/* called for each good line, in file order; non-zero stops the reading */
typedef int (*rlog_fn)(const rlog_event_t *ev, void *arg);

/* Parse one line (without or with its newline) into ev.  Returns 0, or -1
 * when the line is not an event line. */
int rlog_parse_line(const char *line, rlog_event_t *ev);

/* Read fp line by line (nothing is kept: a log of any length costs one
 * line of memory) and call fn for each event.  Returns 0, or what fn
 * returned when it stopped the reading. */
int rlog_read(FILE *fp, rlog_fn fn, void *arg, rlog_stats_t *st);

/* a key's value, or NULL */
const char *rlog_get(const rlog_event_t *ev, const char *key);
/* typed values: 0, or -1 when the key is missing or does not parse (the
 * output is then untouched) */
int rlog_get_int(const rlog_event_t *ev, const char *key, int *v);
int rlog_get_u64(const rlog_event_t *ev, const char *key, uint64_t *v);
int rlog_get_double(const rlog_event_t *ev, const char *key, double *v);

#endif
