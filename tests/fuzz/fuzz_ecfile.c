/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_ecfile.c - libFuzzer target for XOR/RS redundancy files: the header
 * every set member's file starts with (ec_file.c), and the serial rebuild
 * of a scavenged dataset's lost ranks from them (ecfile.c).  The input is
 * an archive (fuzzlib.h) of a dataset directory: redundancy files named as
 * a scavenge names them, .scr/red/<s>_of_<n>_in_<set>.<type>, and the
 * members' application files at their paths.  Every header is read as the
 * restart rebuild reads it, then the set is rebuilt as `scr index` does; a
 * member without a file counts as lost.  A rebuild must fail with a message
 * or report the ranks it rebuilt, and never write outside the dataset (a
 * file next to it must stay as it was). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ec_file.h"
#include "ecfile.h"
#include "fuzzlib.h"

typedef struct {
    kvtree_t *set;
    const char *dsetdir;
} set_arg_t;

/* a redundancy file joins the set as member s-1 of n */
static void add_member(const char *rel, void *arg)
{
    set_arg_t *a = arg;
    int s, n, id;
    char ext[8], path[4700];
    if (sscanf(rel, ".scr/red/%d_of_%d_in_%d.%7s", &s, &n, &id, ext) != 4 || s < 1 ||
        s > n)
        return;
    snprintf(path, sizeof(path), "%s/%s", a->dsetdir, rel);
    int members = 0;
    kvtree_util_get_int(a->set, "MEMBERS", &members);
    if (n > members)
        kvtree_util_set_int(a->set, "MEMBERS", n);
    kvtree_util_set_str(kvtree_setf(a->set, NULL, "MEMBER %d", s - 1), "FILE", path);
}

/* the restart rebuild's read of each header (red_ec.c) */
static void read_headers(const kvtree_t *set)
{
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(set, "MEMBER")); e;
         e = kvtree_elem_next(e)) {
        kvtree_t *h = kvtree_new();
        int fd = -1;
        uint64_t off = 0;
        scr_error_t err = {""};
        if (ec_read_header(kvtree_get_val(kvtree_elem_tree(e), "FILE"), h, &fd, &off,
                           &err) < 0 &&
            !err.text[0])
            fuzz_fail("a rejection must say why");
        if (fd >= 0)
            close(fd);
        kvtree_delete(&h);
    }
}

/* the scratch directory holds the dataset and the untouched victim only */
static void check_outside(void)
{
    char buf[8] = "";
    FILE *fp = fopen("victim", "r");
    if (!fp || !fgets(buf, sizeof(buf), fp) || strcmp(buf, "victim") != 0)
        fuzz_fail("the rebuild changed the file next to the dataset");
    fclose(fp);
    DIR *d = opendir(".");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "d") &&
            strcmp(e->d_name, "victim")) {
            fuzz_fail("the rebuild wrote %s outside the dataset", e->d_name);
        }
    closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dsetdir[4200];
    fuzz_scratch();
    fuzz_path("d", dsetdir, sizeof(dsetdir));
    fuzz_write("victim", (const uint8_t *)"victim", 6);
    set_arg_t a = {kvtree_new(), dsetdir};
    fuzz_unpack("d", data, size, add_member, &a);
    read_headers(a.set);
    kvtree_t *rebuilt = kvtree_new();
    scr_error_t err = {""};
    int n = ecfile_rebuild(dsetdir, a.set, rebuilt, &err);
    fprintf(stderr, "rebuild: %d ranks %s\n", n, err.text); /* FUZZ_VERBOSE */
    if ((n < 0 && !err.text[0]) ||
        (n >= 0 && kvtree_size(kvtree_get(rebuilt, "RANK")) > n))
        fuzz_fail("ecfile_rebuild returned %d: '%s'", n, err.text);
    check_outside();
    kvtree_delete(&rebuilt);
    kvtree_delete(&a.set);
    return 0;
}
