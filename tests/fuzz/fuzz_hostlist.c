/* fuzz_hostlist.c - libFuzzer target for host list expansion; whatever
 * expands must compress and expand back to the same set. */
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size > 256)
        return 0; /* ranges multiply: keep expansions small */
    char *s = strndup((const char *)data, size);
    hostlist_t *hl = hostlist_from_str(s, NULL);
    if (hl && hostlist_count(hl) < 10000) {
        char *c = hostlist_compress(hl);
        hostlist_t *back = c ? hostlist_from_str(c, NULL) : NULL;
        hostlist_uniq(hl);
        if (!back || hostlist_count(back) != hostlist_count(hl))
            abort();
        for (int i = 0; i < hostlist_count(hl); i++)
            if (hostlist_find(back, hostlist_nth(hl, i)) < 0)
                abort();
        hostlist_delete(&back);
        free(c);
    }
    hostlist_delete(&hl);
    free(s);
    return 0;
}
