/* SPDX-License-Identifier: BSD-3-Clause */
/* scr_opts.c - parse and refuse --scr and --scr-spares values */
#include <stdio.h>
#include <string.h>

#include "scr_opts.h"

int scr_opts_onoff(const char *val, char *msg, size_t len)
{
    /* Slurm writes an option given without a value as "(null)" into the job
     * control environment (the SPANK plugin itself sees NULL or "") */
    if (!val || !*val || !strcmp(val, "(null)") || !strcmp(val, "on") ||
        !strcmp(val, "yes") || !strcmp(val, "1"))
        return 1;
    if (!strcmp(val, "off") || !strcmp(val, "no") || !strcmp(val, "0"))
        return 0;
    snprintf(msg, len, "--scr: '%s' is not on or off", val);
    return -1;
}

int scr_opts_spares(const char *val, char *msg, size_t len)
{
    long n = 0;
    const char *p = val ? val : "";
    /* digits only: no sign, no blanks, no hex, nothing after the number */
    for (; *p >= '0' && *p <= '9' && n <= SCR_OPTS_MAX_SPARES; p++)
        n = n * 10 + (*p - '0');
    if (!val || !*val || *p || n > SCR_OPTS_MAX_SPARES) {
        snprintf(msg, len, "--scr-spares: '%s' is not a number of spare nodes (0 to %d)",
                 val ? val : "", SCR_OPTS_MAX_SPARES);
        return -1;
    }
    return (int)n;
}

void scr_opts_spares_need_scr(const char *val, char *msg, size_t len)
{
    snprintf(msg, len,
             "--scr-spares=%s needs --scr=on: spare nodes are for `scr run` "
             "to relaunch on",
             val);
}
