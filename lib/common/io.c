/* SPDX-License-Identifier: BSD-3-Clause */
/* io.c - robust reads/writes, copies and logical concatenations */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bigbuf.h"
#include "crc32.h"
#include "fault.h"
#include "io.h"
#include "units.h"
#include "worker.h"

#define IO_DEFAULT_BUF (1024 * 1024)

/* a write a fault point spoilt (fault.h): -1 with errno, or the bytes to
 * really write of n (the rest reported written all the same) */
static ssize_t io_fault(size_t n)
{
    int f = n > 0 ? fault_io_take() : 0;
    if (f > 0) {
        errno = f;
        return -1;
    }
    return f == FAULT_IO_SHORT ? (ssize_t)(n / 2) : (ssize_t)n;
}

/* one loop for the four: off < 0 means the file position (pipes too);
 * EINTR retried, a short read is end of file, a write of 0 bytes is EIO */
static ssize_t io_full(int fd, char *rbuf, const char *wbuf, size_t n, off_t off)
{
    size_t done = 0, want = n;
    if (wbuf) {
        ssize_t w = io_fault(n);
        if (w < 0)
            return -1;
        want = (size_t)w;
    }
    while (done < want) {
        off_t at = off + (off_t)done;
        size_t left = want - done;
        ssize_t rc = rbuf ? (off < 0 ? read(fd, rbuf + done, left)
                                     : pread(fd, rbuf + done, left, at))
                          : (off < 0 ? write(fd, wbuf + done, left)
                                     : pwrite(fd, wbuf + done, left, at));
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0)
            return -1;
        if (rc == 0 && rbuf)
            break;
        if (rc == 0) {
            errno = EIO;
            return -1;
        }
        done += (size_t)rc;
    }
    return wbuf ? (ssize_t)n : (ssize_t)done;
}

ssize_t io_read_full(int fd, void *buf, size_t n)
{
    return io_full(fd, buf, NULL, n, -1);
}

int io_write_full(int fd, const void *buf, size_t n)
{
    return io_full(fd, NULL, buf, n, -1) < 0 ? -1 : 0;
}

ssize_t io_pread_full(int fd, void *buf, size_t n, off_t off)
{
    return off < 0 ? (errno = EINVAL, -1) : io_full(fd, buf, NULL, n, off);
}

int io_pwrite_full(int fd, const void *buf, size_t n, off_t off)
{
    return off < 0 ? (errno = EINVAL, -1) : (io_full(fd, NULL, buf, n, off) < 0 ? -1 : 0);
}

int io_landed(void *at, size_t n)
{
    ssize_t w = io_fault(n);
    if (w < 0)
        return -1;
    memset((char *)at + w, 0, n - (size_t)w); /* never written, as a hole reads */
    return 0;
}

int io_mkdir_p(const char *path, mode_t mode, scr_error_t *err)
{
    size_t len = strlen(path);
    char *buf = malloc(len + 1);
    if (!buf)
        return errprintf(err, "mkdir %s: out of memory", path);
    memcpy(buf, path, len + 1);
    /* walk each prefix that ends at a '/', then the whole path */
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, mode) < 0 && errno != EEXIST) {
            errprintf(err, "mkdir %s: %s", buf, strerror(errno));
            free(buf);
            return -1;
        }
        buf[i] = c;
    }
    struct stat st;
    int rc = 0;
    if (stat(path, &st) < 0)
        rc = errprintf(err, "mkdir %s: %s", path, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        rc = errprintf(err, "mkdir %s: exists and is not a directory", path);
    free(buf);
    return rc;
}

/* the read half of a copy: the next block, its CRC carried along */
typedef struct {
    int fd;
    unsigned char *buf;
    size_t size;
    ssize_t n;
    int errnum;
    uint32_t *crc;
} io_reader_t;

static int io_read_block(void *arg)
{
    io_reader_t *r = arg;
    r->n = io_read_full(r->fd, r->buf, r->size);
    r->errnum = r->n < 0 ? errno : 0;
    if (r->n > 0 && r->crc)
        *r->crc = crc32_update(*r->crc, r->buf, (size_t)r->n);
    return 0;
}

