/* SPDX-License-Identifier: BSD-3-Clause */
/* worker.c - one helper thread that runs one task at a time (see worker.h) */
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "worker.h"

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->quit && !w->fn)
            pthread_cond_wait(&w->cond, &w->lock);
        if (!w->fn)
            break; /* quit, nothing posted */
        worker_fn fn = w->fn;
        void *a = w->arg;
        pthread_mutex_unlock(&w->lock);
        int rc = fn(a);
        pthread_mutex_lock(&w->lock);
        w->rc = rc;
        w->fn = NULL;
        pthread_cond_broadcast(&w->cond);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

void worker_init(worker_t *w, int threaded)
{
    w->quit = w->rc = 0;
    w->fn = NULL;
    w->arg = NULL;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->threaded = threaded && pthread_create(&w->thread, NULL, worker_main, w) == 0;
}

void worker_fini(worker_t *w)
{
    if (w->threaded) {
        pthread_mutex_lock(&w->lock);
        w->quit = 1;
        pthread_cond_broadcast(&w->cond);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
        w->threaded = 0;
    }
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
}

void worker_post(worker_t *w, worker_fn fn, void *arg)
{
    if (!w->threaded) {
        w->rc = fn(arg);
        return;
    }
    pthread_mutex_lock(&w->lock);
    while (w->fn)
        pthread_cond_wait(&w->cond, &w->lock);
    w->fn = fn;
    w->arg = arg;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

int worker_wait(worker_t *w)
{
    int rc;
    if (!w->threaded) {
        rc = w->rc;
        w->rc = 0;
        return rc;
    }
    pthread_mutex_lock(&w->lock);
    while (w->fn)
        pthread_cond_wait(&w->cond, &w->lock);
    rc = w->rc;
    w->rc = 0;
    pthread_mutex_unlock(&w->lock);
    return rc;
}

void worker_lower_priority(void)
{
    struct sched_param sp = {0};
    (void)!sched_setscheduler(0, SCHED_BATCH, &sp);
    (void)!setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
}
