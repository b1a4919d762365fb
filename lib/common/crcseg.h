/* SPDX-License-Identifier: BSD-3-Clause */
/* crcseg.h - CRC32 of files whose bytes pass by out of order.
 *
 * The redundancy pipelines see a process's files as one concatenation cut
 * into streams of stream_len bytes (the chunks of an XOR/RS set), and visit
 * the streams piece by piece, interleaved, each stream in order.  Keeping a
 * running CRC per (file, stream) and joining them with zlib's crc32_combine
 * at the end gives each file's CRC32 from the bytes already in memory, so no
 * file is read a second time just to checksum it.  A single in-order pass
 * (a partner copy) is the case of one stream.
 */
#ifndef SCR_CRCSEG_H
#define SCR_CRCSEG_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct {
    int nfiles, nstreams;
    uint64_t stream_len;
    uint64_t *start; /* offset of each file in the concatenation, plus the end */
    uint64_t *next;  /* per (file, stream): next byte expected */
    uint32_t *crc;   /* per (file, stream): CRC so far */
    int *broken;     /* per file: bytes came out of order */
} crcseg_t;

/* stream_len 0 means one stream; returns 0 or -1 (out of memory) */
int crcseg_init(crcseg_t *c, int nfiles, const uint64_t *sizes, uint64_t stream_len);
void crcseg_free(crcseg_t *c);

/* bytes [pos, pos+len) of the concatenation; bytes past its end (padding)
 * are ignored.  A piece must not cross a stream boundary. */
void crcseg_update(crcseg_t *c, uint64_t pos, const void *buf, size_t len);

/* CRC32 of file f: 0, or -1 when some of its bytes were not seen in order */
int crcseg_file(const crcseg_t *c, int f, uint32_t *crc);

/* the same, reading the file at path when its bytes were not all seen in
 * order: 0, or -1 with err set */
int crcseg_file_or_read(const crcseg_t *c, int f, const char *path, uint32_t *crc,
                        scr_error_t *err);

/* crc32 of A followed by B, given B's length (zlib's crc32_combine) */
uint32_t crcseg_combine(uint32_t a, uint32_t b, uint64_t len_b);

#endif
