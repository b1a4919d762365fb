/* SPDX-License-Identifier: BSD-3-Clause */
/* scr-bench-report.c - turn scr-bench's JSON lines into the results table,
 * a combined JSON file and an SVG chart of bandwidth per scheme next to its
 * baseline.  Usage: scr-bench-report LINES.json RESULTS.json CHART.svg
 *
 * Samples of the same (phase, scheme, label, ranks, metric) from several
 * launches are merged before min/median/max are taken.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interval.h"

#define MAXROWS 4096
#define MAXS 256

typedef struct {
    char phase[32], scheme[32], label[64], metric[64], unit[16];
    int ranks;
    long long bytes;
    int n;
    double s[MAXS];
} row_t;

static row_t rows[MAXROWS];
static int nrows;

static int get_str(const char *line, const char *key, char *out, size_t len)
{
    char pat[80];
    snprintf(pat, sizeof(pat), "\"%s\":\"", key);
    const char *p = strstr(line, pat);
    if (!p)
        return -1;
    p += strlen(pat);
    size_t i = 0;
    while (*p && *p != '"' && i + 1 < len)
        out[i++] = *p++;
    out[i] = '\0';
    return 0;
}

static double get_num(const char *line, const char *key)
{
    char pat[80];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = strstr(line, pat);
    return p ? atof(p + strlen(pat)) : 0;
}

static row_t *find_row(const row_t *r)
{
    for (int i = 0; i < nrows; i++)
        if (!strcmp(rows[i].phase, r->phase) && !strcmp(rows[i].scheme, r->scheme) &&
            !strcmp(rows[i].label, r->label) && !strcmp(rows[i].metric, r->metric) &&
            rows[i].ranks == r->ranks)
            return &rows[i];
    if (nrows == MAXROWS) {
        static int said;
        if (!said++)
            fprintf(stderr,
                    "scr-bench-report: more than %d rows; the rest are left out\n",
                    MAXROWS);
        return NULL;
    }
    rows[nrows] = *r;
    rows[nrows].n = 0;
    return &rows[nrows++];
}

static void read_lines(FILE *fp)
{
    char line[16384];
    while (fgets(line, sizeof(line), fp)) {
        row_t r = {0};
        if (get_str(line, "phase", r.phase, sizeof(r.phase)) < 0 ||
            get_str(line, "metric", r.metric, sizeof(r.metric)) < 0)
            continue;
        get_str(line, "scheme", r.scheme, sizeof(r.scheme));
        get_str(line, "label", r.label, sizeof(r.label));
        get_str(line, "unit", r.unit, sizeof(r.unit));
        r.ranks = (int)get_num(line, "ranks");
        r.bytes = (long long)get_num(line, "bytes_per_rank");
        row_t *x = find_row(&r);
        const char *p = strstr(line, "\"samples\":[");
        if (!x || !p)
            continue;
        p += 11;
        while (*p && *p != ']' && x->n < MAXS) {
            char *end;
            double v = strtod(p, &end);
            if (end == p)
                break;
            x->s[x->n++] = v;
            p = *end == ',' ? end + 1 : end;
        }
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void stats(row_t *r, double *mn, double *med, double *mx)
{
    qsort(r->s, (size_t)r->n, sizeof(double), cmp);
    *mn = r->s[0];
    *mx = r->s[r->n - 1];
    *med = r->n % 2 ? r->s[r->n / 2] : (r->s[r->n / 2 - 1] + r->s[r->n / 2]) / 2;
}

static row_t *lookup(const char *phase, const char *scheme, const char *metric)
{
    for (int i = 0; i < nrows; i++)
        if (!strcmp(rows[i].phase, phase) && !strcmp(rows[i].scheme, scheme) &&
            !strcmp(rows[i].metric, metric) && rows[i].n > 0)
            return &rows[i];
    return NULL;
}

static double median_of(const char *phase, const char *scheme, const char *metric)
{
    row_t *r = lookup(phase, scheme, metric);
    double a, m, c;
    if (!r)
        return -1;
    stats(r, &a, &m, &c);
    return m;
}

/* the targets of issues 7 and 16: metric, scheme, bound, "<=" or ">=" */
static const struct {
    const char *phase, *scheme, *metric, *op;
    double bound;
    const char *what;
} targets[] = {
    {"ckpt", "SINGLE", "complete_over_baseline", "<=", 0.15,
     "SINGLE Complete <= 0.15x write"},
    {"ckpt", "PARTNER", "complete_over_baseline", "<=", 1.2,
     "PARTNER Complete <= 1.2x write"},
    {"ckpt", "XOR4", "complete_over_baseline", "<=", 0.8,
     "XOR(4) Complete <= 0.8x write"},
    {"ckpt", "RS2", "complete_over_baseline", "<=", 1.5, "RS(2) Complete <= 1.5x write"},
    {"rebuild", "XOR4", "rebuild_over_encode", "<=", 1.5, "XOR rebuild <= 1.5x encode"},
    {"ckpt", "XOR4", "flush_bw_over_cp", ">=", 0.9, "flush >= 0.9x cp bandwidth"},
    {"fetch", "XOR4", "fetch_bw_over_cp", ">=", 0.9, "fetch >= 0.9x cp bandwidth"},
    {"micro", "-", "crc32_gbps", ">=", 10.0, "CRC32 >= 10 GB/s on one core"},
    /* issue 16: redundancy against what the network moves in the same run */
    {"ckpt", "PARTNER", "complete_over_net", "<=", 1.1,
     "PARTNER Complete <= 1.1x net sendrecv"},
    {"ckpt", "XOR4", "complete_over_net", "<=", 1.0,
     "XOR(4) Complete <= 1.0x net sendrecv"},
    {"ckpt", "RS2", "complete_over_net", "<=", 2.0,
     "RS(2) Complete <= 2.0x net sendrecv"},
    {"rebuild", "XOR4", "rebuild_over_encode", "<=", 1.2, "XOR rebuild <= 1.2x encode"},
};

