/* SPDX-License-Identifier: BSD-3-Clause */
/* privs.c - run a function as the job's user */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "privs.h"

int privs_drop(const char *user, uid_t uid, gid_t gid, scr_error_t *err)
{
    if (uid == 0)
        return errprintf(err, "refusing to run user work as root (uid 0)");
    if (user ? initgroups(user, gid) < 0 : setgroups(1, &gid) < 0)
        return errprintf(err, "set groups of %s: %s", user ? user : "job user",
                         strerror(errno));
    if (setresgid(gid, gid, gid) < 0)
        return errprintf(err, "setresgid %u: %s", (unsigned)gid, strerror(errno));
    if (setresuid(uid, uid, uid) < 0)
        return errprintf(err, "setresuid %u: %s", (unsigned)uid, strerror(errno));
    /* paranoia: the way back must be closed */
    if (setuid(0) == 0 || geteuid() != uid || getegid() != gid)
        return errprintf(err, "privileges of uid %u were not dropped", (unsigned)uid);
    return 0;
}

int privs_run_as(const char *user, uid_t uid, gid_t gid, privs_fn fn, void *arg,
                 scr_error_t *err)
{
    if (geteuid() == uid) /* a job of root's, or a user's own tool */
        return fn(arg);
    if (geteuid() != 0) {
        if (geteuid() != uid)
            return errprintf(err, "uid %u cannot act for uid %u", (unsigned)geteuid(),
                             (unsigned)uid);
        return fn(arg);
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return errprintf(err, "fork: %s", strerror(errno));
    if (pid == 0) {
        scr_error_t e;
        if (privs_drop(user, uid, gid, &e) < 0) {
            fprintf(stderr, "scr: %s\n", e.text);
            _exit(2);
        }
        int rc = fn(arg);
        fflush(stdout);
        fflush(stderr);
        _exit(rc == 0 ? 0 : 1);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return errprintf(err, "waitpid: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
        return errprintf(err, "could not drop privileges to uid %u", (unsigned)uid);
    if (WIFSIGNALED(status))
        return errprintf(err, "work as uid %u died of signal %d", (unsigned)uid,
                         WTERMSIG(status));
    return -1;
}
