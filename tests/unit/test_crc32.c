/* SPDX-License-Identifier: BSD-3-Clause */
/* test_crc32.c - crc32_update gives zlib's values, chained or whole */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "crc32.h"
#include "tap.h"

int main(void)
{
    ok(crc32_update(0, "123456789", 9) == 0xCBF43926u, "check value of '123456789' (%s)",
       crc32_impl());
    ok(crc32_update(0, "", 0) == 0, "empty buffer gives 0");

    size_t len = 3 * 1024 * 1024 + 17;
    unsigned char *buf = malloc(len);
    srand(42);
    for (size_t i = 0; i < len; i++)
        buf[i] = (unsigned char)rand();
    int same = 1;
    for (size_t n = 0; n < 300; n++) {
        uLong z = crc32(0L, buf + n, (uInt)n * 7);
        same &= crc32_update(0, buf + n, n * 7) == (uint32_t)z;
    }
    ok(same, "300 lengths and alignments match zlib");
    uint32_t whole = crc32_update(0, buf, len);
    uint32_t chained = crc32_update(crc32_update(0, buf, 1000), buf + 1000, len - 1000);
    ok(whole == chained, "chaining gives the whole-buffer value");
    ok(whole == (uint32_t)crc32(0L, buf, (uInt)len), "3 MiB buffer matches zlib");
    free(buf);
    return done_testing();
}
