/* SPDX-License-Identifier: BSD-3-Clause */
/* test_io.c - full reads/writes, copies with CRC, logical concatenation */
#include <errno.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <zlib.h>

#include "fault.h"
#include "io.h"
#include "tap.h"
#include "testutil.h"

static char *dir;

static void test_short_io(void)
{
    int fds[2];
    pipe(fds);
    if (fork() == 0) {
        close(fds[0]);
        char c[7] = "abcdefg";
        for (int i = 0; i < 100; i++) {
            write(fds[1], c, 7); /* many small writes: reader sees short reads */
            usleep(100);
        }
        _exit(0);
    }
    close(fds[1]);
    char buf[700];
    ssize_t n = io_read_full(fds[0], buf, sizeof(buf));
    ok(n == 700 && memcmp(buf + 693, "abcdefg", 7) == 0, "read_full gathers short reads");
    ok(io_read_full(fds[0], buf, 10) == 0, "read_full at EOF returns 0");
    close(fds[0]);
    wait(NULL);
}

static const char *link_missing(const char *d)
{
    static char p[4200];
    snprintf(p, sizeof(p), "%s/no-such-file", d);
    return p;
}

static void test_copy(void)
{
    char src[4200], dst[4200], link[4200];
    snprintf(src, sizeof(src), "%s/src.dat", dir);
    snprintf(dst, sizeof(dst), "%s/dst.dat", dir);
    size_t len = 5 * 1024 * 1024 + 3;
    unsigned char *data = malloc(len);
    for (size_t i = 0; i < len; i++)
        data[i] = (unsigned char)(i * 31 + 7);
    tu_write(src, data, len);
    uint32_t crc = 0;
    scr_error_t err;
    int64_t n = io_copy_file(src, dst, NULL, &crc, &err);
    size_t got_len = 0;
    char *got = tu_read(dst, &got_len);
    ok(n == (int64_t)len && got_len == len && memcmp(got, data, len) == 0,
       "copy is byte-identical");
    ok(crc == (uint32_t)crc32(0L, data, (uInt)len), "copy reports the data's CRC32");
    free(got);
    uint32_t c2;
    uint64_t size;
    ok(io_file_crc(dst, &c2, &size, &err) == 0 && c2 == crc && size == len, "file_crc");
    atomic_int stop = 0;
    c2 = 0;
    ok(io_file_crc_until(dst, &c2, &size, &stop, &err) == 0 && c2 == crc && size == len,
       "file_crc_until, not stopped: the same CRC");
    atomic_store(&stop, 1);
    ok(io_file_crc_until(dst, &c2, &size, &stop, &err) == 1,
       "file_crc_until, stopped: says so (1)");
    ok(io_file_crc_until(link_missing(dir), &c2, &size, &stop, &err) == -1 &&
           strstr(err.text, "no-such-file"),
       "file_crc_until: a missing file is an error naming it");
    io_copy_t small = {NULL, NULL, 4096, NULL, NULL, 0, 0};
    ok(io_copy_file(src, dst, &small, NULL, &err) == (int64_t)len, "small buffer copy");

    snprintf(link, sizeof(link), "%s/link.dat", dir);
    symlink(src, link);
    ok(io_copy_file(link, dst, NULL, NULL, &err) < 0 && strstr(err.text, "link.dat"),
       "source symlink not followed: %s", err.text);
    ok(io_copy_file(src, link, NULL, NULL, &err) < 0, "destination symlink not followed");
    ok(io_copy_file(dir, dst, NULL, NULL, &err) < 0 && strstr(err.text, "not a regular"),
       "directory source rejected");
    snprintf(dst, sizeof(dst), "%s/no/such/dir/x", dir);
    ok(io_copy_file(src, dst, NULL, NULL, &err) < 0 && strstr(err.text, "No such file"),
       "missing destination dir: %s", err.text);
    free(data);
}

typedef struct {
    int calls;
    uint64_t last;
    int monotone;
} progress_t;

static void progress(uint64_t done, double busy, void *arg)
{
    progress_t *p = arg;
    p->monotone &= done > p->last && busy >= 0;
    p->last = done;
    p->calls++;
    if (getenv("TEST_IO_REFUSE")) /* test_copy_direct_refused: after each block */
        fault_point("io.refuse", 0);
}

