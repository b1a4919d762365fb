/* SPDX-License-Identifier: BSD-3-Clause */
/* test_fault.c - fault points: unarmed, armed for another point or rank,
 * the N-th hit killing the process, malformed specs, the write faults
 * (enospc, eio, short, einval) on the next io.c write, and the node action: refused
 * in PID 1's UTS namespace, killing a whole namespace of its own (root) */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault.h"
#include "io.h"
#include "tap.h"

static char tmpdir[] = "/tmp/test_fault.XXXXXX";

/* how a child ended: its exit status, or 1000 + the signal that killed it */
static int reap(pid_t pid)
{
    int st;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
}

/* run points in a child with SCR_FAULT=spec; how it ended */
static int child(const char *spec, int hits, int rank)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (spec)
            setenv("SCR_FAULT", spec, 1);
        for (int i = 0; i < hits; i++)
            fault_point("a.b", rank);
        _exit(0);
    }
    return reap(pid);
}

/* In a child: arm spec, hit a.b once, then report 100 bytes of 'x' landed
 * (io_landed).  Exit status: 0 when the first 50 stayed and the rest were
 * cleared, 2 when all stayed, 10 + errno on failure, 1 on anything else. */
static int landed(const char *spec)
{
    pid_t pid = fork();
    if (pid == 0) {
        char buf[100], half[50];
        memset(buf, 'x', sizeof(buf));
        memset(half, 0, sizeof(half));
        setenv("SCR_FAULT", spec, 1);
        fault_point("a.b", 0);
        if (io_landed(buf, sizeof(buf)) < 0)
            _exit(10 + errno);
        if (buf[0] == 'x' && buf[49] == 'x' && memcmp(buf + 50, half, 50) == 0)
            _exit(0);
        _exit(buf[50] == 'x' && buf[99] == 'x' ? 2 : 1);
    }
    return reap(pid);
}

/* In a child: arm spec, hit a.b once after `before` writes, then write
 * `after` more, each of 100 bytes to a new file (pwrite when positional).
 * Exit status: 10 + the index of the first write that failed with errno
 * want (0 if want is 0 and none failed), 1 on anything else; *size gets
 * the file's size. */
static int writes(const char *spec, int before, int after, int positional, int want,
                  off_t *size)
{
    char path[64];
    snprintf(path, sizeof(path), "%s/w", tmpdir);
    unlink(path);
    pid_t pid = fork();
    if (pid == 0) {
        char buf[100];
        memset(buf, 'x', sizeof(buf));
        setenv("SCR_FAULT", spec, 1);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        for (int i = 0; fd >= 0 && i < before + after; i++) {
            if (i == before)
                fault_point("a.b", 0);
            int rc = positional ? io_pwrite_full(fd, buf, sizeof(buf), (off_t)i * 100)
                                : io_write_full(fd, buf, sizeof(buf));
            if (rc < 0)
                _exit(errno == want ? 10 + i : 1);
        }
        _exit(want == 0 ? 0 : 1);
    }
    int rc = reap(pid);
    struct stat st;
    *size = stat(path, &st) == 0 ? st.st_size : -1;
    return rc;
}

/* 1 if this process runs in the machine's first UTS namespace (the
 * kernel's fixed inode for it), where the node action must refuse */
static int host_uts(void)
{
    char a[64] = "";
    ssize_t n = readlink("/proc/self/ns/uts", a, sizeof(a) - 1);
    return n > 0 && strncmp(a, "uts:[4026531838]", (size_t)n) == 0;
}

/* The node action in a UTS namespace of its own: a child unshares it and
 * forks a grandchild that only sleeps; both hold a pipe's write end, and
 * the grandchild's pid goes up another.  The child hits the point.
 * Returns how the child ended, and *gone whether the pipe closed (every
 * holder dead) within 5 s; 77 if no namespace can be made here (not
 * root).  A grandchild still alive is killed: it must never outlive us. */
