/* SPDX-License-Identifier: BSD-3-Clause */
/* beneath.c - open and create below a directory, following no link */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"

/* why opening name (below dirfd, shown) failed, in words that name a
 * planted link: O_NOFOLLOW says ELOOP for a link at the end, O_DIRECTORY
 * ENOTDIR for one on the way */
static int beneath_error(int dirfd, const char *shown, const char *name, int e,
                         scr_error_t *err)
{
    struct stat st;
    if (e == ELOOP ||
        (e == ENOTDIR && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISLNK(st.st_mode)))
        return errprintf(err, "%s/%s is a symbolic link; not following it", shown, name);
    if (e == ENOTDIR)
        return errprintf(err, "%s/%s is not a directory", shown, name);
    return errprintf(err, "%s/%s: %s", shown, name, strerror(e));
}

int beneath_open_dir(const char *dir, scr_error_t *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP || e == ENOTDIR)
            return errprintf(err, "%s is not a directory (a link?); not following it",
                             dir);
        return errprintf(err, "%s: %s", dir, strerror(e));
    }
    return fd;
}

/* Walk rel below dirfd: every component but the last is opened (mkdir'd
 * first if mode is not 0) as a directory without following it; the last
 * is opened with flags (or as a directory when mkdir).  Returns the fd. */
static int beneath_walk(int dirfd, const char *shown, const char *rel, int flags,
                        mode_t mode, scr_error_t *err)
{
    char *copy = strdup(rel), *save = NULL, *at = NULL;
    size_t len = strlen(shown) + strlen(rel) + 2;
    char *where = malloc(len);
    int fd = dup(dirfd), rc = 0;
    if (!copy || !where || fd < 0) {
        free(copy);
        free(where);
        if (fd >= 0)
            close(fd);
        return errprintf(err, "%s/%s: out of memory", shown, rel);
    }
    snprintf(where, len, "%s", shown);
    for (char *c = strtok_r(copy, "/", &save); c && rc == 0; c = at) {
        at = strtok_r(NULL, "/", &save);
        if (strcmp(c, ".") == 0)
            continue;
        if (strcmp(c, "..") == 0) {
            rc = errprintf(err, "%s/%s: '..' leaves the directory; refused", shown, rel);
            break;
        }
        int last = at == NULL && !mode;
        if (mode && mkdirat(fd, c, mode) < 0 && errno != EEXIST) {
            rc = errprintf(err, "mkdir %s/%s: %s", where, c, strerror(errno));
            break;
        }
        int next = openat(
            fd, c, (last ? flags : O_RDONLY | O_DIRECTORY) | O_NOFOLLOW | O_CLOEXEC,
            0600);
        if (next < 0) {
            rc = beneath_error(fd, where, c, errno, err);
            break;
        }
        close(fd);
        fd = next;
        size_t used = strlen(where);
        snprintf(where + used, len - used, "/%s", c);
    }
    free(copy);
    free(where);
    if (rc < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int beneath_open(int dirfd, const char *shown, const char *rel, int flags,
                 scr_error_t *err)
{
    if (!rel || !*rel || rel[0] == '/')
        return errprintf(err, "%s: '%s' is not a relative path; refused", shown,
                         rel ? rel : "");
    return beneath_walk(dirfd, shown, rel, flags, 0, err);
}

int beneath_mkdirs(int dirfd, const char *shown, const char *rel, mode_t mode,
                   scr_error_t *err)
{
    if (!rel || rel[0] == '/')
        return errprintf(err, "%s: '%s' is not a relative path; refused", shown,
                         rel ? rel : "");
    return beneath_walk(dirfd, shown, rel, 0, mode ? mode : 0700, err);
}
