/* SPDX-License-Identifier: BSD-3-Clause */
/* report_svg.c - a job's checkpoints over time, as SVG
 *
 * One panel per job, time running left to right across lanes: runs,
 * checkpoints (a bar as long as the checkpoint took, coloured by scheme),
 * flushes, events (restarts, failures, halts, fetches, rebuilds,
 * scavenges), then the bandwidth of each checkpoint and flush, a time axis
 * and a legend.  A relaunch is a dashed line through every lane.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "report_html.h"
#include "report_sum.h"
#include "report_text.h"
#include "units.h"

#define SVG_W 1000
#define SVG_LEFT 110
#define SVG_RIGHT 24
#define Y_RUNS 30
#define H_RUNS 20
#define Y_CKPT 56
#define H_CKPT 26
#define Y_FLUSH 88
#define H_FLUSH 18
#define Y_EVENTS 112
#define H_EVENTS 30
#define Y_BW 154
#define H_BW 110
#define Y_AXIS (Y_BW + H_BW)
#define Y_LEGEND (Y_AXIS + 40)
#define SVG_PANEL_H (Y_LEGEND + 14)

#define COLOUR_FAIL "#d62728"
#define COLOUR_FLUSH "#17becf"

typedef struct {
    FILE *out;
    const rep_job_t *j;
    double t0, span; /* time at the left edge, seconds across */
    double bw_max;   /* MB/s at the top of the bandwidth plot, 0: no data */
} chart_t;

const char *report_scheme_colour(const char *scheme)
{
    static const struct {
        const char *name, *colour;
    } map[] = {{"SINGLE", "#8c6d31"},
               {"PARTNER", "#1f77b4"},
               {"XOR", "#2ca02c"},
               {"RS", "#9467bd"},
               {NULL, NULL}};
    for (int i = 0; map[i].name; i++)
        if (strcmp(map[i].name, scheme) == 0)
            return map[i].colour;
    return "#999999";
}

static double cx(const chart_t *c, double t)
{
    double f = (t - c->t0) / c->span;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return SVG_LEFT + f * (SVG_W - SVG_LEFT - SVG_RIGHT);
}

static double cy_bw(const chart_t *c, double mbps)
{
    return Y_BW + H_BW - (c->bw_max > 0 ? mbps / c->bw_max : 0) * H_BW;
}

