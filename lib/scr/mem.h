/* mem.h - the memory-protect API's state and the entry points other libscr
 * modules (the FTI interface, fti.c) use beyond scr_mem.h.
 *
 * The protected variables, the container layout the next checkpoint file
 * will use (lib/core/ftiff.h) and, for differential checkpoints, the
 * layout and chunk hashes of the previous checkpoint live in ctx->mem.
 */
#ifndef SCR_MEM_INTERNAL_H
#define SCR_MEM_INTERNAL_H

#include "scr_ctx.h"

/* how one checkpoint is taken */
typedef struct {
    int rd_index; /* CKPT=<n> descriptor to protect it with; -1: SCR's policy */
    int flush;    /* 1: on the prefix before the call returns */
} mem_opts_t;

/* SCR_Checkpoint with explicit options (o NULL: the defaults) */
int mem_checkpoint(const char *name, const mem_opts_t *o);

/* 1 when a checkpoint is on offer for SCR_Recover (collective) */
int mem_have_recover(void);

/* free ctx->mem (SCR_Finalize) */
void mem_free(scr_ctx_t *ctx);

#endif
