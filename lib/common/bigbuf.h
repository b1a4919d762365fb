/* SPDX-License-Identifier: BSD-3-Clause */
/* bigbuf.h - the pipelines' large transient buffers, mapped for each use
 * and unmapped at its end.
 *
 * glibc serves a large malloc with a mapping of its own, but once such a
 * block is freed it raises its threshold to that size: the next buffers
 * come from the heap or a thread's arena, and stay resident after free.
 * A checkpoint's buffers then added a varying 1-8 MiB per rank to the
 * application's memory between checkpoints (XOR: 4.3-10.5 MiB of
 * anonymous memory per rank, 2.4 with a fixed threshold; bench/README.md).
 * These buffers live for one transfer, so a mapping per buffer costs
 * nothing that counts and gives every page back when it ends.
 */
#ifndef SCR_BIGBUF_H
#define SCR_BIGBUF_H

#include <stddef.h>

/* size bytes (0: a minimal buffer), starting on a page (which is 64-byte
 * aligned, as ISA-L's vectors want), its pages untouched until used; NULL
 * when out of memory */
void *bigbuf_alloc(size_t size);
/* give the buffer's pages back; NULL is ignored */
void bigbuf_free(void *p);

#endif