/* the targets of issue 17 (bench/scr-mem.c), for each scheme that ran */
static const struct {
    const char *phase, *metric, *op;
    double bound;
    const char *what;
} mem_targets[] = {
    {"mem.ckpt", "mem_over_file", "<=", 1.05, "mem ckpt <= 1.05x file API"},
    {"mem.dcp", "dcp_d0_over_full", "<=", 0.1, "DCP 0% changed <= 0.1x full"},
    {"mem.dcp", "dcp_d10_over_full", "<=", 0.25, "DCP 10% changed <= 0.25x full"},
    {"mem.dcp", "dcp_d100_over_full", "<=", 1.1, "DCP 100% changed <= 1.1x full"},
    {"mem.dcptrack", "dcp_d0_over_full", "<=", 0.1,
     "DCP 0% (SCR_DCP_TRACK) <= 0.1x full"},
    {"mem.dcptrack", "dcp_d10_over_full", "<=", 0.25,
     "DCP 10% (SCR_DCP_TRACK) <= 0.25x full"},
    {"mem.dcptrack", "dcp_d100_over_full", "<=", 1.1,
     "DCP 100% (SCR_DCP_TRACK) <= 1.1x full"},
    {"mem.flush", "prefix_d10_over_full", "<=", 0.15, "DCP 10% flush <= 0.15x bytes"},
    {"mem.hash", "xxh3_128_gbps", ">=", 5.0, "XXH3-128 >= 5 GB/s on one core"},
};

/* figures that explain the targets: against what the network can move */
static const struct {
    const char *phase, *scheme, *metric, *what;
} context[] = {
    {"ckpt", "PARTNER", "complete_over_net", "PARTNER Complete / net sendrecv"},
    {"ckpt", "XOR4", "complete_over_net", "XOR(4) Complete / net sendrecv"},
    {"ckpt", "XOR8", "complete_over_net", "XOR(8) Complete / net sendrecv"},
    {"ckpt", "RS2", "complete_over_net", "RS(2) Complete / net sendrecv"},
    {"ckpt", "SINGLE", "crc_background", "SINGLE CRC pass after Complete (s)"},
    {"fetch", "XOR4", "fetch_total_bw_over_cp", "XOR fetch + re-protect vs cp"},
    {"mem.dcp", NULL, "dcp_d0_floor_over_full", "DCP (hash + empty output) / full"},
    {"mem.dcp", NULL, "dcp_write_every_page", "DCP: write every page after a ckpt (s)"},
    {"mem.dcptrack", NULL, "dcp_write_every_page", "DCP_TRACK: the same, faulting (s)"},
    {"mem.flush", NULL, "flush_d10_over_full", "DCP 10% flush seconds / full"},
    {"mem.hash", NULL, "xxh3_128_64k_gbps", "XXH3-128 in 64 KiB blocks (GB/s)"},
};

/* issue 16: the whole checkpoint against LLNL SCR 3.1 on the same nodes */
static const struct {
    const char *scheme;
    double bound;
    double off_node; /* the fewest bytes that must leave a node, per byte
                        written: a lost node's bytes come back only from
                        what left it, and with m of a set of n lost they
                        come back from n - m of the n - 1 others */
} against[] = {{"SINGLE", 1.3, 0},
               {"PARTNER", 1.5, 1},
               {"XOR4", 1.5, 1},
               {"XOR8", 1.5, 1},
               {"RS2", 1.5, 7.0 / 6.0}};

/* The floor of a synchronous checkpoint on these nodes: the application's
 * writes (the faster library's median) and then the redundancy's share,
 * times the median of metric in the same launches (the faster of the two
 * libraries' launches): net_sendrecv for the bytes the scheme must send off
 * a node (times off_node), or bare_scheme, the scheme's whole work on the
 * bytes without a library (bench/bare.h, times 1).  The redundancy cannot
 * start before the files are complete, and Start_output and the library's
 * own bookkeeping are left out, so no library is faster than this.  For
 * SINGLE, bare_scheme is a whole checkpoint already (the writes and two
 * agreements, bare_single): times 1 and no writes added.  Returns LLNL's
 * bandwidth at the floor over its measured one (the best ratio any library
 * could reach), or -1; *base is the metric's median. */
static double against_floor(size_t t, const char *metric, double times, double theirs,
                            double *floor, double *base)
{
    int whole = !strcmp(metric, "bare_scheme") && !strcmp(against[t].scheme, "SINGLE");
    double wo = whole ? 0 : median_of("whole.ours", against[t].scheme, "route_and_write");
    double wl = whole ? 0 : median_of("whole.llnl", against[t].scheme, "route_and_write");
    double no = median_of("whole.ours", against[t].scheme, metric);
    double nl = median_of("whole.llnl", against[t].scheme, metric);
    row_t *r = lookup("whole.llnl", against[t].scheme, "ckpt_bw");
    if (wo < 0 || wl < 0 || no < 0 || nl < 0 || !r || theirs <= 0)
        return -1;
    *base = no < nl ? no : nl;
    *floor = (wo < wl ? wo : wl) + times * *base;
    return (double)r->bytes * r->ranks / *floor / 1e9 / theirs;
}

/* the one-value row like r named metric, set to v when v > 0 */
static void set_against(const row_t *r, const char *metric, double v)
{
    row_t k = *r;
    snprintf(k.metric, sizeof(k.metric), "%s", metric);
    row_t *x = v > 0 ? find_row(&k) : NULL;
    if (x) {
        x->n = 1;
        x->s[0] = v;
    }
}

/* ours over LLNL's median aggregate bandwidth (bench/run --against) */
static void add_against_ratios(void)
{
    for (int i = 0, n = nrows; i < n; i++) {
        if (strcmp(rows[i].phase, "whole.ours") || strcmp(rows[i].metric, "ckpt_bw"))
            continue;
        double ours = median_of("whole.ours", rows[i].scheme, "ckpt_bw");
        double theirs = median_of("whole.llnl", rows[i].scheme, "ckpt_bw");
        if (ours <= 0 || theirs <= 0)
            continue;
        row_t r = rows[i];
        snprintf(r.phase, sizeof(r.phase), "against");
        snprintf(r.unit, sizeof(r.unit), "x");
        set_against(&r, "bw_over_llnl", ours / theirs);
        double floor, net;
        for (size_t t = 0; t < sizeof(against) / sizeof(against[0]); t++) {
            if (strcmp(against[t].scheme, r.scheme) != 0)
                continue;
            set_against(&r, "best_over_llnl",
                        against_floor(t, "net_sendrecv", against[t].off_node, theirs,
                                      &floor, &net));
            set_against(&r, "best_bare_over_llnl",
                        against_floor(t, "bare_scheme", 1, theirs, &floor, &net));
        }
    }
}

/* both libraries' medians of a per-repetition ratio to the bare work
 * (scr-ckpt.c), after "each repetition's <what>", when both launches have it */
static void print_paired(FILE *out, const char *scheme, const char *metric,
                         const char *what)
{
    double po = median_of("whole.ours", scheme, metric);
    double pl = median_of("whole.llnl", scheme, metric);
    if (po > 0 && pl > 0)
        fprintf(
            out,
            "           each repetition's %s, moments apart: ours %.2fx, LLNL %.2fx\n",
            what, po, pl);
}

