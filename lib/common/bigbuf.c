/* SPDX-License-Identifier: BSD-3-Clause */
/* bigbuf.c - large transient buffers as mappings of their own (bigbuf.h) */
#include <stdint.h>
#include <sys/mman.h>

#include "bigbuf.h"

/* the mapping's length sits in a header page, so the buffer starts on a
 * page as the posix_memalign'd copy buffers did (one page more each) */
#define BIGBUF_HEAD 4096

void *bigbuf_alloc(size_t size)
{
    if (size > SIZE_MAX - BIGBUF_HEAD)
        return NULL;
    size_t len = size + BIGBUF_HEAD;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    *(size_t *)m = len;
    return m + BIGBUF_HEAD;
}

void bigbuf_free(void *p)
{
    if (!p)
        return;
    char *m = (char *)p - BIGBUF_HEAD;
    munmap(m, *(size_t *)m);
}
