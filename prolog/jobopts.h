/* SPDX-License-Identifier: BSD-3-Clause */
/* jobopts.h - the job and site settings scr-prolog and scr-epilog act on,
 * from the command line (the SPANK and Flux plugins pass them) or else
 * from the environment a scheduler's Prolog=/Epilog= gives them:
 *
 *   --job ID        SCR_JOB_ID, SLURM_JOB_ID, FLUX_JOB_ID
 *   --uid UID       SLURM_JOB_UID, FLUX_JOB_USERID (the gid and user name
 *   --gid GID       come from the password database unless given)
 *   --prefix DIR    SCR_PREFIX, SPANK_SCR_PREFIX
 *   --cache-base L  comma list; SCR_CACHE_BASE, SPANK_SCR_CACHE_BASE, /dev/shm
 *   --cntl-base D   SCR_CNTL_BASE, SPANK_SCR_CNTL_BASE, /dev/shm
 *   --capacity N    bytes (units allowed) each cache base must have free
 *   --timeout S     how long the epilog waits for other nodes (60)
 *   --sched NAME    slurm, none (default: detected)
 */
#ifndef SCR_JOBOPTS_H
#define SCR_JOBOPTS_H

#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "node.h"

#define JOBOPTS_MAX_BASES 8

typedef struct {
    char jobid[64], user[256], prefix[4096], cntl_base[4096], sched[32];
    char *cache_base[JOBOPTS_MAX_BASES];
    int ncache;
    uid_t uid;
    gid_t gid;
    uint64_t capacity;
    double timeout;
    char host[256];
    double started; /* when the options were read (scr_now, units.h): the
                       epilog's start, for its events' secs= */
} jobopts_t;

/* Returns 0, or -1 with err naming the bad or missing option. */
int jobopts_parse(jobopts_t *o, int argc, char **argv, scr_error_t *err);
void jobopts_free(jobopts_t *o);
/* o->started := now: where an epilog's work begins long after the options
 * were read (the Flux shell's, scr run's postrun) */
void jobopts_start_clock(jobopts_t *o);
job_ident_t jobopts_ident(const jobopts_t *o);
/* The storage bases a node has for the job, each once: the cache bases, then
 * the control base unless it is one of them.  NULL for i past the last;
 * *is_cache tells which kind (capacity applies to cache bases). */
const char *jobopts_base(const jobopts_t *o, int i, int *is_cache);
/* <base>/<user>/scr.<jobid> */
void jobopts_job_dir(const jobopts_t *o, const char *base, char *buf, size_t len);

#endif
