/* SPDX-License-Identifier: BSD-3-Clause */
/* report_interval.h - the checkpoint interval `scr report` would choose
 * for a job (interval.h): Daly's optimum for the job's median checkpoint
 * cost and its MTBF, and the share of the job's time it would lose.
 */
#ifndef SCR_REPORT_INTERVAL_H
#define SCR_REPORT_INTERVAL_H

#include <stdio.h>

#include "report_model.h"

/* one line for job j; node_mtbf or job_mtbf (seconds, 0: not given; the
 * job's wins) as `scr report --mtbf`, SCR_MTBF and SCR_MTBF_JOB give them */
void report_interval(FILE *out, const rep_job_t *j, double node_mtbf, double job_mtbf);

#endif