/* io_copy_fd: blocks read on the worker while the caller writes */
static void test_copy_fd(void)
{
    char src[4200], dst[4200];
    snprintf(src, sizeof(src), "%s/src.dat", dir);
    snprintf(dst, sizeof(dst), "%s/fd.dat", dir);
    size_t len = 0;
    char *data = tu_read(src, &len);
    size_t sizes[3] = {8192, 8193, len};
    char part[4200];
    snprintf(part, sizeof(part), "%s/part.dat", dir);
    /* sources of exactly one block (no thread), one more byte, many blocks;
     * with the reader thread and without */
    for (int k = 0; k < 6; k++) {
        int i = k % 3, serial = k / 3;
        tu_write(part, data, sizes[i]);
        int in = open(part, O_RDONLY),
            out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        progress_t p = {0, 0, 1};
        io_copy_t o = {part, dst, 8192, progress, &p, serial, 0};
        uint32_t crc = 0;
        scr_error_t err;
        int64_t n = io_copy_fd(in, out, &o, &crc, &err);
        close(in);
        close(out);
        size_t got_len = 0;
        char *got = tu_read(dst, &got_len);
        ok(n == (int64_t)sizes[i] && got_len == sizes[i] &&
               !memcmp(got, data, sizes[i]) &&
               crc == (uint32_t)crc32(0L, (unsigned char *)data, (uInt)sizes[i]),
           "%zu bytes in 8 KiB blocks%s: identical, CRC32 right", sizes[i],
           serial ? ", serial" : "");
        ok(p.calls == (int)((sizes[i] + 8191) / 8192) && p.last == sizes[i] && p.monotone,
           "progress after each block (%d calls, last %llu)", p.calls,
           (unsigned long long)p.last);
        free(got);
    }
    /* a read error on the worker's side is reported, naming the source */
    int in = open(src, O_WRONLY), out = open(dst, O_WRONLY | O_TRUNC);
    io_copy_t o = {src, dst, 8192, NULL, NULL, 0, 0};
    scr_error_t err;
    ok(io_copy_fd(in, out, &o, NULL, &err) < 0 && strstr(err.text, "read") &&
           strstr(err.text, "src.dat") && strstr(err.text, "Bad file descriptor"),
       "read error reported: %s", err.text);
    close(in);
    close(out);
    free(data);
}

/* pages of path in the page cache, of its first n */
static int resident_pages(const char *path, size_t n)
{
    int fd = open(path, O_RDONLY), count = 0;
    size_t pages = (n + 4095) / 4096;
    void *m = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
    unsigned char *vec = calloc(pages, 1);
    if (m != MAP_FAILED && mincore(m, n, vec) == 0)
        for (size_t i = 0; i < pages; i++)
            count += vec[i] & 1;
    if (m != MAP_FAILED)
        munmap(m, n);
    free(vec);
    close(fd);
    return count;
}

/* copy part (size bytes) to dst in bufsize blocks; 0 if dst is right and
 * the descriptor was left as found, at the end of the copy; *res: dst's
 * pages in the page cache before it was read back */
