/* SPDX-License-Identifier: BSD-3-Clause */
/* filepool.c - deleted cache files kept to be written over (see filepool.h) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "filepool.h"
#include "path.h"
#include "worker.h"

typedef struct {
    char *path; /* <root>/scr.recycle/<tag>.<n> */
    int root;
    uint64_t size;
} pool_file_t;

struct filepool {
    pthread_mutex_t lock;
    pool_file_t *files;
    int n, cap;
    unsigned long seq;
    long reused, later;
    char **roots;
    char **dirs; /* roots[i]'s pool directory */
    int nroots;
    /* filepool_drain_async: files on their way out, oldest first, each
     * with its batch; dying[head..n) are left (under lock).  The thread
     * runs while bg_running; only the application's thread starts and
     * joins it. */
    pthread_t bg;
    int bg_on, bg_running;
    atomic_int bg_stop;
    struct {
        char *path;
        long batch;
    } * dying;
    int head, ndying, capdying;
    long batch; /* of the newest drain_async */
    int (*unlink_fn)(const char *path);
};

filepool_t *filepool_new(void)
{
    filepool_t *p = calloc(1, sizeof(*p));
    if (p) {
        pthread_mutex_init(&p->lock, NULL);
        p->unlink_fn = unlink;
    }
    return p;
}

static void pool_forget(filepool_t *p, int i)
{
    free(p->files[i].path);
    p->files[i] = p->files[--p->n];
}

int filepool_add_root_dir(filepool_t *p, const char *root, const char *dir)
{
    char **r = realloc(p->roots, sizeof(*r) * (size_t)(p->nroots + 1));
    if (r)
        p->roots = r;
    char **d = r ? realloc(p->dirs, sizeof(*d) * (size_t)(p->nroots + 1)) : NULL;
    if (!d)
        return -1;
    p->dirs = d;
    r[p->nroots] = strdup(root);
    d[p->nroots] = strdup(dir);
    if (!r[p->nroots] || !d[p->nroots]) {
        free(r[p->nroots]);
        free(d[p->nroots]);
        return -1;
    }
    p->nroots++;
    return 0;
}

int filepool_add_root(filepool_t *p, const char *root)
{
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/%s", root, FILEPOOL_DIR);
    return filepool_add_root_dir(p, root, dir);
}

/* the root path lies below (the deepest, should stores nest), or -1 */
static int pool_root_of(const filepool_t *p, const char *path)
{
    int best = -1;
    for (int i = 0; i < p->nroots; i++)
        if (path_is_under(path, p->roots[i]) &&
            (best < 0 || strlen(p->roots[i]) > strlen(p->roots[best])))
            best = i;
    return best;
}

/* the next file on its way out, or NULL (under lock) */
static char *pool_dying_pop(filepool_t *p, long older_than)
{
    if (p->head == p->ndying || p->dying[p->head].batch >= older_than)
        return NULL;
    char *path = p->dying[p->head++].path;
    if (p->head == p->ndying)
        p->head = p->ndying = 0;
    return path;
}

/* unlink what is on its way out from batches older than batch, until
 * stop (when given) is set; called and returns under lock */
static void pool_dying_unlink(filepool_t *p, long batch, const atomic_int *stop)
{
    char *path;
    while (!(stop && atomic_load(stop)) && (path = pool_dying_pop(p, batch))) {
        pthread_mutex_unlock(&p->lock);
        (void)p->unlink_fn(path);
        free(path);
        pthread_mutex_lock(&p->lock);
    }
}

