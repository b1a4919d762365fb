/* SPDX-License-Identifier: BSD-3-Clause */
/* scavfile.c - open a cached file and create its copy, following no link */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"
#include "path.h"
#include "scavfile.h"

/* src relative to root (malloc'd), or NULL when src does not lie below it */
static char *scavfile_rel(const char *root, const char *src)
{
    if (!path_is_under(src, root))
        return NULL;
    path_t *r = path_from_str(root), *p = path_from_str(src), *rel = NULL;
    char *str = NULL;
    if (r && p && path_reduce(r) == 0 && path_reduce(p) == 0 &&
        (rel = path_relative(r, p)))
        str = path_strdup(rel);
    path_delete(&r);
    path_delete(&p);
    path_delete(&rel);
    if (str && !path_is_safe_relative(str)) {
        free(str);
        str = NULL;
    }
    return str;
}

/* a regular file of this process's user that no other name shares */
static int scavfile_check(const char *src, const struct stat *st, scr_error_t *err)
{
    if (!S_ISREG(st->st_mode))
        return errprintf(err, "%s is not a regular file; not copying it", src);
    if (st->st_uid != geteuid())
        return errprintf(err, "%s belongs to uid %u, not to the job's user (uid %u)", src,
                         (unsigned)st->st_uid, (unsigned)geteuid());
    if (st->st_nlink != 1)
        return errprintf(err,
                         "%s has %lu hard links; refusing it (a link may be another's "
                         "file)",
                         src, (unsigned long)st->st_nlink);
    return 0;
}

int scavfile_open_src(const char *root, const char *src, struct stat *st,
                      scr_error_t *err)
{
    char *rel = scavfile_rel(root, src);
    if (!rel)
        return errprintf(err, "%s is not below the job's cache directory %s", src, root);
    scr_error_t why = {""};
    int dfd = beneath_open_dir(root, &why), fd = -1;
    /* O_NONBLOCK: a FIFO planted in the cache must not hang the epilog */
    if (dfd >= 0)
        fd = beneath_open(dfd, root, rel, O_RDONLY | O_NONBLOCK, &why);
    free(rel);
    if (dfd >= 0)
        close(dfd);
    if (fd < 0) /* name the file, and the component that stopped it */
        return strncmp(why.text, src, strlen(src)) == 0
                   ? errprintf(err, "%s", why.text)
                   : errprintf(err, "%s: not read: %s", src, why.text);
    if (fstat(fd, st) < 0) {
        errprintf(err, "stat %s: %s", src, strerror(errno));
        close(fd);
        return -1;
    }
    if (scavfile_check(src, st, err) < 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int scavfile_create(const char *dsetdir, const char *rel, const char *tag, mode_t mode,
                    scavfile_dst_t *d, scr_error_t *err)
{
    const char *slash = strrchr(rel, '/');
    const char *base = slash ? slash + 1 : rel;
    char dir[4200];
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - rel) : 0, rel);
    snprintf(d->shown, sizeof(d->shown), "%s/%s", dsetdir, rel);
    if (snprintf(d->name, sizeof(d->name), "%s", base) >= (int)sizeof(d->name) || !*base)
        return errprintf(err, "%s: not a file name", d->shown);
    snprintf(d->tmp, sizeof(d->tmp), "%s.scr-tmp.%s.%ld", base, tag, (long)getpid());
    d->fd = -1;
    int top = beneath_open_dir(dsetdir, err);
    if (top < 0)
        return -1;
    d->dirfd = beneath_mkdirs(top, dsetdir, dir, 0700, err);
    close(top);
    if (d->dirfd < 0)
        return -1;
    d->fd = openat(d->dirfd, d->tmp,
                   O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
    if (d->fd < 0) {
        errprintf(err, "create %s.scr-tmp...: %s", d->shown, strerror(errno));
        close(d->dirfd);
        return -1;
    }
    return 0;
}

int scavfile_commit(scavfile_dst_t *d, scr_error_t *err)
{
    int rc = 0;
    if (fsync(d->fd) < 0)
        rc = errprintf(err, "fsync %s: %s", d->shown, strerror(errno));
    if (close(d->fd) < 0 && rc == 0)
        rc = errprintf(err, "close %s: %s", d->shown, strerror(errno));
    d->fd = -1;
    if (rc == 0 && renameat(d->dirfd, d->tmp, d->dirfd, d->name) < 0)
        rc = errprintf(err, "rename %s: %s", d->shown, strerror(errno));
    if (rc < 0)
        unlinkat(d->dirfd, d->tmp, 0);
    close(d->dirfd);
    return rc;
}

void scavfile_abort(scavfile_dst_t *d)
{
    if (d->fd >= 0)
        close(d->fd);
    unlinkat(d->dirfd, d->tmp, 0);
    close(d->dirfd);
    d->fd = -1;
}
