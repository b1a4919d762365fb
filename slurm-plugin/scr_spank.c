/* SPDX-License-Identifier: BSD-3-Clause */
/* scr_spank.c - the Slurm SPANK plugin: `--scr[=on|off]` and
 * `--scr-spares=N` for sbatch, salloc and srun.
 *
 * The plugin is thin: it carries settings from the submission to the job and
 * to the job prolog/epilog, and runs scr-prolog / scr-epilog (prolog/) as
 * root on every node of the allocation.  Those drop privileges before they
 * touch user data.
 *
 * plugstack.conf arguments (all optional):
 *   cache_base=DIRS   node-local cache base(s), comma separated (/dev/shm)
 *   cntl_base=DIR     control directory base (/dev/shm)
 *   capacity=BYTES    free space a cache base must have, else the node fails
 *                     its prolog and is drained
 *   timeout=SECS      how long an epilog waits for the other nodes (60)
 *   bindir=DIR        where scr-prolog and scr-epilog are (the install's)
 *   default=on|off    whether jobs without --scr use SCR (off)
 *
 * --scr-spares=N asks for N nodes beyond -N for `scr run` to relaunch on:
 * the job_submit plugin (job_submit_scr.c) adds them to the node count in
 * slurmctld, and this plugin tells the job SCR_SPARES=N.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <slurm/spank.h>

#include "scr_opts.h"

SPANK_PLUGIN(scr, 1);

#ifndef SCR_SBINDIR
#define SCR_SBINDIR "/usr/sbin"
#endif

static int scr_enabled = -1; /* -1: not given */
static char cache_base[1024] = "/dev/shm", cntl_base[1024] = "/dev/shm";
static char capacity[64] = "", timeout_s[32] = "60", bindir[1024] = SCR_SBINDIR;
static int default_on = 0;
static int scr_spares = -1; /* -1: not given */
static char spares_arg[32];

static int scr_opt_cb(int val, const char *optarg, int remote);
static int scr_spares_cb(int val, const char *optarg, int remote);

static struct spank_option scr_option = {
    "scr",
    "[on|off]",
    "Protect the job with SCR: node-local checkpoint cache prepared on every node, "
    "the newest checkpoint scavenged to the parallel file system at the end",
    2,
    0,
    scr_opt_cb};

static struct spank_option scr_spares_option = {
    "scr-spares",
    "N",
    "With --scr=on: N spare nodes beyond -N, which `scr run` keeps to relaunch on "
    "after a node failure",
    1,
    0,
    scr_spares_cb};

static int scr_parse_onoff(const char *s)
{
    char msg[256];
    return scr_opts_onoff(s, msg, sizeof(msg));
}

static int scr_opt_cb(int val, const char *optarg, int remote)
{
    (void)val;
    (void)remote;
    char msg[256];
    int on = scr_opts_onoff(optarg, msg, sizeof(msg));
    if (on < 0) {
        slurm_error("%s", msg);
        return -1;
    }
    scr_enabled = on;
    return 0;
}

static int scr_spares_cb(int val, const char *optarg, int remote)
{
    (void)val;
    char msg[256];
    /* srun's own step would take every node of an allocation it makes, so
     * there would be no spare (and slurmctld 22.05 crashes on the step of
     * fewer tasks than nodes srun then asks for).  Inside an allocation
     * (salloc's shell, a batch script) srun gets the option from the
     * environment and makes no allocation: nothing to refuse. */
    if (!remote && spank_context() == S_CTX_LOCAL && !getenv("SLURM_JOB_ID")) {
        slurm_error("--scr-spares is for sbatch and salloc, whose `scr run` keeps the "
                    "spares; srun would run on them");
        return -1;
    }
    int n = scr_opts_spares(optarg, msg, sizeof(msg));
    if (n < 0) {
        slurm_error("%s", msg);
        return -1;
    }
    scr_spares = n;
    snprintf(spares_arg, sizeof(spares_arg), "%d", n);
    return 0;
}