/* <title> with printf-formatted, escaped text */
static void svg_title(FILE *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void svg_title(FILE *out, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    fprintf(out, "<title>");
    report_esc(out, buf);
    fprintf(out, "</title>");
}

/* 1, 2 or 5 times a power of ten, at least v */
static double svg_nice(double v)
{
    double p = pow(10, floor(log10(v)));
    return v <= p ? p : v <= 2 * p ? 2 * p : v <= 5 * p ? 5 * p : 10 * p;
}

static void svg_scales(chart_t *c)
{
    const rep_job_t *j = c->j;
    double len = j->t1 - j->t0;
    if (len < 0.001)
        len = 1;
    c->t0 = j->t0 - len * 0.01;
    c->span = len * 1.02;
    c->bw_max = 0;
    for (int i = 0; i < j->ndsets; i++)
        c->bw_max = fmax(c->bw_max, rep_dset_mbps(&j->dsets[i]));
    for (int i = 0; i < j->nflushes; i++)
        c->bw_max = fmax(c->bw_max, rep_flush_mbps(&j->flushes[i]));
    if (c->bw_max > 0)
        c->bw_max = svg_nice(c->bw_max);
}

static void svg_lanes(const chart_t *c)
{
    static const struct {
        int y, h;
        const char *label;
    } lanes[] = {{Y_RUNS, H_RUNS, "runs"},
                 {Y_CKPT, H_CKPT, "checkpoints"},
                 {Y_FLUSH, H_FLUSH, "flushes"},
                 {Y_EVENTS, H_EVENTS, "events"},
                 {Y_BW, H_BW, ""},
                 {0, 0, NULL}};
    for (int i = 0; lanes[i].label; i++) {
        fprintf(c->out,
                "<rect class=\"lane\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>"
                "<text class=\"lbl\" x=\"%d\" y=\"%d\">%s</text>\n",
                SVG_LEFT, lanes[i].y, SVG_W - SVG_LEFT - SVG_RIGHT, lanes[i].h,
                SVG_LEFT - 8, lanes[i].y + (lanes[i].h < 40 ? lanes[i].h / 2 + 4 : 12),
                lanes[i].label);
    }
}

static void svg_runs(const chart_t *c)
{
    const rep_job_t *j = c->j;
    for (int i = 0; i < j->nruns; i++) {
        const rep_run_t *ru = &j->runs[i];
        double x0 = cx(c, ru->t0), w = fmax(2, cx(c, ru->t1) - x0);
        const char *state = ru->ended > 0 ? "ended" : ru->ended < 0 ? "failed" : "open";
        char len[32];
        report_fmt_secs(ru->t1 - ru->t0, len, sizeof(len));
        fprintf(
            c->out,
            "<g class=\"mark run %s\" data-kind=\"run\" data-run=\"%d\" "
            "data-state=\"%s\"><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"/>",
            state, i + 1, state, x0, Y_RUNS, w, H_RUNS);
        svg_title(c->out, "run %d on %d ranks, %d nodes (rank 0 on %s): %s, %s%s", i + 1,
                  ru->ranks, ru->nodes, ru->host, len,
                  ru->ended > 0 ? "finished" : "FAILED (no RUN_END)",
                  ru->restart_id >= 0 ? ", restarted" : "");
        if (w > 44)
            fprintf(c->out, "<text x=\"%.1f\" y=\"%d\">run %d</text>", x0 + 4,
                    Y_RUNS + 14, i + 1);
        fprintf(c->out, "</g>\n");
    }
}

static void svg_dset_title(const chart_t *c, const rep_dset_t *d)
{
    char when[32], size[32] = "? bytes", len[32] = "?";
    report_fmt_time(d->t0, 0, when, sizeof(when));
    if (d->bytes >= 0)
        units_format_bytes((uint64_t)d->bytes, size, sizeof(size));
    if (d->secs >= 0)
        report_fmt_secs(d->secs, len, sizeof(len));
    double mbps = rep_dset_mbps(d);
    char bw[32] = "";
    if (mbps >= 0)
        snprintf(bw, sizeof(bw), ", %.1f MB/s", mbps);
    svg_title(c->out, "%s dataset %d (%s), run %d\n%s, %s in %s%s\nstarted %s; %s%s",
              d->flags >= 0 && !(d->flags & REP_FLAG_CHECKPOINT) ? "output"
                                                                 : "checkpoint",
              d->id, d->name, d->run + 1, d->scheme[0] ? d->scheme : "scheme ?", size,
              len, bw, when, rep_state_name(d->state), d->flushed ? ", flushed" : "");
}

static void svg_dsets(const chart_t *c)
{
    const rep_job_t *j = c->j;
    for (int i = 0; i < j->ndsets; i++) {
        const rep_dset_t *d = &j->dsets[i];
        int ckpt = d->flags < 0 || (d->flags & REP_FLAG_CHECKPOINT);
        const char *colour = report_scheme_colour(d->scheme);
        double x0 = cx(c, d->t0), w = fmax(3, cx(c, d->t1) - x0);
        int y = ckpt ? Y_CKPT : Y_CKPT + H_CKPT / 2, h = ckpt ? H_CKPT : H_CKPT / 2;
        fprintf(c->out,
                "<rect class=\"mark %s %s\" data-kind=\"%s\" data-state=\"%s\" "
                "data-dset=\"%d\" data-scheme=\"",
                ckpt ? "ckpt" : "output", rep_state_name(d->state),
                ckpt ? "checkpoint" : "output", rep_state_name(d->state), d->id);
        report_esc(c->out, d->scheme);
        fprintf(c->out,
                "\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
                "stroke=\"%s\">",
                x0, y, w, h, d->state == REP_COMPLETE && ckpt ? colour : "#ffffff",
                d->state == REP_COMPLETE ? colour : COLOUR_FAIL);
        svg_dset_title(c, d);
        fprintf(c->out, "</rect>\n");
    }
}

static void svg_flushes(const chart_t *c)
{
    const rep_job_t *j = c->j;
    for (int i = 0; i < j->nflushes; i++) {
        const rep_flush_t *f = &j->flushes[i];
        double x0 = cx(c, f->t0), w = fmax(3, cx(c, f->t1) - x0);
        char size[32] = "?", len[32] = "?";
        if (f->bytes >= 0)
            units_format_bytes((uint64_t)f->bytes, size, sizeof(size));
        if (f->secs >= 0)
            report_fmt_secs(f->secs, len, sizeof(len));
        fprintf(c->out,
                "<rect class=\"mark flush %s\" data-kind=\"flush\" data-state=\"%s\" "
                "data-dset=\"%d\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                "fill=\"%s\">",
                rep_state_name(f->state), rep_state_name(f->state), f->id, x0, Y_FLUSH, w,
                H_FLUSH, f->state == REP_COMPLETE ? COLOUR_FLUSH : COLOUR_FAIL);
        svg_title(c->out, "flush of dataset %d (%s): %s in %s, %.1f MB/s, %s", f->id,
                  f->mode[0] ? f->mode : "?", size, len, fmax(0, rep_flush_mbps(f)),
                  rep_state_name(f->state));
        fprintf(c->out, "</rect>\n");
    }
}

/* a marker's shape around (x, y) */
static void svg_shape(FILE *out, rep_mark_kind_t kind, double x, double y)
{
    const double s = 6;
    switch (kind) {
    case REP_MARK_RESTART:
        fprintf(out, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"#ff7f0e\"/>", x,
                y - s, x + s, y + s, x - s, y + s);
        break;
    case REP_MARK_FAILURE:
        fprintf(
            out,
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/><path d=\"M%.1f "
            "%.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" stroke=\"#fff\" stroke-width=\"2\"/>",
            x, y, s, COLOUR_FAIL, x - 3, y - 3, x + 3, y + 3, x + 3, y - 3, x - 3.5,
            y + 3.5);
        break;
    case REP_MARK_HALT:
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\" "
                "fill=\"#8c564b\"/>",
                x - 5.5, y - 5.5);
        break;
    case REP_MARK_FETCH:
    case REP_MARK_REBUILD:
        fprintf(out,
                "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\"/>", x,
                y - s, x + s, y, x, y + s, x - s, y,
                kind == REP_MARK_FETCH ? "#1f77b4" : "#9467bd");
        break;
    default: /* scavenge, index */
        fprintf(out,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5.5\" fill=\"%s\" stroke=\"#555\"/>",
                x, y, kind == REP_MARK_SCAVENGE ? "#555" : "#fff");
    }
}

