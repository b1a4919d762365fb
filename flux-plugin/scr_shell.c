/* SPDX-License-Identifier: BSD-3-Clause */
/* scr_shell.c - the Flux job-shell plugin: `flux run -o scr ...` (or
 * -o scr=on) protects a job with SCR.
 *
 * Every job shell (one per node) runs as the job's user.  shell.init
 * checks and prepares the node's cache and control directories and gives
 * the tasks SCR_ENABLE=1, SCR_CACHE_BASE and SCR_PREFIX; shell.exit
 * scavenges this node's part of the newest checkpoint that is not on the
 * prefix, and the shell whose mark completes the set of live shells indexes
 * it (prolog/lifecycle.c, the same code as the Slurm epilog); shell.lost
 * only records the lost node, whose data the index rebuilds.
 *
 * Admin configuration (shell.lua): plugin.load { file = ".../scr.so",
 *   conf = { cache_base = "/dev/shm", cntl_base = "/dev/shm",
 *            capacity = "8GB", timeout = 60 } }
 */
#define FLUX_SHELL_PLUGIN_NAME "scr"

#include <errno.h>
#include <flux/core.h>
#include <flux/shell.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lifecycle.h"
#include "log.h"
#include "node.h"

typedef struct {
    jobopts_t o;
    nodelist_t *lost;
    int active;
} scr_shell_t;

/* -o scr / -o scr=on / -o scr=off; -1 for anything else */
static int scr_shell_option(flux_shell_t *shell, int *on)
{
    char *json = NULL;
    int rc = flux_shell_getopt(shell, "scr", &json);
    *on = 0;
    if (rc <= 0)
        return rc;
    if (!strcmp(json, "1") || !strcmp(json, "true") || !strcmp(json, "\"on\"") ||
        !strcmp(json, "\"1\"") || !strcmp(json, "\"yes\""))
        *on = 1;
    else if (strcmp(json, "0") && strcmp(json, "false") && strcmp(json, "\"off\"") &&
             strcmp(json, "\"0\"") && strcmp(json, "\"no\"")) {
        shell_log_error("-o scr=%s: expected on or off", json);
        free(json);
        return -1;
    }
    free(json);
    return 1;
}

static void scr_shell_free(void *arg)
{
    scr_shell_t *s = arg;
    jobopts_free(&s->o);
    nodelist_delete(&s->lost);
    free(s);
}

/* the job as SCR's tools see it: id (the tasks' FLUX_JOB_ID), user, prefix,
 * and the admin's bases from the plugin configuration */
static int scr_shell_jobopts(flux_plugin_t *p, flux_shell_t *shell, scr_shell_t *s)
{
    flux_jobid_t id = 0;
    const char *cwd = NULL, *cache = NULL, *cntl = NULL, *cap = NULL;
    int timeout = 60;
    char job[64], uid[32], *argv[12];
    int n = 0;
    if (flux_shell_info_unpack(shell, "{s:I s:{s:{s:{s?s}}}}", "jobid", &id, "jobspec",
                               "attributes", "system", "cwd", &cwd) < 0 ||
        flux_job_id_encode(id, "f58", job, sizeof(job)) < 0)
        return shell_log_errno("cannot read the job id");
    /* a job inside an SCR allocation (flux batch -o scr) keeps its id */
    const char *outer = flux_shell_getenv(shell, "SCR_JOB_ID");
    if (outer && *outer)
        snprintf(job, sizeof(job), "%s", outer);
    flux_plugin_conf_unpack(p, "{s?s s?s s?s s?i}", "cache_base", &cache, "cntl_base",
                            &cntl, "capacity", &cap, "timeout", &timeout);
    snprintf(uid, sizeof(uid), "%u", (unsigned)geteuid());
    argv[n++] = "scr";
    argv[n++] = "--job", argv[n++] = job;
    argv[n++] = "--uid", argv[n++] = uid;
    if (cache)
        argv[n++] = "--cache-base", argv[n++] = (char *)cache;
    if (cntl)
        argv[n++] = "--cntl-base", argv[n++] = (char *)cntl;
    if (cap)
        argv[n++] = "--capacity", argv[n++] = (char *)cap;
    argv[n] = NULL;
    scr_error_t err;
    if (jobopts_parse(&s->o, n, argv, &err) < 0)
        return shell_log_error("configuration: %s", err.text), -1;
    s->o.timeout = timeout;
    const char *prefix = flux_shell_getenv(shell, "SCR_PREFIX");
    prefix = prefix && *prefix ? prefix : cwd;
    if (!prefix || prefix[0] != '/')
        return shell_log_error("SCR_PREFIX=%s is not an absolute directory",
                               prefix ? prefix : "(none)"),
               -1;
    snprintf(s->o.prefix, sizeof(s->o.prefix), "%s", prefix);
    return 0;
}

