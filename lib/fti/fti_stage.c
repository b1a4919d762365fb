/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_stage.c - FTI's staging: FTI_GetStageDir names a node-local
 * directory (stage/ in the job's cache directory, which goes with the
 * cache); FTI_SendFile checks the request as FTI does (a regular file, the
 * destination's directory there) and queues it, and a thread of this
 * process copies the file to the parallel file system in transfer_size
 * blocks with the flush's copy (io_copy_file: never through a symbolic
 * link, fsynced), then removes the local file, while the program goes on.
 * FTI_GetStageStatus gives FTI_SI_PEND, then FTI_SI_ACTV, and the outcome
 * once (FTI_SI_SCES or FTI_SI_FAIL, a failure also one line naming the
 * files); FTI_SI_NINI after.  FTI does this in its head processes; SCR has
 * none, so each process has its thread.  FTI_Finalize waits for the queue.
 * All three calls need [basic] enable_staging = 1. */
#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fti.h"
#include "fti_priv.h"
#include "io.h"
#include "log.h"
#include "mem.h"
#include "scr.h"

/* FTI's request ids: the lowest free slot */
#define STAGE_MAX 1024

typedef struct request {
    int id;
    char *lpath, *rpath;
    struct request *next;
} request_t;

static struct {
    pthread_mutex_t lock; /* guards status and the queue */
    pthread_cond_t wake;
    unsigned char status[STAGE_MAX]; /* FTI_SI_*; NINI: free */
    request_t *head, *tail;
    pthread_t thread;
    int running, stop;
    int direct; /* SCR_FLUSH_DIRECT, read when the thread starts */
    char dir[SCR_PATH_MAX];
} stage = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static int stage_enabled(const char *fn)
{
    if (!fti_ready(fn))
        return 0;
    if (!fti_config()->enable_staging)
        log_warn("%s: staging is off ([basic] enable_staging = 0); nothing done", fn);
    return fti_config()->enable_staging != 0;
}

/* stage/ in the first cache directory of the job, made on first use */
static const char *stage_dir(void)
{
    const char *cache = mem_cache_dir();
    if (!stage.dir[0] && cache) {
        snprintf(stage.dir, sizeof(stage.dir), "%s/stage", cache);
        scr_error_t err = {""};
        if (io_mkdir_p(stage.dir, 0700, &err) < 0) {
            log_err("FTI_GetStageDir: %s", err.text);
            stage.dir[0] = '\0';
        }
    }
    return stage.dir[0] ? stage.dir : NULL;
}

int FTI_GetStageDir(char *stageDir, int maxLen)
{
    if (!stage_enabled("FTI_GetStageDir"))
        return FTI_NSCS;
    const char *dir = stage_dir();
    if (!stageDir || maxLen < 1 || !dir || (size_t)maxLen < strlen(dir) + 1) {
        log_err("FTI_GetStageDir: %s",
                !stageDir ? "NULL stageDir"
                : !dir    ? "no stage directory"
                          : "maxLen is too small for the stage directory");
        return FTI_NSCS;
    }
    memcpy(stageDir, dir, strlen(dir) + 1);
    return FTI_SCES;
}

/* what FTI checks before it copies: NULL when the copy may go ahead */
static const char *stage_refusal(const char *lpath, const char *rpath, char *why,
                                 size_t len)
{
    struct stat st;
    if (lstat(lpath, &st) < 0)
        return snprintf(why, len, "%s: %s", lpath, strerror(errno)), why;
    if (!S_ISREG(st.st_mode))
        return snprintf(why, len, "%s: not a regular file", lpath), why;
    char *copy = strdup(rpath);
    const char *dir = copy ? dirname(copy) : ".";
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        snprintf(why, len, "%s: the directory of the destination does not exist", dir);
    free(copy);
    return why[0] ? why : NULL;
}

static void stage_set(int id, int status)
{
    pthread_mutex_lock(&stage.lock);
    stage.status[id] = (unsigned char)status;
    pthread_mutex_unlock(&stage.lock);
}

/* copy one request, then remove the local file */
static void stage_copy(const request_t *r)
{
    scr_error_t err = {""};
    io_copy_t o = {.bufsize = (size_t)fti_config()->transfer_size << 20,
                   .serial = 1,
                   .direct = stage.direct};
    errno = 0;
    int ok = io_copy_file(r->lpath, r->rpath, &o, NULL, &err) >= 0;
    if (ok && unlink(r->lpath) < 0)
        snprintf(err.text, sizeof(err.text), "%s: %s", r->lpath, strerror(errno)), ok = 0;
    if (!ok)
        log_err("FTI_SendFile: request %d, %s to %s: %s", r->id, r->lpath, r->rpath,
                err.text[0] ? err.text : strerror(errno));
    stage_set(r->id, ok ? FTI_SI_SCES : FTI_SI_FAIL);
}

