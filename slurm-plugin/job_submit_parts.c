/* SPDX-License-Identifier: BSD-3-Clause */
/* job_submit_parts.c - the partitions' node limits for job_submit/scr */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <slurm/slurm.h>
#include <slurm/spank.h> /* slurm_info(), slurm_error(): libslurm's log */

#include "job_submit_parts.h"

#define PARTS_REFRESH 60 /* seconds between two asks */
#define PARTS_RETRY 2    /* ... until the first answer */

typedef struct {
    char name[128];
    uint32_t max; /* its nodes, or its MaxNodes if fewer */
    int is_default;
} part_t;

static pthread_mutex_t parts_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t parts_wake = PTHREAD_COND_INITIALIZER;
static pthread_t parts_tid;
static int parts_running, parts_stopping;
static part_t *parts;
static uint32_t nparts;

/* replace what is known with what slurmctld said */
static void parts_keep(const partition_info_msg_t *msg)
{
    part_t *p = calloc(msg->record_count + 1, sizeof(*p));
    if (!p)
        return;
    for (uint32_t i = 0; i < msg->record_count; i++) {
        const partition_info_t *pi = &msg->partition_array[i];
        snprintf(p[i].name, sizeof(p[i].name), "%s", pi->name ? pi->name : "");
        p[i].max = pi->total_nodes;
        if (pi->max_nodes > 0 && pi->max_nodes < p[i].max) /* INFINITE is not */
            p[i].max = pi->max_nodes;
        p[i].is_default = (pi->flags & PART_FLAG_DEFAULT) != 0;
    }
    pthread_mutex_lock(&parts_lock);
    free(parts);
    parts = p;
    nparts = msg->record_count;
    pthread_mutex_unlock(&parts_lock);
}

static void *parts_thread(void *arg)
{
    (void)arg;
    int known = 0;
    pthread_mutex_lock(&parts_lock);
    while (!parts_stopping) {
        pthread_mutex_unlock(&parts_lock);
        partition_info_msg_t *msg = NULL;
        if (slurm_load_partitions((time_t)0, &msg, SHOW_ALL) == SLURM_SUCCESS && msg) {
            if (!known)
                slurm_info("job_submit/scr: the node counts of %u partitions are known",
                           msg->record_count);
            known = 1;
            parts_keep(msg);
            slurm_free_partition_info_msg(msg);
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += known ? PARTS_REFRESH : PARTS_RETRY;
        pthread_mutex_lock(&parts_lock);
        while (!parts_stopping &&
               pthread_cond_timedwait(&parts_wake, &parts_lock, &until) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&parts_lock);
    return NULL;
}

int job_submit_parts_start(void)
{
    parts_stopping = 0;
    int rc = pthread_create(&parts_tid, NULL, parts_thread, NULL);
    if (rc != 0) {
        slurm_error("job_submit/scr: cannot start the partition thread: %s",
                    strerror(rc));
        return -1;
    }
    parts_running = 1;
    return 0;
}

void job_submit_parts_stop(void)
{
    if (!parts_running)
        return;
    pthread_mutex_lock(&parts_lock);
    parts_stopping = 1;
    pthread_cond_signal(&parts_wake);
    pthread_mutex_unlock(&parts_lock);
    pthread_join(parts_tid, NULL);
    parts_running = 0;
    free(parts);
    parts = NULL;
    nparts = 0;
}

/* the partition called name (NULL: the default one); call with the lock */
static const part_t *parts_find(const char *name)
{
    for (uint32_t i = 0; i < nparts; i++)
        if (name ? strcmp(parts[i].name, name) == 0 : parts[i].is_default)
            return &parts[i];
    return NULL;
}

uint32_t job_submit_parts_max(const char *partition, char *name, size_t len)
{
    char *copy = partition && *partition ? strdup(partition) : NULL, *save = NULL;
    const char *tok = copy ? strtok_r(copy, ",", &save) : NULL;
    uint32_t best = 0;
    pthread_mutex_lock(&parts_lock);
    do {
        const part_t *p = parts_find(tok);
        if (p && p->max > best) {
            best = p->max;
            snprintf(name, len, "%s", p->name);
        }
    } while (tok && (tok = strtok_r(NULL, ",", &save)));
    pthread_mutex_unlock(&parts_lock);
    free(copy);
    return best;
}