static int scr_set(char *dst, size_t len, const char *key, const char *val)
{
    if (strlen(val) >= len || (dst != capacity && dst != timeout_s && val[0] != '/')) {
        slurm_error("scr plugin: bad plugstack.conf argument %s=%s", key, val);
        return -1;
    }
    snprintf(dst, len, "%s", val);
    return 0;
}

static int scr_args(int ac, char **av)
{
    for (int i = 0; i < ac; i++) {
        char *eq = strchr(av[i], '=');
        const char *val = eq ? eq + 1 : "";
        size_t klen = eq ? (size_t)(eq - av[i]) : strlen(av[i]);
        int rc = 0;
#define KEY(k) (klen == strlen(k) && strncmp(av[i], k, klen) == 0)
        if (KEY("cache_base"))
            rc = scr_set(cache_base, sizeof(cache_base), "cache_base", val);
        else if (KEY("cntl_base"))
            rc = scr_set(cntl_base, sizeof(cntl_base), "cntl_base", val);
        else if (KEY("capacity"))
            rc = scr_set(capacity, sizeof(capacity), "capacity", val);
        else if (KEY("timeout"))
            rc = scr_set(timeout_s, sizeof(timeout_s), "timeout", val);
        else if (KEY("bindir"))
            rc = scr_set(bindir, sizeof(bindir), "bindir", val);
        else if (KEY("default") && scr_parse_onoff(val) >= 0)
            default_on = scr_parse_onoff(val);
        else {
            slurm_error("scr plugin: unknown plugstack.conf argument '%s'", av[i]);
            rc = -1;
        }
#undef KEY
        if (rc < 0)
            return -1;
    }
    return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    if (scr_args(ac, av) < 0)
        return -1;
    if (spank_option_register(sp, &scr_option) != ESPANK_SUCCESS ||
        spank_option_register(sp, &scr_spares_option) != ESPANK_SUCCESS) {
        slurm_error("scr plugin: cannot register --scr and --scr-spares");
        return -1;
    }
    return 0;
}

static int scr_on(void)
{
    return scr_enabled < 0 ? default_on : scr_enabled;
}

/* submission side (sbatch/salloc/srun): the job inherits SCR_ENABLE, the
 * prefix and SCR_SPARES, the prolog/epilog get the prefix through the job
 * control env, the job_submit plugin SCR_ENABLE (it finds --scr-spares
 * there too, where Slurm puts every option given).  --scr-spares without
 * --scr=on is refused by the job_submit plugin: a failure here would not
 * stop the submission of an `optional` plugin's job. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    spank_context_t ctx = spank_context();
    if ((ctx != S_CTX_ALLOCATOR && ctx != S_CTX_LOCAL) || !scr_on())
        return 0;
    char cwd[4096];
    const char *prefix = getenv("SCR_PREFIX");
    if (!prefix || !*prefix) {
        if (!getcwd(cwd, sizeof(cwd))) {
            slurm_error("--scr: cannot tell the current directory: %s", strerror(errno));
            return -1;
        }
        prefix = cwd;
    }
    if (prefix[0] != '/') {
        slurm_error("--scr: SCR_PREFIX=%s is not an absolute directory", prefix);
        return -1;
    }
    setenv("SCR_ENABLE", "1", 1);
    setenv("SCR_PREFIX", prefix, 1);
    if (scr_spares >= 0) /* salloc's shell; sbatch's job (also user_init) */
        setenv("SCR_SPARES", spares_arg, 1);
    spank_job_control_setenv(sp, "SCR_PREFIX", prefix, 1);
    spank_job_control_setenv(sp, "SCR_ENABLE", "1", 1);
    return 0;
}

/* every step (the batch script too): slurmstepd does not pass the option
 * variables on, so set what the library needs */
int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    char *arg = NULL;
    if (spank_option_getopt(sp, &scr_option, &arg) == ESPANK_SUCCESS)
        scr_opt_cb(0, arg, 1);
    if (spank_option_getopt(sp, &scr_spares_option, &arg) == ESPANK_SUCCESS)
        scr_spares_cb(0, arg, 1);
    if (!scr_on())
        return 0;
    spank_setenv(sp, "SCR_ENABLE", "1", 1);
    if (scr_spares >= 0) /* `scr run` in the batch script keeps them */
        spank_setenv(sp, "SCR_SPARES", spares_arg, 1);
    /* the epilog looks where the plugin says: keep the library there too
     * (SCR_CNTL_BASE belongs to the system config file, see the admin guide) */
    spank_setenv(sp, "SCR_CACHE_BASE", cache_base, 1);
    return 0;
}

