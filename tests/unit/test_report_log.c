/* SPDX-License-Identifier: BSD-3-Clause */
/* test_report_log.c - `scr report`'s reading of the event log: good lines
 * old and new, every kind of bad line skipped and counted, and the jobs,
 * runs, checkpoints, flushes, restarts and failures rebuilt from them */
#include <stdlib.h>
#include <string.h>

#include "report_log.h"
#include "report_model.h"
#include "report_sum.h"
#include "tap.h"

#define H "2026-01-10T10:00:00 1768039200 "

static int parses(const char *line)
{
    rlog_event_t ev;
    return rlog_parse_line(line, &ev) == 0;
}

static void test_lines(void)
{
    rlog_event_t ev;
    int v;
    uint64_t u;
    double d;
    ok(rlog_parse_line(H "event=RUN_START job=7 user=u host=n1 ranks=8\n", &ev) == 0,
       "an old line (no time=)");
    ok(!strcmp(ev.event, "RUN_START") && ev.t == 1768039200.0, "event and whole seconds");
    ok(rlog_get_int(&ev, "ranks", &v) == 0 && v == 8, "ranks=8");
    ok(!strcmp(rlog_get(&ev, "host"), "n1"), "host");
    ok(rlog_get(&ev, "nodes") == NULL && rlog_get_int(&ev, "nodes", &v) < 0,
       "a key the line lacks");
    ok(rlog_parse_line(H "event=FLUSH_END job=7 user=u host=n1 time=1768039200.250 "
                         "bytes=18446744073709551615 secs=0.5 mbps=x ok=1\r\n",
                       &ev) == 0,
       "a new line with time=, CRLF");
    ok(ev.t == 1768039200.25, "time= gives the milliseconds");
    ok(rlog_get_u64(&ev, "bytes", &u) == 0 && u == UINT64_MAX, "64-bit bytes");
    ok(rlog_get_double(&ev, "secs", &d) == 0 && d == 0.5, "secs");
    ok(rlog_get_double(&ev, "mbps", &d) < 0, "a value that is not a number");
    ok(parses(H "event=DATASET_START job=7 user=u host=n name=my ckpt flags=1"),
       "a name with a blank: the stray word is passed over");
    ok(parses(H "event=INDEX job=7 user=u host=n dset=3 "),
       "trailing blank (the epilog's)");
    ok(rlog_parse_line(H "event=X job=7 time=junk", &ev) == 0 && ev.t == 1768039200.0,
       "a bad time= falls back to the unix time");

    ok(!parses(""), "empty line");
    ok(!parses("\n"), "blank line");
    ok(!parses("garbage here"), "garbage");
    ok(!parses("2026-01-10T10:00:00 event=RUN_START job=7"), "no unix time");
    ok(!parses("2026-01-10T10:00:00 -5 event=RUN_START job=7"), "negative unix time");
    ok(!parses("x026-01-10T10:00:00 5 event=RUN_START job=7"), "bad stamp");
    ok(!parses(H "job=7 user=u host=n"), "no event=");
    ok(!parses(H "event=RUN_START user=u host=n"), "no job=");
    ok(!parses(H "event=run_start job=7"), "lowercase event name");
    ok(!parses(H "event= job=7"), "empty event name");
    ok(!parses(H "event=RUN_START job="), "empty job");
    ok(!parses(H "event=RUN_\x01START job=7"), "a control character");
    ok(!parses(H "event=DATASET_E"), "a line cut short by a crash");
    char *big = malloc(RLOG_MAX_LINE + 100);
    memset(big, 'a', RLOG_MAX_LINE + 99);
    memcpy(big, H "event=X job=7 k=", strlen(H "event=X job=7 k="));
    big[RLOG_MAX_LINE + 99] = '\0';
    ok(!parses(big), "a line longer than %d bytes", RLOG_MAX_LINE);
    free(big);
}

static int count_cb(const rlog_event_t *ev, void *arg)
{
    (void)ev;
    (*(int *)arg)++;
    return 0;
}

static void test_read(void)
{
    static const char text[] = H "event=RUN_START job=7\n"
                                 "junk\n" H "event=RUN_END job=7\n"
                                 "\n" H "event=BAD\0NUL job=7\n" H "event=X job=7";
    FILE *fp = fmemopen((void *)text, sizeof(text) - 1, "r");
    rlog_stats_t st;
    int n = 0;
    ok(rlog_read(fp, count_cb, &n, &st) == 0, "read");
    fclose(fp);
    ok(n == 3 && st.lines == 6 && st.bad == 3 && st.first_bad == 2,
       "3 events, 3 bad of 6 lines, the first bad is line 2 (%d %ld %ld %ld)", n,
       st.lines, st.bad, st.first_bad);
}

