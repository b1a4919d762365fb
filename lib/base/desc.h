/* SPDX-License-Identifier: BSD-3-Clause */
/* desc.h - store and redundancy descriptors from the configuration
 * (guide 2.7-2.9), and their realization: the failure groups, the set each
 * process belongs to, and the set's communicator.
 *
 * A redundancy descriptor is also written into the filemap with each
 * dataset, so a restart rebuilds the dataset with the scheme it was written
 * with, not with today's configuration.
 */
#ifndef SCR_DESC_H
#define SCR_DESC_H

#include "error.h"
#include "scr_ctx.h"

/* Build stores and redundancy descriptors from ctx->cfg.  Collective.  On a
 * configuration error every process returns -1 and rank 0 has the message. */
int desc_create(scr_ctx_t *ctx, scr_error_t *err);
void desc_free(scr_ctx_t *ctx);

/* the descriptor for checkpoint id: the enabled one with the largest
 * interval that divides id */
reddesc_t *desc_select(scr_ctx_t *ctx, int id);
/* the enabled descriptor configured as CKPT=index, or NULL */
reddesc_t *desc_by_index(scr_ctx_t *ctx, int index);

const char *desc_type_name(red_type_t type);

/* descriptor <-> kvtree (REDDESC in the filemap) */
kvtree_t *reddesc_to_kvtree(const scr_ctx_t *ctx, const reddesc_t *rd);
/* the same as SINGLE, this process alone in its set: a dataset kept without
 * redundancy in rd's store (a fetched one, whose copy on the prefix stands
 * for it) */
kvtree_t *reddesc_single_kvtree(const scr_ctx_t *ctx, const reddesc_t *rd);
/* Rebuild a descriptor from REDDESC trees.  Collective over ctx->comm:
 * every process passes its own tree or NULL (then it joins no set). */
int reddesc_from_kvtree(scr_ctx_t *ctx, const kvtree_t *t, reddesc_t *rd,
                        scr_error_t *err);
void reddesc_free(reddesc_t *rd);

#endif
