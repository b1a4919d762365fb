/* SPDX-License-Identifier: BSD-3-Clause */
/* mem_track.h - which pages of each protected variable changed since the
 * last good checkpoint (SCR_DCP_TRACK=1), so that a differential checkpoint
 * hashes only those instead of every block.
 *
 * The kernel reports written pages (lib/common/wtrack.h).  Each variable
 * keeps two page bitmaps: "pending", written and in no good checkpoint yet,
 * and "taken", the pages the checkpoint being written has read.  A variable
 * is scanned just before it is written (SCR_Checkpoint_add may come long
 * after SCR_Checkpoint_begin), and a scan's pages go to every variable that
 * shares them, so a page two variables share is never lost by one of them.
 * A good checkpoint forgets what it took; a failed one gives it back.
 *
 * Whenever tracking cannot vouch for a variable (just protected, moved or
 * resized, its memory remapped, a kernel that cannot track), every page
 * counts as changed: the checkpoint then hashes every block as without
 * tracking, never less.
 */
#ifndef SCR_MEM_TRACK_H
#define SCR_MEM_TRACK_H

#include "mem.h"

/* before variable i is written: scan it and take its changed pages */
void mem_track_take(scr_ctx_t *ctx, struct mem_state *m, int i);

/* may bytes [off, off + len) of variable v have changed since the last
 * good checkpoint? */
int mem_track_changed(const mem_var_t *v, int64_t off, int64_t len);

/* the checkpoint is over: good (ok 1) or not */
void mem_track_settle(struct mem_state *m, int ok);

/* forget v's tracking (protected anew, moved, resized, unprotected) */
void mem_track_reset(mem_var_t *v);

/* the kernel interface, closed (SCR_Finalize) */
void mem_track_free(struct mem_state *m);

#endif