/* O_DIRECT needs block-aligned buffers, offsets and lengths: ours are
 * page-aligned (bigbuf.h) and the block size a multiple of this */
#define IO_DIRECT_ALIGN 4096

/* turn O_DIRECT on or off for out; 1 if it is on afterwards */
static int io_direct_set(int out, int on)
{
    int fl = fcntl(out, F_GETFL);
    if (fl < 0)
        return 0;
    int want = on ? fl | O_DIRECT : fl & ~O_DIRECT;
    if (want != fl && fcntl(out, F_SETFL, want) < 0)
        return (fl & O_DIRECT) != 0;
    return on;
}

/* write n bytes, which begin at off, through O_DIRECT at the file's
 * position (as a buffered copy writes: a write that tore lands as a short
 * file, which a size check finds, not as a hole); a file system may take
 * the flag and still refuse the write (EINVAL): then through the page
 * cache, as every later block goes (*direct cleared) */
static int io_write_direct(int out, const unsigned char *buf, size_t n, int64_t off,
                           int *direct)
{
    if (io_write_full(out, buf, n) == 0)
        return 0;
    if (errno != EINVAL)
        return -1;
    *direct = io_direct_set(out, 0);
    if (*direct || lseek(out, off, SEEK_SET) < 0)
        return -1;
    return io_write_full(out, buf, n);
}

/* write block n, which begins at off: its whole pages through O_DIRECT
 * while *direct holds, the tail of a short last block (a file's last page)
 * through the page cache, as everything after it */
static int io_write_block(int out, const unsigned char *buf, size_t n, int64_t off,
                          int *direct)
{
    if (!*direct)
        return io_write_full(out, buf, n);
    size_t whole = n - n % IO_DIRECT_ALIGN;
    if (whole && io_write_direct(out, buf, whole, off, direct) < 0)
        return -1;
    if (whole < n && ((*direct = io_direct_set(out, 0)) ||
                      io_write_full(out, buf + whole, n - whole) < 0))
        return -1;
    return 0;
}

/* write the blocks the reader hands over; the worker reads block i+1
 * while this thread writes block i */
static int io_copy_blocks(worker_t *w, io_reader_t *rd, unsigned char *bufs[2], int out,
                          const io_copy_t *o, int64_t *total, scr_error_t *err)
{
    int cur = 0, rc = 0;
    int direct = o->direct && rd->size % IO_DIRECT_ALIGN == 0 &&
                 lseek(out, 0, SEEK_CUR) == 0 && io_direct_set(out, 1);
    rd->buf = bufs[0];
    io_read_block(rd);
    while (rd->n > 0) {
        size_t n = (size_t)rd->n;
        rd->buf = bufs[cur ^ 1];
        worker_post(w, io_read_block, rd);
        double t0 = scr_now();
        if (io_write_block(out, bufs[cur], n, *total, &direct) < 0) {
            rc = errprintf(err, "write %s: %s", o->dst, strerror(errno));
            worker_wait(w);
            return rc;
        }
        *total += (int64_t)n;
        if (o->progress)
            o->progress((uint64_t)*total, scr_now() - t0, o->arg);
        worker_wait(w);
        cur ^= 1;
    }
    if (rd->n < 0)
        rc = errprintf(err, "read %s: %s", o->src, strerror(rd->errnum));
    /* the caller's later writes are its own, buffered */
    if (direct && io_direct_set(out, 0) && !rc)
        rc = errprintf(err, "write %s: %s", o->dst, strerror(errno));
    return rc;
}

int64_t io_copy_fd(int in, int out, const io_copy_t *o, uint32_t *crc, scr_error_t *err)
{
    size_t size = o->bufsize ? o->bufsize : IO_DEFAULT_BUF;
    struct stat st;
    /* a file of one block has nothing to overlap: no thread */
    int big = fstat(in, &st) < 0 || (uint64_t)st.st_size > size;
    /* two buffers even inline: the next block is read before this one is
     * written */
    unsigned char *bufs[2] = {bigbuf_alloc(size), bigbuf_alloc(size)};
    if (!bufs[0] || !bufs[1]) {
        bigbuf_free(bufs[0]);
        bigbuf_free(bufs[1]);
        return errprintf(err, "copy %s: out of memory for %zu byte buffers", o->src,
                         size);
    }
    uint32_t c = 0;
    io_reader_t rd = {in, NULL, size, 0, 0, crc ? &c : NULL};
    worker_t w;
    worker_init(&w, big && !o->serial);
    int64_t total = 0;
    int rc = io_copy_blocks(&w, &rd, bufs, out, o, &total, err);
    worker_fini(&w);
    bigbuf_free(bufs[0]);
    bigbuf_free(bufs[1]);
    if (crc)
        *crc = c;
    return rc < 0 ? -1 : total;
}

