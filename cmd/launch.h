/* SPDX-License-Identifier: BSD-3-Clause */
/* launch.h - how `scr run` starts things on the job's nodes: the
 * application on a set of nodes, and one command per node (health checks,
 * scavenge).  One adapter per launcher, chosen by SCR_LAUNCHER or the
 * environment: srun inside a Slurm job, flux inside a Flux job, else mpirun
 * (SCR_MPIRUN overrides the mpirun command line, e.g. a wrapper).
 */
#ifndef SCR_LAUNCH_H
#define SCR_LAUNCH_H

#include "nodelist.h"

typedef struct {
    char **argv;
    int argc, cap;
} argv_t;

void argv_add(argv_t *a, const char *s);
void argv_addf(argv_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void argv_free(argv_t *a);

/* where a run of the application goes */
typedef struct {
    const nodelist_t *nodes;   /* the live nodes; with exact, the ones to use */
    const nodelist_t *exclude; /* the job's nodes that are down */
    int exact;                 /* run on exactly nodes, not where the launcher likes */
    int add_count;             /* also pass their count (the user's options have none) */
    int relaunch;              /* a run after a failed one in this allocation */
} launch_where_t;

typedef struct launcher launcher_t;
struct launcher {
    const char *name;
    /* the application where w says, with the user's launcher options and
     * the application argv */
    void (*app)(const launcher_t *l, argv_t *out, const launch_where_t *w, int uargc,
                char **uargv);
    /* argv once on each of nodes */
    void (*per_node)(const launcher_t *l, argv_t *out, const nodelist_t *nodes, int argc,
                     char **argv);
    /* 1 if one unreachable node fails the whole launch (mpirun): health
     * checks then go node by node */
    int all_or_nothing;
    /* 1 if -N / --nodes is the launcher's node count (srun, flux run; not
     * Open MPI's mpirun, where -N is processes per node) */
    int nodes_opt;
};

/* by name (srun, mpirun), or NULL: from SCR_LAUNCHER / the environment */
const launcher_t *launch_get(const char *name);

/* the node count the user's launcher options ask for (-N4, -N 4, --nodes=4;
 * of a range 4-6 the 4), else 0.  The options end at "--" or at the first
 * word that is not an option, unless it follows a two-letter option
 * ("-n 8"): the application's own -N is not taken for the launcher's. */
int launch_user_nodes(const launcher_t *l, int uargc, char **uargv);

/* run argv (NULL-terminated); stdout lines go to out_lines if not NULL
 * (caller frees), else through.  Returns the exit status (128+sig if killed). */
int launch_run(char **argv, char **out_text);

/* launch_run for a step that should end soon (a scavenge, a probe): once it
 * has taken 5 s, and every 5 s after, one line "WHO: still waiting after N
 * s for COMMAND (pid P)" on stdout */
int launch_run_said(char **argv, char **out_text, const char *who);

/* What a launch is watched for.  Start-up: when started(arg) has not said
 * 1 within secs seconds of the launch, the launch is stopped.  The
 * watchdog (watch > 0): when progress(arg, &pfs) has not said 1 for watch
 * seconds (watch_pfs after it set pfs: the run's next sign may take the
 * parallel file system's time), counted from the launch, from its start,
 * and from each sign, the launch is stopped.  Stopped: the launcher gets
 * SIGTERM (it stops the application's processes), then SIGKILL 10 s
 * later.  Each callback is asked once a second at most. */
typedef struct {
    double secs; /* 0: no start-up deadline */
    int (*started)(void *arg);
    void *arg;
    double watch, watch_pfs; /* 0: no watchdog */
    int (*progress)(void *arg, int *pfs);
} launch_deadline_t;

enum { LAUNCH_RAN, LAUNCH_NO_START, LAUNCH_NO_PROGRESS };

/* the watchdog's seconds after a sign that said pfs (or not); *on_pfs (if
 * not NULL): 1 when that is watch_pfs */
double launch_watch_limit(const launch_deadline_t *dl, int pfs, int *on_pfs);

/* launch_run (stdout through), watched as dl says; *stopped is
 * LAUNCH_NO_START or LAUNCH_NO_PROGRESS when the watch stopped it, else
 * LAUNCH_RAN */
int launch_run_deadline(char **argv, const launch_deadline_t *dl, int *stopped);

#endif
