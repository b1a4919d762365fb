/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_kvtree_file.c - libFuzzer target for the kvtree file reader.
 * Any input must be rejected or parsed without a crash, leak or overread;
 * what parses must print (`scr print`) and survive a write/read round trip
 * unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvtree.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    kvtree_t *t = kvtree_new();
    if (kvtree_read_buf(data, size, "fuzz", t, NULL) == 0) {
        static FILE *null;
        if (!null && !(null = fopen("/dev/null", "w")))
            abort();
        kvtree_print(t, 2, null);
        void *img;
        size_t len;
        if (kvtree_file_image(t, &img, &len) == 0) {
            kvtree_t *u = kvtree_new();
            if (kvtree_read_buf(img, len, "img", u, NULL) != 0 || !kvtree_equal(t, u))
                abort();
            kvtree_delete(&u);
            free(img);
        }
    }
    kvtree_delete(&t);
    return 0;
}
