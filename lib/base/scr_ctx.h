/* SPDX-License-Identifier: BSD-3-Clause */
/* scr_ctx.h - the library context: the one piece of process state libscr
 * keeps between calls, and the types every libscr module shares.
 */
#ifndef SCR_CTX_H
#define SCR_CTX_H

#include <mpi.h>
#include <stddef.h>

#include "config.h"
#include "kvtree.h"
#include "topo.h"
#include "units.h" /* scr_now */

#define SCR_PATH_MAX 4096

typedef enum { RED_SINGLE, RED_PARTNER, RED_XOR, RED_RS } red_type_t;

/* a class of storage where datasets are cached (guide 2.8) */
typedef struct {
    char *base; /* device directory, e.g. /dev/shm */
    char *dir;  /* <base>/<user>/scr.<jobid> */
    int count;  /* datasets kept */
    int mkdir;
    int enabled;
} store_t;

/* how a dataset is protected (guide 2.9), realized for this process */
typedef struct {
    int index;
    int interval;
    int enabled;
    red_type_t type; /* SINGLE when this process's set is too small */
    int store;       /* index into ctx->stores */
    char *group;     /* failure group name */
    int set_size_cfg;
    int failures; /* losses a set tolerates: 1 for PARTNER/XOR */
    int bypass;   /* BYPASS / SCR_CACHE_BYPASS: files straight to the prefix */
    int set_id;   /* lowest world rank of the set */
    int set_rank;
    int set_size;
    int *members;  /* world rank of each set rank */
    MPI_Comm comm; /* the set */
} reddesc_t;

enum scr_state { SCR_STATE_IDLE, SCR_STATE_OUTPUT, SCR_STATE_RESTART };

typedef struct {
    int initialized;
    int init_failed;
    int finalized;
    int enabled;
    enum scr_state state;
    MPI_Comm comm; /* private duplicate of the communicator SCR_Init_comm got */
    int whole;     /* comm holds every process of MPI_COMM_WORLD */
    int rank;
    int ranks;
    topo_t topo;
    scr_config_t *cfg;
    int debug;
    char user[256];
    char jobid[256];
    /* the job's directory under each base: scr.<jobid>, and for a group of
     * SCR_Init_comm smaller than the job scr.<jobid>/comm.<hash of prefix> */
    char jobdir[320];
    char prefix[SCR_PATH_MAX];
    char cntl_dir[SCR_PATH_MAX];
    char filemap_path[SCR_PATH_MAX];
    kvtree_t *filemap;
    store_t *stores;
    int nstores;
    reddesc_t *rds;
    int nrds;
    size_t buf_size;      /* bytes per piece in redundancy and transfer pipelines */
    size_t file_buf_size; /* bytes per block in flush and fetch copies */
    int overlap;          /* pipelines use a helper thread: SCR_OVERLAP, by
                             default only when this node has a spare core */
    int crc_on_copy;
    int copy_map; /* xfer maps the files it moves: SCR_COPY_MAP */
    int dataset_id;
    int checkpoint_id;
    struct {
        int id;
        int flags;
        char name[1024];
        reddesc_t *rd;
        char dir[SCR_PATH_MAX];
        double t0;
        uint64_t created; /* rank 0's time at the start (microseconds): the
                             dataset's one CREATED on every rank */
        int bypass;       /* the files go straight to the prefix (bypass.h) */
        kvtree_t *files;  /* bypass: rel -> CLASH 1 if the name was taken */
        int routed;       /* files routed so far */
        int recorded;     /* of them, in the filemap on disk (api_output.c) */
    } out;
    struct mem_state *mem; /* the memory-protect API (mem.h), or NULL */
    int restart_id;        /* dataset offered for restart, -1 none */
    int cache_foreign;     /* the cache holds another rank count's datasets:
                              this job leaves it alone (bypass.h) */
    struct rpfs *rpfs;     /* restart_id opened on the prefix (rpfs.h), or NULL */
    int *failed;           /* datasets whose restart failed */
    int nfailed;
    int log_fd; /* event log, rank 0 */
    int log_syslog;
    struct flush_async *async; /* background flush in progress, or NULL */
    struct crcbg *crcbg;       /* background CRC pass in progress, or NULL */
    struct redbg *redbg;       /* background redundancy encode, or NULL */
    struct filepool *pool;     /* evicted files to write over, or NULL */
    struct filepool *pfs_pool; /* the prefix's replaced files (flush.c), or NULL */
    int cache_defer;           /* SCR_CACHE_DEFER: application files too (cache.c) */
    int cache_defer_off;       /* this eviction deletes at once (cache_evict) */
    int cache_defer_said;      /* the last reason said (cache_defer_say), 0 none */
    double out_returned;       /* when SCR_Complete_output last returned (scr_now) */
    double out_entered;        /* when SCR_Start_output was last entered */
    MPI_Comm bg_comm;          /* the world for that encode (redbg.h) */
    int flush_every;           /* SCR_FLUSH */
    kvtree_t *halt;            /* rank 0: the halt file as last read */
    double halt_read_at;
    int need_calls;
    double t_init;
    double t_last_ckpt;
    double ckpt_seconds; /* checkpoints of this run, application-visible */
    int ckpt_count;
    double mtbf_job;    /* SCR_MTBF(_JOB): the job's, seconds; 0: unset */
    double mtbf_logged; /* the interval rank 0 last logged (mtbf.c) */
} scr_ctx_t;

#endif