/* SINGLE's bare floor: a whole checkpoint of nothing but the writes and
 * two agreements (bench/bare.h, bare_single), and each repetition's whole
 * checkpoint over the one timed moments later */
static void print_single_floor(FILE *out, double floor, double best, double ratio)
{
    fprintf(out,
            "           bare floor %.3f s (a checkpoint of nothing but the writes and "
            "two agreements, bench/bare.h): no library beats %.2fx LLNL here; ours "
            "reaches %.2f of it, LLNL %.2f\n",
            floor, best, ratio / best, 1 / best);
    print_paired(out, "SINGLE", "whole_over_bare",
                 "whole checkpoint over its own bare one");
}

static void print_against(FILE *out)
{
    int any = 0;
    for (size_t t = 0; t < sizeof(against) / sizeof(against[0]); t++) {
        double ours = median_of("whole.ours", against[t].scheme, "ckpt_bw");
        double theirs = median_of("whole.llnl", against[t].scheme, "ckpt_bw");
        if (ours < 0 || theirs < 0)
            continue;
        if (!any++)
            fprintf(out, "\nwhole checkpoint against LLNL SCR (median aggregate GB/s, "
                         "Start_output to Complete_output):\n");
        double ratio = ours / theirs;
        fprintf(out, "  %-8s ours %7.3f  LLNL %7.3f  ratio %6.3f  target >= %.1f  %s\n",
                against[t].scheme, ours, theirs, ratio, against[t].bound,
                ratio >= against[t].bound ? "met" : "MISSED");
        double mo = median_of("whole.ours", against[t].scheme, "extra_mem_per_rank");
        double ml = median_of("whole.llnl", against[t].scheme, "extra_mem_per_rank");
        if (mo >= 0 && ml >= 0)
            fprintf(out,
                    "           extra peak memory per rank (largest): ours %.1f MiB, "
                    "LLNL %.1f MiB\n",
                    mo, ml);
        mo = median_of("whole.ours", against[t].scheme, "extra_anon_per_rank");
        ml = median_of("whole.llnl", against[t].scheme, "extra_anon_per_rank");
        if (mo >= 0 && ml >= 0)
            fprintf(out,
                    "           of it anonymous (buffers, not mapped cache files): "
                    "ours %.1f MiB, LLNL %.1f MiB%s\n",
                    mo, ml, mo <= 2 * ml ? "" : "  (target within 2x: MISSED)");
        double floor, net,
            best = against_floor(t, "net_sendrecv", against[t].off_node, theirs, &floor,
                                 &net);
        if (best > 0)
            fprintf(
                out,
                "           floor %.3f s (the writes, then %.2fx net_sendrecv %.3f s): "
                "no library beats %.2fx LLNL here; ours reaches %.2f of the floor's "
                "bandwidth, LLNL %.2f\n",
                floor, against[t].off_node, net, best, ratio / best, 1 / best);
        double bare;
        best = against_floor(t, "bare_scheme", 1, theirs, &floor, &bare);
        double co = median_of("whole.ours", against[t].scheme, "complete_output");
        double cl = median_of("whole.llnl", against[t].scheme, "complete_output");
        if (best > 0 && !strcmp(against[t].scheme, "SINGLE"))
            print_single_floor(out, floor, best, ratio);
        else if (best > 0)
            fprintf(out,
                    "           bare floor %.3f s (the writes, then the scheme's work "
                    "alone %.3f s, bench/bare.h): no library beats %.2fx LLNL here; "
                    "ours reaches %.2f of it, LLNL %.2f; Complete_output ours %.3f s, "
                    "LLNL %.3f s\n",
                    floor, bare, best, ratio / best, 1 / best, co, cl);
        print_paired(out, against[t].scheme, "complete_over_bare",
                     "Complete_output (last writer) over its own bare work");
    }
}

/* one asynchronous scheme's step against the synchronous one: checkpoint
 * plus compute step, and whether the encode ended before the next Start */
static void print_async_step(FILE *out, const char *sc)
{
    double ca = median_of("whole.async", sc, "compute_s");
    double cs = median_of("whole.ours", sc, "compute_s");
    double ka = median_of("whole.async", sc, "ckpt_whole");
    double ks = median_of("whole.ours", sc, "ckpt_whole");
    double bg = median_of("whole.async", sc, "redundancy_bg");
    if (ca < 0 || cs < 0 || ka <= 0 || ks <= 0)
        return;
    double r = (ka + ca) / (ks + cs);
    fprintf(
        out,
        "\n           a step (checkpoint + compute) %.3f s against %.3f s synchronous: "
        "%.3fx (<= 1.05 %s)",
        ka + ca, ks + cs, r, r <= 1.05 ? "met" : "MISSED");
    if (bg > 0)
        fprintf(out, "; the encode ended %s the next checkpoint began",
                bg <= ka + ca ? "before" : "AFTER");
}

/* issue 16, item 4: asynchronous redundancy (bench/run --async) */
static void print_async(FILE *out)
{
    static const char *schemes[] = {"PARTNER", "XOR4", "XOR8", "RS2"};
    int any = 0;
    for (size_t t = 0; t < sizeof(schemes) / sizeof(schemes[0]); t++) {
        const char *sc = schemes[t];
        double bw = median_of("whole.async", sc, "ckpt_bw");
        if (bw < 0)
            continue;
        if (!any++)
            fprintf(out,
                    "\nasynchronous redundancy (SCR_REDUNDANCY_ASYNC=1; medians):\n");
        double sync = median_of("whole.ours", sc, "ckpt_bw");
        double llnl = median_of("whole.llnl", sc, "ckpt_bw");
        double comp = median_of("whole.async", sc, "complete_output");
        double start = median_of("whole.async", sc, "start_output");
        double base = median_of("ckpt", sc, "baseline_write_fsync");
        double bg = median_of("whole.async", sc, "redundancy_bg");
        /* PARTNER's copy is the whole of its cost: the target is XOR's and RS's */
        double want = strcmp(sc, "PARTNER") ? 2.0 : 1.5;
        fprintf(out, "  %-8s %7.3f GB/s, %.2fx synchronous", sc, bw,
                sync > 0 ? bw / sync : 0);
        if (llnl > 0)
            fprintf(out, ", %.2fx LLNL (target >= %.1f: %s)", bw / llnl, want,
                    bw / llnl >= want ? "met" : "MISSED");
        fprintf(out, "\n           Complete %.3f s", comp);
        if (base > 0)
            fprintf(out, " = %.3fx the baseline write (target <= 0.2: %s)", comp / base,
                    comp / base <= 0.2 ? "met" : "MISSED");
        double own = median_of("whole.async", sc, "complete_last_writer");
        if (base > 0 && own >= 0)
            fprintf(
                out,
                "\n           Complete of the last rank to finish writing %.3f s = %.3fx "
                "the baseline write (target <= 0.2: %s)",
                own, own / base, own / base <= 0.2 ? "met" : "MISSED");
        if (base > 0 && start >= 0)
            fprintf(out,
                    "\n           Start + Complete %.3f s = %.3fx the baseline write",
                    start + comp, (start + comp) / base);
        if (bg > 0)
            fprintf(out, "; encode done %.3f s after Start", bg);
        print_async_step(out, sc);
        fprintf(out, "\n");
    }
}

