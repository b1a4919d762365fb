/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_r2f.c - libFuzzer target for the rank2file tree of a dataset on the
 * prefix (r2f.c): .scr/rank2file.scr and the files its levels point to.  The
 * input is an archive of the dataset directory's files (fuzzlib.h).  The
 * tree is walked the way r2f_read_tree (lib/base/r2f_mpi.c) does for a job
 * of four ranks, replayed in one process: every file through r2f_read_file
 * and r2f_parse, pointers handed to rank reader % 4, entries to their rank.
 * Each level reads files the previous one named, so a walk that outlasts
 * the files there are loops.  What a walk yields must survive being written
 * as a tree again (dsindex_write_r2f) and read back. */
#include <stdlib.h>

#include "dsindex.h"
#include "fuzzlib.h"
#include "r2f.h"

#define NRANKS 4

/* one level of the walk for every rank: read what mine[] names */
static int walk_level(const char *dsetdir, kvtree_t **mine, kvtree_t **next,
                      kvtree_t **out)
{
    int ok = 1;
    for (int v = 0; v < NRANKS; v++) {
        for (kvtree_elem_t *e = kvtree_first(mine[v]); e; e = kvtree_elem_next(e)) {
            kvtree_t *t = kvtree_new(), *rs = kvtree_new(), *ps = kvtree_new();
            const char *rel = kvtree_get_val(kvtree_elem_tree(e), "FILE");
            scr_error_t err = {""};
            int read = rel && r2f_read_file(dsetdir, rel, t, &err) == 0;
            if (rel && !read && !err.text[0])
                fuzz_fail("a file that cannot be read must say why");
            if (!read || r2f_parse(t, rs, ps) < 0)
                ok = 0;
            for (kvtree_elem_t *p = kvtree_first(ps); p; p = kvtree_elem_next(p)) {
                int reader;
                kvtree_elem_key_int(p, &reader);
                kvtree_setf(next[reader % NRANKS], kvtree_dup(kvtree_elem_tree(p)), "%s",
                            kvtree_elem_key(p));
            }
            for (kvtree_elem_t *r = kvtree_first(rs); r; r = kvtree_elem_next(r)) {
                int owner;
                kvtree_elem_key_int(r, &owner);
                if (owner < NRANKS)
                    kvtree_merge(out[owner], kvtree_elem_tree(r));
                else
                    ok = 0;
            }
            kvtree_delete(&t);
            kvtree_delete(&rs);
            kvtree_delete(&ps);
        }
    }
    return ok;
}

/* walk the tree under dsetdir; out[r] gets rank r's entry.  Returns 1 if
 * every file read and parsed. */
static int walk(const char *dsetdir, int nfiles, kvtree_t **out)
{
    kvtree_t *mine[NRANKS], *next[NRANKS];
    int ok = 1, more = 1;
    for (int v = 0; v < NRANKS; v++)
        mine[v] = kvtree_new();
    kvtree_util_set_str(kvtree_set(mine[0], "root", NULL), "FILE", ".scr/rank2file.scr");
    for (int level = 0; more; level++) {
        if (level > nfiles + 1)
            fuzz_fail("the rank2file walk of %d files is at level %d: a loop", nfiles,
                      level);
        for (int v = 0; v < NRANKS; v++)
            next[v] = kvtree_new();
        ok &= walk_level(dsetdir, mine, next, out);
        more = 0;
        for (int v = 0; v < NRANKS; v++) {
            more |= kvtree_size(next[v]) > 0;
            kvtree_delete(&mine[v]);
            mine[v] = next[v];
        }
    }
    for (int v = 0; v < NRANKS; v++)
        kvtree_delete(&mine[v]);
    return ok;
}

/* write what the walk found as a tree of its own and walk that */
static void round_trip(const char *dir, kvtree_t **out)
{
    kvtree_t *files = kvtree_new(), *back[NRANKS], *empty = kvtree_new();
    for (int r = 0; r < NRANKS; r++) {
        back[r] = kvtree_new();
        if (kvtree_get(out[r], "FILE"))
            kvtree_setf(files, kvtree_dup(kvtree_get(out[r], "FILE")), "RANK %d FILE", r);
    }
    if (dsindex_write_r2f(dir, NRANKS, files, NULL) < 0 || !walk(dir, 64, back))
        fuzz_fail("a rank2file tree written from a walk does not walk");
    for (int r = 0; r < NRANKS; r++) {
        kvtree_t *a = kvtree_get(out[r], "FILE"), *b = kvtree_get(back[r], "FILE");
        if (!kvtree_equal(a ? a : empty, b ? b : empty))
            fuzz_fail("rank %d's files changed in a write and walk", r);
        kvtree_delete(&back[r]);
    }
    kvtree_delete(&files);
    kvtree_delete(&empty);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dsetdir[4200], again[4200];
    fuzz_scratch();
    fuzz_path("d", dsetdir, sizeof(dsetdir));
    fuzz_path("again", again, sizeof(again));
    int nfiles = fuzz_unpack("d", data, size, NULL, NULL);
    fuzz_write("again/.scr/.keep", (const uint8_t *)"", 0);
    kvtree_t *out[NRANKS];
    for (int r = 0; r < NRANKS; r++)
        out[r] = kvtree_new();
    if (walk(dsetdir, nfiles, out))
        round_trip(again, out);
    for (int r = 0; r < NRANKS; r++)
        kvtree_delete(&out[r]);
    return 0;
}
