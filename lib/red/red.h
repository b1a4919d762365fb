/* SPDX-License-Identifier: BSD-3-Clause */
/* red.h - applying and recovering redundancy for one dataset.
 *
 * apply runs at SCR_Complete_output on every process (collective over
 * ctx->comm); recover runs during a restart after files were distributed to
 * their owners, with need = 1 on processes still missing files.  Both return
 * the same result on every process of the job.  The caller's filemap gains
 * the redundancy files (and, for recover, the rebuilt files).
 */
#ifndef SCR_RED_H
#define SCR_RED_H

#include "error.h"
#include "scr_ctx.h"

/* the files of rank in dataset id, as an xfer list "<i>" -> meta (PATH, REL,
 * ORIG, SIZE, CRC, TYPE), in the fixed order redundancy uses */
kvtree_t *red_user_files(const kvtree_t *fm, int id, int rank);

/* copy the CRCs of a red_user_files list into rank's filemap entries */
void red_record_crcs(scr_ctx_t *ctx, int id, const kvtree_t *list);

/* protect dataset id; collective over world (a duplicate of the world: the
 * library's, or the background encode's own, redbg.h), with the same result
 * on every rank.  SINGLE takes part too: a rank whose set has no member
 * outside its failure group keeps its data as SINGLE while the others
 * encode. */
int red_apply(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir, MPI_Comm world,
              scr_error_t *err);
int red_recover(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir, int need,
                scr_error_t *err);

/* XOR and RS (red_ec.c); PARTNER (red_partner.c).  Collective over rd->comm.
 * background: on redbg's thread, beside the application (no mappings,
 * smaller messages: see red_partner.c) */
int red_ec_apply(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir,
                 int background, scr_error_t *err);
int red_ec_recover(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir, int need,
                   scr_error_t *err);
int red_partner_apply(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir,
                      int background, scr_error_t *err);
/* the same in a rebuild, where only the ranks with send set copy their
 * files (the others' copies stayed where they were, rebuild.c); collective
 * over the set */
int red_partner_apply_some(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir,
                           int send, scr_error_t *err);

/* every process of comm agrees: 1 if ok on all */
int red_all(MPI_Comm comm, int ok);

#endif
