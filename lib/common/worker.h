/* SPDX-License-Identifier: BSD-3-Clause */
/* worker.h - one helper thread that runs one task at a time.
 *
 * The data pipelines (XOR/RS encode and recovery, file copies) keep two
 * stages busy at once: while the calling thread sends or writes one block,
 * the worker reads and prepares the next.  A task is posted, the caller does
 * its own part, then waits for the task's return value.  The worker never
 * calls MPI, so the library needs no more than MPI_THREAD_FUNNELED.
 *
 * When the thread cannot be started, worker_init still succeeds and tasks
 * run inside worker_post: slower, never wrong.
 */
#ifndef SCR_WORKER_H
#define SCR_WORKER_H

#include <pthread.h>

typedef int (*worker_fn)(void *arg);

typedef struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int threaded; /* 0: tasks run inline */
    int quit;
    worker_fn fn; /* the task posted and not yet done, or NULL */
    void *arg;
    int rc;
} worker_t;

/* start the thread; threaded 0 (or a thread that cannot start) runs tasks
 * inline, for work too small to be worth a thread */
void worker_init(worker_t *w, int threaded);
/* stop the thread; a posted task is waited for first */
void worker_fini(worker_t *w);

/* run fn(arg) on the worker; at most one task at a time */
void worker_post(worker_t *w, worker_fn fn, void *arg);
/* wait for the posted task; returns its value (0 if none was posted) */
int worker_wait(worker_t *w);

/* Put the calling thread at the lowest weight the scheduler has short of
 * SCHED_IDLE (SCHED_BATCH, nice 19), for work that runs behind the
 * application: it takes what the application leaves, yet still gets a
 * slice within a few ms when busy ranks share its core, so a request to
 * stop is answered at once (a SCHED_IDLE thread starves there until every
 * rank of the core blocks).  Best effort. */
void worker_lower_priority(void);

#endif
