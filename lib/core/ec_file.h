/* SPDX-License-Identifier: BSD-3-Clause */
/* ec_file.h - the redundancy file of an XOR/RS set member (red_ec.c writes
 * it): a kvtree file image (DSET, RANKS, TYPE, FAILURES, GROUP {RANKS,
 * RANK <set rank> <global rank>}, CHUNK, CURRENT, PARTNER, PARTNERS <d>,
 * and CODE) followed by the member's parity chunks.  CODE names the code
 * the chunks are of: SPREAD for RS sets (spread.h); XOR sets, and RS sets
 * written before it, have none (the stripes of ec.h).  Shared by the restart rebuild and
 * the rebuild of a scavenged dataset on the prefix (ecfile.c).
 */
#ifndef SCR_EC_FILE_H
#define SCR_EC_FILE_H

#include <stdint.h>

#include "error.h"
#include "kvtree.h"

#define EC_CODE_SPREAD "SPREAD"

/* Open path (never following a symlink), parse its header into h; *fd stays
 * open for the caller (also on error, if it was opened) and *data_off is
 * where the chunks start. */
int ec_read_header(const char *path, kvtree_t *h, int *fd, uint64_t *data_off,
                   scr_error_t *err);

#endif
