/* crcbg.h - CRC32 of a SINGLE dataset's files after SCR_Complete_output.
 *
 * Every cached file gets a CRC32, but for SINGLE nothing else reads the files
 * at completion, and a pass over them costs half of what writing them did
 * (tmpfs, bench/README.md).  So the pass runs in a thread once
 * SCR_Complete_output has recorded the dataset (sizes, COMPLETE); the CRCs
 * join the filemap at the next SCR call that needs them or may remove the
 * files: SCR_Start_output, a flush, cache deletion, SCR_Finalize.  A crash
 * before then leaves the files with sizes only, which restart checks as it
 * checks any file without a CRC (SCR_CRC_ASYNC=0 restores the pass inside
 * SCR_Complete_output).  The thread makes no MPI calls and touches no
 * library state: it gets the paths, returns CRCs.
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

#endif
