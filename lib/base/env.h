/* SPDX-License-Identifier: BSD-3-Clause */
/* env.h - facts about the job that come from the system: the user name
 * (from the password database, not $USER, which batch jobs may lack), the
 * job id (scheduler first, then SCR_JOB_ID), and the prefix directory.
 */
#ifndef SCR_ENV_H
#define SCR_ENV_H

#include <stddef.h>

#include "config.h"

int env_user(const scr_config_t *cfg, char *buf, size_t len);
/* SLURM_JOB_ID, FLUX_JOB_ID, SCR_JOB_ID, else "defjobid" */
void env_jobid(const scr_config_t *cfg, char *buf, size_t len);
/* SCR_PREFIX (default: cwd) as a reduced absolute path */
int env_prefix(const scr_config_t *cfg, char *buf, size_t len);

#endif
