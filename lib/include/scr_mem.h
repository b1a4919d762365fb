/* SPDX-License-Identifier: BSD-3-Clause */
/* scr_mem.h - SCR's memory-protect API: register buffers, checkpoint them,
 * recover them.
 *
 * Each checkpoint is an SCR dataset holding one self-describing FTI-FF file
 * per rank (docs/ftiff.md), written through SCR_Start_output and
 * SCR_Complete_output, so every redundancy scheme, flush, fetch, rebuild,
 * scavenge and halt works for it as for files.  Every call is collective
 * over MPI_COMM_WORLD except SCR_Protect and SCR_Unprotect, and returns SCR_SUCCESS or
 * SCR_FAILURE with one line on stderr saying why.
 *
 * Differential checkpoints (SCR_DCP=1): a checkpoint writes only the blocks
 * of SCR_DCP_BLOCK bytes whose hash changed since the previous one, and
 * names that one as its base; every SCR_DCP_FULL_EVERY-th checkpoint is
 * written in full, which bounds the chain a restart must read.
 */
#ifndef SCR_MEM_H
#define SCR_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "scr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Register count elements of elem_size bytes at ptr under id (>= 0).  The
 * same id again moves or resizes the variable. */
int SCR_Protect(int id, void *ptr, int64_t count, size_t elem_size);
/* Forget variable id; later checkpoints do not contain it. */
int SCR_Unprotect(int id);

/* Write every protected variable as checkpoint name (NULL: SCR picks one). */
int SCR_Checkpoint(const char *name);

/* The same, a variable at a time: each SCR_Checkpoint_add writes one
 * variable as soon as the application has it ready; SCR_Checkpoint_end
 * writes whichever protected variables were not added and completes the
 * checkpoint. */
int SCR_Checkpoint_begin(const char *name);
int SCR_Checkpoint_add(int id);
int SCR_Checkpoint_end(void);

/* Restore every protected variable from the newest checkpoint that can be
 * restored, falling back to older ones like SCR_Have_restart.  Sizes must
 * match what was checkpointed (see SCR_Stored_size): a mismatch, an unknown
 * id or a file from another program fails before any byte is written. */
int SCR_Recover(void);
/* Restore only variable id, from the same checkpoint SCR_Recover would use;
 * the checkpoint stays on offer for SCR_Recover and further calls. */
int SCR_Recover_var(int id);
/* Bytes variable id has in the checkpoint on offer for recovery (collective:
 * it reads the checkpoint), so an application can resize before recovering;
 * -1 when the checkpoint does not hold id. */
int SCR_Stored_size(int id, int64_t *bytes);

#ifdef __cplusplus
}
#endif

#endif
