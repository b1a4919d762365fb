/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_jobopts.c - libFuzzer target for the settings scr-prolog, scr-epilog,
 * the Flux shell plugin and the scr command parse (prolog/jobopts.c): the
 * options the SPANK and Flux plugins pass (from plugstack.conf and the
 * shell plugin's configuration) and the environment a scheduler's
 * Prolog=/Epilog= gives.  The input is NUL-separated strings: NAME=VALUE for
 * one of the variables jobopts reads sets it, every other string is an
 * argument.  A parse must fail with a message, or give settings the
 * lifecycle can use: a job id without '/', absolute directories, a timeout
 * an epilog's wait ends after.  A failed parse must not leak, whether or
 * not the caller frees the settings (the Flux plugin does, the tools exit). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzlib.h"
#include "jobopts.h"

static const char *const env_names[] = {
    "SCR_JOB_ID",           "SLURM_JOB_ID",  "FLUX_JOB_ID",         "SLURM_JOB_UID",
    "FLUX_JOB_USERID",      "SCR_PREFIX",    "SPANK_SCR_PREFIX",    "SCR_CACHE_BASE",
    "SPANK_SCR_CACHE_BASE", "SCR_CNTL_BASE", "SPANK_SCR_CNTL_BASE", NULL};

/* 1 if s is NAME=VALUE for a variable jobopts reads (and set it) */
static int set_env(const char *s)
{
    const char *eq = strchr(s, '=');
    for (int i = 0; eq && env_names[i]; i++)
        if (strlen(env_names[i]) == (size_t)(eq - s) &&
            strncmp(s, env_names[i], (size_t)(eq - s)) == 0)
            return setenv(env_names[i], eq + 1, 1) == 0;
    return 0;
}

/* what the lifecycle relies on after a successful parse */
static void check_settings(const jobopts_t *o)
{
    char dir[8400];
    int is_cache, i;
    if (!o->jobid[0] || strchr(o->jobid, '/') || (o->prefix[0] && o->prefix[0] != '/') ||
        o->cntl_base[0] != '/' || o->ncache < 1 || o->ncache > JOBOPTS_MAX_BASES ||
        !o->user[0] || !isfinite(o->timeout) || o->timeout < 0)
        fuzz_fail("unusable settings: job '%s' prefix '%s' cntl '%s' bases %d user '%s' "
                  "timeout %g",
                  o->jobid, o->prefix, o->cntl_base, o->ncache, o->user, o->timeout);
    for (i = 0; jobopts_base(o, i, &is_cache); i++) {
        if (jobopts_base(o, i, NULL)[0] != '/' || i > o->ncache)
            fuzz_fail("base %d '%s' of %d", i, jobopts_base(o, i, NULL), o->ncache);
        jobopts_job_dir(o, jobopts_base(o, i, NULL), dir, sizeof(dir));
    }
    job_ident_t id = jobopts_ident(o);
    (void)id;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *argv[33] = {"scr-prolog"};
    int argc = 1;
    if (!buf)
        abort();
    memcpy(buf, data, size);
    buf[size] = '\0';
    for (int i = 0; env_names[i]; i++)
        unsetenv(env_names[i]);
    for (char *s = buf; s < buf + size + 1 && argc < 32; s += strlen(s) + 1)
        if (!set_env(s) && (*s || s < buf + size))
            argv[argc++] = s;
    argv[argc] = NULL;
    jobopts_t o;
    scr_error_t err = {""};
    if (jobopts_parse(&o, argc, argv, &err) == 0) {
        check_settings(&o);
        jobopts_free(&o);
    } else {
        if (!err.text[0])
            fuzz_fail("a rejection must say why");
        if (size > 0 && (data[0] & 1))
            jobopts_free(&o);
    }
    free(buf);
    return 0;
}