/* rebuild relative to the same scheme's encode (Complete) */
static void add_rebuild_ratios(void)
{
    for (int i = 0, n = nrows; i < n; i++) {
        if (strcmp(rows[i].phase, "rebuild") || strcmp(rows[i].metric, "rebuild"))
            continue;
        double enc = median_of("ckpt", rows[i].scheme, "complete_checkpoint");
        if (enc <= 0)
            continue;
        row_t r = rows[i];
        snprintf(r.metric, sizeof(r.metric), "rebuild_over_encode");
        snprintf(r.unit, sizeof(r.unit), "x");
        row_t *x = find_row(&r);
        if (!x)
            continue;
        x->n = rows[i].n;
        for (int k = 0; k < x->n; k++)
            x->s[k] = rows[i].s[k] / enc;
    }
}

static void print_table(FILE *out)
{
    fprintf(out, "%-8s %-8s %-5s %-26s %12s %12s %12s %s\n", "phase", "scheme", "ranks",
            "metric", "min", "median", "max", "unit");
    for (int i = 0; i < nrows; i++) {
        double a, m, c;
        if (rows[i].n == 0)
            continue;
        stats(&rows[i], &a, &m, &c);
        fprintf(out, "%-8s %-8s %-5d %-26s %12.4g %12.4g %12.4g %s\n", rows[i].phase,
                rows[i].scheme, rows[i].ranks, rows[i].metric, a, m, c, rows[i].unit);
    }
    fprintf(out, "\ntargets (medians):\n");
    for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
        double m = median_of(targets[t].phase, targets[t].scheme, targets[t].metric);
        int met = m >= 0 && (targets[t].op[0] == '<' ? m <= targets[t].bound
                                                     : m >= targets[t].bound);
        if (m < 0)
            fprintf(out, "  %-42s not measured\n", targets[t].what);
        else
            fprintf(out, "  %-42s %8.3f  %s\n", targets[t].what, m,
                    met ? "met" : "MISSED");
    }
    for (size_t t = 0; t < sizeof(mem_targets) / sizeof(mem_targets[0]); t++) {
        int seen = 0;
        for (int i = 0; i < nrows; i++) {
            if (strcmp(rows[i].phase, mem_targets[t].phase) ||
                strcmp(rows[i].metric, mem_targets[t].metric) || rows[i].n == 0)
                continue;
            double a, m, c;
            char what[96];
            stats(&rows[i], &a, &m, &c);
            int met = mem_targets[t].op[0] == '<' ? m <= mem_targets[t].bound
                                                  : m >= mem_targets[t].bound;
            snprintf(what, sizeof(what), "%s%s%s", mem_targets[t].what,
                     strcmp(rows[i].scheme, "-") ? " " : "",
                     strcmp(rows[i].scheme, "-") ? rows[i].scheme : "");
            fprintf(out, "  %-42s %8.3f  %s\n", what, m, met ? "met" : "MISSED");
            seen = 1;
        }
        /* the memory benchmarks are left out with --no-mem: say so once */
        if (!seen && t == 0)
            fprintf(out, "  %-42s not measured\n", "memory-protect API (issue 17)");
    }
    fprintf(out, "\ncontext (medians, no target):\n");
    for (size_t t = 0; t < sizeof(context) / sizeof(context[0]); t++) {
        for (int i = 0; i < nrows; i++) {
            if (strcmp(rows[i].phase, context[t].phase) ||
                strcmp(rows[i].metric, context[t].metric) || rows[i].n == 0 ||
                (context[t].scheme && strcmp(rows[i].scheme, context[t].scheme)))
                continue;
            double a, m, c;
            char what[96];
            stats(&rows[i], &a, &m, &c);
            snprintf(what, sizeof(what), "%s%s%s", context[t].what,
                     context[t].scheme || !strcmp(rows[i].scheme, "-") ? "" : " ",
                     context[t].scheme || !strcmp(rows[i].scheme, "-") ? ""
                                                                       : rows[i].scheme);
            fprintf(out, "  %-42s %8.3f\n", what, m);
        }
    }
}

static void write_json(FILE *out)
{
    fprintf(out, "[\n");
    for (int i = 0; i < nrows; i++) {
        double a, m, c;
        if (rows[i].n == 0)
            continue;
        stats(&rows[i], &a, &m, &c);
        fprintf(out,
                "  {\"phase\":\"%s\",\"scheme\":\"%s\",\"label\":\"%s\",\"ranks\":%d,"
                "\"bytes_per_rank\":%lld,\"metric\":\"%s\",\"unit\":\"%s\",\"n\":%d,"
                "\"min\":%.6g,\"median\":%.6g,\"max\":%.6g}%s\n",
                rows[i].phase, rows[i].scheme, rows[i].label, rows[i].ranks,
                rows[i].bytes, rows[i].metric, rows[i].unit, rows[i].n, a, m, c,
                i + 1 < nrows ? "," : "");
    }
    fprintf(out, "]\n");
}

/* bars of aggregate bandwidth (GB/s) per scheme: baseline write, SCR
 * Complete, cp to the prefix, flush */
