/* SPDX-License-Identifier: BSD-3-Clause */
/* crcbg.h - CRC32 of a SINGLE dataset's files after SCR_Complete_output.
 *
 * Every cached file gets a CRC32 when it can be had for free, but for
 * SINGLE nothing reads the files at completion, and a pass over them costs
 * half of what writing them did (tmpfs, bench/README.md).  So the pass runs
 * in a thread at idle priority once SCR_Complete_output has recorded the
 * dataset (sizes, COMPLETE), while the application computes.  It never
 * holds the application up: it is stopped (within a MiB) when the next
 * output starts (beside that output's writes it took a quarter longer back
 * to back, and most passes were stopped before they finished all the
 * same: bench/README.md) or its own files are flushed or deleted, and what
 * it finished is recorded; files it did not reach keep their sizes only, which
 * restart checks as it checks any file without a CRC (as after a crash),
 * and a flush records the CRC it takes on the way.  Only SCR_Finalize waits
 * for it, so the run's last checkpoint is checked in full.
 * SCR_CRC_ASYNC=0 puts the pass inside SCR_Complete_output instead.  The
 * thread makes no MPI calls and touches no library state: it gets the
 * paths, returns CRCs.
 */
#ifndef SCR_CRCBG_H
#define SCR_CRCBG_H

#include "scr_ctx.h"

/* start the pass over this process's user files of dataset id; a pass still
 * running is finished first.  Returns 0, or -1 when no thread could start
 * (the caller then computes the CRCs itself). */
int crcbg_start(scr_ctx_t *ctx, int id);

/* wait for the pass, if any, and record its CRCs in the filemap (written) */
void crcbg_finish(scr_ctx_t *ctx);
/* stop the pass, if any, and record what it finished */
void crcbg_stop(scr_ctx_t *ctx);
/* before dataset id's files are deleted or flushed: stop a pass over them */
void crcbg_release(scr_ctx_t *ctx, int id);

#endif
