/* SPDX-License-Identifier: BSD-3-Clause */
/* simnode_hold.c - the holder of a simulated node (tests/sim/simnode).
 *
 * simnode-hold NAME TMP SHM NSSWITCH [SHARED...]
 *
 * Enters a UTS and mount namespace of its own (every mount private), sets
 * the hostname NAME, binds NSSWITCH over /etc/nsswitch.conf, TMP over /tmp
 * and SHM over /dev/shm, with each SHARED path below /tmp or /dev/shm
 * bound back from the host's.  Then it forks the holder, which keeps the
 * namespaces alive until killed, prints the holder's pid and exits 0: when
 * it returns, the node is ready.
 *
 * This is what simnode did with unshare, sh, hostname and a dozen mount,
 * umount and mkdir processes per node; the tests start some 300 sets of
 * nodes per run, and those processes cost about a CPU-second per set. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define STAGE "/.simnode-host"

static const char *node = "?";

static int fail(const char *what, const char *path)
{
    fprintf(stderr, "simnode-hold: node %s: %s %s: %s\n", node, what, path,
            strerror(errno));
    return -1;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
        errno = ENAMETOOLONG;
        return fail("mkdir", path);
    }
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
            return fail("mkdir", buf);
        *p = c;
        if (c == '\0')
            return 0;
    }
}

static int bind_mount(const char *from, const char *to, unsigned long flags)
{
    if (mount(from, to, NULL, MS_BIND | flags, NULL) < 0)
        return fail("bind mount onto", to);
    return 0;
}

/* is path below dir (dir itself excluded)? */
static int is_below(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* DIR over MOUNT, with the shared paths below MOUNT the host's: the host's
 * MOUNT is staged below DIR first (it is hidden once DIR is mounted over
 * it), each shared path bound from there, then the stage dropped, so the
 * node sees nothing else of the host's MOUNT */
static int mount_private(const char *mount_at, const char *dir, int nshared,
                         char **shared)
{
    char stage[PATH_MAX], seen[PATH_MAX], from[PATH_MAX];
    int any = 0;
    for (int i = 0; i < nshared; i++)
        any |= is_below(shared[i], mount_at);
    if (!any)
        return bind_mount(dir, mount_at, 0);
    snprintf(stage, sizeof(stage), "%s" STAGE, dir);
    snprintf(seen, sizeof(seen), "%s" STAGE, mount_at);
    if (make_dirs(stage) < 0 || bind_mount(mount_at, stage, 0) < 0 ||
        bind_mount(dir, mount_at, MS_REC) < 0)
        return -1;
    for (int i = 0; i < nshared; i++) {
        if (!is_below(shared[i], mount_at))
            continue;
        snprintf(from, sizeof(from), "%s%s", seen, shared[i] + strlen(mount_at));
        if (make_dirs(shared[i]) < 0 || bind_mount(from, shared[i], 0) < 0)
            return -1;
    }
    if (umount2(seen, MNT_DETACH) < 0)
        return fail("unmount", seen);
    /* the stage as mounted at DIR: gone from sight when DIR is below MOUNT */
    (void)umount2(stage, MNT_DETACH);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: simnode-hold NAME TMP SHM NSSWITCH [SHARED...]\n");
        return 2;
    }
    node = argv[1];
    if (unshare(CLONE_NEWUTS | CLONE_NEWNS) < 0)
        return fail("unshare", "(uts, mount)"), 1;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return fail("make private", "/"), 1;
    if (sethostname(node, strlen(node)) < 0)
        return fail("sethostname", node), 1;
    if (bind_mount(argv[4], "/etc/nsswitch.conf", 0) < 0 ||
        mount_private("/tmp", argv[2], argc - 5, argv + 5) < 0 ||
        mount_private("/dev/shm", argv[3], argc - 5, argv + 5) < 0)
        return 1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return fail("fork", "holder"), 1;
    if (pid == 0) {
        /* nothing to do but be there; SIGKILL ends it (simnode kill).  It
         * lets go of the caller's output, or $(simnode-hold ...) would
         * wait for it forever */
        int null = open("/dev/null", O_RDWR);
        /* the name simnode and the tests look for, whatever the file's */
        prctl(PR_SET_NAME, "simnode-hold");
        if (null < 0 || chdir("/") < 0)
            _exit(1);
        for (int fd = 0; fd < 3; fd++)
            dup2(null, fd);
        if (null > 2)
            close(null);
        for (;;)
            pause();
    }
    printf("%d\n", (int)pid);
    return 0;
}