static int scr_shell_no_drain(const char *host, const char *reason, scr_error_t *err)
{
    (void)reason;
    return errprintf(err, "a job shell cannot drain %s (the perilog scr-prolog can)",
                     host);
}

static int scr_shell_init(flux_plugin_t *p, const char *topic, flux_plugin_arg_t *args,
                          void *data)
{
    (void)topic;
    (void)args;
    (void)data;
    flux_shell_t *shell = flux_plugin_get_shell(p);
    int on = 0, rc = scr_shell_option(shell, &on);
    if (rc < 0) {
        shell_die(1, "-o scr: malformed value (use -o scr or -o scr=on|off)");
        return -1;
    }
    if (rc == 0 || !on)
        return 0;
    scr_shell_t *s = calloc(1, sizeof(*s));
    if (!s || flux_plugin_aux_set(p, "scr", s, scr_shell_free) < 0) {
        free(s);
        return shell_log_errno("out of memory");
    }
    s->lost = nodelist_new();
    sched_t sched = sched_none;
    sched.drain = scr_shell_no_drain;
    if (scr_shell_jobopts(p, shell, s) < 0 || lifecycle_prolog(&s->o, &sched) < 0) {
        shell_die(1, "scr: node %s cannot hold SCR's cache (see above)", s->o.host);
        return -1;
    }
    if (flux_shell_setenvf(shell, 1, "SCR_ENABLE", "1") < 0 ||
        flux_shell_setenvf(shell, 1, "SCR_CACHE_BASE", "%s", s->o.cache_base[0]) < 0 ||
        flux_shell_setenvf(shell, 1, "SCR_PREFIX", "%s", s->o.prefix) < 0 ||
        flux_shell_setenvf(shell, 1, "SCR_JOB_ID", "%s", s->o.jobid) < 0)
        return shell_log_errno("cannot set the tasks' SCR environment");
    s->active = 1;
    shell_debug("node %s ready, prefix %s", s->o.host, s->o.prefix);
    return 0;
}

/* names of every shell of the job that was not lost */
static nodelist_t *scr_shell_live(flux_shell_t *shell, const scr_shell_t *s)
{
    int size = 0;
    nodelist_t *live = nodelist_new();
    flux_shell_info_unpack(shell, "{s:i}", "size", &size);
    for (int r = 0; r < size; r++) {
        const char *name = NULL;
        if (flux_shell_rank_info_unpack(shell, r, "{s:s}", "name", &name) == 0 && name &&
            nodelist_find(s->lost, name) < 0 && nodelist_find(live, name) < 0)
            nodelist_append(live, name);
    }
    return live;
}

static int scr_shell_exit(flux_plugin_t *p, const char *topic, flux_plugin_arg_t *args,
                          void *data)
{
    (void)topic;
    (void)args;
    (void)data;
    scr_shell_t *s = flux_plugin_aux_get(p, "scr");
    if (!s || !s->active)
        return 0;
    nodelist_t *live = scr_shell_live(flux_plugin_get_shell(p), s);
    jobopts_start_clock(&s->o);
    lifecycle_epilog_as_user(&s->o, live);
    nodelist_delete(&live);
    return 0;
}

static int scr_shell_lost(flux_plugin_t *p, const char *topic, flux_plugin_arg_t *args,
                          void *data)
{
    (void)topic;
    (void)data;
    scr_shell_t *s = flux_plugin_aux_get(p, "scr");
    int rank = -1;
    const char *name = NULL;
    if (!s || !s->active)
        return 0;
    if (flux_plugin_arg_unpack(args, FLUX_PLUGIN_ARG_IN, "{s:i}", "shell_rank", &rank) <
        0)
        return shell_log_errno("shell.lost: no shell_rank");
    flux_shell_rank_info_unpack(flux_plugin_get_shell(p), rank, "{s:s}", "name", &name);
    if (name)
        nodelist_append(s->lost, name);
    shell_warn("shell rank %d (%s) lost: its checkpoint files are left to the rebuild",
               rank, name ? name : "?");
    return 0;
}

int flux_plugin_init(flux_plugin_t *p)
{
    if (flux_plugin_set_name(p, "scr") < 0 ||
        flux_plugin_add_handler(p, "shell.init", scr_shell_init, NULL) < 0 ||
        flux_plugin_add_handler(p, "shell.exit", scr_shell_exit, NULL) < 0 ||
        flux_plugin_add_handler(p, "shell.lost", scr_shell_lost, NULL) < 0)
        return -1;
    return 0;
}
