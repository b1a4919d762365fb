/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_ftiff.c - libFuzzer target for the FTI-FF reader (scr print, and
 * every memory-checkpoint recovery).  The input is a file; its file block's
 * size and self-hash are patched to fit, so the fuzzer gets past them into
 * the block and chunk parsing.  Any input must be rejected with a message
 * or parsed without a crash, leak or overread. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ftiff.h"

static void patch(uint8_t *f, size_t size)
{
    if (size < FTIFF_FB_SIZE || memcmp(f, FTIFF_MAGIC, 8) != 0)
        return;
    for (int i = 0; i < 8; i++)
        f[80 + i] = (uint8_t)((uint64_t)size >> (8 * i));
    memset(f + 52, 0, 16);
    ftiff_hash_t h;
    ftiff_hash(f, FTIFF_FB_SIZE, &h);
    memcpy(f + 52, h.b, 16);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *f = malloc(size + 1);
    int fd = memfd_create("ftiff", 0);
    if (!f || fd < 0)
        abort();
    memcpy(f, data, size);
    patch(f, size);
    if (size && write(fd, f, size) != (ssize_t)size)
        abort();
    ftiff_meta_t m;
    ftiff_layout_t l;
    scr_error_t err;
    if (ftiff_read(fd, "fuzz", (int64_t)size, &m, &l, &err) == 0) {
        FILE *null = fopen("/dev/null", "w");
        ftiff_print(&m, &l, null);
        fclose(null);
        ftiff_layout_free(&l);
    } else if (!err.text[0]) {
        abort(); /* a rejection must say why */
    }
    close(fd);
    free(f);
    return 0;
}