/* each line the tool prints becomes a line of slurmd's log */
static void scr_forward_log(int fd, const char *tool, uint32_t jobid)
{
    FILE *fp = fdopen(dup(fd), "r");
    char line[2048];
    while (fp && fgets(line, sizeof(line), fp)) {
        line[strcspn(line, "\n")] = '\0';
        if (strstr(line, "rror") || strstr(line, "fail"))
            slurm_error("%s[job %u]: %s", tool, jobid, line);
        else
            slurm_info("%s[job %u]: %s", tool, jobid, line);
    }
    if (fp)
        fclose(fp);
}

/* run bindir/tool with the job's identity; 0 if it exited 0 */
static int scr_run_tool(spank_t sp, const char *tool, int epilog)
{
    uint32_t jobid = 0;
    uid_t uid = 0;
    gid_t gid = 0;
    if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS) {
        slurm_error("scr %s: cannot get the job's id and user", tool);
        return -1;
    }
    char path[1100], job[32], u[32], g[32], prefix[4096] = "";
    snprintf(path, sizeof(path), "%s/%s", bindir, tool);
    snprintf(job, sizeof(job), "%u", jobid);
    snprintf(u, sizeof(u), "%u", (unsigned)uid);
    snprintf(g, sizeof(g), "%u", (unsigned)gid);
    const char *p = getenv("SPANK_SCR_PREFIX");
    if (p)
        snprintf(prefix, sizeof(prefix), "%s", p);
    else
        spank_getenv(sp, "SPANK_SCR_PREFIX", prefix, sizeof(prefix));
    const char *argv[24];
    int n = 0;
    argv[n++] = path;
    argv[n++] = "--sched=slurm";
    argv[n++] = "--job", argv[n++] = job;
    argv[n++] = "--uid", argv[n++] = u;
    argv[n++] = "--gid", argv[n++] = g;
    argv[n++] = "--cache-base", argv[n++] = cache_base;
    argv[n++] = "--cntl-base", argv[n++] = cntl_base;
    if (capacity[0] && !epilog)
        argv[n++] = "--capacity", argv[n++] = capacity;
    if (epilog)
        argv[n++] = "--timeout", argv[n++] = timeout_s;
    if (epilog && prefix[0])
        argv[n++] = "--prefix", argv[n++] = prefix;
    argv[n] = NULL;
    int pfd[2];
    if (pipe(pfd) < 0) {
        slurm_error("scr %s: pipe: %s", tool, strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        slurm_error("scr %s: fork: %s", tool, strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        /* the tool's messages go to slurmd's log, line by line */
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        close(pfd[0]);
        close(pfd[1]);
        unsetenv("SCR_PREFIX"); /* the tools take the prefix from --prefix only */
        execv(path, (char *const *)argv);
        fprintf(stderr, "scr: exec %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    scr_forward_log(pfd[0], tool, jobid);
    close(pfd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    slurm_error("scr %s for job %u failed (status %d)", tool, jobid,
                WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
    return -1;
}

static int scr_job_wants(spank_t sp)
{
    char *arg = NULL;
    if (spank_option_getopt(sp, &scr_option, &arg) == ESPANK_SUCCESS)
        scr_opt_cb(0, arg, 1);
    return scr_on();
}

/* in the job script context slurm_spank_init is not called: the
 * plugstack.conf arguments arrive here */
int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
    if (scr_args(ac, av) < 0)
        return -1;
    return scr_job_wants(sp) ? scr_run_tool(sp, "scr-prolog", 0) : 0;
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
    if (scr_args(ac, av) < 0)
        return -1;
    /* scr-epilog reports user data problems but succeeds: only a tool that
     * cannot run fails the epilog (and drains the node) */
    return scr_job_wants(sp) ? scr_run_tool(sp, "scr-epilog", 1) : 0;
}
