/* SPDX-License-Identifier: BSD-3-Clause */
/* env.c - user, job id and prefix */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "path.h"
#include "scr_ctx.h"

int env_user(const scr_config_t *cfg, char *buf, size_t len)
{
    const char *u = config_get(cfg, "SCR_USER_NAME", NULL);
    if (u && *u && !strchr(u, '/')) {
        snprintf(buf, len, "%s", u);
        return 0;
    }
    struct passwd pw, *res = NULL;
    char tmp[4096];
    if (getpwuid_r(geteuid(), &pw, tmp, sizeof(tmp), &res) == 0 && res) {
        snprintf(buf, len, "%s", pw.pw_name);
        return 0;
    }
    snprintf(buf, len, "uid%d", (int)geteuid());
    return 0;
}

void env_jobid(const scr_config_t *cfg, char *buf, size_t len)
{
    /* an explicit SCR_JOB_ID wins: under Flux every relaunch is a job of its
     * own, and the shell plugin pins the allocation's id this way */
    const char *id = getenv("SCR_JOB_ID");
    if (!id || !*id)
        id = getenv("SLURM_JOB_ID");
    if (!id || !*id)
        id = getenv("FLUX_JOB_ID");
    if (!id || !*id)
        id = config_get(cfg, "SCR_JOB_ID", NULL);
    if (!id || !*id || strchr(id, '/'))
        id = "defjobid";
    snprintf(buf, len, "%s", id);
}

int env_prefix(const scr_config_t *cfg, char *buf, size_t len)
{
    const char *p = config_get(cfg, "SCR_PREFIX", NULL);
    char *r = path_abs_reduce_str(p && *p ? p : ".");
    if (!r || strlen(r) >= len) {
        free(r);
        return -1;
    }
    snprintf(buf, len, "%s", r);
    free(r);
    return 0;
}