static void svg_marks(const chart_t *c)
{
    const rep_job_t *j = c->j;
    for (int i = 0; i < j->nmarks; i++) {
        const rep_mark_t *m = &j->marks[i];
        double x = cx(c, m->t);
        /* what an SCR_Init did above, what happened to the run below: a
         * restart and the rebuild or fetch it came from do not cover each other */
        int upper = m->kind == REP_MARK_FETCH || m->kind == REP_MARK_REBUILD ||
                    m->kind == REP_MARK_HALT || m->kind == REP_MARK_INDEX;
        double y = Y_EVENTS + (upper ? 8 : H_EVENTS - 8);
        char when[32];
        report_fmt_time(m->t, 0, when, sizeof(when));
        if (m->kind == REP_MARK_FAILURE)
            fprintf(c->out,
                    "<line class=\"guide\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                    "stroke=\"%s\"/>",
                    x, Y_RUNS, x, Y_AXIS, COLOUR_FAIL);
        fprintf(c->out, "<g class=\"mark %s\" data-kind=\"%s\" data-dset=\"%d\"",
                rep_mark_name(m->kind), rep_mark_name(m->kind), m->dset);
        if (m->kind == REP_MARK_RESTART)
            fprintf(c->out, " data-from=\"%s\"", m->from);
        fprintf(c->out, ">");
        svg_title(c->out, "%s %s", when, m->text);
        svg_shape(c->out, m->kind, x, y);
        fprintf(c->out, "</g>\n");
    }
    for (int i = 1; i < j->nruns; i++) {
        double x = cx(c, j->runs[i].t0);
        fprintf(c->out,
                "<g class=\"mark relaunch\" data-kind=\"relaunch\" data-run=\"%d\"><line "
                "x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>",
                i + 1, x, Y_RUNS - 4, x, Y_AXIS);
        svg_title(c->out, "relaunch: run %d", i + 1);
        fprintf(c->out, "</g>\n");
    }
}

