/* SPDX-License-Identifier: BSD-3-Clause */
/* job_submit_parts.h - how many nodes a job can get in each partition, as
 * job_submit/scr last heard from slurmctld, so that a job whose spares make
 * it bigger than its partition is refused at submission (with
 * EnforcePartLimits=NO, Slurm itself would queue it to wait forever).
 *
 * job_submit() runs inside slurmctld under its locks, where it must not wait
 * for an RPC to its own daemon; a thread asks for the partitions
 * (slurm_load_partitions) instead, every minute, and every two seconds until
 * the first answer.  Until then nothing is known and nothing is refused.
 */
#ifndef SCR_JOB_SUBMIT_PARTS_H
#define SCR_JOB_SUBMIT_PARTS_H

#include <stddef.h>
#include <stdint.h>

/* start / stop the thread; start returns 0, or -1 if it cannot run */
int job_submit_parts_start(void);
void job_submit_parts_stop(void);

/* the most nodes a job may get in partition (NULL: the default partition;
 * a comma list: the largest of them), with that partition's name in name;
 * 0 when it is not known */
uint32_t job_submit_parts_max(const char *partition, char *name, size_t len);

#endif
