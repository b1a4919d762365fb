/* SPDX-License-Identifier: BSD-3-Clause */
/* scr_opts.h - the values of SCR's Slurm options --scr and --scr-spares.
 *
 * Both Slurm plugins check them with these functions: the SPANK plugin on
 * the submitting host (sbatch, salloc, srun) and the job_submit plugin in
 * slurmctld, which finds them again in the job's control environment.  A bad
 * value gets the same one-line refusal either way, also from a client that
 * bypassed the SPANK plugin.
 */
#ifndef SCR_SLURM_OPTS_H
#define SCR_SLURM_OPTS_H

#include <stddef.h>

/* more spare nodes than any job asks for: the bound keeps sums in range */
#define SCR_OPTS_MAX_SPARES 100000

/* --scr[=on|off]: 1 for on (also no value, yes, 1), 0 for off (no, 0),
 * else -1 with the refusal in msg */
int scr_opts_onoff(const char *val, char *msg, size_t len);

/* --scr-spares=N: N (0 to SCR_OPTS_MAX_SPARES), else -1 with the refusal
 * in msg */
int scr_opts_spares(const char *val, char *msg, size_t len);

/* the refusal of --scr-spares=N in a job without --scr=on */
void scr_opts_spares_need_scr(const char *val, char *msg, size_t len);

#endif