static int copy_direct(const char *part, const char *dst, const char *data, size_t size,
                       size_t bufsize, int direct, int *res)
{
    int in = open(part, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    progress_t p = {0, 0, 1};
    io_copy_t o = {part, dst, bufsize, progress, &p, 0, direct};
    uint32_t crc = 0;
    scr_error_t err;
    int64_t n = io_copy_fd(in, out, &o, &crc, &err);
    int fl = fcntl(out, F_GETFL);
    off_t at = lseek(out, 0, SEEK_CUR);
    close(in);
    close(out);
    *res = resident_pages(dst, size);
    size_t got_len = 0;
    char *got = tu_read(dst, &got_len);
    int bad = n != (int64_t)size || got_len != size || memcmp(got, data, size) ||
              crc != (uint32_t)crc32(0L, (const unsigned char *)data, (uInt)size) ||
              (fl & O_DIRECT) || at != (off_t)size || !p.monotone || p.last != size;
    free(got);
    return bad ? -1 : 0;
}

/* io_copy_fd with o.direct: whole blocks past the destination's page
 * cache where its file system takes O_DIRECT, the short last one through
 * it, and the same bytes either way */
static void test_copy_direct(void)
{
    char src[4200], dst[4200], part[4200];
    snprintf(src, sizeof(src), "%s/src.dat", dir);
    snprintf(dst, sizeof(dst), "%s/direct.dat", dir);
    snprintf(part, sizeof(part), "%s/part.dat", dir);
    size_t len = 0;
    char *data = tu_read(src, &len);
    /* a file system may take the flag and refuse the write; tmpfs takes
     * both, and its page cache is the file */
    int probe = open(dst, O_WRONLY | O_CREAT | O_DIRECT, 0600);
    void *block = aligned_alloc(4096, 4096);
    memset(block, 0, 4096);
    struct statfs sf;
    int takes = probe >= 0 && pwrite(probe, block, 4096, 0) == 4096 &&
                fstatfs(probe, &sf) == 0 && sf.f_type != 0x01021994;
    free(block);
    if (probe >= 0)
        close(probe);
    /* whole blocks; a short last block of 5 bytes; a file shorter than
     * one block (1 MiB, the default), whose whole pages still go direct */
    size_t sizes[3] = {6 * 8192, 6 * 8192 + 5, 6 * 8192 + 5},
           bs[3] = {8192, 8192, 1 << 20};
    for (int i = 0; i < 3; i++) {
        tu_write(part, data, sizes[i]);
        int whole = (int)(sizes[i] / 4096), res = -1;
        ok(copy_direct(part, dst, data, sizes[i], bs[i], 1, &res) == 0,
           "direct, %zu bytes in %zu-byte blocks: identical, CRC32 right, descriptor "
           "buffered at the end",
           sizes[i], bs[i]);
        if (takes)
            ok(res == (int)((sizes[i] + 4095) / 4096) - whole,
               "direct, %zu bytes in %zu-byte blocks: only the short last page in the "
               "page cache (%d)",
               sizes[i], bs[i], res);
        else
            ok(1, "# SKIP %s takes no O_DIRECT, or keeps files in memory", dir);
    }
    /* the same check finds a buffered copy's pages */
    int all = (int)((sizes[1] + 4095) / 4096), res = -1;
    int rc = copy_direct(part, dst, data, sizes[1], 8192, 0, &res);
    ok(rc == 0 && res == all, "buffered: every page in the page cache (%d of %d)", res,
       all);
    /* blocks O_DIRECT cannot take: buffered, the same bytes */
    rc = copy_direct(part, dst, data, sizes[1], 6000, 1, &res);
    ok(rc == 0 && res == all,
       "direct asked with 6000-byte blocks: buffered, identical (%d of %d pages cached)",
       res, all);
    free(data);
}

/* A file system that takes O_DIRECT at open and refuses the write itself
 * (EINVAL, the fault action einval stands in for it: none here does): the
 * copy goes on through the page cache from the block that was refused, the
 * same bytes, nothing lost, the descriptor buffered at the end.  In a child:
 * a fault spec is read once per process. */
static void test_copy_direct_refused(void)
{
    char src[4200], dst[4200], part[4200];
    snprintf(src, sizeof(src), "%s/src.dat", dir);
    snprintf(dst, sizeof(dst), "%s/refused.dat", dir);
    snprintf(part, sizeof(part), "%s/part.dat", dir);
    size_t len = 0, size = 6 * 8192 + 5;
    char *data = tu_read(src, &len);
    tu_write(part, data, size);
    int all = (int)((size + 4095) / 4096);
    for (int at = 0; at < 2; at++) {
        pid_t pid = fork();
        if (pid == 0) {
            /* at 0 the first block is refused; at 1 the third: the point is
             * reached after each block (progress), and armed at the second */
            setenv("SCR_FAULT", at ? "io.refuse#2:einval" : "io.refuse:einval", 1);
            if (at)
                setenv("TEST_IO_REFUSE", "1", 1);
            else
                fault_point("io.refuse", 0);
            int res = -1;
            int rc = copy_direct(part, dst, data, size, 8192, 1, &res);
            /* at 1 the first two blocks (4 pages) went direct */
            _exit(rc == 0 && res >= all - 4 * at ? 0 : 1);
        }
        int st = -1;
        waitpid(pid, &st, 0);
        ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
           "direct write refused with EINVAL (%s): that block and the rest buffered, "
           "identical, their pages in the page cache",
           at ? "a later block" : "the first block");
    }
    free(data);
}

