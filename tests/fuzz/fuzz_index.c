/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_index.c - libFuzzer target for the prefix index,
 * <prefix>/.scr/index.scr (pfs.c).  The input is the index file: it is read
 * as SCR_Init, fetch and `scr index` read it, searched the way fetch picks a
 * checkpoint and SCR_PREFIX_SIZE prunes, and then updated in place as flush,
 * fetch and SCR_Drop do.  Any file must be rejected with a message or used
 * without a crash, leak or hang, and what the updates write must read back. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzlib.h"
#include "pfs.h"

/* dataset ids in the index (at most max), and the first one's name */
static int index_ids(const kvtree_t *t, int *ids, int max, const char **name)
{
    int n = 0;
    *name = NULL;
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(t, "DSET")); e && n < max;
         e = kvtree_elem_next(e)) {
        if (kvtree_elem_key_int(e, &ids[n]) < 0)
            continue;
        kvtree_t *dirs = kvtree_get(kvtree_elem_tree(e), "DIR");
        const char *nm = kvtree_get_val(
            kvtree_get(kvtree_elem_tree(kvtree_first(dirs)), "DSET"), "NAME");
        if (nm && !*name)
            *name = nm;
        n++;
    }
    return n;
}

/* fetch's choices and the prefix pruning; what they return must be in t */
static void index_search(const kvtree_t *t, const int *ids, int n, const char *name)
{
    char dir[4096];
    int got = index_pick(t, NULL, INT_MAX, dir, sizeof(dir));
    if (got >= 0 && !kvtree_getf(t, "DSET %d DIR %s", got, dir))
        fuzz_fail("index_pick chose dataset %d in %s: not in the index", got, dir);
    if (name)
        index_pick(t, name, INT_MAX, dir, sizeof(dir));
    for (int i = 0; i < n; i++) {
        got = index_pick(t, NULL, ids[i], dir, sizeof(dir));
        if (got >= ids[i] || (got >= 0 && !kvtree_getf(t, "DSET %d DIR %s", got, dir)))
            fuzz_fail("index_pick below %d chose %d in %s", ids[i], got, dir);
        index_dset_desc(t, ids[i]);
    }
    int prune[64];
    for (int keep = 1; keep <= 3; keep++) {
        int np = index_prune_list(t, keep, prune, 64);
        if (np < 0 || np > 64)
            fuzz_fail("index_prune_list gave %d ids, at most 64 fit", np);
        for (int i = 0; i < np; i++)
            if (!kvtree_getf(t, "DSET %d", prune[i]))
                fuzz_fail("index_prune_list chose %d: not in the index", prune[i]);
    }
}

/* flush, fetch, a failed fetch and SCR_Drop rewrite the file under lock */
static void index_updates(const char *prefix, int id, const kvtree_t *dset)
{
    char name[64];
    scr_error_t err;
    kvtree_t *t = kvtree_new();
    pfs_dset_name(id, name, sizeof(name));
    if (index_add(prefix, id, name, dset, 1, &err) == 0 &&
        (index_read(prefix, t, &err) < 0 || !kvtree_getf(t, "DSET %d DIR %s", id, name)))
        fuzz_fail("index_add of %d succeeded, but it does not read back", id);
    index_mark_fetched(prefix, id, name, &err);
    index_mark_failed(prefix, id, name, &err);
    kvtree_delete(&t);
    t = kvtree_new();
    if (index_remove(prefix, id, &err) == 0 &&
        (index_read(prefix, t, &err) < 0 || kvtree_getf(t, "DSET %d", id)))
        fuzz_fail("index_remove of %d succeeded, but it reads back", id);
    kvtree_delete(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *prefix = fuzz_scratch();
    if (fuzz_write(".scr/index.scr", data, size) < 0)
        fuzz_fail("cannot write the input");
    kvtree_t *t = kvtree_new();
    scr_error_t err = {""};
    int ids[32], n = 0;
    const char *name = NULL;
    if (index_read(prefix, t, &err) == 0) {
        n = index_ids(t, ids, 32, &name);
        index_search(t, ids, n, name);
    } else if (!err.text[0]) {
        fuzz_fail("a rejection must say why");
    }
    kvtree_t *dset = kvtree_new();
    kvtree_util_set_int(dset, "ID", n ? ids[0] : 1);
    kvtree_util_set_int(dset, "FLAGS", 1);
    kvtree_util_set_str(dset, "NAME", name ? name : "ckpt.1");
    index_updates(prefix, n ? ids[0] : 1, dset);
    kvtree_delete(&dset);
    kvtree_delete(&t);
    return 0;
}
