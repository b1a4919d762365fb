/* SPDX-License-Identifier: BSD-3-Clause */
/* test_kvtree_file.c - the file format of guide 2.3.4, byte for byte, and
 * every way a file can be damaged */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <zlib.h>

#include "kvtree.h"
#include "tap.h"
#include "testutil.h"

static char *dir;

/* {"A": {"1": {}}, "B": {}} as the spec describes it, with the CRC from zlib */
static size_t spec_image(unsigned char *b, int with_crc)
{
    static const unsigned char data[] = {0, 0, 0, 2, 'A', 0,   0, 0, 0, 1, '1',
                                         0, 0, 0, 0, 0,   'B', 0, 0, 0, 0, 0};
    size_t total = 20 + sizeof(data) + (with_crc ? 4 : 0);
    unsigned char hdr[20] = {0x95, 0x1f, 0xc3, 0xf5,
                             0,    1,    0,    1,
                             0,    0,    0,    0,
                             0,    0,    0,    (unsigned char)total,
                             0,    0,    0,    (unsigned char)with_crc};
    memcpy(b, hdr, 20);
    memcpy(b + 20, data, sizeof(data));
    if (with_crc) {
        uLong c = crc32(0L, b, (uInt)(total - 4));
        b[total - 4] = (unsigned char)(c >> 24);
        b[total - 3] = (unsigned char)(c >> 16);
        b[total - 2] = (unsigned char)(c >> 8);
        b[total - 1] = (unsigned char)c;
    }
    return total;
}

static kvtree_t *spec_tree(void)
{
    kvtree_t *t = kvtree_new();
    kvtree_set_kv(t, "A", "1");
    kvtree_set(t, "B", NULL);
    return t;
}

static void test_byte_exact(void)
{
    unsigned char want[64];
    size_t wlen = spec_image(want, 1);
    kvtree_t *t = spec_tree();
    char path[4200];
    snprintf(path, sizeof(path), "%s/spec.scr", dir);
    scr_error_t err;
    ok(kvtree_write_file(path, t, &err) == 0, "write_file");
    size_t len = 0;
    char *got = tu_read(path, &len);
    ok(got && len == wlen && memcmp(got, want, wlen) == 0,
       "written file is byte-identical to the spec's layout (%zu bytes)", wlen);
    free(got);

    kvtree_t *r = kvtree_new();
    ok(kvtree_read_file(path, r, &err) == 0 && kvtree_equal(r, t), "read back");
    kvtree_delete(&r);

    /* a conforming writer may leave out the CRC */
    unsigned char nocrc[64];
    size_t nlen = spec_image(nocrc, 0);
    snprintf(path, sizeof(path), "%s/nocrc.scr", dir);
    tu_write(path, nocrc, nlen);
    r = kvtree_new();
    ok(kvtree_read_file(path, r, &err) == 0 && kvtree_equal(r, t),
       "file without CRC32 flag is read");
    kvtree_delete(&r);
    kvtree_delete(&t);
}

static int read_image_fails(const unsigned char *b, size_t len, const char *expect)
{
    kvtree_t *t = kvtree_new();
    scr_error_t err = {""};
    int rc = kvtree_read_buf(b, len, "f.scr", t, &err);
    kvtree_delete(&t);
    if (rc == 0)
        return 0;
    if (expect && !strstr(err.text, expect)) {
        diag("message '%s' lacks '%s'", err.text, expect);
        return 0;
    }
    return strncmp(err.text, "f.scr: ", 7) == 0;
}

