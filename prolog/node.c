/* SPDX-License-Identifier: BSD-3-Clause */
/* node.c - node storage: prepare, health check, purge */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "log.h"
#include "node.h"
#include "units.h"

/* open (creating) name under dirfd as a directory owned by the user; root
 * gives a fresh one to the user, anything else must already be the user's */
static int node_user_dir_once(int dirfd, const char *shown, const char *name,
                              const job_ident_t *job, int *planted, scr_error_t *err)
{
    *planted = 0;
    if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
        return errprintf(err, "mkdir %s/%s: %s", shown, name, strerror(errno));
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        *planted = errno == ELOOP || errno == ENOTDIR;
        return errprintf(err, "%s/%s: %s", shown, name,
                         *planted ? "is not a directory (refusing to follow it)"
                                  : strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) < 0) {
        close(fd);
        return errprintf(err, "stat %s/%s: %s", shown, name, strerror(errno));
    }
    if (st.st_uid != job->uid) {
        if (st.st_uid != 0 || geteuid() != 0 || fchown(fd, job->uid, job->gid) < 0) {
            close(fd);
            *planted = 1;
            return errprintf(err, "%s/%s belongs to uid %u, not to %s (uid %u)", shown,
                             name, (unsigned)st.st_uid, job->user, (unsigned)job->uid);
        }
    }
    if ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700) < 0) {
        close(fd);
        return errprintf(err, "chmod %s/%s: %s", shown, name, strerror(errno));
    }
    return fd;
}

/* Someone else put a symlink, a file or their own directory where the
 * user's directory belongs (bases like /dev/shm are world-writable).  Root
 * moves it aside, untouched, and makes the real one: a user cannot get
 * another user's nodes drained by planting a name. */
static int node_user_dir(int dirfd, const char *shown, const char *name,
                         const job_ident_t *job, scr_error_t *err)
{
    int planted = 0;
    int fd = node_user_dir_once(dirfd, shown, name, job, &planted, err);
    if (fd >= 0 || !planted || geteuid() != 0)
        return fd;
    char aside[512], why[512];
    snprintf(why, sizeof(why), "%s", err ? err->text : name);
    snprintf(aside, sizeof(aside), ".scr-quarantine.%s.%ld.%ld", name, (long)time(NULL),
             (long)getpid());
    if (renameat(dirfd, name, dirfd, aside) < 0)
        return errprintf(err, "%s; moving it aside failed: %s", why, strerror(errno));
    log_warn("%s; moved it to %s/%s", why, shown, aside);
    return node_user_dir_once(dirfd, shown, name, job, &planted, err);
}

int node_prepare_dir(const char *base, const job_ident_t *job, scr_error_t *err)
{
    int bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (bfd < 0)
        return errprintf(err, "storage %s: %s", base, strerror(errno));
    int ufd = node_user_dir(bfd, base, job->user, job, err);
    close(bfd);
    if (ufd < 0)
        return -1;
    char shown[4200], name[256];
    snprintf(shown, sizeof(shown), "%s/%s", base, job->user);
    snprintf(name, sizeof(name), "scr.%s", job->jobid);
    int jfd = node_user_dir(ufd, shown, name, job, err);
    close(ufd);
    if (jfd < 0)
        return -1;
    close(jfd);
    return 0;
}

static int node_probe(const char *base, scr_error_t *err)
{
    char path[4200], host[256] = "";
    gethostname(host, sizeof(host) - 1);
    snprintf(path, sizeof(path), "%s/.scr-health.%s.%ld", base, host, (long)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return errprintf(err, "cannot create a file in %s: %s", base, strerror(errno));
    char out[4096], in[4096];
    memset(out, 0x5a, sizeof(out));
    int rc = 0;
    if (io_write_full(fd, out, sizeof(out)) < 0 || fsync(fd) < 0)
        rc = errprintf(err, "cannot write to %s: %s", base, strerror(errno));
    else if (io_pread_full(fd, in, sizeof(in), 0) != (ssize_t)sizeof(in) ||
             memcmp(in, out, sizeof(in)) != 0)
        rc = errprintf(err, "%s does not read back what was written", base);
    close(fd);
    if (unlink(path) < 0 && rc == 0)
        rc = errprintf(err, "cannot delete %s: %s", path, strerror(errno));
    return rc;
}

int node_health(const char *base, uint64_t capacity, scr_error_t *err)
{
    struct stat st;
    if (stat(base, &st) < 0)
        return errprintf(err, "storage %s: %s", base, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return errprintf(err, "storage %s is not a directory", base);
    if (capacity > 0) {
        struct statvfs vfs;
        if (statvfs(base, &vfs) < 0)
            return errprintf(err, "statvfs %s: %s", base, strerror(errno));
        uint64_t avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
        if (avail < capacity) {
            char have[32], want[32];
            units_format_bytes(avail, have, sizeof(have));
            units_format_bytes(capacity, want, sizeof(want));
            return errprintf(err, "storage %s has %s free, %s expected", base, have,
                             want);
        }
    }
    return node_probe(base, err);
}

int node_stale_dirs(const char *base, const job_ident_t *job, node_alive_fn alive,
                    void *arg, char ***dirs, int *n)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", base, job->user);
    *dirs = NULL;
    *n = 0;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "scr.", 4) != 0 || strcmp(e->d_name + 4, job->jobid) == 0)
            continue;
        if (alive(e->d_name + 4, arg))
            continue;
        char **more = realloc(*dirs, sizeof(char *) * (size_t)(*n + 1));
        if (!more)
            break;
        *dirs = more;
        if (asprintf(&(*dirs)[*n], "%s/%s", path, e->d_name) >= 0)
            (*n)++;
    }
    closedir(d);
    return 0;
}

void node_free_dirs(char **dirs, int n)
{
    for (int i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
}

static int node_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    int rc = flag == FTW_DP ? rmdir(path) : unlink(path);
    if (rc < 0 && errno != ENOENT)
        fprintf(stderr, "scr: remove %s: %s\n", path, strerror(errno));
    return 0;
}

int node_remove_tree(const char *path, scr_error_t *err)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : errprintf(err, "%s: %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return errprintf(err, "%s is not a directory; not removing it", path);
    nftw(path, node_rm, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
    if (lstat(path, &st) == 0)
        return errprintf(err, "could not remove all of %s", path);
    return 0;
}