static void write_svg(FILE *out)
{
    static const struct {
        const char *metric, *name, *color;
    } bars[] = {{"baseline_write_fsync", "write+fsync (baseline)", "#9e9e9e"},
                {"complete_checkpoint", "SCR_Complete_checkpoint", "#1f77b4"},
                {"cp_to_prefix", "cp to prefix (baseline)", "#c7c7c7"},
                {"flush", "SCR flush", "#ff7f0e"}};
    const char *schemes[16];
    int ns = 0;
    double maxbw = 0.1;
    for (int i = 0; i < nrows; i++) {
        if (strcmp(rows[i].phase, "ckpt") ||
            strcmp(rows[i].metric, "complete_checkpoint"))
            continue;
        if (ns < 16)
            schemes[ns++] = rows[i].scheme;
    }
    double bw[16][4];
    for (int s = 0; s < ns; s++)
        for (int k = 0; k < 4; k++) {
            row_t *r = lookup("ckpt", schemes[s], bars[k].metric);
            double m = median_of("ckpt", schemes[s], bars[k].metric);
            bw[s][k] = r && m > 0 ? (double)r->bytes * r->ranks / m / 1e9 : 0;
            maxbw = bw[s][k] > maxbw ? bw[s][k] : maxbw;
        }
    int w = 140 * (ns > 0 ? ns : 1) + 120, h = 360, base = 300;
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n",
            w, h + 60);
    fprintf(out,
            "<text x=\"10\" y=\"18\" font-size=\"14\">Aggregate bandwidth per scheme "
            "(GB/s, medians), next to the baselines</text>\n");
    fprintf(out, "<line x1=\"60\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
            base, w - 10, base);
    for (int t = 0; t <= 4; t++) {
        double v = maxbw * t / 4;
        int y = base - (int)(250.0 * t / 4);
        fprintf(out,
                "<text x=\"10\" y=\"%d\">%.2f</text><line x1=\"55\" y1=\"%d\" x2=\"%d\" "
                "y2=\"%d\" stroke=\"#eee\"/>\n",
                y + 4, v, y, w - 10, y);
    }
    for (int s = 0; s < ns; s++) {
        int x0 = 70 + 140 * s;
        for (int k = 0; k < 4; k++) {
            int bh = (int)(250.0 * bw[s][k] / maxbw);
            fprintf(out,
                    "<rect x=\"%d\" y=\"%d\" width=\"28\" height=\"%d\" fill=\"%s\">"
                    "<title>%s %s: %.3f GB/s</title></rect>\n",
                    x0 + 30 * k, base - bh, bh, bars[k].color, schemes[s], bars[k].name,
                    bw[s][k]);
        }
        fprintf(out, "<text x=\"%d\" y=\"%d\">%s</text>\n", x0 + 30, base + 16,
                schemes[s]);
    }
    for (int k = 0; k < 4; k++)
        fprintf(out,
                "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                "<text x=\"%d\" y=\"%d\">%s</text>\n",
                10 + 200 * (k % 2), base + 30 + 18 * (k / 2), bars[k].color,
                26 + 200 * (k % 2), base + 40 + 18 * (k / 2), bars[k].name);
    fprintf(out, "</svg>\n");
}

/* test_api's bounds: the best ratios over LLNL a library could reach if
 * every checkpoint took the scheme's floor in scr-ckpt's launches of this
 * run (against_floor: the writes, then the bytes sent off a node, or the
 * scheme's work alone, whichever is less: a bound must not be taken from
 * a floor that a noisy repetition pushed up), SCR_Init and SCR_Finalize
 * took no time (LLNL's, as scr-ckpt timed them, taken off), and the rest of
 * LLNL's launch (MPI's start and end, the busy steps) stayed as it is.  0
 * for none (the scheme's scr-ckpt launches did not run). */
static void tapi_bounds(size_t t, const char *pl, double cl, double ll, double *ckpt,
                        double *launch)
{
    double fn, fb, base, theirs = median_of("whole.llnl", against[t].scheme, "ckpt_bw");
    double sum = median_of(pl, against[t].scheme, "ckpt_all_s");
    double n = median_of(pl, against[t].scheme, "ckpt_count");
    *ckpt = *launch = 0;
    if (against_floor(t, "net_sendrecv", against[t].off_node, theirs, &fn, &base) <= 0)
        fn = 0;
    if (against_floor(t, "bare_scheme", 1, theirs, &fb, &base) <= 0)
        fb = 0;
    double floor = fn > 0 && (fb <= 0 || fn < fb) ? fn : fb;
    if (floor <= 0)
        return;
    *ckpt = cl / floor;
    double init = median_of("whole.llnl", against[t].scheme, "init");
    double fin = median_of("whole.llnl", against[t].scheme, "finalize");
    double rest = ll - sum - (init > 0 ? init : 0) - (fin > 0 ? fin : 0);
    if (sum > 0 && n > 0 && rest + n * floor > 0)
        *launch = ll / (rest + n * floor);
}

/* "met", or "bounded" when the bound (0: unknown) is under the target */
static const char *bound_verdict(double ratio, double target, double bound)
{
    return ratio >= target ? "met" : bound > 0 && bound < target ? "bounded" : "MISSED";
}

/* test_api's checkpoints once the cache has stopped growing (bench/tapi.sh,
 * ckpt_steady_s: from the fourth on), beside the median of all: the first
 * ones take pages the node has not held yet, which on some nodes cost
 * several times what the later ones reuse (bench/README.md) */
static void print_tapi_steady(FILE *out, const char *po, const char *pl,
                              const char *scheme)
{
    double so = median_of(po, scheme, "ckpt_steady_s");
    double sl = median_of(pl, scheme, "ckpt_steady_s");
    if (so > 0 && sl > 0)
        fprintf(out,
                "           from the fourth checkpoint on (the cache grown): ours "
                "%.3f LLNL %.3f: %.2fx\n",
                so, sl, sl / so);
}

/* SCR 3.1's test_api against each library (bench/tapi.sh): the median
 * checkpoint (rank 0's "Completed checkpoint" seconds) and the median
 * launch, LLNL's over ours (higher is better), back to back and with a
 * busy step between checkpoints, and below each the bounds (tapi_bounds) */
static void print_tapi(FILE *out)
{
    static const char *const modes[] = {"b2b", "busy"};
    int any = 0;
    for (size_t t = 0; t < sizeof(against) / sizeof(against[0]); t++)
        for (int m = 0; m < 2; m++) {
            char po[32], pl[32];
            snprintf(po, sizeof(po), "tapi.%s.ours", modes[m]);
            snprintf(pl, sizeof(pl), "tapi.%s.llnl", modes[m]);
            double co = median_of(po, against[t].scheme, "ckpt_s");
            double cl = median_of(pl, against[t].scheme, "ckpt_s");
            double lo = median_of(po, against[t].scheme, "launch_s");
            double ll = median_of(pl, against[t].scheme, "launch_s");
            if (co <= 0 || cl <= 0 || lo <= 0 || ll <= 0)
                continue;
            if (!any++)
                fprintf(out,
                        "\nSCR 3.1's test_api against LLNL SCR (median seconds; LLNL "
                        "over ours):\n");
            double bc, bl;
            tapi_bounds(t, pl, cl, ll, &bc, &bl);
            fprintf(out,
                    "  %-8s %-4s checkpoint ours %6.3f LLNL %6.3f: %5.2fx (>= %.1f %s)  "
                    "launch ours %6.2f LLNL %6.2f: %5.2fx (>= 1.2 %s)\n",
                    against[t].scheme, modes[m], co, cl, cl / co, against[t].bound,
                    bound_verdict(cl / co, against[t].bound, bc), lo, ll, ll / lo,
                    bound_verdict(ll / lo, 1.2, bl));
            if (bc > 0)
                fprintf(out,
                        "           every checkpoint at its floor would give: "
                        "checkpoint %.2fx, launch %.2fx (with SCR_Init and SCR_Finalize "
                        "at no cost)\n",
                        bc, bl);
            print_tapi_steady(out, po, pl, against[t].scheme);
        }
}