static void svg_bw_point(const chart_t *c, double t, double mbps, const char *of,
                         const char *colour, int square)
{
    double x = cx(c, t), y = cy_bw(c, mbps);
    fprintf(c->out, "<g class=\"bw\" data-kind=\"bandwidth\" data-of=\"%s\">", of);
    if (square)
        fprintf(c->out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\"/>",
                x - 3.5, y - 3.5, colour);
    else
        fprintf(c->out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>", x, y,
                colour);
    svg_title(c->out, "%s: %.1f MB/s", of, mbps);
    fprintf(c->out, "</g>\n");
}

static void svg_bw(const chart_t *c)
{
    const rep_job_t *j = c->j;
    if (c->bw_max <= 0) {
        fprintf(c->out,
                "<text class=\"note\" x=\"%d\" y=\"%d\">no bandwidth in the log</text>\n",
                SVG_LEFT + 8, Y_BW + H_BW / 2);
        return;
    }
    fprintf(c->out,
            "<text class=\"lbl\" x=\"%d\" y=\"%d\">bandwidth<tspan x=\"%d\" "
            "dy=\"14\">MB/s</tspan></text>\n",
            SVG_LEFT - 40, Y_BW + H_BW / 2 - 4, SVG_LEFT - 40);
    for (int k = 0; k <= 2; k++) {
        double v = c->bw_max * k / 2, y = cy_bw(c, v);
        fprintf(c->out,
                "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                "<text class=\"tick\" x=\"%d\" y=\"%.1f\">%g</text>\n",
                SVG_LEFT, y, SVG_W - SVG_RIGHT, y, SVG_LEFT - 8, y + 4, v);
    }
    for (int i = 0; i < j->ndsets; i++) {
        double mbps = rep_dset_mbps(&j->dsets[i]);
        if (mbps >= 0)
            svg_bw_point(c, j->dsets[i].t1, mbps, "checkpoint",
                         report_scheme_colour(j->dsets[i].scheme), 0);
    }
    for (int i = 0; i < j->nflushes; i++) {
        double mbps = rep_flush_mbps(&j->flushes[i]);
        if (mbps >= 0)
            svg_bw_point(c, j->flushes[i].t1, mbps, "flush", COLOUR_FLUSH, 1);
    }
}

/* seconds between time ticks: about ten across */
static double svg_tick_step(double span)
{
    static const double steps[] = {0.001, 0.002, 0.005, 0.01,  0.02,  0.05,  0.1,
                                   0.2,   0.5,   1,     2,     5,     10,    15,
                                   30,    60,    120,   300,   600,   900,   1800,
                                   3600,  7200,  10800, 21600, 43200, 86400, 604800};
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
        if (span / steps[i] <= 10)
            return steps[i];
    return span / 10;
}

static void svg_axis(const chart_t *c)
{
    double step = svg_tick_step(c->span);
    fprintf(c->out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
            SVG_LEFT, Y_AXIS, SVG_W - SVG_RIGHT, Y_AXIS);
    for (double t = ceil(c->t0 / step) * step; t <= c->t0 + c->span; t += step) {
        char label[32];
        if (step >= 1) {
            report_fmt_time(t, 0, label, sizeof(label));
            label[8] = '\0'; /* whole seconds */
        } else
            snprintf(label, sizeof(label), "+%.3g s", t - c->j->t0);
        double x = cx(c, t);
        fprintf(c->out,
                "<line class=\"axis\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                "<text class=\"time\" x=\"%.1f\" y=\"%d\">%s</text>\n",
                x, Y_AXIS, x, Y_AXIS + 5, x, Y_AXIS + 18, label);
    }
}