static void test_garbage(void)
{
    char line[200];
    rlog_event_t ev;
    int good = 0;
    srand(42);
    for (int i = 0; i < 20000; i++) {
        int len = rand() % (int)sizeof(line);
        for (int k = 0; k < len; k++)
            line[k] = (char)(rand() % 256);
        line[len] = '\0';
        if (i % 2) /* a good start, then noise */
            memcpy(line, H "event=DATASET_END job=1 dset=", len > 50 ? 50 : len);
        good += rlog_parse_line(line, &ev) == 0;
    }
    ok(1, "20000 random lines parsed without a crash (%d taken)", good);
}

/* a job: run 1 checkpoints twice, flushes one, is killed in its third;
 * run 2 restarts from the rebuilt cache, checkpoints, its background
 * redundancy fails once; the epilog scavenges; run 3 fetches and ends */
static const char job_log[] =
    "2026-01-10T10:00:00 100 event=RUN_START job=7 user=u host=n1 ranks=8 nodes=4 "
    "restart=-1 init_secs=0.5\n"
    "2026-01-10T10:00:01 101 event=DATASET_START job=7 user=u host=n1 dset=1 name=s.2 "
    "flags=1\n"
    "2026-01-10T10:00:01 101 event=DATASET_END job=7 user=u host=n1 dset=1 name=s.2 "
    "bytes=1000000 secs=0.5 ok=1 type=XOR flags=1\n"
    "2026-01-10T10:00:02 102 event=DATASET_START job=7 user=u host=n1 dset=2 name=s.4 "
    "flags=1\n"
    "2026-01-10T10:00:02 102 event=DATASET_END job=7 user=u host=n1 dset=2 name=s.4 "
    "bytes=3000000 secs=1.5 ok=1\n"
    "2026-01-10T10:00:02 102 event=FLUSH_START job=7 user=u host=n1 dset=2 mode=sync\n"
    "2026-01-10T10:00:03 103 event=FLUSH_END job=7 user=u host=n1 dset=2 bytes=3000000 "
    "secs=1.0 mbps=3.0 ok=1\n"
    "not an event\n"
    "2026-01-10T10:00:04 104 event=DATASET_START job=7 user=u host=n1 dset=3 name=s.6 "
    "flags=1\n"
    "2026-01-10T10:00:09 109 event=REBUILD job=7 user=u host=n2 dset=3 lost_ranks=0 "
    "secs=0 ok=0\n"
    "2026-01-10T10:00:09 109 event=REBUILD job=7 user=u host=n2 dset=11 lost_ranks=0 "
    "secs=0 ok=0 never_completed=1\n"
    "2026-01-10T10:00:09 109 event=REBUILD job=7 user=u host=n2 dset=2 lost_ranks=2 "
    "secs=0.1 ok=1\n"
    "2026-01-10T10:00:09 109 event=REBUILD job=7 user=u host=n2 dset=1 lost_ranks=0 "
    "secs=0.1 ok=1\n"
    "2026-01-10T10:00:09 109 event=RUN_START job=7 user=u host=n2 ranks=8 nodes=4 "
    "restart=2\n"
    "2026-01-10T10:00:09 109 event=RESTART job=7 user=u host=n2 dset=2 name=s.4\n"
    "2026-01-10T10:00:10 110 event=DATASET_START job=7 user=u host=n2 dset=3 name=s.6 "
    "flags=1\n"
    "2026-01-10T10:00:10 110 event=DATASET_END job=7 user=u host=n2 dset=3 name=s.6 "
    "bytes=1000000 secs=0.25 ok=1 type=PARTNER flags=1 redundancy=background\n"
    "2026-01-10T10:00:11 111 event=REDUNDANCY_END job=7 user=u host=n2 dset=3 name=s.6 "
    "type=PARTNER secs=1 ok=0\n"
    "2026-01-10T10:00:12 112 event=DATASET_START job=7 user=u host=n2 dset=4 name=out "
    "flags=2\n"
    "2026-01-10T10:00:12 112 event=DATASET_END job=7 user=u host=n2 dset=4 name=out "
    "bytes=10 secs=0.001 ok=1 type=XOR flags=2\n"
    "2026-01-10T10:00:12 112 event=SOMETHING_NEW job=7 user=u host=n2\n"
    "2026-01-10T10:00:20 120 event=SCAVENGE job=7 user=u host=n3 dset=2 files=4 failed=0 "
    "bytes=500 secs=0.25\n"
    "2026-01-10T10:00:20 120 event=INDEX job=7 user=u host=n3 dset=2 ranks=8 missing=0 "
    "rebuilt=0 files=4 ok=1 secs=0.75\n"
    "2026-01-10T10:00:30 130 event=FETCH job=7 user=u host=n4 dset=2 dir=scr.dataset.2 "
    "bytes=3000000 secs=0.5 protect=0.1 ok=1\n"
    "2026-01-10T10:00:30 130 event=RUN_START job=7 user=u host=n4 ranks=8 nodes=4 "
    "restart=2\n"
    "2026-01-10T10:00:30 130 event=RESTART job=7 user=u host=n4 dset=2 name=s.4\n"
    "2026-01-10T10:00:31 131 event=FLUSH_END job=7 user=u host=n4 dset=9 bytes=1 secs=1 "
    "ok=0\n"
    "2026-01-10T10:00:32 132 event=RUN_END job=7 user=u host=n4 secs=2\n"
    "2026-01-10T10:00:40 140 event=RUN_START job=8 user=v host=m1 ranks=2 nodes=1 "
    "restart=-1\n"
    "2026-01-10T10:00:41 141 event=RUN_START job=9 user=w host=k1 restart=-1\n"
    "2026-01-10T10:00:42 142 event=HALT job=9 user=w host=k1 reason=CheckpointsLeft "
    "at=checkpoint\n"
    "2026-01-10T10:00:43 143 event=RUN_END job=9 user=w host=k1 secs=2\n"
    "2026-01-10T10:00:44 144 event=CRC job=9 user=w host=k1 dset=1 files=2 ok=0\n"
    "2026-01-10T10:00:45 145 event=SCAVENGE job=9 user=w host=k2 dset=1 files=2 failed=1 "
    "bytes=10\n"
    "2026-01-10T10:00:46 146 event=INDEX job=9 user=w host=k2 dset=1 ranks=4 missing=1 "
    "rebuilt=0 files=2 ok=0\n";

