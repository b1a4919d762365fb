/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_flushfile.c - libFuzzer target for the flush file,
 * <prefix>/.scr/flush.scr (pfs.c): where each dataset is (CACHE, PFS) and
 * which one is being flushed.  The input is the flush file: it is read as
 * `scr flush-file` and `scr status` read it, SCR_Init's clean-up of
 * FLUSHING marks left by a dead run is replayed on it, and it is updated as
 * a flush does; what an update sets must be what flushfile_location sees. */
#include <stdlib.h>

#include "fuzzlib.h"
#include "kvtree.h"
#include "pfs.h"

/* `scr flush-file --latest/--location` and SCR_Init's FLUSHING clean-up */
static void flush_reads(const char *prefix, const kvtree_t *t)
{
    int n = 0, *ids = NULL;
    if (kvtree_list_int(kvtree_get(t, "DSET"), &n, &ids) == 0) {
        for (int i = 0; i < n && i < 16; i++) {
            kvtree_t *d = kvtree_getf(t, "DSET %d", ids[i]);
            for (kvtree_elem_t *e = kvtree_first(kvtree_get(d, "LOCATION")); e;
                 e = kvtree_elem_next(e))
                kvtree_elem_key(e);
            kvtree_get_val(d, "DIR");
            if (flushfile_location(prefix, ids[i], "CACHE") !=
                (kvtree_getf(t, "DSET %d LOCATION CACHE", ids[i]) != NULL))
                fuzz_fail("flushfile_location of %d CACHE is not what the file says",
                          ids[i]);
        }
        free(ids);
    }
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(t, "DSET")); e;
         e = kvtree_elem_next(e)) {
        int id;
        if (kvtree_elem_key_int(e, &id) == 0 &&
            kvtree_get(kvtree_elem_tree(e), "FLUSHING"))
            flushfile_set(prefix, id, "FLUSHING", 0, NULL);
    }
}

/* a flush: FLUSHING, then PFS, then the cache copy evicted */
static void flush_updates(const char *prefix, int id)
{
    flushfile_set(prefix, id, "FLUSHING", 1, NULL);
    if (flushfile_set(prefix, id, "PFS", 1, NULL) == 0 &&
        !flushfile_location(prefix, id, "PFS"))
        fuzz_fail("flushfile_set %d PFS succeeded, but it does not read back", id);
    flushfile_set(prefix, id, "FLUSHING", 0, NULL);
    if (flushfile_set(prefix, id, "CACHE", 0, NULL) == 0 &&
        flushfile_location(prefix, id, "CACHE"))
        fuzz_fail("flushfile_set %d CACHE off succeeded, but it reads back", id);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *prefix = fuzz_scratch();
    char path[4200];
    if (fuzz_write(".scr/flush.scr", data, size) < 0)
        fuzz_fail("cannot write the input");
    pfs_meta_path(prefix, "flush.scr", path, sizeof(path));
    kvtree_t *t = kvtree_new();
    scr_error_t err = {""};
    int id = 1;
    if (kvtree_read_with_lock(path, t, &err) == 0) {
        flush_reads(prefix, t);
        kvtree_elem_key_int(kvtree_first(kvtree_get(t, "DSET")), &id);
    } else if (!err.text[0]) {
        fuzz_fail("a rejection must say why");
    }
    kvtree_delete(&t);
    flush_updates(prefix, id);
    return 0;
}
