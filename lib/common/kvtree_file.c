/* SPDX-License-Identifier: BSD-3-Clause */
/* kvtree_file.c - kvtree files (guide 2.3.4) and locked read-modify-write
 *
 * File: uint32 magic 0x951fc3f5, uint16 type (1), uint16 version (1),
 * uint64 file size, uint32 flags, packed hash, and a uint32 CRC32 of all
 * preceding bytes when flags has bit 0x1.  All big-endian.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crc32.h"
#include "io.h"
#include "kvtree.h"
#include "log.h"
#include "units.h"

static void put_u16(unsigned char *p, uint16_t v)
{
    v = htons(v);
    memcpy(p, &v, 2);
}

static void put_u32(unsigned char *p, uint32_t v)
{
    v = htonl(v);
    memcpy(p, &v, 4);
}

static void put_u64(unsigned char *p, uint64_t v)
{
    put_u32(p, (uint32_t)(v >> 32));
    put_u32(p + 4, (uint32_t)v);
}

static uint16_t get_u16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return ntohs(v);
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return ntohl(v);
}

static uint64_t get_u64(const unsigned char *p)
{
    return ((uint64_t)get_u32(p) << 32) | get_u32(p + 4);
}

int kvtree_file_image(const kvtree_t *t, void **buf, size_t *size)
{
    size_t data = kvtree_pack_size(t);
    size_t total = KVTREE_FILE_HEADER_SIZE + data + 4;
    unsigned char *p = malloc(total);
    if (!p)
        return -1;
    put_u32(p, KVTREE_MAGIC);
    put_u16(p + 4, KVTREE_FILE_TYPE);
    put_u16(p + 6, KVTREE_FILE_VERSION);
    put_u64(p + 8, total);
    put_u32(p + 16, KVTREE_FILE_FLAGS_CRC32);
    kvtree_pack(p + KVTREE_FILE_HEADER_SIZE, t);
    put_u32(p + total - 4, crc32_update(0, p, total - 4));
    *buf = p;
    *size = total;
    return 0;
}

int kvtree_read_buf(const void *buf, size_t size, const char *name, kvtree_t *t,
                    scr_error_t *err)
{
    const unsigned char *p = buf;
    if (size < KVTREE_FILE_HEADER_SIZE)
        return errprintf(err, "%s: truncated: %zu bytes, shorter than the %d byte header",
                         name, size, KVTREE_FILE_HEADER_SIZE);
    if (get_u32(p) != KVTREE_MAGIC)
        return errprintf(err,
                         "%s: not an SCR kvtree file (magic 0x%08x, expected 0x%08x)",
                         name, get_u32(p), KVTREE_MAGIC);
    if (get_u16(p + 4) != KVTREE_FILE_TYPE)
        return errprintf(err, "%s: unknown file type %u (expected %d)", name,
                         get_u16(p + 4), KVTREE_FILE_TYPE);
    if (get_u16(p + 6) != KVTREE_FILE_VERSION)
        return errprintf(err, "%s: unsupported file version %u (expected %d)", name,
                         get_u16(p + 6), KVTREE_FILE_VERSION);
    uint64_t fsize = get_u64(p + 8);
    if (fsize != size)
        return errprintf(err, "%s: %s: header says %llu bytes, file has %zu", name,
                         fsize > size ? "truncated" : "trailing data",
                         (unsigned long long)fsize, size);
    uint32_t flags = get_u32(p + 16);
    if (flags & ~KVTREE_FILE_FLAGS_CRC32)
        return errprintf(err, "%s: unknown flags 0x%08x", name, flags);
    size_t end = size;
    if (flags & KVTREE_FILE_FLAGS_CRC32) {
        if (size < KVTREE_FILE_HEADER_SIZE + 4)
            return errprintf(err, "%s: truncated: no room for the CRC32", name);
        end = size - 4;
        uint32_t stored = get_u32(p + end);
        uint32_t actual = crc32_update(0, p, end);
        if (stored != actual)
            return errprintf(err, "%s: CRC32 mismatch (stored 0x%08x, computed 0x%08x)",
                             name, stored, actual);
    }
    /* unpacked aside and merged, so that a damaged file leaves t as it was;
     * into an empty t directly (cleared again if damaged): the merge copied
     * every element once more, half the reading of a record (bench/README.md) */
    int direct = kvtree_size(t) == 0;
    kvtree_t *tmp = direct ? t : kvtree_new();
    if (!tmp)
        return errprintf(err, "%s: out of memory", name);
    scr_error_t perr;
    int64_t n = kvtree_unpack(p + KVTREE_FILE_HEADER_SIZE, end - KVTREE_FILE_HEADER_SIZE,
                              tmp, &perr);
    int rc = 0;
    if (n < 0)
        rc = errprintf(err, "%s: corrupt hash data: %s", name, perr.text);
    else if ((size_t)n != end - KVTREE_FILE_HEADER_SIZE)
        rc = errprintf(err, "%s: corrupt hash data: %zu unused bytes after the hash",
                       name, end - KVTREE_FILE_HEADER_SIZE - (size_t)n);
    else if (!direct && kvtree_merge(t, tmp) < 0)
        rc = errprintf(err, "%s: out of memory", name);
    if (direct && rc < 0)
        kvtree_clear(t);
    if (!direct)
        kvtree_delete(&tmp);
    return rc;
}

