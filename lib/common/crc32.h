/* SPDX-License-Identifier: BSD-3-Clause */
/* crc32.h - CRC32 of file data and metadata.
 *
 * The value is zlib's crc32 (the gzip polynomial, reflected), which SCR
 * records in filemaps, summary files and kvtree files.  ISA-L computes it at
 * memory bandwidth; zlib is the fallback where ISA-L is absent.  Chain calls
 * by passing the previous result as crc (start with 0).
 */
#ifndef SCR_CRC32_H
#define SCR_CRC32_H

#include <stddef.h>
#include <stdint.h>

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len);

/* "isa-l" or "zlib" */
const char *crc32_impl(void);

#endif
