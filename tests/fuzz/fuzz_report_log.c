/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_report_log.c - libFuzzer target for the event-log reader of
 * `scr report` (cmd/report_log.c).  The input is a whole log file: every
 * line goes through rlog_read as `scr report` reads <prefix>/.scr/log, and
 * every event's keys are looked up with each typed getter.  A skipped line
 * must be counted, never crash the reader. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report_log.h"

static int each(const rlog_event_t *ev, void *arg)
{
    static const char *keys[] = {"event", "job", "dset", "secs",
                                 "bytes", "ok",  "time", "x"};
    long *n = arg;
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        int iv;
        uint64_t uv;
        double dv;
        (void)rlog_get(ev, keys[i]);
        (void)rlog_get_int(ev, keys[i], &iv);
        (void)rlog_get_u64(ev, keys[i], &uv);
        (void)rlog_get_double(ev, keys[i], &dv);
    }
    (*n)++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *fp = fmemopen((void *)data, size ? size : 1, "r");
    if (!fp)
        return 0;
    rlog_stats_t st = {0};
    long n = 0;
    rlog_read(fp, each, &n, &st);
    fclose(fp);
    if (st.bad < 0 || st.bad > st.lines || n > st.lines)
        abort(); /* every line is either an event or counted as skipped */
    return 0;
}
