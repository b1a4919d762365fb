/* SPDX-License-Identifier: BSD-3-Clause */
/* node.h - a compute node's SCR storage across jobs: prepare it for a job,
 * check it is healthy, purge what ended jobs left behind, remove a job's
 * directories.
 *
 * Layout (guide 2.1.4): <base>/<user>/scr.<jobid> for every cache base and
 * the control base.  The prolog runs as root over bases such as /dev/shm
 * that every user can write, so a user may have planted anything under a
 * name we are about to use: every step works on directory descriptors with
 * O_NOFOLLOW and checks ownership before changing anything.
 */
#ifndef SCR_NODE_H
#define SCR_NODE_H

#include <stdint.h>
#include <sys/types.h>

#include "error.h"

typedef struct {
    const char *user;
    uid_t uid;
    gid_t gid;
    const char *jobid;
} job_ident_t;

/* Create <base>/<user> and <base>/<user>/scr.<jobid>, both 0700 and owned
 * by the user.  A symlink, a non-directory or a directory owned by someone
 * else in their place is never followed or changed: as root it is renamed to
 * .scr-quarantine.<name>.<time>.<pid> beside it (with a warning) and the real
 * directory made; otherwise it is an error naming it. */
int node_prepare_dir(const char *base, const job_ident_t *job, scr_error_t *err);

/* Storage health: base is a directory, has at least capacity bytes free
 * (0: no check), and a file can be created, written, synced, read back and
 * deleted in it. */
int node_health(const char *base, uint64_t capacity, scr_error_t *err);

/* Directories <base>/<user>/scr.<J> of jobs J other than job->jobid for which
 * alive(J) is 0.  *dirs is a malloc'd array of malloc'd paths. */
typedef int (*node_alive_fn)(const char *jobid, void *arg);
int node_stale_dirs(const char *base, const job_ident_t *job, node_alive_fn alive,
                    void *arg, char ***dirs, int *n);
void node_free_dirs(char **dirs, int n);

/* Remove a directory tree without following symlinks or crossing mounts
 * (run as the owner).  A missing path is not an error. */
int node_remove_tree(const char *path, scr_error_t *err);

#endif