static void svg_legend(const chart_t *c)
{
    rep_sum_t s;
    double x = SVG_LEFT;
    if (rep_sum(c->j, 1, &s) == 0)
        for (int i = 0; i < s.nschemes; i++, x += 90)
            fprintf(c->out,
                    "<rect x=\"%.0f\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    "<text class=\"key\" x=\"%.0f\" y=\"%d\">%s</text>\n",
                    x, Y_LEGEND - 10, report_scheme_colour(s.schemes[i].name), x + 16,
                    Y_LEGEND, s.schemes[i].name);
    static const rep_mark_kind_t kinds[] = {REP_MARK_RESTART, REP_MARK_FAILURE,
                                            REP_MARK_HALT,    REP_MARK_FETCH,
                                            REP_MARK_REBUILD, REP_MARK_SCAVENGE};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++, x += 90) {
        svg_shape(c->out, kinds[i], x + 6, Y_LEGEND - 4);
        fprintf(c->out, "<text class=\"key\" x=\"%.0f\" y=\"%d\">%s</text>\n", x + 16,
                Y_LEGEND, rep_mark_name(kinds[i]));
    }
    fprintf(c->out,
            "<rect x=\"%.0f\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
            "<text class=\"key\" x=\"%.0f\" y=\"%d\">flush</text>\n",
            x, Y_LEGEND - 10, COLOUR_FLUSH, x + 16, Y_LEGEND);
}

static void svg_panel(FILE *out, const rep_job_t *j, int y)
{
    chart_t c = {out, j, 0, 1, 0};
    char t0[32], t1[32];
    svg_scales(&c);
    report_fmt_time(j->t0, 1, t0, sizeof(t0));
    report_fmt_time(j->t1, 1, t1, sizeof(t1));
    fprintf(out, "<g class=\"job\" data-job=\"");
    report_esc(out, j->id);
    fprintf(
        out,
        "\" transform=\"translate(0,%d)\">\n<text class=\"head\" x=\"%d\" y=\"16\">job ",
        y, SVG_LEFT);
    report_esc(out, j->id);
    fprintf(out, " (user ");
    report_esc(out, j->user);
    fprintf(out, "): %s to %s, %d run%s</text>\n", t0, t1, j->nruns,
            j->nruns == 1 ? "" : "s");
    svg_lanes(&c);
    svg_runs(&c);
    svg_dsets(&c);
    svg_flushes(&c);
    svg_bw(&c);
    svg_axis(&c);
    svg_marks(&c);
    svg_legend(&c);
    fprintf(out, "</g>\n");
}

void report_svg(FILE *out, const rep_job_t *jobs, int n, int standalone)
{
    int h = SVG_PANEL_H * (n > 0 ? n : 1);
    if (standalone)
        fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
            "font-size=\"11\">\n",
            SVG_W, h, SVG_W, h);
    fprintf(out,
            "<style>.lane{fill:#f7f7f7}.lbl,.tick{text-anchor:end;fill:#333}"
            ".time{text-anchor:middle;fill:#333}.head{font-weight:bold;font-size:13px}"
            ".axis{stroke:#333}.grid{stroke:#ddd}.guide{stroke-dasharray:2 3;opacity:.5}"
            ".run rect{fill:#dfe8f2;stroke:#8aa}.run.failed rect{fill:#f6d5d5;stroke:%s}"
            ".interrupted,.invalid{stroke-dasharray:3 2;stroke-width:1.5}"
            ".relaunch line{stroke:#444;stroke-width:2;stroke-dasharray:6 4}"
            ".mark:hover{opacity:.7}.note{fill:#777}</style>\n",
            COLOUR_FAIL);
    for (int i = 0; i < n; i++)
        svg_panel(out, &jobs[i], i * SVG_PANEL_H);
    fprintf(out, "</svg>\n");
}