/* fsync the directory holding path, so a rename survives a crash */
static int fsync_parent(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(copy);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

static int kvtree_write(const char *path, const kvtree_t *t, int sync, scr_error_t *err);

int kvtree_write_file(const char *path, const kvtree_t *t, scr_error_t *err)
{
    return kvtree_write(path, t, 1, err);
}

int kvtree_write_file_nosync(const char *path, const kvtree_t *t, scr_error_t *err)
{
    return kvtree_write(path, t, 0, err);
}

static int kvtree_write(const char *path, const kvtree_t *t, int sync, scr_error_t *err)
{
    void *buf;
    size_t size;
    char tmp[4096];
    static unsigned counter;
    if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d.%u", path, (int)getpid(), counter++) >=
        (int)sizeof(tmp))
        return errprintf(err, "%s: path too long", path);
    if (kvtree_file_image(t, &buf, &size) < 0)
        return errprintf(err, "%s: out of memory", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
        errprintf(err, "create %s: %s", tmp, strerror(errno));
        free(buf);
        return -1;
    }
    int rc = 0;
    if (io_write_full(fd, buf, size) < 0)
        rc = errprintf(err, "write %s: %s", tmp, strerror(errno));
    else if (sync && fsync(fd) < 0)
        rc = errprintf(err, "fsync %s: %s", tmp, strerror(errno));
    if (close(fd) < 0 && rc == 0)
        rc = errprintf(err, "close %s: %s", tmp, strerror(errno));
    if (rc == 0 && rename(tmp, path) < 0)
        rc = errprintf(err, "rename %s to %s: %s", tmp, path, strerror(errno));
    if (rc < 0)
        unlink(tmp);
    else if (sync)
        fsync_parent(path);
    free(buf);
    return rc;
}

static int kvtree_read_fd(int fd, const char *path, kvtree_t *t, scr_error_t *err)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return errprintf(err, "stat %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return errprintf(err, "%s: not a regular file", path);
    if ((unsigned long long)st.st_size > KVTREE_FILE_MAX_SIZE)
        return errprintf(err, "%s: %lld bytes is too large for a metadata file", path,
                         (long long)st.st_size);
    size_t size = (size_t)st.st_size;
    void *buf = malloc(size ? size : 1);
    if (!buf)
        return errprintf(err, "%s: out of memory", path);
    ssize_t n = io_read_full(fd, buf, size);
    int rc;
    if (n < 0)
        rc = errprintf(err, "read %s: %s", path, strerror(errno));
    else if ((rc = kvtree_read_buf(buf, (size_t)n, path, t, err)) < 0)
        errno = EBADMSG; /* callers tell a damaged file from a missing one */
    free(buf);
    return rc;
}

int kvtree_read_file(const char *path, kvtree_t *t, scr_error_t *err)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ELOOP)
            return errprintf(err, "%s: is a symbolic link, refusing to follow it", path);
        return errprintf(err, "open %s: %s", path, strerror(errno));
    }
    int rc = kvtree_read_fd(fd, path, t, err);
    close(fd);
    return rc;
}

