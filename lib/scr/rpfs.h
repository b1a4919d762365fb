/* SPDX-License-Identifier: BSD-3-Clause */
/* rpfs.h - restart straight from the prefix, without the cache.
 *
 * A checkpoint on the prefix can serve a job that the cache cannot: one
 * with another number of ranks than the job that wrote it (any rank may
 * then route any file of the dataset), and SCR_GLOBAL_RESTART, which asks
 * for the restart reads to go to the prefix.  The dataset is opened in
 * SCR_Init: its rank2file map is read spread over the ranks, each name
 * goes to the rank that judges it (nameset.h), which moves the file to its
 * own path if a placement was cut short and checks its size and CRC32;
 * then SCR_Route_file during the restart hands out <prefix>/<path> for a
 * file there.  No process holds every rank's names: a routed file is one
 * that is at its own path (the checks put every file of the dataset
 * there), not one looked up in a list.  Collective.
 */
#ifndef SCR_RPFS_H
#define SCR_RPFS_H

#include "scr_ctx.h"

/* Open dataset id, in the prefix's directory dir, for restart.  Returns 0;
 * -1 when its files are known bad (missing, wrong size or CRC32); -2 when
 * it cannot serve this job for another reason (said in one line): nothing
 * against the dataset. */
int rpfs_open(scr_ctx_t *ctx, int id, const char *dir);
/* the open dataset's NAME, or NULL when none is open */
const char *rpfs_name(const scr_ctx_t *ctx);
/* the path of the restart dataset's file rel (relative to the prefix) into
 * file; 0, or -1 when no such file is on the prefix */
int rpfs_route(const scr_ctx_t *ctx, const char *rel, char *file, size_t len);
/* forget the open dataset */
void rpfs_close(scr_ctx_t *ctx);

#endif