/* one restart measure of both libraries: -1 if either is missing */
static int restart_pair(const char *scheme, const char *kind, const char *part, double *o,
                        double *l)
{
    char m[48];
    snprintf(m, sizeof(m), "restart_%s%s_s", kind, part);
    *o = median_of("whole.ours", scheme, m);
    *l = median_of("whole.llnl", scheme, m);
    return *o > 0 && *l > 0 ? 0 : -1;
}

/* what our restart launches measured beside the restarts (medians, 0
 * when not measured): the lost node's bytes arriving on the spare
 * (bench/bare.h, bare_arrive), XOR's chain that brings them there
 * (bare_xor_rebuild), and the fetch's cold cp of the same bytes, twice at
 * once and once as long after the eviction as the fetch (cpp, after pause
 * seconds; scr-ckpt.c, restart_cp_baseline) */
typedef struct {
    double arrive, chain, cp, cp2, cpp, pause;
} restart_floors_t;

static restart_floors_t restart_floors(const char *sc)
{
    restart_floors_t f = {median_of("whole.ours", sc, "restart_rebuild_arrive_s"),
                          median_of("whole.ours", sc, "restart_rebuild_bare_s"),
                          median_of("whole.ours", sc, "restart_fetch_cp_s"),
                          median_of("whole.ours", sc, "restart_fetch_cp2_s"),
                          median_of("whole.ours", sc, "restart_fetch_cp_paused_s"),
                          median_of("whole.ours", sc, "restart_fetch_pause_s")};
    return f;
}

/* the rebuild's floor: our restart outside SCR's calls (MPI's start, the
 * application's reads, the same for any library) plus the lost node's
 * bytes arriving on the spare, what any library's rebuild must at least
 * do; the best ratio over LLNL a library could reach here, whole and in
 * SCR's calls */
static void print_rebuild_floor(FILE *out, const restart_floors_t *f, double o, double l,
                                double so, double sl)
{
    double a = f->arrive;
    if (a <= 0 || so <= 0 || sl <= 0)
        return;
    double floor = o - so + a;
    fprintf(out,
            "  floor %.3f s (outside SCR's calls %.3f, then the lost node's bytes "
            "arriving on the spare %.3f s): no library beats %.2fx LLNL here, %.2fx in "
            "SCR's calls; ours reaches %.2f of the floor",
            floor, o - so, a, l / floor, sl / a, floor / o);
    double x = f->chain;
    if (x > 0)
        fprintf(out,
                "; bare floor %.3f s (outside SCR's calls, then the chain of XORs that "
                "brings those bytes there %.3f s, bench/bare.h): no library beats %.2fx "
                "LLNL here, %.2fx in SCR's calls; ours reaches %.2f of it",
                o - so + x, x, l / (o - so + x), sl / x, (o - so + x) / o);
}

/* issue 39, item 1: our rebuild in SCR's calls (so seconds) over our own
 * encode, the last writer's SCR_Complete_output in the same run's whole
 * checkpoints (the redundancy the application waits for, without the wait
 * for slower writers) */
static void print_rebuild_encode(FILE *out, const char *sc, double so)
{
    double e = median_of("whole.ours", sc, "complete_last_writer");
    if (e <= 0 || so <= 0)
        return;
    fprintf(out,
            "; over our encode (the last writer's Complete_output, %.3f s): %.2fx "
            "(<= 1.2 %s)",
            e, so / e, so / e <= 1.2 ? "met" : "MISSED");
}

/* The best ratio over LLNL any library could reach in a restart of kind k
 * (0: unknown), from our launch: o seconds, so of them in SCR's calls.
 * Outside SCR's calls (MPI's start, the application's reads) is the same
 * for any library; then nothing more from the cache, the lesser of the two
 * cold cps of the same bytes for a fetch, and for a rebuild the chain of
 * XORs that brings the lost bytes to the spare (XOR; bench/bare.h) or those
 * bytes arriving there (the others). */
static double restart_bound(const restart_floors_t *f, int k, double o, double l,
                            double so)
{
    double floor = o - so;
    if (so <= 0 || floor <= 0)
        return 0;
    if (k == 1) {
        if (f->chain <= 0 && f->arrive <= 0)
            return 0;
        floor += f->chain > 0 ? f->chain : f->arrive;
    } else if (k == 2) {
        if (f->cp <= 0)
            return 0;
        floor += f->cpp > 0 ? f->cpp : f->cp2 > 0 && f->cp2 < f->cp ? f->cp2 : f->cp;
    }
    return l / floor;
}

/* the fetch in SCR's calls (so) over the cold cp of the same bytes: the
 * one as long after its eviction as the fetch when measured (the verdict),
 * and the one at once, with that cp's own spread */
static void print_fetch_cp(FILE *out, const restart_floors_t *f, double so)
{
    double cp = f->cpp > 0 ? f->cpp : f->cp;
    if (cp <= 0 || so <= 0)
        return;
    if (f->cpp > 0)
        fprintf(out, "  cp %.3f (%.2f s after its eviction, as the fetch)", cp, f->pause);
    else
        fprintf(out, "  cp %.3f", cp);
    fprintf(out, ": ours in SCR %.2fx cp (<= 1.0 %s)", so / cp,
            so / cp <= 1.0 ? "met" : "MISSED");
    if (f->cpp > 0 && f->cp > 0)
        fprintf(out, "; %.2fx the cp at once (%.3f)", so / f->cp, f->cp);
    if (f->cp > 0 && f->cp2 > 0)
        fprintf(out,
                "; the same cold cp at once again %.3f (%.2fx: the measure's spread)",
                f->cp2, f->cp2 / f->cp);
}

/* issue 39, item 1: restarts side by side (bench/run's restarts, scr-ckpt
 * --restart): MPI_Init to the end of SCR_Complete_restart on the slowest
 * rank, from the cache, after a lost node (rebuild) and from the prefix
 * (fetch), the share in SCR's calls and SCR_Init's, the fetch's cp, and
 * the bound (restart_bound) that makes a miss "bounded" */