static int load(const char *only, rep_t *r)
{
    FILE *fp = fmemopen((void *)job_log, sizeof(job_log) - 1, "r");
    int rc = rep_load(fp, only, r);
    fclose(fp);
    return rc;
}

static void test_runs(const rep_job_t *j)
{
    ok(j->nruns == 3, "3 runs (%d)", j->nruns);
    ok(j->runs[0].ended < 0 && j->runs[1].ended < 0 && j->runs[2].ended == 1,
       "runs 1 and 2 failed (no RUN_END), run 3 finished");
    ok(j->runs[0].t0 == 99.5 && j->runs[0].t1 == 104,
       "run 1 from init to its last event");
    ok(j->runs[1].t1 == 112, "run 2 ends with its last event before the epilog");
    ok(j->runs[2].restart_id == 2 && j->runs[2].init_secs < 0, "run 3 offered dataset 2");
}

static void test_dsets(const rep_job_t *j)
{
    ok(j->ndsets == 5, "5 datasets (%d)", j->ndsets);
    ok(j->dsets[0].state == REP_COMPLETE && !strcmp(j->dsets[0].scheme, "XOR") &&
           j->dsets[0].bytes == 1000000 && j->dsets[0].secs == 0.5,
       "dataset 1: complete, XOR, bytes, secs");
    ok(j->dsets[1].state == REP_COMPLETE && j->dsets[1].scheme[0] == '\0' &&
           j->dsets[1].flushed,
       "dataset 2: an old line without type=, flushed");
    ok(j->dsets[2].state == REP_INTERRUPTED && j->dsets[2].run == 0,
       "dataset 3 of run 1 was interrupted");
    ok(j->dsets[3].state == REP_INVALID && !strcmp(j->dsets[3].scheme, "PARTNER"),
       "dataset 3 of run 2: its background redundancy failed");
    ok(j->dsets[4].flags == 2, "dataset 4 is an output");
    ok(j->nflushes == 2 && j->flushes[0].state == REP_COMPLETE &&
           j->flushes[0].t0 == 102 && j->flushes[1].state == REP_INVALID &&
           j->flushes[1].t0 == 130,
       "a flush from start to end, a failed one placed by its secs");
}