/* take the lock on fd, waiting as long as it takes; once the wait has taken
 * 5 s, and every 5 s after, one line names the lock and its holder (a
 * stalled scavenge or index explains itself) */
static int kvtree_lock_wait(int fd, int type, const char *lpath, scr_error_t *err)
{
    struct flock fl = {.l_type = (short)type, .l_whence = SEEK_SET};
    long nap_ns = 1000 * 1000; /* 1 ms, doubling to 50 ms: a short wait stays short */
    units_wait_t clock;
    units_wait_start(&clock, 5.0);
    for (;;) {
        if (fcntl(fd, F_SETLK, &fl) == 0)
            return 0;
        if (errno != EINTR && errno != EAGAIN && errno != EACCES)
            return errprintf(err, "lock %s: %s", lpath, strerror(errno));
        if (units_wait_due(&clock)) {
            struct flock who = {.l_type = (short)type, .l_whence = SEEK_SET};
            int holder =
                fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK ? who.l_pid : 0;
            log_msg("still waiting after %.0f s for the lock on %s (held by pid %d)",
                    units_wait_elapsed(&clock), lpath, holder);
        }
        struct timespec nap = {0, nap_ns};
        nanosleep(&nap, NULL);
        if (nap_ns < 50 * 1000 * 1000)
            nap_ns *= 2;
    }
}

static int kvtree_lock(const char *path, int type, int *lockfd, scr_error_t *err)
{
    char lpath[4096];
    if (snprintf(lpath, sizeof(lpath), "%s.lock", path) >= (int)sizeof(lpath))
        return errprintf(err, "%s: path too long", path);
    int fd = open(lpath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        return errprintf(err, "open %s: %s", lpath, strerror(errno));
    if (kvtree_lock_wait(fd, type, lpath, err) < 0) {
        close(fd);
        return -1;
    }
    *lockfd = fd;
    return 0;
}

void kvtree_close_unlock(int *lockfd)
{
    if (lockfd && *lockfd >= 0) {
        close(*lockfd); /* closing releases the fcntl lock */
        *lockfd = -1;
    }
}

int kvtree_lock_open_read(const char *path, int *lockfd, kvtree_t *t, scr_error_t *err)
{
    if (kvtree_lock(path, F_WRLCK, lockfd, err) < 0)
        return -1;
    errno = 0;
    if (kvtree_read_file(path, t, err) < 0 && errno != ENOENT) {
        kvtree_close_unlock(lockfd);
        return -1;
    }
    return 0;
}

int kvtree_write_close_unlock(const char *path, int *lockfd, const kvtree_t *t,
                              scr_error_t *err)
{
    int rc = kvtree_write_file(path, t, err);
    kvtree_close_unlock(lockfd);
    return rc;
}

int kvtree_read_with_lock(const char *path, kvtree_t *t, scr_error_t *err)
{
    int fd;
    if (kvtree_lock(path, F_RDLCK, &fd, err) < 0) {
        /* a read-only directory cannot hold the lock file: nobody can be
         * writing there, so read without it */
        if (errno == EROFS || errno == EACCES)
            return kvtree_read_file(path, t, err);
        return -1;
    }
    int rc = kvtree_read_file(path, t, err);
    kvtree_close_unlock(&fd);
    return rc;
}

int kvtree_update_file(const char *path, kvtree_update_fn fn, void *arg, int sync,
                       scr_error_t *err)
{
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (slash && io_mkdir_p(dir, 0700, err) < 0)
        return -1;
    int fd;
    kvtree_t *t = kvtree_new();
    if (!t || kvtree_lock_open_read(path, &fd, t, err) < 0) {
        kvtree_delete(&t);
        return -1;
    }
    int rc = fn(t, arg);
    if (rc == 0)
        rc = sync ? kvtree_write_file(path, t, err)
                  : kvtree_write_file_nosync(path, t, err);
    else if (rc < 0)
        errprintf(err, "%s: update failed", path);
    else
        rc = 0;
    kvtree_close_unlock(&fd);
    kvtree_delete(&t);
    return rc;
}