static void print_restarts(FILE *out)
{
    static const char *const kinds[] = {"cache", "rebuild", "fetch"};
    static const char *const floors[] = {
        "outside SCR's calls: MPI's start, the application's reads", "",
        ("outside SCR's calls, then the cold cp as long after its eviction as the "
         "fetch, else the lesser of the two at once")};
    int any = 0;
    for (size_t t = 0; t < sizeof(against) / sizeof(against[0]); t++)
        for (int k = 0; k < 3; k++) {
            const char *sc = against[t].scheme;
            double o, l, io, il, so = -1, sl = -1;
            if (restart_pair(sc, kinds[k], "", &o, &l) < 0)
                continue;
            if (!any++)
                fprintf(out, "\nrestart, MPI_Init to the end of SCR_Complete_restart "
                             "(median seconds; LLNL over ours; in SCR's calls, of which "
                             "SCR_Init):\n");
            restart_pair(sc, kinds[k], "_scr", &so, &sl);
            restart_floors_t f = restart_floors(sc);
            double bound = restart_bound(&f, k, o, l, so);
            fprintf(out, "  %-8s %-8s ours %7.3f  LLNL %7.3f: %5.2fx (>= 1.5 %s)", sc,
                    kinds[k], o, l, l / o, bound_verdict(l / o, 1.5, bound));
            if (so > 0 && sl > 0)
                fprintf(out, "  in SCR ours %.3f, LLNL %.3f: %.2fx", so, sl, sl / so);
            if (restart_pair(sc, kinds[k], "_init", &io, &il) == 0)
                fprintf(out, "  SCR_Init ours %.3f, LLNL %.3f", io, il);
            if (k == 1) {
                print_rebuild_floor(out, &f, o, l, so, sl);
                print_rebuild_encode(out, sc, so);
            } else if (bound > 0)
                fprintf(out, "  floor %.3f s (%s): no library beats %.2fx LLNL here",
                        l / bound, floors[k], bound);
            if (k == 2)
                print_fetch_cp(out, &f, so);
            fprintf(out, "\n");
        }
}

/* what a background flush takes from a node whose every core runs a rank:
 * its copies' CPU (all ranks, FLUSH_END's cpu=) against a bare copy's,
 * and as a share of the cores' time in a compute step of cb seconds */
static void print_flush_cpu(FILE *out, const char *sc, double cb)
{
    double fc = median_of("whole.aflush.ours", sc, "flush_cpu_s"),
           bc = median_of("whole.bflush", sc, "bare_flush_cpu_s");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (fc <= 0 || cores < 1)
        return;
    fprintf(
        out,
        "  %-8s background, ours: the copies' CPU %.3f s, %.1f %% of %ld cores' %.3f s",
        sc, fc, fc / (cb * (double)cores) * 100, cores, cb);
    if (bc > 0)
        fprintf(out, "; a bare copy's %.3f s, %.1f %% (ours %.2fx it)", bc,
                bc / (cb * (double)cores) * 100, fc / bc);
    fprintf(out, "\n");
}

/* issue 39, item 2: checkpoints flushed in the foreground (checkpoint +
 * flush, LLNL over ours), and in the background: the compute step's wall
 * time against the same library's launch without a flush, its floor (a
 * bare flush's copy over the same step, bench/bareflush.h), and how long
 * our flush ran against two checkpoint intervals */
static void print_flush(FILE *out)
{
    int any = 0;
    for (size_t t = 0; t < sizeof(against) / sizeof(against[0]); t++) {
        const char *sc = against[t].scheme;
        double fo = median_of("whole.flush.ours", sc, "ckpt_whole");
        double fl = median_of("whole.flush.llnl", sc, "ckpt_whole");
        if (fo <= 0 || fl <= 0)
            continue;
        if (!any++)
            fprintf(out, "\nflush of every checkpoint (medians; LLNL over ours):\n");
        fprintf(out,
                "  %-8s foreground: checkpoint + flush ours %.3f s, LLNL %.3f s: %.2fx "
                "(>= 1.3 %s)\n",
                sc, fo, fl, fl / fo, fl / fo >= 1.3 ? "met" : "MISSED");
        static const char *const impls[] = {"ours", "llnl"};
        for (int i = 0; i < 2; i++) {
            char ph[32], base[32];
            snprintf(ph, sizeof(ph), "whole.aflush.%s", impls[i]);
            snprintf(base, sizeof(base), "whole.%s", impls[i]);
            double ca = median_of(ph, sc, "compute_s"),
                   cb = median_of(base, sc, "compute_s");
            if (ca <= 0 || cb <= 0)
                continue;
            double slow = (ca / cb - 1) * 100;
            fprintf(out,
                    "  %-8s background, %s: compute step %.3f s against %.3f s without "
                    "a flush: %+.1f %%",
                    sc, impls[i], ca, cb, slow);
            if (i == 0)
                fprintf(out, " (<= 5 %% %s)", slow <= 5 ? "met" : "MISSED");
            double bf = median_of("whole.bflush", sc, "compute_s");
            if (i == 0 && bf > 0)
                fprintf(out, "; floor, a bare flush's copy: %+.1f %%",
                        (bf / cb - 1) * 100);
            double fs = median_of(ph, sc, "flush_s"),
                   ck = median_of(ph, sc, "ckpt_whole");
            if (fs > 0 && ck > 0)
                fprintf(out, "; a flush took %.3f s, %.2f checkpoint intervals (<= 2 %s)",
                        fs, fs / (ck + ca), fs / (ck + ca) <= 2 ? "met" : "MISSED");
            fprintf(out, "\n");
            if (i == 0)
                print_flush_cpu(out, sc, cb);
        }
    }
}

/* a checkpoint's cost for the efficiency table: test_api's back-to-back
 * median when it ran, else scr-ckpt's whole checkpoint; -1 for none */
static double eff_cost(const char *impl, const char *scheme)
{
    char ph[32];
    snprintf(ph, sizeof(ph), "tapi.b2b.%s", impl);
    double c = median_of(ph, scheme, "ckpt_s");
    snprintf(ph, sizeof(ph), "whole.%s", impl);
    return c > 0 ? c : median_of(ph, scheme, "ckpt_whole");
}

/* the cost of a restart after a node failure: the rebuild (PARTNER, XOR,
 * RS) or the fetch (SINGLE) as measured here, MPI_Init to the end of
 * SCR_Complete_restart; else one checkpoint */
