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

typedef struct launcher launcher_t;
struct launcher {
    const char *name;
    /* the application on live nodes (all of the job's nodes minus exclude),
     * with the user's launcher options and the application argv */
    void (*app)(const launcher_t *l, argv_t *out, const nodelist_t *live,
                const nodelist_t *exclude, int uargc, char **uargv);
    /* argv once on each of nodes */
    void (*per_node)(const launcher_t *l, argv_t *out, const nodelist_t *nodes, int argc,
                     char **argv);
    /* 1 if one unreachable node fails the whole launch (mpirun): health
     * checks then go node by node */
    int all_or_nothing;
};

/* by name (srun, mpirun), or NULL: from SCR_LAUNCHER / the environment */
const launcher_t *launch_get(const char *name);

/* run argv (NULL-terminated); stdout lines go to out_lines if not NULL
 * (caller frees), else through.  Returns the exit status (128+sig if killed). */
int launch_run(char **argv, char **out_text);

#endif
