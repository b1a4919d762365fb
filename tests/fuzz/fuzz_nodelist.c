/* fuzz_nodelist.c - libFuzzer target for host list expansion; whatever
 * expands must compress and expand back to the same set. */
#include <stdlib.h>
#include <string.h>

#include "nodelist.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size > 256)
        return 0; /* ranges multiply: keep expansions small */
    char *s = strndup((const char *)data, size);
    nodelist_t *hl = nodelist_from_str(s, NULL);
    if (hl && nodelist_count(hl) < 10000) {
        char *c = nodelist_compress(hl);
        nodelist_t *back = c ? nodelist_from_str(c, NULL) : NULL;
        nodelist_uniq(hl);
        if (!back || nodelist_count(back) != nodelist_count(hl))
            abort();
        for (int i = 0; i < nodelist_count(hl); i++)
            if (nodelist_find(back, nodelist_nth(hl, i)) < 0)
                abort();
        nodelist_delete(&back);
        free(c);
    }
    nodelist_delete(&hl);
    free(s);
    return 0;
}