static void test_damage(void)
{
    unsigned char good[64], b[64];
    size_t len = spec_image(good, 1);
    int all = 1;
    for (size_t n = 0; n < len; n++)
        all &= read_image_fails(good, n, NULL);
    ok(all, "every truncation is rejected with a message naming the file");
    all = 1;
    for (size_t i = 0; i < len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            memcpy(b, good, len);
            b[i] ^= (unsigned char)(1 << bit);
            all &= read_image_fails(b, len, NULL);
        }
    }
    ok(all, "every single-bit flip is rejected");
    memcpy(b, good, len);
    b[0] = 0;
    ok(read_image_fails(b, len, "not an SCR kvtree file"), "bad magic message");
    memcpy(b, good, len);
    b[5] = 2;
    ok(read_image_fails(b, len, "unknown file type 2"), "bad type message");
    memcpy(b, good, len);
    b[7] = 9;
    ok(read_image_fails(b, len, "unsupported file version 9"), "bad version message");
    ok(read_image_fails(good, len - 3, "truncated"), "truncation message");
    memcpy(b, good, len);
    b[len - 1] ^= 1;
    ok(read_image_fails(b, len, "CRC32 mismatch"), "CRC message");
    /* without a CRC, garbage inside the hash must still be caught */
    size_t nlen = spec_image(b, 0);
    b[23] = 9; /* top-level count 9: more than fit */
    ok(read_image_fails(b, nlen, "corrupt hash data"), "corrupt hash without CRC");
    nlen = spec_image(b, 0);
    b[nlen - 6] = 'X';
    b[nlen - 5] = 'Y'; /* key "B" loses its terminator */
    ok(read_image_fails(b, nlen, "corrupt hash data"), "unterminated key without CRC");
    unsigned char big[24] = {0x95, 0x1f, 0xc3, 0xf5, 0, 1, 0, 1, 0, 0, 0, 0,
                             0,    0,    0,    24,   0, 0, 0, 0, 0, 0, 0, 0};
    big[15] = 25;
    ok(read_image_fails(big, 24, "header says 25"), "size field beyond the file");
    big[15] = 24;
    ok(read_image_fails((unsigned char[]){0}, 0, "truncated"), "empty file");
    unsigned char extra[64];
    memcpy(extra, big, 24);
    extra[15] = 28;
    memset(extra + 24, 0, 4);
    ok(read_image_fails(extra, 28, "unused bytes"), "trailing bytes inside data");
}

static void test_files(void)
{
    char path[4200], link[4200];
    scr_error_t err;
    kvtree_t *t = kvtree_new();
    snprintf(path, sizeof(path), "%s/missing.scr", dir);
    errno = 0;
    ok(kvtree_read_file(path, t, &err) < 0 && errno == ENOENT, "missing file: ENOENT");
    ok(kvtree_read_file(dir, t, &err) < 0 && strstr(err.text, "not a regular file"),
       "directory rejected: %s", err.text);
    snprintf(path, sizeof(path), "%s/real.scr", dir);
    kvtree_set(t, "X", NULL);
    kvtree_write_file(path, t, &err);
    snprintf(link, sizeof(link), "%s/link.scr", dir);
    symlink(path, link);
    kvtree_t *r = kvtree_new();
    ok(kvtree_read_file(link, r, &err) < 0 && strstr(err.text, "symbolic link"),
       "symlink not followed: %s", err.text);
    snprintf(path, sizeof(path), "%s/garbage.scr", dir);
    tu_write(path, "hello world, not a kvtree", 25);
    errno = 0;
    ok(kvtree_read_file(path, r, &err) < 0 && errno == EBADMSG,
       "garbage file: EBADMSG (%s)", err.text);
    snprintf(path, sizeof(path), "%s/nodir/x.scr", dir);
    ok(kvtree_write_file(path, t, &err) < 0 && strstr(err.text, "nodir"),
       "write into a missing directory fails: %s", err.text);
    kvtree_delete(&r);
    kvtree_delete(&t);
}