/* the thread: the queue in order until it is empty and FTI_Finalize came */
static void *stage_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&stage.lock);
    for (;;) {
        while (!stage.head && !stage.stop)
            pthread_cond_wait(&stage.wake, &stage.lock);
        request_t *r = stage.head;
        if (!r)
            break;
        stage.head = r->next;
        if (!stage.head)
            stage.tail = NULL;
        stage.status[r->id] = FTI_SI_ACTV;
        pthread_mutex_unlock(&stage.lock);
        stage_copy(r);
        free(r->lpath);
        free(r->rpath);
        free(r);
        pthread_mutex_lock(&stage.lock);
    }
    pthread_mutex_unlock(&stage.lock);
    return NULL;
}

/* queue request id (the thread started on first use); -1 with a line */
static int stage_queue(int id, const char *lpath, const char *rpath)
{
    request_t *r = calloc(1, sizeof(*r));
    if (r) {
        r->id = id;
        r->lpath = strdup(lpath);
        r->rpath = strdup(rpath);
    }
    if (!r || !r->lpath || !r->rpath) {
        if (r)
            free(r->lpath), free(r->rpath), free(r);
        log_err("FTI_SendFile: out of memory");
        return -1;
    }
    pthread_mutex_lock(&stage.lock);
    int rc = 0;
    if (!stage.running) {
        /* a file staged out is not read here again: past the page cache,
         * as SCR's flushes go unless the run set SCR_FLUSH_DIRECT=0 */
        char *direct = (char *)SCR_Config("SCR_FLUSH_DIRECT");
        stage.direct = !direct || atoi(direct) != 0;
        free(direct);
    }
    if (!stage.running &&
        (rc = pthread_create(&stage.thread, NULL, stage_main, NULL)) == 0)
        stage.running = 1;
    if (rc == 0) {
        stage.status[id] = FTI_SI_PEND;
        if (stage.tail)
            stage.tail->next = r;
        else
            stage.head = r;
        stage.tail = r;
        pthread_cond_signal(&stage.wake);
    }
    pthread_mutex_unlock(&stage.lock);
    if (rc != 0) {
        log_err("FTI_SendFile: no thread to copy with: %s", strerror(rc));
        free(r->lpath), free(r->rpath), free(r);
        return -1;
    }
    return 0;
}

int FTI_SendFile(const char *lpath, const char *rpath)
{
    if (!stage_enabled("FTI_SendFile"))
        return FTI_NSCS;
    if (!lpath || !rpath) {
        log_err("FTI_SendFile: NULL %s path", !lpath ? "local" : "remote");
        return FTI_NSCS;
    }
    pthread_mutex_lock(&stage.lock);
    int id = 0;
    while (id < STAGE_MAX && stage.status[id] != FTI_SI_NINI)
        id++;
    if (id < STAGE_MAX)
        stage.status[id] = FTI_SI_PEND; /* taken */
    pthread_mutex_unlock(&stage.lock);
    if (id == STAGE_MAX) {
        log_err("FTI_SendFile: %d requests wait for FTI_GetStageStatus", STAGE_MAX);
        return FTI_NSCS;
    }
    char why[SCR_PATH_MAX + 128] = "";
    if (stage_refusal(lpath, rpath, why, sizeof(why)) ||
        stage_queue(id, lpath, rpath) < 0) {
        if (why[0])
            log_err("FTI_SendFile: %s to %s: %s", lpath, rpath, why);
        stage_set(id, FTI_SI_NINI);
        return FTI_NSCS;
    }
    return id;
}

int FTI_GetStageStatus(int ID)
{
    if (!stage_enabled("FTI_GetStageStatus"))
        return FTI_NSCS;
    if (ID < 0 || ID >= STAGE_MAX)
        return FTI_NSCS;
    pthread_mutex_lock(&stage.lock);
    int s = stage.status[ID];
    if (s == FTI_SI_SCES || s == FTI_SI_FAIL)
        stage.status[ID] = FTI_SI_NINI; /* the outcome is told once, as in FTI */
    pthread_mutex_unlock(&stage.lock);
    return s;
}

void fti_stage_finish(void)
{
    pthread_mutex_lock(&stage.lock);
    int running = stage.running;
    stage.stop = 1;
    pthread_cond_signal(&stage.wake);
    pthread_mutex_unlock(&stage.lock);
    if (running)
        pthread_join(stage.thread, NULL);
    stage.running = 0;
}

void fti_stage_reset(void)
{
    pthread_mutex_lock(&stage.lock);
    memset(stage.status, 0, sizeof(stage.status));
    stage.dir[0] = '\0';
    stage.stop = 0;
    pthread_mutex_unlock(&stage.lock);
}
