/* SPDX-License-Identifier: BSD-3-Clause */
/* privs.h - doing work as the job's user from code that runs as root.
 *
 * The prolog and epilog run as root over directories the user controls.
 * Anything that reads or writes user data runs in a child process that has
 * dropped every privilege (supplementary groups, gid, uid, with no way back),
 * so a planted symlink or a hostile file name can reach only what the user
 * could reach anyway.  The root parent only waits for the child's verdict.
 */
#ifndef SCR_PRIVS_H
#define SCR_PRIVS_H

#include <sys/types.h>

#include "error.h"

typedef int (*privs_fn)(void *arg);

/* Run fn(arg) as uid/gid (user names the account for its groups).  As root:
 * in a forked child that drops privileges first; as that user already: in
 * this process.  Returns fn's result (0 or -1), or -1 with err set when the
 * child could not be run or could not drop privileges. */
int privs_run_as(const char *user, uid_t uid, gid_t gid, privs_fn fn, void *arg,
                 scr_error_t *err);

/* Drop to uid/gid for good (the child side of privs_run_as). */
int privs_drop(const char *user, uid_t uid, gid_t gid, scr_error_t *err);

#endif
