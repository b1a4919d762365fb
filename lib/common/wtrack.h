/* SPDX-License-Identifier: BSD-3-Clause */
/* wtrack.h - which pages of the application's memory were written since the
 * last look, told by the kernel instead of found by hashing every byte.
 *
 * A differential checkpoint must find the blocks that changed.  Hashing
 * them all costs a pass over the whole state at every checkpoint, however
 * little changed.  Here the pages are registered with a userfaultfd in
 * asynchronous write-protect mode (Linux 6.7): the first write to a
 * protected page clears its protection inside the kernel (one minor fault,
 * nothing of ours runs), and the PAGEMAP_SCAN ioctl on /proc/self/pagemap
 * lists the pages that lost it and protects them again in the same call.
 *
 * Only private anonymous memory is taken (malloc, the stack, private
 * anonymous maps): a shared or file mapping changes without this process
 * writing to it.  Even there, writes that do not go through this process's
 * page tables are not seen: RDMA into registered memory, a GPU's or other
 * device's DMA, XPMEM peers, MADV_DONTNEED.  That is why SCR_DCP_TRACK is
 * off by default (docs/ftiff.md).
 */
#ifndef SCR_WTRACK_H
#define SCR_WTRACK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

typedef struct wtrack wtrack_t;

/* pages [start, end) of the address space */
typedef struct {
    uintptr_t start, end;
} wtrack_range_t;

/* NULL with err when the kernel cannot do it (older than 6.7,
 * userfaultfd disabled or not built) */
wtrack_t *wtrack_open(scr_error_t *err);
void wtrack_close(wtrack_t *t);

/* the pages holding [ptr, ptr + len): [*start, *end), page aligned; what
 * wtrack_add registers and wtrack_scan looks at */
void wtrack_page_span(const wtrack_t *t, const void *ptr, size_t len, uintptr_t *start,
                      uintptr_t *end);
size_t wtrack_page_size(const wtrack_t *t);

/* Track the pages that hold [ptr, ptr + len).  Until the first scan of them
 * they count as written.  0, or -1 with err (not private anonymous memory,
 * or the kernel refused). */
int wtrack_add(wtrack_t *t, const void *ptr, size_t len, scr_error_t *err);

/* The pages of [ptr, ptr + len) written since they were last scanned, each
 * protected again: *out (malloc'd, the caller frees it, NULL when none) gets
 * the ranges in address order.  Returns their count, or -1 when part of the
 * range is no longer tracked (unmapped, remapped, never added): the caller
 * must then take all of it as written. */
ssize_t wtrack_scan(wtrack_t *t, const void *ptr, size_t len, wtrack_range_t **out);

#endif
