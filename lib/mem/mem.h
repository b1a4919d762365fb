/* SPDX-License-Identifier: BSD-3-Clause */
/* mem.h - the memory-protect API's state and the entry points other libscr
 * modules (the FTI interface, fti.c) use beyond scr_mem.h.
 *
 * The protected variables, the container layout the next checkpoint file
 * will use (lib/core/ftiff.h) and, for differential checkpoints, the
 * layout and chunk hashes of the previous checkpoint live in ctx->mem.
 */
#ifndef SCR_MEM_INTERNAL_H
#define SCR_MEM_INTERNAL_H

#include "ftiff.h"
#include "scr_ctx.h"

/* rank r's file of dataset id, relative to the prefix: every dataset's
 * files have names of their own, since on the prefix each file lies at its
 * own path and a differential checkpoint's base must stay beside it */
#define MEM_PATH_FMT ".scr/mem.%d/scrmem.%d.fti"
/* its last component, by which a restart finds it (earlier releases put
 * it at the prefix's top) */
#define MEM_FILE_FMT "scrmem.%d.fti"

typedef struct {
    int32_t id;
    void *ptr;
    int64_t size; /* bytes */
    /* SCR_DCP_TRACK (mem_track.h): 1 tracked, 0 not yet, -1 cannot be */
    int track;
    uintptr_t first; /* its first page */
    size_t page, npages;
    uint64_t *pending, *taken; /* page bitmaps */
} mem_var_t;

/* a checkpoint file being written (SCR_Checkpoint_begin .. _end) */
typedef struct {
    int open;
    int fd;
    int ok;    /* every write so far succeeded */
    int flush; /* on the prefix before SCR_Checkpoint_end returns */
    char path[SCR_PATH_MAX * 2];
    ftiff_layout_t work; /* the layout being written, new hashes */
    ftiff_meta_t meta;
    int64_t data_end;                /* differential: where the next chunk goes */
    int *added;                      /* per protected variable: already written */
    int64_t chunks, hashed, written; /* differential: chunks seen, hashed, written */
} mem_writer_t;

struct mem_state {
    mem_var_t *vars;
    int nvars;
    /* the last good checkpoint: its layout and chunk hashes, which the next
     * one starts from (containers are fixed once created) */
    ftiff_layout_t layout;
    int prev_id;  /* its dataset, -1 none */
    int prev_seq; /* its place in the differential chain (0: full) */
    mem_writer_t w;
    struct wtrack *wt; /* SCR_DCP_TRACK: the kernel's written pages */
    int wt_state;      /* 0 not tried, 1 open, -1 unavailable */
};

/* how one checkpoint is taken */
typedef struct {
    int rd_index; /* CKPT=<n> descriptor to protect it with; -1: SCR's policy */
    int flush;    /* 1: on the prefix before the call returns */
} mem_opts_t;

/* SCR_Checkpoint with explicit options (o NULL: the defaults) */
int mem_checkpoint(const char *name, const mem_opts_t *o);
/* SCR_Checkpoint_begin with explicit options; mem_checkpoint_end(1) is
 * SCR_Checkpoint_end, mem_checkpoint_end(0) ends the checkpoint as failed
 * without writing more (collective: every process passes the same valid) */
int mem_checkpoint_begin(const char *name, const mem_opts_t *o);
int mem_checkpoint_end(int valid);

/* 1 when a checkpoint is on offer for SCR_Recover (collective) */
int mem_have_recover(void);

/* read rank's file of dataset id (cache) into m and l: 0, or -1 with err */
int mem_file_open(scr_ctx_t *ctx, int id, char *path, size_t len, scr_error_t *err);
/* the program's tag for the FB (SCR_MEM_TAG, else the executable's name) */
uint64_t mem_app_tag(scr_ctx_t *ctx);
struct mem_state *mem_get(scr_ctx_t *ctx);

/* the job's first cache directory (<base>/<user>/scr.<jobid>), NULL
 * before SCR_Init: where the FTI layer keeps its stage directory */
const char *mem_cache_dir(void);

/* free ctx->mem (SCR_Finalize) */
void mem_free(scr_ctx_t *ctx);

#endif
