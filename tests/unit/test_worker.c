/* SPDX-License-Identifier: BSD-3-Clause */
/* test_worker.c - tasks run on the helper thread, concurrently with the
 * caller, one at a time and in order; inline mode runs them on the caller */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "worker.h"

typedef struct {
    pthread_t ran_on;
    atomic_int go; /* set by the caller after posting */
    atomic_int done;
    int count;
    int sleep_ms;
} task_t;

static int task_note(void *arg)
{
    task_t *t = arg;
    t->ran_on = pthread_self();
    t->count++;
    return 40 + t->count;
}

/* waits for the caller: finishes only if it runs while the caller goes on */
static int task_wait_go(void *arg)
{
    task_t *t = arg;
    for (int i = 0; i < 5000 && !atomic_load(&t->go); i++)
        usleep(1000);
    return atomic_load(&t->go) ? 7 : -1;
}

static int task_slow(void *arg)
{
    task_t *t = arg;
    usleep((useconds_t)t->sleep_ms * 1000);
    atomic_store(&t->done, 1);
    return 0;
}

static void test_threaded(void)
{
    worker_t w;
    task_t t = {0};
    worker_init(&w, 1);
    ok(w.threaded, "a thread started");
    ok(worker_wait(&w) == 0, "wait with nothing posted returns 0");
    worker_post(&w, task_note, &t);
    ok(worker_wait(&w) == 41, "wait returns the task's value");
    ok(!pthread_equal(t.ran_on, pthread_self()), "the task ran on another thread");
    worker_post(&w, task_wait_go, &t);
    atomic_store(&t.go, 1);
    ok(worker_wait(&w) == 7, "the task runs while the caller goes on");
    for (int i = 0; i < 1000; i++) {
        worker_post(&w, task_note, &t);
        if (worker_wait(&w) != 42 + i)
            break;
    }
    ok(t.count == 1001, "1000 tasks in turn, each once (%d)", t.count);
    t.sleep_ms = 50;
    worker_post(&w, task_slow, &t);
    worker_fini(&w);
    ok(atomic_load(&t.done) == 1, "fini waits for the posted task");
}

static void test_inline(void)
{
    worker_t w;
    task_t t = {0};
    worker_init(&w, 0);
    ok(!w.threaded, "inline mode: no thread");
    worker_post(&w, task_note, &t);
    ok(pthread_equal(t.ran_on, pthread_self()) && t.count == 1,
       "inline: the task ran on the caller, at post");
    ok(worker_wait(&w) == 41, "inline: wait returns the task's value");
    ok(worker_wait(&w) == 0, "inline: a second wait returns 0");
    worker_fini(&w);
}

int main(void)
{
    test_threaded();
    test_inline();
    return done_testing();
}
