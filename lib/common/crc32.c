/* SPDX-License-Identifier: BSD-3-Clause */
/* crc32.c - CRC32 through ISA-L or zlib */
#include "scr_build.h"
#include "crc32.h"

#if SCR_HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <limits.h>
#include <zlib.h>
#endif

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len)
{
#if SCR_HAVE_ISAL
    /* ISA-L takes a 64-bit length: no need to split */
    return crc32_gzip_refl(crc, buf, len);
#else
    const unsigned char *p = buf;
    while (len > 0) {
        uInt n = len > UINT_MAX ? UINT_MAX : (uInt)len;
        crc = (uint32_t)crc32(crc, p, n);
        p += n;
        len -= n;
    }
    return crc;
#endif
}

const char *crc32_impl(void)
{
    return SCR_HAVE_ISAL ? "isa-l" : "zlib";
}
