/* SPDX-License-Identifier: BSD-3-Clause */
/* io.h - whole-buffer reads and writes, copies with CRC32, and I/O over a
 * logical concatenation of files.
 *
 * Local and parallel file systems return short reads and writes and EINTR;
 * everything SCR moves goes through these helpers so no caller has to retry
 * by hand.  The pad functions implement the "logical concatenation" of a
 * rank's files used by XOR and Reed-Solomon (guide 2.11.1): the files are
 * seen as one stream, and reads past its end return zeros.
 */
#ifndef SCR_IO_H
#define SCR_IO_H

#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/* Read up to n bytes; fewer only at end of file.  Returns bytes read or -1. */
ssize_t io_read_full(int fd, void *buf, size_t n);
/* Write all n bytes.  Returns 0 or -1 (errno set; ENOSPC for a full disk). */
int io_write_full(int fd, const void *buf, size_t n);
/* pread/pwrite forms of the above */
ssize_t io_pread_full(int fd, void *buf, size_t n, off_t off);
int io_pwrite_full(int fd, const void *buf, size_t n, off_t off);
/* n bytes arrived straight in a file's mapped pages at: that counts as a
 * write, which a fault point (fault.h) may spoil as it would any other
 * (-1 with errno; short: the second half cleared, as if never written) */
int io_landed(void *at, size_t n);

/* mkdir -p; created directories get mode */
int io_mkdir_p(const char *path, mode_t mode, scr_error_t *err);

/* A streamed copy between open files: src and dst name them in messages,
 * bufsize is the block (0: 1 MiB); progress, if set, is called after each
 * block written with the bytes so far and the seconds the write took, and
 * may sleep (a background flush's throttle). */
typedef struct {
    const char *src, *dst;
    size_t bufsize;
    void (*progress)(uint64_t done, double busy, void *arg);
    void *arg;
    int serial; /* 1: no helper thread (no spare core to run it on) */
    int direct; /* 1: write with O_DIRECT where the file system takes it */
} io_copy_t;

/* Copy in to its end into out, reading the next block on a helper thread
 * while this one writes (worker.h), unless o->serial.  If crc is not NULL
 * it receives the CRC32 of the data.  With o->direct, out (a regular file
 * written from offset 0) is switched to O_DIRECT for the whole blocks when
 * the block size allows it and the file system takes it, and back for a
 * short last block; anything refused is written through the page cache.
 * Returns bytes copied or -1. */
int64_t io_copy_fd(int in, int out, const io_copy_t *o, uint32_t *crc, scr_error_t *err);

/* Copy src to dst as io_copy_fd does (o: block size, progress, serial;
 * NULL for the defaults; its src and dst are ignored), never following a
 * symlink at either end, fsync dst.  If crc is not NULL it receives the
 * CRC32 of the data.  Returns bytes copied or -1. */
int64_t io_copy_file(const char *src, const char *dst, const io_copy_t *o, uint32_t *crc,
                     scr_error_t *err);

/* CRC32 and size of a file's contents (symlinks are not followed).  Regular
 * files are mapped, not read: a file that shrinks meanwhile raises SIGBUS, so
 * code that must survive a hostile owner (root over user files) should copy
 * with io_copy_file instead. */
int io_file_crc(const char *path, uint32_t *crc, uint64_t *size, scr_error_t *err);
/* the same, giving up when *stop becomes non-zero (checked every MiB):
 * 0 done, 1 stopped (crc and size say nothing), -1 error */
int io_file_crc_until(const char *path, uint32_t *crc, uint64_t *size,
                      const atomic_int *stop, scr_error_t *err);

/* A file's identity as stat gives it: inode, size, change and modify
 * times (nanoseconds), as text into buf (IO_STAMP_LEN bytes).  A write,
 * truncate, link or rename changes the change time, which no user can set:
 * a file whose stamp is unchanged has not been touched through the file
 * system since (to the clock's granularity). */
#define IO_STAMP_LEN 96
struct stat;
void io_stamp(const struct stat *st, char *buf, size_t len);

/* A logical concatenation of open files with their logical sizes. */
typedef struct {
    int n;
    const int *fds;
    const char *const *names; /* for messages */
    const uint64_t *sizes;
} io_concat_t;

uint64_t io_concat_size(const io_concat_t *cat);
/* Read count bytes at logical offset; bytes beyond the end read as zero. */
int io_read_pad_n(const io_concat_t *cat, void *buf, size_t count, uint64_t offset,
                  scr_error_t *err);
/* Write count bytes at logical offset; bytes beyond the end are dropped. */
int io_write_pad_n(const io_concat_t *cat, const void *buf, size_t count, uint64_t offset,
                   scr_error_t *err);
/* Bytes [offset, offset + count) of the concatenation in a shared mapping
 * (prot, populated) of the one file they lie in, when mappable[that file]:
 * the pointer to them, with the mapping in *base and *len (for munmap) and
 * the file's index in *file (when file is not NULL); NULL when they span
 * files or lie past the end, the file is not mappable, or mmap fails. */
unsigned char *io_map_concat(const io_concat_t *cat, const unsigned char *mappable,
                             uint64_t offset, size_t count, int prot, void **base,
                             size_t *len, int *file);

#endif