int64_t io_copy_file(const char *src, const char *dst, const io_copy_t *opt,
                     uint32_t *crc, scr_error_t *err)
{
    struct stat st;
    int64_t total = -1;
    int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return errprintf(err, "open %s: %s", src, strerror(errno));
    if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
        errprintf(err, "copy %s: not a regular file", src);
        close(in);
        return -1;
    }
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                   st.st_mode & 0777);
    if (out < 0) {
        errprintf(err, "open %s: %s", dst, strerror(errno));
        close(in);
        return -1;
    }
    io_copy_t o = {0};
    if (opt)
        o = *opt;
    o.src = src;
    o.dst = dst;
    total = io_copy_fd(in, out, &o, crc, err);
    if (total >= 0 && fsync(out) < 0) {
        errprintf(err, "fsync %s: %s", dst, strerror(errno));
        total = -1;
    }
    if (close(out) < 0 && total >= 0) {
        errprintf(err, "close %s: %s", dst, strerror(errno));
        total = -1;
    }
    close(in);
    return total;
}

/* bytes CRC'd between looks at the stop flag */
#define IO_CRC_STEP ((size_t)1 << 20)

static int io_stopped(const atomic_int *stop)
{
    return stop && atomic_load_explicit(stop, memory_order_relaxed);
}

/* CRC of an open file through a mapping: no copy out of the page cache.
 * The window is small: mapped cache pages count in the process's resident
 * size, which schedulers that poll RSS hold against the job's memory.  1 MiB
 * CRCs 64 MiB on tmpfs as fast as 8 MiB did (21 ms each here) and took
 * SINGLE's extra peak per rank from 8.8 MiB to about 2 (bench/README.md).
 * 0 done, 1 stopped, -1 not mappable */
static int io_crc_mapped(int fd, uint64_t size, uint32_t *crc, const atomic_int *stop)
{
    const size_t window = (size_t)1 << 20;
    uint32_t c = 0;
    for (uint64_t off = 0; off < size; off += window) {
        size_t len = size - off < window ? (size_t)(size - off) : window;
        /* populate: one batch of page-table work instead of a fault a page */
        void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | (stop ? 0 : MAP_POPULATE), fd,
                       (off_t)off);
        if (p == MAP_FAILED)
            return -1;
        madvise(p, len, MADV_SEQUENTIAL);
        for (size_t at = 0; at < len; at += IO_CRC_STEP) {
            if (io_stopped(stop)) {
                munmap(p, len);
                return 1;
            }
            c = crc32_update(c, (const char *)p + at,
                             len - at < IO_CRC_STEP ? len - at : IO_CRC_STEP);
        }
        munmap(p, len);
    }
    *crc = c;
    return 0;
}