/* several processes increment one counter under the lock */
static void test_lock(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/counter.scr", dir);
    const int procs = 4, rounds = 50;
    for (int p = 0; p < procs; p++) {
        if (fork() == 0) {
            for (int i = 0; i < rounds; i++) {
                int fd, v = 0;
                kvtree_t *t = kvtree_new();
                if (kvtree_lock_open_read(path, &fd, t, NULL) < 0)
                    _exit(1);
                kvtree_util_get_int(t, "COUNT", &v);
                kvtree_util_set_int(t, "COUNT", v + 1);
                if (kvtree_write_close_unlock(path, &fd, t, NULL) < 0)
                    _exit(1);
                kvtree_delete(&t);
            }
            _exit(0);
        }
    }
    int fails = 0, status;
    for (int p = 0; p < procs; p++) {
        wait(&status);
        fails += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    kvtree_t *t = kvtree_new();
    int v = -1;
    kvtree_read_with_lock(path, t, NULL);
    kvtree_util_get_int(t, "COUNT", &v);
    ok(fails == 0 && v == procs * rounds, "locked read-modify-write: %d of %d", v,
       procs * rounds);
    kvtree_delete(&t);
}

/* a wait for the lock says, after 5 s, what it waits for and who holds it */
static void test_lock_wait_said(void)
{
    char path[4200], lpath[4300], errf[4300];
    snprintf(path, sizeof(path), "%s/held.scr", dir);
    snprintf(lpath, sizeof(lpath), "%s.lock", path);
    snprintf(errf, sizeof(errf), "%s/stderr.txt", dir);
    int go[2];
    if (pipe(go) < 0)
        return;
    pid_t holder = fork();
    if (holder == 0) {
        int fd = open(lpath, O_RDWR | O_CREAT, 0600);
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        if (fd < 0 || fcntl(fd, F_SETLK, &fl) < 0)
            _exit(1);
        if (write(go[1], "x", 1) != 1)
            _exit(1);
        struct timespec hold = {5, 600 * 1000 * 1000};
        nanosleep(&hold, NULL);
        _exit(0);
    }
    char c;
    ok(read(go[0], &c, 1) == 1, "a child holds the lock");
    fflush(stderr);
    int saved = dup(2), efd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(efd, 2);
    kvtree_t *t = kvtree_new();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    kvtree_read_with_lock(path, t, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took =
        (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(efd);
    waitpid(holder, NULL, 0);
    char want[4400], got[8192] = "";
    snprintf(want, sizeof(want),
             "still waiting after 5 s for the lock on %s (held by pid %d)", lpath,
             (int)holder);
    FILE *f = fopen(errf, "r");
    size_t n = f ? fread(got, 1, sizeof(got) - 1, f) : 0;
    got[n] = '\0';
    if (f)
        fclose(f);
    ok(took >= 5.0 && took < 30, "the read waited for the holder (%.1f s)", took);
    ok(strstr(got, want) != NULL, "the wait names the lock and its holder: %s", got);
    ok(strstr(got, "after 10 s") == NULL, "and says it once in 5.6 s");
    kvtree_delete(&t);
}

/* On a full file system a write fails and the old file survives intact. */
static void test_full_fs(void)
{
    if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
        ok(1, "# SKIP full file system test needs root");
        return;
    }
    char mnt[4000], path[4200];
    snprintf(mnt, sizeof(mnt), "%s/small", dir);
    mkdir(mnt, 0700);
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k") < 0) {
        ok(0, "mount a 64k tmpfs: %s", strerror(errno));
        return;
    }
    snprintf(path, sizeof(path), "%s/index.scr", mnt);
    kvtree_t *small = kvtree_new(), *big = kvtree_new();
    kvtree_util_set_str(small, "CURRENT", "ckpt.1");
    scr_error_t err;
    ok(kvtree_write_file(path, small, &err) == 0, "small write fits");
    for (int i = 0; i < 20000; i++)
        kvtree_setf(big, NULL, "DATASET %d NAME some_long_name_%d", i, i);
    ok(kvtree_write_file(path, big, &err) < 0 && strstr(err.text, "No space left"),
       "write to a full file system fails: %s", err.text);
    kvtree_t *r = kvtree_new();
    ok(kvtree_read_file(path, r, &err) == 0 && kvtree_equal(r, small),
       "the previous file is intact after the failed write");
    char cmd[4300];
    snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | wc -l) -eq 1", mnt);
    ok(system(cmd) == 0, "no temp file left behind");
    umount(mnt);
    kvtree_delete(&r);
    kvtree_delete(&small);
    kvtree_delete(&big);
}

int main(void)
{
    dir = tu_tmpdir();
    test_byte_exact();
    test_damage();
    test_files();
    test_lock();
    test_lock_wait_said();
    test_full_fs();
    tu_rmrf(dir);
    free(dir);
    return done_testing();
}