static void *pool_bg_main(void *arg)
{
    filepool_t *p = arg;
    worker_lower_priority(); /* the application computes meanwhile */
    pthread_mutex_lock(&p->lock);
    pool_dying_unlink(p, LONG_MAX, &p->bg_stop);
    p->bg_running = 0;
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* unlink here what is on its way out from batches older than batch */
static void pool_dying_finish(filepool_t *p, long batch)
{
    pthread_mutex_lock(&p->lock);
    pool_dying_unlink(p, batch, NULL);
    pthread_mutex_unlock(&p->lock);
}

/* stop the thread (it ends the file it is on) */
static void pool_bg_stop(filepool_t *p)
{
    if (p->bg_on) {
        atomic_store(&p->bg_stop, 1);
        pthread_join(p->bg, NULL);
        atomic_store(&p->bg_stop, 0);
        p->bg_on = 0;
    }
}

void filepool_drain(filepool_t *p)
{
    if (!p)
        return;
    pool_bg_stop(p);
    pool_dying_finish(p, LONG_MAX);
    pthread_mutex_lock(&p->lock);
    while (p->n > 0) {
        (void)unlink(p->files[p->n - 1].path);
        pool_forget(p, p->n - 1);
    }
    pthread_mutex_unlock(&p->lock);
}

/* the kept files join the queue as batch p->batch (under lock); -1 when
 * out of memory */
static int pool_queue_kept(filepool_t *p)
{
    if (p->head > 0) {
        p->ndying -= p->head;
        memmove(p->dying, p->dying + p->head, sizeof(*p->dying) * (size_t)p->ndying);
        p->head = 0;
    }
    if (p->ndying + p->n > p->capdying) {
        int cap = (p->ndying + p->n) * 2;
        void *d = realloc(p->dying, sizeof(*p->dying) * (size_t)cap);
        if (!d)
            return -1;
        p->dying = d;
        p->capdying = cap;
    }
    while (p->n > 0) {
        p->dying[p->ndying].path = p->files[p->n - 1].path;
        p->dying[p->ndying++].batch = p->batch;
        p->files[--p->n].path = NULL;
        p->later++;
    }
    return 0;
}

void filepool_set_unlink(filepool_t *p, int (*fn)(const char *path))
{
    p->unlink_fn = fn ? fn : unlink;
}

void filepool_drain_async(filepool_t *p)
{
    if (!p)
        return;
    /* at most two batches on their way out: a thread that fell behind
     * (the application left it no CPU) is caught up here */
    pool_dying_finish(p, p->batch);
    pthread_mutex_lock(&p->lock);
    p->batch++;
    int ok = pool_queue_kept(p) == 0;
    int start = ok && !p->bg_running && p->head < p->ndying;
    p->bg_running |= start;
    pthread_mutex_unlock(&p->lock);
    if (start) {
        pool_bg_stop(p); /* a thread that found nothing left: gone or going */
        p->bg_on = pthread_create(&p->bg, NULL, pool_bg_main, p) == 0;
        if (!p->bg_on) {
            pthread_mutex_lock(&p->lock);
            p->bg_running = 0;
            pthread_mutex_unlock(&p->lock);
        }
    }
    if (!ok || (start && !p->bg_on))
        filepool_drain(p); /* no thread (or no memory): here, as before */
}

/* bytes of memory the kernel says it can give without swapping */
static uint64_t pool_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "re");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return (uint64_t)kb << 10;
}

int filepool_can_hold(const char *dir, uint64_t bytes)
{
    struct statfs f;
    if (statfs(dir, &f) < 0 || (uint64_t)f.f_bavail * (uint64_t)f.f_frsize < bytes)
        return 0;
    /* tmpfs pages are the node's memory, which the application needs too */
    return (unsigned long)f.f_type != TMPFS_MAGIC || pool_mem_available() >= bytes;
}

void filepool_free(filepool_t **pool)
{
    if (!pool || !*pool)
        return;
    filepool_drain(*pool);
    for (int i = 0; i < (*pool)->nroots; i++) {
        free((*pool)->roots[i]);
        free((*pool)->dirs[i]);
    }
    free((*pool)->roots);
    free((*pool)->dirs);
    pthread_mutex_destroy(&(*pool)->lock);
    free((*pool)->files);
    free((*pool)->dying);
    free(*pool);
    *pool = NULL;
}

static int pool_grow(filepool_t *p)
{
    if (p->n < p->cap)
        return 0;
    int cap = p->cap ? 2 * p->cap : 16;
    pool_file_t *f = realloc(p->files, sizeof(*f) * (size_t)cap);
    if (!f)
        return -1;
    p->files = f;
    p->cap = cap;
    return 0;
}

