/* SPDX-License-Identifier: BSD-3-Clause */
/* sched_flux.c - the scheduler interface (prolog/scheduler.h) under Flux,
 * through the flux command (FLUX_URI from the environment): it works the
 * same from a job shell, a perilog script and `scr run` inside a batch job,
 * and needs no link to libflux.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scheduler.h"

/* run argv, its stdout (trimmed) into out; returns the exit status */
static int flux_cmd(char *const argv[], char *out, size_t len)
{
    int pfd[2];
    if (pipe(pfd) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(pfd[1], 1);
        if (null >= 0)
            dup2(null, 2); /* "unknown job" is an answer here, not an error */
        close(pfd[0]);
        close(pfd[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(pfd[1]);
    size_t used = 0;
    ssize_t n;
    while (used + 1 < len && (n = read(pfd[0], out + used, len - used - 1)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        used += (size_t)n;
    }
    out[used] = '\0';
    while (used > 0 && (out[used - 1] == '\n' || out[used - 1] == ' '))
        out[--used] = '\0';
    char drain[256];
    while (read(pfd[0], drain, sizeof(drain)) > 0)
        ;
    close(pfd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* a job of this instance: its nodes; else (`scr run` inside a batch job,
 * whose FLUX_JOB_ID names it in the parent instance) the instance's own */
static int flux_job_nodes(const char *jobid, nodelist_t *nodes, scr_error_t *err)
{
    char out[8192];
    char *job[] = {"flux", "jobs", "-no", "{nodelist}", (char *)jobid, NULL};
    char *all[] = {"flux", "resource", "list", "-s", "all", "-no", "{nodelist}", NULL};
    if ((flux_cmd(job, out, sizeof(out)) != 0 || !out[0] || !strcmp(out, "-")) &&
        (flux_cmd(all, out, sizeof(out)) != 0 || !out[0]))
        return errprintf(err, "flux: no node list for job %s", jobid);
    return nodelist_expand(nodes, out, err);
}

/* nodes of a resource state */
static int flux_state_nodes(const char *state, nodelist_t *out, scr_error_t *err)
{
    char buf[8192];
    char *argv[] = {"flux",        "resource", "list",       "-s",
                    (char *)state, "-no",      "{nodelist}", NULL};
    if (flux_cmd(argv, buf, sizeof(buf)) != 0)
        return errprintf(err, "flux resource list -s %s failed", state);
    return buf[0] && strcmp(buf, "-") ? nodelist_expand(out, buf, err) : 0;
}

/* every job node that is not up: offline (a lost broker shows as that in a
 * batch sub-instance, never as "down"), drained or excluded */
static int flux_down_nodes(const nodelist_t *nodes, nodelist_t *down, kvtree_t *reasons,
                           scr_error_t *err)
{
    nodelist_t *up = nodelist_new();
    int rc = flux_state_nodes("up", up, err);
    for (int i = 0; rc == 0 && i < nodelist_count(nodes); i++) {
        const char *h = nodelist_nth(nodes, i);
        if (nodelist_find(up, h) >= 0 || nodelist_find(down, h) >= 0)
            continue;
        nodelist_append(down, h);
        if (reasons)
            kvtree_util_set_str(reasons, h, "offline or drained in Flux");
    }
    nodelist_delete(&up);
    return rc;
}

static int flux_job_alive(const char *jobid, void *arg)
{
    (void)arg;
    char out[256];
    char *argv[] = {"flux", "jobs", "-no", "{state}", (char *)jobid, NULL};
    if (flux_cmd(argv, out, sizeof(out)) != 0)
        return 1;
    return strcmp(out, "INACTIVE") != 0;
}

static int flux_drain(const char *host, const char *reason, scr_error_t *err)
{
    char out[1024];
    char *argv[] = {"flux", "resource", "drain", (char *)host, (char *)reason, NULL};
    if (flux_cmd(argv, out, sizeof(out)) != 0)
        return errprintf(err, "flux resource drain %s failed", host);
    return 0;
}

const sched_t sched_flux = {"flux", flux_job_nodes, flux_down_nodes, flux_job_alive,
                            flux_drain};