void io_stamp(const struct stat *st, char *buf, size_t len)
{
    snprintf(buf, len, "%llu:%lld:%lld.%09ld:%lld.%09ld", (unsigned long long)st->st_ino,
             (long long)st->st_size, (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec,
             (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
}

int io_file_crc(const char *path, uint32_t *crc, uint64_t *size, scr_error_t *err)
{
    return io_file_crc_until(path, crc, size, NULL, err);
}

int io_file_crc_until(const char *path, uint32_t *crc, uint64_t *size,
                      const atomic_int *stop, scr_error_t *err)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errprintf(err, "open %s: %s", path, strerror(errno));
    struct stat st;
    uint32_t c = 0;
    uint64_t total = 0;
    int rc = 0, m = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        (m = io_crc_mapped(fd, (uint64_t)st.st_size, &c, stop)) >= 0) {
        total = (uint64_t)st.st_size;
        rc = m;
    } else {
        /* not mappable (some file systems): read it */
        void *buf = bigbuf_alloc(IO_DEFAULT_BUF);
        ssize_t n = 0;
        if (!buf) {
            close(fd);
            return errprintf(err, "crc %s: out of memory", path);
        }
        while (!(rc = io_stopped(stop)) &&
               (n = io_read_full(fd, buf, IO_DEFAULT_BUF)) > 0) {
            c = crc32_update(c, buf, (size_t)n);
            total += (uint64_t)n;
        }
        if (n < 0)
            rc = errprintf(err, "read %s: %s", path, strerror(errno));
        bigbuf_free(buf);
    }
    close(fd);
    if (crc)
        *crc = c;
    if (size)
        *size = total;
    return rc;
}

uint64_t io_concat_size(const io_concat_t *cat)
{
    uint64_t total = 0;
    for (int i = 0; i < cat->n; i++)
        total += cat->sizes[i];
    return total;
}

/* Walk the part of [offset, offset+count) that lies inside the files,
 * calling fn on each piece; return the number of bytes that lie inside. */
typedef int (*io_piece_fn)(int fd, const char *name, char *buf, size_t n, off_t off,
                           scr_error_t *err);

static int io_concat_walk(const io_concat_t *cat, char *buf, size_t count,
                          uint64_t offset, io_piece_fn fn, size_t *inside,
                          scr_error_t *err)
{
    uint64_t start = 0;
    size_t done = 0;
    for (int i = 0; i < cat->n && done < count; i++) {
        uint64_t end = start + cat->sizes[i];
        uint64_t pos = offset + done;
        if (pos < end) {
            uint64_t avail = end - pos;
            size_t n = (size_t)(avail < count - done ? avail : count - done);
            if (fn(cat->fds[i], cat->names ? cat->names[i] : "?", buf + done, n,
                   (off_t)(pos - start), err) < 0)
                return -1;
            done += n;
        }
        start = end;
    }
    *inside = done;
    return 0;
}

static int io_piece_read(int fd, const char *name, char *buf, size_t n, off_t off,
                         scr_error_t *err)
{
    ssize_t rc = io_pread_full(fd, buf, n, off);
    if (rc < 0)
        return errprintf(err, "read %s: %s", name, strerror(errno));
    if ((size_t)rc < n)
        return errprintf(err, "read %s: file is shorter than its recorded size", name);
    return 0;
}

static int io_piece_write(int fd, const char *name, char *buf, size_t n, off_t off,
                          scr_error_t *err)
{
    if (io_pwrite_full(fd, buf, n, off) < 0)
        return errprintf(err, "write %s: %s", name, strerror(errno));
    return 0;
}

int io_read_pad_n(const io_concat_t *cat, void *buf, size_t count, uint64_t offset,
                  scr_error_t *err)
{
    size_t inside = 0;
    if (io_concat_walk(cat, buf, count, offset, io_piece_read, &inside, err) < 0)
        return -1;
    /* the walk fills a prefix of buf: the rest is padding */
    memset((char *)buf + inside, 0, count - inside);
    return 0;
}

int io_write_pad_n(const io_concat_t *cat, const void *buf, size_t count, uint64_t offset,
                   scr_error_t *err)
{
    size_t inside = 0;
    return io_concat_walk(cat, (char *)buf, count, offset, io_piece_write, &inside, err);
}

unsigned char *io_map_concat(const io_concat_t *cat, const unsigned char *mappable,
                             uint64_t offset, size_t count, int prot, void **base,
                             size_t *len, int *file)
{
    uint64_t start = 0;
    int i = 0;
    while (i < cat->n && offset >= start + cat->sizes[i])
        start += cat->sizes[i++];
    if (count == 0 || i == cat->n || !mappable[i] ||
        offset + count > start + cat->sizes[i])
        return NULL;
    uint64_t in = offset - start, page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t lo = in - in % page;
    size_t mlen = (size_t)(in - lo) + count;
    void *m = mmap(NULL, mlen, prot, MAP_SHARED | MAP_POPULATE, cat->fds[i], (off_t)lo);
    if (m == MAP_FAILED)
        return NULL;
    *base = m;
    *len = mlen;
    if (file)
        *file = i;
    return (unsigned char *)m + (in - lo);
}
