/* SPDX-License-Identifier: BSD-3-Clause */
/* report_html.c - the self-contained HTML page of `scr report` */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_html.h"
#include "report_sum.h"
#include "report_text.h"
#include "units.h"

void report_esc(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            fputc(*s, out);
        }
    }
}

static const char html_style[] =
    "body{font-family:sans-serif;margin:1.5em;color:#222}"
    "h1{font-size:1.4em}h2{font-size:1.2em;margin-top:1.5em}h3{font-size:1em}"
    "pre.summary{background:#f4f4f4;padding:.8em;overflow-x:auto}"
    "table{border-collapse:collapse;font-size:.85em;margin-bottom:1em}"
    "th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    "th{background:#eee}td.l{text-align:left}"
    "tr.bad td{background:#fbe3e3}.swatch{display:inline-block;width:.8em;height:.8em;"
    "margin-right:.3em}";

static void html_cell_bytes(FILE *out, int64_t bytes)
{
    char b[32] = "?";
    if (bytes >= 0)
        units_format_bytes((uint64_t)bytes, b, sizeof(b));
    fprintf(out, "<td>%s</td>", b);
}

static void html_cell_num(FILE *out, double v, const char *fmt)
{
    if (v < 0) {
        fprintf(out, "<td>?</td>");
        return;
    }
    fprintf(out, "<td>");
    fprintf(out, fmt, v);
    fprintf(out, "</td>");
}

static void html_dsets(FILE *out, const rep_job_t *j)
{
    fprintf(out, "<h3>Datasets</h3>\n<table class=\"datasets\"><tr><th>dataset</th>"
                 "<th>name</th><th>kind</th><th>run</th><th>started</th><th>seconds</th>"
                 "<th>size</th><th>MB/s</th><th>scheme</th><th>state</th>"
                 "<th>flushed</th></tr>\n");
    for (int i = 0; i < j->ndsets; i++) {
        const rep_dset_t *d = &j->dsets[i];
        char when[32];
        report_fmt_time(d->t0, 0, when, sizeof(when));
        fprintf(out, "<tr class=\"%s\"><td>%d</td><td class=\"l\">",
                d->state == REP_COMPLETE ? "ok" : "bad", d->id);
        report_esc(out, d->name);
        fprintf(out, "</td><td class=\"l\">%s</td><td>%d</td><td>%s</td>",
                d->flags >= 0 && !(d->flags & REP_FLAG_CHECKPOINT) ? "output"
                                                                   : "checkpoint",
                d->run + 1, when);
        html_cell_num(out, d->secs, "%.3f");
        html_cell_bytes(out, d->bytes);
        html_cell_num(out, rep_dset_mbps(d), "%.1f");
        fprintf(out,
                "<td class=\"l\"><span class=\"swatch\" style=\"background:%s\"></span>",
                report_scheme_colour(d->scheme));
        report_esc(out, d->scheme[0] ? d->scheme : "?");
        fprintf(out, "</td><td class=\"l\">%s</td><td class=\"l\">%s</td></tr>\n",
                rep_state_name(d->state), d->flushed ? "yes" : "");
    }
    fprintf(out, "</table>\n");
}

static void html_flushes(FILE *out, const rep_job_t *j)
{
    if (j->nflushes == 0)
        return;
    fprintf(out, "<h3>Flushes</h3>\n<table class=\"flushes\"><tr><th>dataset</th>"
                 "<th>mode</th><th>started</th><th>seconds</th><th>size</th>"
                 "<th>MB/s</th><th>state</th></tr>\n");
    for (int i = 0; i < j->nflushes; i++) {
        const rep_flush_t *f = &j->flushes[i];
        char when[32];
        report_fmt_time(f->t0, 0, when, sizeof(when));
        fprintf(out, "<tr class=\"%s\"><td>%d</td><td class=\"l\">%s</td><td>%s</td>",
                f->state == REP_COMPLETE ? "ok" : "bad", f->id, f->mode, when);
        html_cell_num(out, f->secs, "%.3f");
        html_cell_bytes(out, f->bytes);
        html_cell_num(out, rep_flush_mbps(f), "%.1f");
        fprintf(out, "<td class=\"l\">%s</td></tr>\n", rep_state_name(f->state));
    }
    fprintf(out, "</table>\n");
}

static int html_cmp_mark(const void *a, const void *b)
{
    const rep_mark_t *x = *(const rep_mark_t *const *)a,
                     *y = *(const rep_mark_t *const *)b;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* restarts, failures and the rest, in time order */
static void html_marks(FILE *out, const rep_job_t *j)
{
    if (j->nmarks == 0)
        return;
    const rep_mark_t **m = malloc((size_t)j->nmarks * sizeof(*m));
    if (!m)
        return;
    for (int i = 0; i < j->nmarks; i++)
        m[i] = &j->marks[i];
    qsort(m, (size_t)j->nmarks, sizeof(*m), html_cmp_mark);
    fprintf(out, "<h3>Events</h3>\n<table class=\"events\"><tr><th>time</th><th>run</th>"
                 "<th>event</th><th>what</th></tr>\n");
    for (int i = 0; i < j->nmarks; i++) {
        char when[32];
        report_fmt_time(m[i]->t, 0, when, sizeof(when));
        fprintf(out, "<tr class=\"%s\"><td>%s</td><td>", m[i]->ok ? "ok" : "bad", when);
        if (m[i]->run >= 0)
            fprintf(out, "%d", m[i]->run + 1);
        fprintf(out, "</td><td class=\"l\">%s</td><td class=\"l\">",
                rep_mark_name(m[i]->kind));
        report_esc(out, m[i]->text);
        fprintf(out, "</td></tr>\n");
    }
    fprintf(out, "</table>\n");
    free(m);
}

static void html_job(FILE *out, const rep_job_t *j)
{
    fprintf(out, "<section class=\"job\"><h2>Job ");
    report_esc(out, j->id);
    fprintf(out, "</h2>\n");
    report_svg(out, j, 1, 0);
    html_dsets(out, j);
    html_flushes(out, j);
    html_marks(out, j);
    fprintf(out, "</section>\n");
}

void report_html(FILE *out, const rep_t *r, const char *path, const char *summary)
{
    char now[32];
    report_fmt_time((double)time(NULL), 1, now, sizeof(now));
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                 "<title>SCR report: ");
    report_esc(out, path);
    fprintf(out,
            "</title>\n<style>%s</style></head>\n<body>\n<h1>SCR report</h1>\n"
            "<p class=\"source\">",
            html_style);
    report_esc(out, path);
    fprintf(out, ", written %s</p>\n<pre class=\"summary\">", now);
    report_esc(out, summary);
    fprintf(out, "</pre>\n");
    for (int i = 0; i < r->njobs; i++)
        html_job(out, &r->jobs[i]);
    fprintf(out, "</body></html>\n");
}
