/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_scr_opts.c - libFuzzer target for the values of the Slurm options
 * --scr and --scr-spares (slurm-plugin/scr_opts.c), which both plugins
 * check: the SPANK plugin as the user typed them, the job_submit plugin in
 * slurmctld as they arrive in the job's control environment, from any
 * client.  A refusal must come with its one-line reason; an accepted spare
 * count must lie in range. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scr_opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *val = malloc(size + 1), msg[256];
    if (!val)
        return 0;
    memcpy(val, data, size);
    val[size] = '\0';
    msg[0] = '\0';
    if (scr_opts_onoff(val, msg, sizeof(msg)) < 0 && !msg[0])
        abort();
    msg[0] = '\0';
    int n = scr_opts_spares(val, msg, sizeof(msg));
    if (n < 0 && !msg[0])
        abort();
    if (n > SCR_OPTS_MAX_SPARES)
        abort();
    scr_opts_spares_need_scr(val, msg, sizeof(msg));
    scr_opts_onoff(NULL, msg, sizeof(msg));
    free(val);
    return 0;
}
