/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_filemap.c - libFuzzer target for the filemaps in a job's control
 * directory, <cntl>/filemap_<rank>.scrinfo (filemap.c).  The application
 * writes them, so their content is the user's; the epilog reads them as the
 * user to scavenge.  The input is an archive (fuzzlib.h) of the scratch
 * directory: filemaps under cntl/, cached files anywhere else.  Every
 * filemap is read through filemap_foreach and looked up the way restart and
 * `scr status` do, the dataset to scavenge is picked (scavenge_pick), and
 * when every dataset's directory is a relative one (so nothing outside the
 * scratch directory is touched) it is scavenged to pfs/ and deleted from the
 * cache as the library evicts it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filemap.h"
#include "fuzzlib.h"
#include "path.h"
#include "scavenge.h"

typedef struct {
    int maps, relative;
} seen_t;

/* what restart and `scr status` take from a filemap */
static void filemap_lookups(const kvtree_t *fm, int rank, seen_t *s)
{
    int n = 0, *ids = NULL;
    if (filemap_list_dsets(fm, &n, &ids) < 0)
        return;
    for (int i = 0; i < n; i++) {
        const kvtree_t *d = filemap_get_desc(fm, ids[i], "DSETDESC");
        const char *dir = kvtree_get_val(d, "DIR");
        int complete = 0, nfiles = 0;
        kvtree_util_get_int(d, "COMPLETE", &complete);
        filemap_get_desc(fm, ids[i], "REDDESC");
        kvtree_util_get_int(filemap_get_rank(fm, ids[i], rank), "FILES", &nfiles);
        if (filemap_count_user(fm, ids[i], rank) < 0)
            fuzz_fail("filemap_count_user < 0");
        kvtree_t *files = kvtree_get(filemap_get_rank(fm, ids[i], rank), "FILE");
        for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e))
            if (filemap_file(fm, ids[i], rank, kvtree_elem_key(e)) != kvtree_elem_tree(e))
                fuzz_fail("filemap_file does not find %s", kvtree_elem_key(e));
        s->relative &= !dir || path_is_safe_relative(dir);
    }
    free(ids);
}

static int visit(int rank, const char *path, const kvtree_t *fm, const scr_error_t *ferr,
                 void *arg)
{
    seen_t *s = arg;
    if (rank < 0 || !path || (!fm && !ferr->text[0]))
        fuzz_fail("an unreadable filemap must say why");
    if (fm) {
        s->maps++;
        filemap_lookups(fm, rank, s);
    }
    return 0;
}

/* the library's eviction: every file of every dataset under its directory */
static int evict_visit(int rank, const char *path, const kvtree_t *fm,
                       const scr_error_t *ferr, void *arg)
{
    (void)rank;
    (void)ferr;
    (void)arg;
    int n = 0, *ids = NULL;
    kvtree_t *copy = fm ? kvtree_dup(fm) : NULL;
    if (copy && filemap_list_dsets(copy, &n, &ids) == 0) {
        for (int i = 0; i < n; i++) {
            const char *dir =
                kvtree_get_val(filemap_get_desc(copy, ids[i], "DSETDESC"), "DIR");
            char *d = dir ? strdup(dir) : NULL;
            filemap_delete_dset_files(copy, ids[i], d);
            free(d);
            if (filemap_get_desc(copy, ids[i], "DSETDESC"))
                fuzz_fail("the entry must go with the files");
        }
        filemap_write(path, copy, NULL);
    }
    free(ids);
    kvtree_delete(&copy);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char cntl[4200], prefix[4200];
    fuzz_scratch();
    fuzz_path("cntl", cntl, sizeof(cntl));
    fuzz_path("pfs", prefix, sizeof(prefix));
    fuzz_unpack(".", data, size, NULL, NULL);
    seen_t s = {0, 1};
    scr_error_t err = {""};
    if (filemap_foreach(cntl, visit, &s, &err) < 0)
        fuzz_fail("filemap_foreach: %s", err.text);
    int id = -1;
    scavenge_pick("", cntl, &id, &err);
    if (scavenge_pick(prefix, cntl, &id, &err) == 1 && s.relative) {
        scavenge_t sc = {.prefix = prefix, .cntldir = cntl, .host = "node1", .id = id};
        scavenge_own(&sc, &err);
        scavenge_partners(&sc, &err);
        scavenge_done(&sc);
        fprintf(stderr, "scavenge of dataset %d: %d files, %d failed\n", id, sc.files,
                sc.failed); /* FUZZ_VERBOSE */
        filemap_foreach(cntl, evict_visit, NULL, &err);
    }
    return 0;
}
