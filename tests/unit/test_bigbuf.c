/* SPDX-License-Identifier: BSD-3-Clause */
/* test_bigbuf.c - buffers are aligned, usable to their last byte, and their
 * pages leave the process when freed (the reason the module exists) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bigbuf.h"
#include "tap.h"

/* resident anonymous pages (statm: resident less shared) */
static long anon_pages(void)
{
    long size, resident, shared;
    FILE *fp = fopen("/proc/self/statm", "r");
    int n = fp ? fscanf(fp, "%ld %ld %ld", &size, &resident, &shared) : 0;
    if (fp)
        fclose(fp);
    return n == 3 ? resident - shared : -1;
}

int main(void)
{
    size_t sizes[] = {0, 1, 63, 4096, 1 << 20, (4 << 20) + 7};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        unsigned char *p = bigbuf_alloc(sizes[i]);
        ok(p && (uintptr_t)p % (uintptr_t)sysconf(_SC_PAGESIZE) == 0,
           "%zu bytes: page aligned", sizes[i]);
        if (p && sizes[i]) {
            memset(p, 0xa5, sizes[i]);
            ok(p[0] == 0xa5 && p[sizes[i] - 1] == 0xa5, "%zu bytes: usable to the end",
               sizes[i]);
        }
        bigbuf_free(p);
    }
    bigbuf_free(NULL);
    ok(1, "freeing NULL does nothing");
    ok(bigbuf_alloc(SIZE_MAX - 8) == NULL, "an impossible size is refused");

    /* 16 MiB touched, then freed: the pages go back (a freed malloc block
     * of this size may stay resident in the heap) */
    size_t big = 16 << 20;
    long before = anon_pages();
    unsigned char *p = bigbuf_alloc(big);
    memset(p, 1, big);
    long held = anon_pages();
    bigbuf_free(p);
    long after = anon_pages();
    long pages = (long)(big / (size_t)sysconf(_SC_PAGESIZE));
    ok(before >= 0 && held - before >= pages * 9 / 10, "touched: %ld pages resident",
       held - before);
    ok(after - before < pages / 10, "freed: %ld pages left resident", after - before);
    return done_testing();
}