static int node_kill(int *gone)
{
    int fds[2], pids[2];
    pid_t grand = -1;
    *gone = 0;
    if (pipe(fds) < 0 || pipe(pids) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        close(pids[0]);
        if (unshare(CLONE_NEWUTS) < 0)
            _exit(77);
        pid_t g = fork();
        if (g == 0) {
            int null = open("/dev/null", O_RDWR);
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
            for (;;)
                pause();
        }
        if (write(pids[1], &g, sizeof(g)) != sizeof(g))
            _exit(1);
        setenv("SCR_FAULT", "a.b:node", 1);
        fault_point("a.b", 3);
        _exit(0); /* not reached */
    }
    close(fds[1]);
    close(pids[1]);
    if (read(pids[0], &grand, sizeof(grand)) != sizeof(grand))
        grand = -1;
    struct pollfd p = {fds[0], POLLIN, 0};
    char c;
    if (poll(&p, 1, 5000) == 1 && read(fds[0], &c, 1) == 0)
        *gone = 1;
    if (!*gone && grand > 0)
        kill(grand, SIGKILL);
    close(fds[0]);
    close(pids[0]);
    return reap(pid);
}

int main(void)
{
    off_t size;
    if (!mkdtemp(tmpdir))
        return 1;
    setenv("SCR_FAULT_LOG", "", 1);

    ok(child(NULL, 3, 0) == 0, "unarmed: nothing happens");
    ok(child("a.b", 1, 0) == FAULT_EXIT_STATUS, "armed: the first hit dies");
    ok(child("a.bc", 3, 0) == 0, "another point: nothing");
    ok(child("a", 3, 0) == 0, "a prefix of the name: nothing");
    ok(child("a.b#3", 2, 0) == 0, "#3: two hits live");
    ok(child("a.b#3", 3, 0) == FAULT_EXIT_STATUS, "#3: the third dies");
    ok(child("a.b@2", 3, 1) == 0, "@2: rank 1 lives");
    ok(child("a.b#2@1", 2, 1) == FAULT_EXIT_STATUS, "#2@1: rank 1's second hit dies");
    ok(child("a.b@-1", 1, -1) == FAULT_EXIT_STATUS, "@-1: a root-side tool");
    ok(child("a.b:exit", 1, 0) == FAULT_EXIT_STATUS, ":exit as the default");
    ok(child("a.b#2@1:exit", 2, 1) == FAULT_EXIT_STATUS, "#2@1:exit");
    ok(child("a.b:bogus", 3, 0) == 0, "an unknown action arms nothing");
    ok(child("a.b#0", 3, 0) == 0, "#0 arms nothing");
    ok(child("a.b@x", 3, 0) == 0, "@ without a number arms nothing");

    ok(writes("a.b:enospc", 2, 2, 0, ENOSPC, &size) == 12 && size == 200,
       "enospc: the first write after the point fails with ENOSPC");
    ok(writes("a.b:eio", 1, 2, 1, EIO, &size) == 11 && size == 100,
       "eio: the next pwrite fails with EIO");
    ok(writes("a.b:einval", 2, 1, 0, EINVAL, &size) == 12 && size == 200,
       "einval: the next write fails with EINVAL");
    ok(writes("a.b:enospc", 0, 0, 0, 0, &size) == 0 && size == 0,
       "enospc with no write after it: nothing fails");
    ok(writes("c.d:enospc", 1, 3, 0, 0, &size) == 0 && size == 400,
       "enospc at another point: every write lands");
    ok(writes("a.b#2:enospc", 1, 3, 0, 0, &size) == 0 && size == 400,
       "enospc armed on the second hit: the first arms nothing");
    ok(writes("a.b:short", 1, 1, 0, 0, &size) == 0 && size == 150,
       "short: half of the write lands, success reported");
    ok(writes("a.b:short", 1, 2, 0, 0, &size) == 0 && size == 250,
       "short spoils one write: the next lands whole, after the torn one");
    ok(writes("a.b:short", 0, 2, 1, 0, &size) == 0 && size == 200,
       "short pwrite: a hole in the file, size as if written");

    ok(landed("a.b:short") == 0, "short on bytes landed in mapped pages: the "
                                 "second half cleared, the first kept, success reported");
    ok(landed("a.b:enospc") == 10 + ENOSPC, "enospc on landed bytes: -1 with ENOSPC");
    ok(landed("c.d:short") == 2, "no fault armed: landed bytes stay as they are");

    int status = child("a.b:node", 1, 0), gone = 0;
    if (host_uts())
        ok(status == FAULT_EXIT_STATUS,
           "node in the machine's UTS namespace: refused, exits");
    else
        diag("skipped: this test runs in a UTS namespace of its own");
    status = node_kill(&gone);
    if (status == 77)
        diag("skipped: no UTS namespace here (not root)");
    else
        ok(status == 1000 + SIGKILL && gone,
           "node in a namespace of its own: every process in it killed (status %d)",
           status);
    rmdir(tmpdir);
    return done_testing();
}
