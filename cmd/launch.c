/* SPDX-License-Identifier: BSD-3-Clause */
/* launch.c - launcher adapters of `scr run` */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "units.h"

void argv_add(argv_t *a, const char *s)
{
    if (a->argc + 2 > a->cap) {
        a->cap = a->cap ? a->cap * 2 : 16;
        a->argv = realloc(a->argv, sizeof(char *) * (size_t)a->cap);
    }
    a->argv[a->argc++] = strdup(s);
    a->argv[a->argc] = NULL;
}

void argv_addf(argv_t *a, const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    argv_add(a, s ? s : "");
    free(s);
}

void argv_free(argv_t *a)
{
    for (int i = 0; i < a->argc; i++)
        free(a->argv[i]);
    free(a->argv);
    memset(a, 0, sizeof(*a));
}

static void add_list(argv_t *out, const char *opt, const nodelist_t *hl)
{
    if (nodelist_count(hl) == 0)
        return;
    char *s = nodelist_compress(hl);
    argv_addf(out, "%s=%s", opt, s);
    free(s);
}

/* slurm_ghost_note: Slurm (seen with 22.05) keeps a step RUNNING until the
 * job ends when its tasks on the other nodes had ended before slurmctld
 * declared its lost node DOWN: on a --no-kill job the node is first removed
 * from the job, and the step's completion for it never comes.  That step
 * keeps its CPUs, so a new step that does not share them waits forever
 * ("Requested nodes are busy"); scancel does not clear it.  Steps scr
 * starts itself (checks, scavenges) and relaunches therefore share with
 * --overlap (Slurm 20.11 and later); a first run does not, so it never
 * shares the CPUs of a step the user's script runs beside it. */
static void srun_app(const launcher_t *l, argv_t *out, const launch_where_t *w, int uargc,
                     char **uargv)
{
    (void)l;
    argv_add(out, "srun");
    /* Slurm keeps a step whose task failed (KillOnBadExit=0 by default); the
     * other ranks then wait on the dead one forever and scr run never gets
     * to relaunch.  A user's own --kill-on-bad-exit comes later and wins. */
    argv_add(out, "--kill-on-bad-exit=1");
    /* after a failure a step of the failed run may hold its CPUs for good
     * (slurm_ghost_note below) */
    if (w->relaunch)
        argv_add(out, "--overlap");
    /* Leaving nodes out, srun would still take the job's node count from
     * the environment (SLURM_NNODES) while Slurm has not yet removed a lost
     * node from the job: "Only allocated 1 nodes asked for 2" */
    int leave_out = !w->exact && nodelist_count(w->exclude) > 0;
    if (w->add_count && (w->exact || leave_out))
        argv_addf(out, "--nodes=%d", nodelist_count(w->nodes));
    if (w->exact)
        add_list(out, "--nodelist", w->nodes);
    else
        add_list(out, "--exclude", w->exclude);
    for (int i = 0; i < uargc; i++)
        argv_add(out, uargv[i]);
}

static void srun_per_node(const launcher_t *l, argv_t *out, const nodelist_t *nodes,
                          int argc, char **argv)
{
    (void)l;
    argv_add(out, "srun");
    argv_addf(out, "--nodes=%d", nodelist_count(nodes));
    argv_addf(out, "--ntasks=%d", nodelist_count(nodes));
    argv_add(out, "--ntasks-per-node=1");
    argv_add(out, "--kill-on-bad-exit=0");
    argv_add(out, "--overlap"); /* slurm_ghost_note */
    argv_add(out, "--mpi=none");
    add_list(out, "--nodelist", nodes);
    for (int i = 0; i < argc; i++)
        argv_add(out, argv[i]);
}

/* SCR_MPIRUN: the mpirun command line, split at blanks */
static void mpirun_base(argv_t *out)
{
    const char *env = getenv("SCR_MPIRUN");
    char *copy = strdup(env && *env ? env : "mpirun"), *save = NULL;
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        argv_add(out, t);
    free(copy);
}

static void mpirun_hosts(argv_t *out, const nodelist_t *hl, const char *slots)
{
    size_t len = 1;
    for (int i = 0; i < nodelist_count(hl); i++)
        len += strlen(nodelist_nth(hl, i)) + 16;
    char *s = calloc(1, len);
    for (int i = 0; i < nodelist_count(hl); i++)
        sprintf(s + strlen(s), "%s%s%s%s", i ? "," : "", nodelist_nth(hl, i),
                slots ? ":" : "", slots ? slots : "");
    argv_add(out, "--host");
    argv_add(out, s);
    free(s);
}

