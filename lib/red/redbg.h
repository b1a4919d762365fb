/* SPDX-License-Identifier: BSD-3-Clause */
/* redbg.h - asynchronous redundancy (SCR_REDUNDANCY_ASYNC=1).
 *
 * With PARTNER, XOR or RS, most of SCR_Complete_output is the encode: the
 * set's members read their files, exchange pieces and write partner copies
 * or parity.  Asynchronous redundancy returns from SCR_Complete_output as
 * soon as every rank's files are written and agreed valid, and runs the
 * encode on a thread of its own while the application computes.
 *
 * Until that thread has agreed, with every rank, that every set finished,
 * the dataset stays COMPLETE=0 in the filemap: a failure in between (a rank
 * or node lost mid-encode) restarts from the previous checkpoint, which the
 * cache never evicts while it is the newest complete one.  The files' CRC32s
 * come from the bytes the encode reads, as in the synchronous path, so no
 * second pass runs; until the dataset is complete nothing relies on them.
 *
 * The thread calls MPI, on communicators only it uses (its own duplicate of
 * the world and the descriptor's set, which nothing else uses until it has
 * been joined), so the application must have asked for MPI_THREAD_MULTIPLE;
 * otherwise SCR_Init says so once and the encode runs inside
 * SCR_Complete_output.  The thread also owns the filemap while it runs:
 * every entry point that reads or writes library state joins it first
 * (redbg_poll), and the ones an application calls every step
 * (SCR_Need_checkpoint, SCR_Should_exit) only join it once every rank's
 * encode is over, so they never wait for it.
 */
#ifndef SCR_REDBG_H
#define SCR_REDBG_H

#include "scr_ctx.h"

/* SCR_Init: decide whether the encode may run behind (parameter and MPI
 * thread level); collective */
void redbg_init(scr_ctx_t *ctx);
/* SCR_Finalize: join, then free what redbg_init made; collective */
void redbg_fini(scr_ctx_t *ctx);

/* may dataset id's redundancy run behind SCR_Complete_output */
int redbg_usable(const scr_ctx_t *ctx, const reddesc_t *rd);

/* start the thread for the encode of dataset id (files recorded,
 * COMPLETE=0 written), waiting for redbg_release; t0 is when the output
 * started.  Returns 0, or -1 when some rank could not start one
 * (collectively agreed: the caller then encodes in place). */
int redbg_start(scr_ctx_t *ctx, reddesc_t *rd, int id, double t0);

/* let the encode begin: SCR_Complete_output calls it last, once rank 0
 * has logged the dataset's end and every rank knows the halt verdict, so a
 * failure in the encode always comes after the application was told its
 * checkpoint is complete.  Local; redbg_poll releases it too. */
void redbg_release(scr_ctx_t *ctx);

/* Collective.  With wait, join the encode if one runs; without, join it
 * only if every rank's is over.  A joined encode's dataset is settled: a
 * good one kept (older datasets evicted, flushed if due), a bad one
 * deleted.  Returns 1 while an encode still runs (only without wait). */
int redbg_poll(scr_ctx_t *ctx, int wait);

/* is an encode running (local, no MPI) */
int redbg_busy(const scr_ctx_t *ctx);

#endif
