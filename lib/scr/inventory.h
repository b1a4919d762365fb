/* SPDX-License-Identifier: BSD-3-Clause */
/* inventory.h - what a node's cache holds, for a restart (guide 2.26.4).
 *
 * The node master (node rank 0) reads every filemap in the control
 * directory; each (filemap, dataset, rank) entry is a holding: a copy of one
 * rank's files (the original, or a PARTNER copy).  Every file of a holding
 * is checked: inside this job's cache, a regular file of the recorded size,
 * complete, and (the owner's own files) with the recorded CRC32.  A damaged
 * file makes its holding unusable, so the data is taken from another copy or
 * rebuilt.  A partner copy's CRC32 is checked when it is used (CRC_LATER).
 *
 * Holding (kvtree): DSET OWNER WRITER FILES FILE{path->meta} DSETDESC
 * REDDESC(only from the owner's own filemap) USER_OK PARITY_OK CRC_LATER.
 */
#ifndef SCR_INVENTORY_H
#define SCR_INVENTORY_H

#include "scr_ctx.h"

/* Read and verify the node's filemaps.  Returns "<k>" -> holding; maps gets
 * "<writer rank>" -> filemap file path of every filemap read. */
kvtree_t *inventory_read(scr_ctx_t *ctx, kvtree_t *maps);

/* Before a holding is used: the CRC32 of each file that inventory_read
 * left unread (CRC_LATER, a partner copy).  0 when they match or there was
 * nothing left to read; -1 with err naming the file. */
int inventory_check_later(const kvtree_t *h, scr_error_t *err);

#endif