static void mpirun_app(const launcher_t *l, argv_t *out, const launch_where_t *w,
                       int uargc, char **uargv)
{
    (void)l;
    const char *slots = getenv("SCR_SLOTS_PER_NODE");
    mpirun_base(out);
    mpirun_hosts(out, w->nodes, slots && *slots ? slots : "64");
    for (int i = 0; i < uargc; i++)
        argv_add(out, uargv[i]);
}

static void mpirun_per_node(const launcher_t *l, argv_t *out, const nodelist_t *nodes,
                            int argc, char **argv)
{
    (void)l;
    mpirun_base(out);
    mpirun_hosts(out, nodes, NULL);
    argv_addf(out, "-np");
    argv_addf(out, "%d", nodelist_count(nodes));
    argv_add(out, "--map-by");
    argv_add(out, "node");
    for (int i = 0; i < argc; i++)
        argv_add(out, argv[i]);
}

static void flux_app(const launcher_t *l, argv_t *out, const launch_where_t *w, int uargc,
                     char **uargv)
{
    (void)l;
    argv_add(out, "flux");
    argv_add(out, "run");
    if (w->exact && w->add_count)
        argv_addf(out, "--nodes=%d", nodelist_count(w->nodes));
    const nodelist_t *hl = w->exact ? w->nodes : w->exclude;
    if (nodelist_count(hl) > 0) {
        char *s = nodelist_compress(hl);
        argv_addf(out, "--requires=%shost:%s", w->exact ? "" : "-", s);
        free(s);
    }
    for (int i = 0; i < uargc; i++)
        argv_add(out, uargv[i]);
}

static void flux_per_node(const launcher_t *l, argv_t *out, const nodelist_t *nodes,
                          int argc, char **argv)
{
    (void)l;
    char *s = nodelist_compress(nodes);
    argv_add(out, "flux");
    argv_add(out, "run");
    argv_addf(out, "--nodes=%d", nodelist_count(nodes));
    argv_add(out, "--tasks-per-node=1");
    argv_addf(out, "--requires=host:%s", s);
    free(s);
    for (int i = 0; i < argc; i++)
        argv_add(out, argv[i]);
}

static const launcher_t launchers[] = {
    {"flux", flux_app, flux_per_node, 0, 1},
    {"srun", srun_app, srun_per_node, 0, 1},
    {"mpirun", mpirun_app, mpirun_per_node, 1, 0},
};

int launch_user_nodes(const launcher_t *l, int uargc, char **uargv)
{
    for (int i = 0; l->nodes_opt && i < uargc && uargv[i][0] == '-'; i++) {
        const char *a = uargv[i], *v = NULL;
        if (strcmp(a, "--") == 0)
            break;
        if (strcmp(a, "-N") == 0 || strcmp(a, "--nodes") == 0)
            v = i + 1 < uargc ? uargv[++i] : NULL;
        else if (strncmp(a, "-N", 2) == 0)
            v = a + 2;
        else if (strncmp(a, "--nodes=", 8) == 0)
            v = a + 8;
        else if (strlen(a) == 2 && i + 1 < uargc && uargv[i + 1][0] != '-')
            i++; /* the value of "-n 8" */
        if (v)
            return atoi(v) > 0 ? atoi(v) : 0;
    }
    return 0;
}

const launcher_t *launch_get(const char *name)
{
    if (!name)
        name = getenv("SCR_LAUNCHER");
    if (!name || !*name)
        name = getenv("SLURM_JOB_ID") ? "srun" : getenv("FLUX_URI") ? "flux" : "mpirun";
    for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++)
        if (strcmp(launchers[i].name, name) == 0)
            return &launchers[i];
    return NULL;
}

/* A wait that says what it waits for: after 5 s, and again every 5 s, one
 * line naming the command and pid, so a stalled step explains itself in the
 * job's output. */
typedef struct {
    const char *who; /* NULL: wait quietly (the application itself) */
    units_wait_t clock;
    char what[512];
} launch_wait_t;

static void launch_wait_start(launch_wait_t *w, const char *who, char **argv)
{
    w->who = who;
    units_wait_start(&w->clock, 5.0);
    size_t len = 0;
    w->what[0] = '\0';
    for (int i = 0; argv[i] && len + 2 < sizeof(w->what); i++) {
        int n =
            snprintf(w->what + len, sizeof(w->what) - len, "%s%s", i ? " " : "", argv[i]);
        if (n < 0 || (size_t)n >= sizeof(w->what) - len) {
            snprintf(w->what + sizeof(w->what) - 4, 4, "...");
            break;
        }
        len += (size_t)n;
    }
}

