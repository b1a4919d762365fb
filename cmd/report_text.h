/* SPDX-License-Identifier: BSD-3-Clause */
/* report_text.h - the one-screen text summary of `scr report`, and the
 * time formats the HTML page shares with it.
 */
#ifndef SCR_REPORT_TEXT_H
#define SCR_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "report_model.h"

/* the summary of r, read from path */
void report_text(FILE *out, const rep_t *r, const char *path);

/* local time "2026-11-21 18:30:05" (date 1), "18:30:05.123" (date 0) */
void report_fmt_time(double t, int date, char *buf, size_t len);
/* a duration: "0.052 s", "12.3 s", "4m07s", "2h03m" */
void report_fmt_secs(double secs, char *buf, size_t len);

#endif