int filepool_put(filepool_t *p, const char *path, const char *tag)
{
    struct stat st;
    int root = p ? pool_root_of(p, path) : -1;
    if (root < 0 || lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return -1;
    const char *dir = p->dirs[root];
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return -1;
    pthread_mutex_lock(&p->lock);
    char *dst = NULL;
    int rc = -1;
    if (pool_grow(p) == 0 && asprintf(&dst, "%s/%s.%lu", dir, tag, p->seq++) >= 0 &&
        rename(path, dst) == 0) {
        p->files[p->n++] = (pool_file_t){dst, root, (uint64_t)st.st_size};
        dst = NULL;
        rc = 0;
    }
    pthread_mutex_unlock(&p->lock);
    free(dst);
    return rc;
}

/* The smallest file kept under root that holds size bytes, unless it is
 * over twice the size (and more than a MiB longer): cutting it would free
 * as many pages as deleting it, on the caller's time, where a drain frees
 * them behind the application.  Else the largest shorter one, which grows
 * as the caller writes.  -1 for none. */
static int pool_pick(const filepool_t *p, int root, uint64_t size)
{
    int fit = -1, under = -1;
    for (int i = 0; i < p->n; i++) {
        const pool_file_t *f = &p->files[i];
        if (f->root != root)
            continue;
        if (f->size >= size && (fit < 0 || f->size < p->files[fit].size))
            fit = i;
        if (f->size < size && (under < 0 || f->size > p->files[under].size))
            under = i;
    }
    if (fit >= 0 && (p->files[fit].size / 2 <= size ||
                     p->files[fit].size - size <= ((uint64_t)1 << 20)))
        return fit;
    return under;
}

/* take a kept file over as path; -1 when there is none or it fails */
static int pool_take(filepool_t *p, const char *path, uint64_t size)
{
    int fd = -1, root = pool_root_of(p, path);
    uint64_t had = 0;
    pthread_mutex_lock(&p->lock);
    int i = root < 0 ? -1 : pool_pick(p, root, size);
    if (i >= 0) {
        had = p->files[i].size;
        /* rename replaces path itself, as O_TRUNC would empty it, and a
         * link planted there is replaced, not followed */
        if (rename(p->files[i].path, path) == 0) {
            fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0) /* not what was kept (a link put in its place) */
                (void)unlink(path);
            p->reused += fd >= 0;
            pool_forget(p, i);
        }
    }
    pthread_mutex_unlock(&p->lock);
    if (fd >= 0 && had > size && ftruncate(fd, (off_t)size) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int filepool_open(filepool_t *p, const char *path, uint64_t size, int *reused,
                  scr_error_t *err)
{
    int fd = p ? pool_take(p, path, size) : -1;
    if (reused)
        *reused = fd >= 0;
    if (fd < 0)
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        errprintf(err, "open %s: %s", path, strerror(errno));
    return fd;
}

int filepool_count(filepool_t *p, uint64_t *bytes)
{
    uint64_t sum = 0;
    pthread_mutex_lock(&p->lock);
    int n = p->n;
    for (int i = 0; i < n; i++)
        sum += p->files[i].size;
    pthread_mutex_unlock(&p->lock);
    if (bytes)
        *bytes = sum;
    return n;
}

int filepool_pending(filepool_t *p)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&p->lock);
    int n = p->ndying - p->head;
    pthread_mutex_unlock(&p->lock);
    return n;
}

long filepool_reused(filepool_t *p)
{
    pthread_mutex_lock(&p->lock);
    long n = p->reused;
    pthread_mutex_unlock(&p->lock);
    return n;
}

long filepool_drained_later(filepool_t *p)
{
    return p->later;
}

static void pool_sweep_dir(const char *pooldir)
{
    int dfd = open(pooldir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d)))
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            !S_ISDIR(st.st_mode))
            (void)unlinkat(dfd, e->d_name, 0);
    closedir(d);
    (void)rmdir(pooldir);
}

void filepool_sweep(filepool_t *p)
{
    for (int i = 0; p && i < p->nroots; i++)
        pool_sweep_dir(p->dirs[i]);
}