static double eff_restart(const char *impl, const char *scheme, double ckpt)
{
    char ph[32];
    snprintf(ph, sizeof(ph), "whole.%s", impl);
    double r = median_of(ph, scheme, "restart_rebuild_s");
    if (r <= 0)
        r = median_of(ph, scheme, "restart_fetch_s");
    return r > 0 ? r : ckpt;
}

static const double eff_years[] = {1, 5, 20};
static const int eff_nodes[] = {128, 1024, 16384};

/* the lost share of machine time (0..1) of impl's scheme at node MTBF
 * years y and nodes n (indexes), or -1 without a measured checkpoint */
static double eff_lost(const char *impl, const char *scheme, int y, int n)
{
    double c = eff_cost(impl, scheme);
    if (c <= 0)
        return -1;
    double m = interval_job_mtbf(eff_years[y] * 365 * 86400, eff_nodes[n]);
    return interval_waste(interval_optimal(c, m), c, eff_restart(impl, scheme, c), m);
}

/* issue 39, item 5: the share of machine time each library loses to
 * resilience at Daly's interval (interval.h), with the checkpoint and
 * restart costs measured here held flat as the job grows */
static void print_efficiency(FILE *out)
{
    int any = 0;
    for (size_t t = 0; t < sizeof(against) / sizeof(against[0]); t++) {
        const char *sc = against[t].scheme;
        if (eff_lost("ours", sc, 0, 0) < 0 || eff_lost("llnl", sc, 0, 0) < 0)
            continue;
        if (!any++)
            fprintf(out,
                    "\nmachine time lost to resilience at Daly's interval, ours / "
                    "LLNL (%%; checkpoint and restart costs as measured here, flat "
                    "with scale; restart: the rebuild, SINGLE the fetch):\n"
                    "  %-8s %-9s %15s %15s %15s\n",
                    "scheme", "node MTBF", "128 nodes", "1024 nodes", "16384 nodes");
        for (int y = 0; y < 3; y++) {
            fprintf(out, "  %-8s %6.0f y ", sc, eff_years[y]);
            for (int n = 0; n < 3; n++)
                fprintf(out, "  %6.3f / %6.3f", 100 * eff_lost("ours", sc, y, n),
                        100 * eff_lost("llnl", sc, y, n));
            fprintf(out, "\n");
        }
    }
}

/* the same as a chart in the style of `scr report` (cmd/report_svg.c): a
 * panel per scheme, a pair of bars (ours, LLNL) per node MTBF and job size,
 * each panel scaled to its own largest share */
static void write_eff_svg(FILE *out)
{
    const char *sc[16];
    int ns = 0;
    for (size_t t = 0; t < sizeof(against) / sizeof(against[0]) && ns < 16; t++)
        if (eff_lost("ours", against[t].scheme, 0, 0) >= 0 &&
            eff_lost("llnl", against[t].scheme, 0, 0) >= 0)
            sc[ns++] = against[t].scheme;
    const int W = 1000, LEFT = 110, PH = 150, TOP = 40;
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n"
            "<text x=\"10\" y=\"20\" font-size=\"14\">Machine time lost to resilience "
            "at Daly's interval (%%): ours and LLNL SCR 3.1</text>\n",
            W, TOP + PH * (ns > 0 ? ns : 1) + 40);
    double gw = (W - LEFT - 24) / 9.0;
    for (int s = 0; s < ns; s++) {
        int y0 = TOP + PH * s, base = y0 + PH - 40;
        double top = 0;
        for (int y = 0; y < 3; y++)
            for (int n = 0; n < 3; n++)
                for (int i = 0; i < 2; i++) {
                    double v = eff_lost(i ? "llnl" : "ours", sc[s], y, n);
                    top = v > top ? v : top;
                }
        top = top > 0 ? top : 1;
        fprintf(out,
                "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>"
                "<text x=\"10\" y=\"%d\">%.2f %%</text>"
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n",
                y0 + 14, sc[s], y0 + 28, 100 * top, LEFT, base, W - 24, base);
        for (int y = 0; y < 3; y++)
            for (int n = 0; n < 3; n++) {
                double x = LEFT + gw * (3 * y + n);
                for (int i = 0; i < 2; i++) {
                    double v = eff_lost(i ? "llnl" : "ours", sc[s], y, n);
                    double h = (PH - 60) * v / top;
                    fprintf(out,
                            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                            "fill=\"%s\"><title>%s, %s, node MTBF %.0f y, %d nodes: "
                            "%.3f %%</title></rect>\n",
                            x + 8 + i * (gw / 2 - 8), base - h, gw / 2 - 10, h,
                            i ? "#ff7f0e" : "#1f77b4", sc[s], i ? "LLNL" : "ours",
                            eff_years[y], eff_nodes[n], 100 * v);
                }
                fprintf(out,
                        "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d nodes"
                        "<tspan x=\"%.1f\" dy=\"12\">MTBF %.0f y</tspan></text>\n",
                        x + gw / 2, base + 13, eff_nodes[n], x + gw / 2, eff_years[y]);
            }
    }
    int ly = TOP + PH * (ns > 0 ? ns : 1) + 4;
    fprintf(out,
            "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#1f77b4\"/>"
            "<text x=\"%d\" y=\"%d\">ours</text>"
            "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#ff7f0e\"/>"
            "<text x=\"%d\" y=\"%d\">LLNL SCR 3.1</text></svg>\n",
            LEFT, ly, LEFT + 16, ly + 10, LEFT + 80, ly, LEFT + 96, ly + 10);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: scr-bench-report LINES.json RESULTS.json CHART.svg\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    read_lines(in);
    fclose(in);
    add_rebuild_ratios();
    add_against_ratios();
    print_table(stdout);
    print_against(stdout);
    print_tapi(stdout);
    print_restarts(stdout);
    print_flush(stdout);
    print_efficiency(stdout);
    print_async(stdout);
    FILE *js = fopen(argv[2], "w"), *svg = fopen(argv[3], "w");
    if (!js || !svg) {
        perror("scr-bench-report: output");
        return 1;
    }
    write_json(js);
    write_svg(svg);
    fclose(js);
    fclose(svg);
    /* efficiency.svg beside the chart */
    char eff[4096];
    const char *slash = strrchr(argv[3], '/');
    snprintf(eff, sizeof(eff), "%.*sefficiency.svg",
             slash ? (int)(slash - argv[3] + 1) : 0, argv[3]);
    FILE *ef = fopen(eff, "w");
    if (!ef) {
        perror(eff);
        return 1;
    }
    write_eff_svg(ef);
    fclose(ef);
    return 0;
}
