/* SPDX-License-Identifier: BSD-3-Clause */
/* fault.c - fault points (see fault.h) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fault.h"

enum { FAULT_EXIT, FAULT_NODE, FAULT_ENOSPC, FAULT_EIO, FAULT_SHORT, FAULT_EINVAL };
static const char *const fault_actions[] = {"exit", "node",  "enospc",
                                            "eio",  "short", "einval"};

/* SCR_FAULT, parsed once */
static struct {
    int armed;
    char point[128];
    long nth;
    int any_rank, rank;
    int action;
} spec;

static pthread_once_t spec_once = PTHREAD_ONCE_INIT;
static atomic_long hits;
static atomic_int io_pending; /* 0, an errno, or FAULT_IO_SHORT */
static atomic_int io_rank = -1;

/* one line "SCR_FAULT: rank R <what> (host, pid)" on stderr, and in
 * $SCR_FAULT_LOG if set (a test's record that survives a node whose output
 * is lost with it) */
static void fault_say(int rank, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fault_say(int rank, const char *fmt, ...)
{
    char host[64] = "?", msg[512];
    va_list ap;
    gethostname(host, sizeof(host) - 1);
    int n = snprintf(msg, sizeof(msg), "SCR_FAULT: rank %d ", rank);
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    va_end(ap);
    n = (int)strlen(msg);
    snprintf(msg + n, sizeof(msg) - (size_t)n, " (%s, pid %ld)\n", host, (long)getpid());
    fputs(msg, stderr);
    fflush(stderr);
    const char *log = getenv("SCR_FAULT_LOG");
    int fd =
        log && *log ? open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
    if (fd >= 0) {
        ssize_t w = write(fd, msg, strlen(msg)); /* one append: lines never mix */
        (void)w;
        close(fd);
    }
}

/* POINT[#N][@RANK][:ACTION]; a malformed spec arms nothing and says why */
static void fault_parse(void)
{
    const char *s = getenv("SCR_FAULT");
    if (!s || !*s)
        return;
    size_t len = strcspn(s, "#@:");
    if (len == 0 || len >= sizeof(spec.point))
        goto bad;
    memcpy(spec.point, s, len);
    spec.nth = 1;
    spec.any_rank = 1;
    for (const char *p = s + len; *p;) {
        char *end;
        char c = *p++;
        if (c == ':') {
            size_t i, alen = strlen(p);
            for (i = 0; i < sizeof(fault_actions) / sizeof(fault_actions[0]); i++)
                if (alen == strlen(fault_actions[i]) && strcmp(p, fault_actions[i]) == 0)
                    break;
            if (i == sizeof(fault_actions) / sizeof(fault_actions[0]))
                goto bad;
            spec.action = (int)i;
            break;
        }
        long v = strtol(p, &end, 10);
        if (end == p || (c == '#' && v < 1) || (c != '#' && c != '@'))
            goto bad;
        if (c == '#')
            spec.nth = v;
        else
            spec.any_rank = 0, spec.rank = (int)v;
        p = end;
    }
    spec.armed = 1;
    return;
bad:
    fprintf(stderr,
            "SCR_FAULT=%s: not POINT[#N][@RANK][:exit|node|enospc|eio|short|einval]; "
            "no fault armed\n",
            s);
}

/* the UTS namespace of pid into buf, 0 if it cannot be read */
static int fault_uts_of(long pid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%ld/ns/uts", pid);
    ssize_t n = readlink(path, buf, len - 1);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return 1;
}

static long fault_parent_of(long pid)
{
    char path[64];
    long ppid = 0;
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    FILE *fp = fopen(path, "re");
    /* pid (comm) state ppid: comm may hold spaces, so scan past its ')' */
    if (fp && fscanf(fp, "%*[^)]) %*c %ld", &ppid) != 1)
        ppid = 0;
    if (fp)
        fclose(fp);
    return ppid;
}

/* 1 if this process runs on a simulated node: its UTS namespace (into ns)
 * is not PID 1's.  Where PID 1's cannot be read (a sandbox's init), the
 * namespace of the topmost ancestor that can be read stands for it: a
 * node is made from a namespace its processes descend from.  Nothing
 * readable counts as no. */
static int fault_own_uts(char *ns, size_t len)
{
    char ref[64] = "", up[64];
    if (!fault_uts_of((long)getpid(), ns, len))
        return 0;
    if (!fault_uts_of(1, ref, sizeof(ref)))
        for (long p = fault_parent_of((long)getpid()); p > 1; p = fault_parent_of(p))
            if (fault_uts_of(p, up, sizeof(up)))
                memcpy(ref, up, sizeof(ref));
    return ref[0] && strcmp(ns, ref) != 0;
}

/* SIGKILL every other process in UTS namespace ns; how many were found */
static int fault_kill_ns(const char *ns)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d))) {
        char link[64];
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 1 || pid == (long)getpid())
            continue;
        if (!fault_uts_of(pid, link, sizeof(link)))
            continue; /* gone, or a zombie already */
        if (strcmp(link, ns) == 0 && kill((pid_t)pid, SIGKILL) == 0)
            found++;
    }
    if (d)
        closedir(d);
    return found;
}

static void fault_node(int rank, const char *point)
{
    char ns[64];
    if (!fault_own_uts(ns, sizeof(ns))) {
        fault_say(rank,
                  "dies at %s: node refused, not on a simulated node (the UTS "
                  "namespace is the machine's)",
                  point);
        _exit(FAULT_EXIT_STATUS);
    }
    fault_say(rank, "kills its node at %s: every process of the node", point);
    /* a moment for the line to leave through the node's MPI daemon */
    struct timespec pause = {0, 100 * 1000 * 1000}, gap = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    /* processes forked meanwhile are caught by the next round */
    for (int round = 0; round < 50 && fault_kill_ns(ns) > 0; round++)
        nanosleep(&gap, NULL);
    kill(getpid(), SIGKILL);
    _exit(FAULT_EXIT_STATUS);
}

void fault_point(const char *point, int rank)
{
    pthread_once(&spec_once, fault_parse);
    if (!spec.armed || strcmp(spec.point, point) != 0 ||
        (!spec.any_rank && spec.rank != rank))
        return;
    if (atomic_fetch_add(&hits, 1) + 1 != spec.nth)
        return;
    switch (spec.action) {
    case FAULT_NODE:
        fault_node(rank, point);
        break;
    case FAULT_ENOSPC:
    case FAULT_EIO:
    case FAULT_SHORT:
    case FAULT_EINVAL:
        fault_say(rank, "spoils the next write at %s: %s", point,
                  fault_actions[spec.action]);
        atomic_store(&io_rank, rank);
        atomic_store(&io_pending, spec.action == FAULT_ENOSPC   ? ENOSPC
                                  : spec.action == FAULT_EIO    ? EIO
                                  : spec.action == FAULT_EINVAL ? EINVAL
                                                                : FAULT_IO_SHORT);
        break;
    default:
        fault_say(rank, "dies at %s", point);
        _exit(FAULT_EXIT_STATUS);
    }
}

int fault_io_take(void)
{
    if (atomic_load_explicit(&io_pending, memory_order_relaxed) == 0)
        return 0;
    int f = atomic_exchange(&io_pending, 0);
    if (f == FAULT_IO_SHORT)
        fault_say(atomic_load(&io_rank), "writes half of this write, reports it all");
    else if (f)
        fault_say(atomic_load(&io_rank), "fails this write: %s", strerror(f));
    return f;
}
