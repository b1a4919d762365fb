/* SPDX-License-Identifier: BSD-3-Clause */
/* mtbf.h - SCR_MTBF: SCR_Need_checkpoint at the optimal interval for the
 * checkpoint cost measured in this run (interval.h).
 *
 * SCR_MTBF is one node's mean time between failures, SCR_MTBF_JOB the
 * whole job's (it wins when both are set); seconds, or a number with s, m,
 * h, d or y.  The job's MTBF is the node's over the run's node count.  The
 * interval follows the mean application-visible checkpoint cost of this
 * run (SCR_Start_output to the return of SCR_Complete_output); before the
 * first checkpoint of a run there is none, and the answer is yes.  Rank 0
 * logs the interval when it first has one and whenever it moves by more
 * than a tenth.
 */
#ifndef SCR_MTBF_H
#define SCR_MTBF_H

#include "scr_ctx.h"

/* at SCR_Init, every rank: the job's MTBF from the configuration (0: not
 * set); a malformed value is reported once and ignored */
void mtbf_init(scr_ctx_t *ctx);

/* rank 0 in SCR_Need_checkpoint: -1 when SCR_MTBF is not set, else 1 when
 * a checkpoint is due, 0 when not */
int mtbf_need(scr_ctx_t *ctx, double now);

/* a checkpoint of `secs` seconds completed now (every rank): its cost, and
 * the time the next interval counts from (SCR_CHECKPOINT_SECONDS too) */
void mtbf_checkpointed(scr_ctx_t *ctx, double secs);

#endif