static void test_mkdir(void)
{
    char path[4200];
    scr_error_t err;
    snprintf(path, sizeof(path), "%s/a/b/c", dir);
    ok(io_mkdir_p(path, 0700, &err) == 0, "mkdir -p");
    ok(io_mkdir_p(path, 0700, &err) == 0, "mkdir -p of an existing dir");
    struct stat st;
    ok(stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
       "mode 0700");
    snprintf(path, sizeof(path), "%s/src.dat/x", dir);
    ok(io_mkdir_p(path, 0700, &err) < 0 && strstr(err.text, "src.dat"),
       "mkdir under a file fails: %s", err.text);
}

static void test_full(void)
{
    if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
        ok(1, "# SKIP full file system test needs root");
        return;
    }
    char mnt[4000], src[4200], dst[4200];
    snprintf(mnt, sizeof(mnt), "%s/small", dir);
    mkdir(mnt, 0700);
    mount("tmpfs", mnt, "tmpfs", 0, "size=256k");
    snprintf(src, sizeof(src), "%s/src.dat", dir);
    snprintf(dst, sizeof(dst), "%s/dst.dat", mnt);
    scr_error_t err;
    ok(io_copy_file(src, dst, NULL, NULL, &err) < 0 &&
           strstr(err.text, "No space left") && strstr(err.text, "dst.dat"),
       "copy to a full file system: %s", err.text);
    /* O_DIRECT writes fail there the same way (tmpfs takes the flag) */
    int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    io_copy_t o = {src, dst, 8192, NULL, NULL, 0, 1};
    ok(io_copy_fd(in, out, &o, NULL, &err) < 0 && strstr(err.text, "No space left") &&
           strstr(err.text, "dst.dat"),
       "direct copy to a full file system: %s", err.text);
    close(in);
    close(out);
    umount(mnt);
}

static void test_concat(void)
{
    const char *names[3] = {"f0", "f1", "f2"};
    uint64_t sizes[3] = {5, 0, 7};
    int fds[3];
    for (int i = 0; i < 3; i++) {
        char p[4200];
        snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
        fds[i] = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
    }
    write(fds[0], "hello", 5);
    write(fds[2], "world!!", 7);
    io_concat_t cat = {3, fds, names, sizes};
    ok(io_concat_size(&cat) == 12, "logical size 12");
    char buf[20];
    scr_error_t err;
    memset(buf, 'x', sizeof(buf));
    ok(io_read_pad_n(&cat, buf, 16, 0, &err) == 0 &&
           memcmp(buf, "helloworld!!\0\0\0\0", 16) == 0,
       "read across files, zero padded past the end");
    ok(io_read_pad_n(&cat, buf, 4, 3, &err) == 0 && memcmp(buf, "lowo", 4) == 0,
       "read across a boundary and an empty file");
    memset(buf, 'x', sizeof(buf));
    ok(io_read_pad_n(&cat, buf, 8, 100, &err) == 0 &&
           memcmp(buf, "\0\0\0\0\0\0\0\0", 8) == 0,
       "read entirely past the end is zeros");
    ok(io_write_pad_n(&cat, "HELLOWORLD!!PADDING", 19, 0, &err) == 0,
       "write past the end");
    ok(io_read_pad_n(&cat, buf, 12, 0, &err) == 0 && memcmp(buf, "HELLOWORLD!!", 12) == 0,
       "written data lands in the files");
    struct stat st;
    fstat(fds[2], &st);
    ok(st.st_size == 7, "bytes past the end are dropped, not appended");
    ftruncate(fds[2], 3);
    ok(io_read_pad_n(&cat, buf, 12, 0, &err) < 0 && strstr(err.text, "f2"),
       "file shorter than recorded: %s", err.text);
    for (int i = 0; i < 3; i++)
        close(fds[i]);
}

int main(void)
{
    dir = tu_tmpdir();
    test_short_io();
    test_copy();
    test_copy_fd();
    test_copy_direct();
    test_copy_direct_refused();
    test_mkdir();
    test_concat();
    test_full();
    tu_rmrf(dir);
    free(dir);
    return done_testing();
}