static void launch_wait_tick(launch_wait_t *w, pid_t pid)
{
    if (!w->who || !units_wait_due(&w->clock))
        return;
    printf("%s: still waiting after %.0f s for %s (pid %d)\n", w->who,
           units_wait_elapsed(&w->clock), w->what, (int)pid);
    fflush(stdout);
}

/* read the child's stdout to the end (out_text mode), the pipe polled so
 * the wait can still be reported */
static char *launch_read_out(int fd, launch_wait_t *w, pid_t pid)
{
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, 100);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0) {
            launch_wait_tick(w, pid);
            continue;
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        if (cap - len < 1024)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    return buf;
}

/* a launch being watched (launch_deadline_t) */
typedef struct {
    const launch_deadline_t *dl;
    double t0, checked, killed; /* scr_now() of the launch, last look, SIGTERM */
    double sign;                /* scr_now() of the last sign of life */
    int started, pfs, why;      /* why: LAUNCH_NO_START, LAUNCH_NO_PROGRESS */
} launch_watch_t;

double launch_watch_limit(const launch_deadline_t *dl, int pfs, int *on_pfs)
{
    int use = pfs && dl->watch_pfs > 0;
    if (on_pfs)
        *on_pfs = use;
    return use ? dl->watch_pfs : dl->watch;
}

/* 1 when the launch has just overrun what it is watched for */
static int launch_watch_due(launch_watch_t *w, double now)
{
    const launch_deadline_t *dl = w->dl;
    if (!w->started && dl->started && dl->started(dl->arg)) {
        w->started = 1;
        w->sign = now;
    }
    if (!w->started && dl->secs > 0 && now - w->t0 >= dl->secs) {
        w->why = LAUNCH_NO_START;
        return 1;
    }
    if (dl->watch <= 0 || !dl->progress)
        return 0;
    int pfs = w->pfs;
    if (dl->progress(dl->arg, &pfs)) {
        w->sign = now;
        w->pfs = pfs;
    }
    if (now - w->sign < launch_watch_limit(dl, w->pfs, NULL))
        return 0;
    w->why = LAUNCH_NO_PROGRESS;
    return 1;
}

/* look (once a second) at the launch; stop it when it overran, and kill
 * it 10 s after that */
static void launch_watch_tick(launch_watch_t *w, pid_t pid)
{
    double now = scr_now();
    if (!w->dl)
        return;
    if (w->killed > 0) {
        if (now - w->killed >= 10.0)
            kill(pid, SIGKILL);
        return;
    }
    if (now - w->checked < 1.0)
        return;
    w->checked = now;
    if (launch_watch_due(w, now)) {
        kill(pid, SIGTERM);
        w->killed = now;
    }
}

static int launch_run_watched(char **argv, char **out_text, const char *who,
                              const launch_deadline_t *dl, int *stopped)
{
    int pfd[2] = {-1, -1};
    if (out_text && pipe(pfd) < 0)
        return 127;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return 127;
    if (pid == 0) {
        if (out_text) {
            dup2(pfd[1], 1);
            close(pfd[0]);
            close(pfd[1]);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "scr run: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    launch_wait_t w;
    launch_wait_start(&w, who, argv);
    double now = scr_now();
    launch_watch_t dw = {dl, now, 0, 0, now, 0, 0, LAUNCH_RAN};
    if (out_text) {
        close(pfd[1]);
        *out_text = launch_read_out(pfd[0], &w, pid);
        close(pfd[0]);
    }
    int status;
    for (;;) {
        pid_t r = waitpid(pid, &status, who || dl ? WNOHANG : 0);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            return 127;
        if (r == 0) {
            struct timespec nap = {0, 100 * 1000 * 1000};
            nanosleep(&nap, NULL);
            launch_wait_tick(&w, pid);
            launch_watch_tick(&dw, pid);
        }
    }
    if (stopped)
        *stopped = dw.killed > 0 ? dw.why : LAUNCH_RAN;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int launch_run_said(char **argv, char **out_text, const char *who)
{
    return launch_run_watched(argv, out_text, who, NULL, NULL);
}

int launch_run(char **argv, char **out_text)
{
    return launch_run_watched(argv, out_text, NULL, NULL, NULL);
}

int launch_run_deadline(char **argv, const launch_deadline_t *dl, int *stopped)
{
    *stopped = LAUNCH_RAN;
    int watched = dl && (dl->secs > 0 || (dl->watch > 0 && dl->progress));
    return launch_run_watched(argv, NULL, NULL, watched ? dl : NULL, stopped);
}