static void test_marks(const rep_job_t *j)
{
    const char *from[2] = {"", ""};
    int n = 0;
    for (int i = 0; i < j->nmarks; i++)
        if (j->marks[i].kind == REP_MARK_RESTART && n < 2)
            from[n++] = j->marks[i].from;
    ok(n == 2 && !strcmp(from[0], "rebuild") && !strcmp(from[1], "prefix"),
       "restarts: from the rebuild, then from the prefix (%s, %s)", from[0], from[1]);
    ok(rep_count_marks(j, REP_MARK_FAILURE) == 4,
       "failures: run 1, run 2, the background redundancy, a flush; not the partial "
       "checkpoints discarded at restart (%d)",
       rep_count_marks(j, REP_MARK_FAILURE));
    ok(rep_count_marks(j, REP_MARK_REBUILD) == 1, "one rebuild that did something");
    ok(rep_count_marks(j, REP_MARK_SCAVENGE) == 1 &&
           rep_count_marks(j, REP_MARK_INDEX) == 1,
       "scavenge and index");
    int took = 0;
    for (int i = 0; i < j->nmarks; i++)
        took += (j->marks[i].kind == REP_MARK_SCAVENGE &&
                 strstr(j->marks[i].text, "(0.25 s into its epilog)")) ||
                (j->marks[i].kind == REP_MARK_INDEX &&
                 strstr(j->marks[i].text, "0.75 s into the epilog of n3)"));
    ok(took == 2, "the scavenge and the index say how far into the epilog they were");
    int killed = 0;
    for (int i = 0; i < j->nmarks; i++)
        killed += j->marks[i].kind == REP_MARK_FAILURE &&
                  strstr(j->marks[i].text, "run 1 failed during dataset 3 (s.6)") != NULL;
    ok(killed == 1, "the failure names the interrupted checkpoint");
}

static void test_sum(const rep_job_t *j)
{
    rep_sum_t s;
    ok(rep_sum(j, 1, &s) == 0, "sum");
    ok(s.runs == 3 && s.relaunches == 2 && s.failed_runs == 2,
       "runs, relaunches, failed");
    ok(s.ckpt[REP_COMPLETE] == 2 && s.ckpt[REP_INTERRUPTED] == 1 &&
           s.ckpt[REP_INVALID] == 1,
       "checkpoints by state");
    ok(s.outputs == 1, "one output");
    ok(s.ckpt_secs.n == 2 && s.ckpt_secs.min == 0.5 && s.ckpt_secs.max == 1.5 &&
           s.ckpt_secs.med == 1.0,
       "checkpoint seconds min/median/max");
    ok(s.ckpt_mbps.n == 2 && s.ckpt_mbps.min == 2.0 && s.ckpt_mbps.max == 2.0,
       "checkpoint bandwidth");
    ok(s.flush[REP_COMPLETE] == 1 && s.flush[REP_INVALID] == 1 && s.flush_mbps.med == 3.0,
       "flushes and their bandwidth");
    ok(s.restarts == 2 && s.from_rebuild == 1 && s.from_prefix == 1 && s.from_cache == 0,
       "restart sources");
}

static void test_model(void)
{
    rep_t r;
    ok(load(NULL, &r) == 0, "load");
    ok(r.njobs == 3 && !strcmp(r.jobs[0].id, "7") && !strcmp(r.jobs[1].id, "8") &&
           !strcmp(r.jobs[2].id, "9"),
       "three jobs");
    ok(r.stats.bad == 1 && r.unknown == 1, "one bad line, one unknown event");
    test_runs(&r.jobs[0]);
    test_dsets(&r.jobs[0]);
    test_marks(&r.jobs[0]);
    test_sum(&r.jobs[0]);
    ok(r.jobs[1].nruns == 1 && r.jobs[1].runs[0].ended < 0 &&
           strstr(r.jobs[1].marks[0].text, "still running"),
       "job 8's run is open at the end of the log");
    const rep_job_t *j9 = &r.jobs[2];
    ok(j9->nruns == 1 && j9->runs[0].ended == 1, "job 9's run ended");
    ok(rep_count_marks(j9, REP_MARK_HALT) == 1 &&
           rep_count_marks(j9, REP_MARK_FAILURE) == 3,
       "job 9: a halt; failures of the CRC pass, the scavenge and the index (%d)",
       rep_count_marks(j9, REP_MARK_FAILURE));
    rep_free(&r);
    ok(load("8", &r) == 0 && r.njobs == 1 && r.events == 1,
       "--job 8 keeps its one event");
    rep_free(&r);
    ok(load("nope", &r) == 0 && r.njobs == 0 && r.events == 0, "--job of no event");
    rep_free(&r);
}

static void test_dist(void)
{
    double v[] = {5, 1, 3, 2};
    rep_dist_t d;
    rep_dist(v, 4, &d);
    ok(d.n == 4 && d.min == 1 && d.max == 5 && d.med == 2.5, "median of 4");
    rep_dist(v, 3, &d); /* sorted now: 1 2 3 */
    ok(d.med == 2, "median of 3");
    rep_dist(v, 0, &d);
    ok(d.n == 0 && d.max == 0, "none");
}

int main(void)
{
    test_lines();
    test_read();
    test_garbage();
    test_model();
    test_dist();
    return done_testing();
}
