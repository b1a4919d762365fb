/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_report.c - `scr report`: what the event log of a prefix says about
 * its jobs, as a one-screen summary on stdout, and with --html a page (or
 * with --svg a chart) of every checkpoint, flush, restart and failure over
 * time.
 *
 *   scr report [--prefix DIR] [--job ID] [--mtbf DURATION]
 *              [--html FILE | --svg FILE]
 *
 * The log is <prefix>/.scr/log (SCR_LOG_ENABLE=1).  Exit status 1 when it
 * does not exist, cannot be read or holds no events (of job ID).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "report_html.h"
#include "interval.h"
#include "report_model.h"
#include "report_text.h"

typedef struct {
    const char *prefix, *job, *html, *svg, *mtbf;
} report_opts_t;

static int report_args(int argc, char **argv, report_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->prefix = getenv("SCR_PREFIX");
    for (int i = 1; i < argc; i++) {
        const char **slot = !strcmp(argv[i], "--prefix") ? &o->prefix
                            : !strcmp(argv[i], "--job")  ? &o->job
                            : !strcmp(argv[i], "--html") ? &o->html
                            : !strcmp(argv[i], "--svg")  ? &o->svg
                            : !strcmp(argv[i], "--mtbf") ? &o->mtbf
                                                         : NULL;
        if (!slot || i + 1 >= argc || !*argv[i + 1])
            return -1;
        *slot = argv[++i];
    }
    return o->html && o->svg ? -1 : 0;
}

/* the log of o's prefix into r; -1 after saying why */
static int report_load(const report_opts_t *o, const char *path, rep_t *r)
{
    FILE *fp = fopen(path, "re");
    if (!fp) {
        if (errno == ENOENT)
            fprintf(stderr,
                    "scr report: no event log at %s (SCR_LOG_ENABLE=1 writes one)\n",
                    path);
        else
            fprintf(stderr, "scr report: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = rep_load(fp, o->job, r);
    int rerr = ferror(fp);
    fclose(fp);
    if (rc < 0 || rerr) {
        fprintf(stderr, "scr report: reading %s: %s\n", path,
                rc < 0 ? "out of memory" : "read error");
        return -1;
    }
    if (r->events == 0) {
        if (o->job)
            fprintf(stderr, "scr report: %s has no events of job %s\n", path, o->job);
        else if (r->stats.lines == 0)
            fprintf(stderr, "scr report: the event log %s is empty\n", path);
        else
            fprintf(stderr, "scr report: %s has no events (%ld lines, none readable)\n",
                    path, r->stats.lines);
        return -1;
    }
    return 0;
}

/* one node's MTBF from --mtbf, else SCR_MTBF, and the job's from
 * SCR_MTBF_JOB; -1 after saying which is malformed */
static int report_mtbf(const report_opts_t *o, rep_t *r)
{
    const char *node = o->mtbf ? o->mtbf : getenv("SCR_MTBF");
    const char *job = o->mtbf ? NULL : getenv("SCR_MTBF_JOB");
    r->mtbf_node = node && *node ? interval_parse_seconds(node) : 0;
    r->mtbf_job = job && *job ? interval_parse_seconds(job) : 0;
    if (r->mtbf_node >= 0 && r->mtbf_job >= 0)
        return 0;
    fprintf(stderr,
            "scr report: %s=%s: not a duration (seconds, or a number with s, m, h, d "
            "or y)\n",
            r->mtbf_node < 0 ? (o->mtbf ? "--mtbf" : "SCR_MTBF") : "SCR_MTBF_JOB",
            r->mtbf_node < 0 ? node : job);
    return -1;
}

/* the page or chart into file, through a temporary name so a reader never
 * sees half of it */
static int report_write(const report_opts_t *o, const rep_t *r, const char *path,
                        const char *summary)
{
    const char *file = o->html ? o->html : o->svg;
    char tmp[4200];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", file, (long)getpid());
    FILE *out = fopen(tmp, "we");
    if (!out) {
        fprintf(stderr, "scr report: cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    if (o->html)
        report_html(out, r, path, summary);
    else
        report_svg(out, r->jobs, r->njobs, 1);
    int bad = ferror(out);
    if (fclose(out) != 0 || bad || rename(tmp, file) < 0) {
        fprintf(stderr, "scr report: cannot write %s: %s\n", file, strerror(errno));
        unlink(tmp);
        return -1;
    }
    fprintf(stderr, "scr report: wrote %s\n", file);
    return 0;
}

int cmd_report(int argc, char **argv)
{
    report_opts_t o;
    char cwd[4096], path[4200];
    if (report_args(argc, argv, &o) < 0)
        return cmd_usage("report");
    if (!o.prefix || !*o.prefix)
        o.prefix = getcwd(cwd, sizeof(cwd)) ? cwd : ".";
    snprintf(path, sizeof(path), "%s/.scr/log", o.prefix);
    rep_t r;
    memset(&r, 0, sizeof(r));
    if (report_load(&o, path, &r) < 0) {
        rep_free(&r);
        return 1;
    }
    if (report_mtbf(&o, &r) < 0) {
        rep_free(&r);
        return 1;
    }
    char *summary = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&summary, &len);
    if (mem) {
        report_text(mem, &r, path);
        fclose(mem);
    }
    fputs(summary ? summary : "", stdout);
    fflush(stdout);
    int rc = (o.html || o.svg) && report_write(&o, &r, path, summary ? summary : "") < 0;
    free(summary);
    rep_free(&r);
    return rc;
}
