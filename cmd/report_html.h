/* SPDX-License-Identifier: BSD-3-Clause */
/* report_html.h - the pictures of `scr report`: an SVG timeline per job
 * (report_svg.c) and a self-contained HTML page around it with the tables
 * (report_html.c).  Nothing refers outside the file: no scripts, fonts,
 * images or style sheets are fetched, so the page opens offline.
 *
 * Every drawn element that stands for something in the log carries
 * data-kind (checkpoint, output, flush, run, restart, failure, relaunch,
 * halt, fetch, rebuild, scavenge, index, bandwidth) and a <title> with its
 * details, which a browser shows on hover and tests can count.
 */
#ifndef SCR_REPORT_HTML_H
#define SCR_REPORT_HTML_H

#include <stdio.h>

#include "report_model.h"

/* the timeline of jobs[0..n-1], one panel each, as one <svg> element;
 * standalone adds the XML declaration a .svg file starts with */
void report_svg(FILE *out, const rep_job_t *jobs, int n, int standalone);

/* the whole page: the summary, then per job its timeline and tables.
 * summary is the text summary (report_text), shown as it is. */
void report_html(FILE *out, const rep_t *r, const char *path, const char *summary);

/* text for XML/HTML content and attribute values */
void report_esc(FILE *out, const char *s);

/* the colour of a redundancy scheme ("" or unknown: grey) */
const char *report_scheme_colour(const char *scheme);

#endif
