/* SPDX-License-Identifier: BSD-3-Clause */
/* r2f_mpi.c - writing and reading the rank2file tree collectively */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvtree_mpi.h"
#include "r2f.h"
#include "r2f_mpi.h"

/* which rank writes my entry at this level, by scans over entry sizes
 * (r2f_assign's grouping, r2f_bucket) */
static int r2f_writer(MPI_Comm comm, uint64_t size, int *nwriters)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    uint64_t offset = 0;
    long long big = size > R2F_BIG, big_before = 0;
    MPI_Exscan(&size, &offset, 1, MPI_UINT64_T, MPI_SUM, comm);
    MPI_Exscan(&big, &big_before, 1, MPI_LONG_LONG, MPI_SUM, comm);
    if (rank == 0)
        offset = 0, big_before = 0;
    long long bucket = size ? (long long)r2f_bucket(offset, size, big_before) : -1,
              prev = -1;
    MPI_Exscan(&bucket, &prev, 1, MPI_LONG_LONG, MPI_MAX, comm);
    if (rank == 0)
        prev = -1;
    int first = size && bucket > prev, me = first ? rank : -1, writer = -1;
    MPI_Scan(&me, &writer, 1, MPI_INT, MPI_MAX, comm);
    MPI_Allreduce(&first, nwriters, 1, MPI_INT, MPI_SUM, comm);
    return size ? writer : -1;
}

int r2f_write_tree(MPI_Comm comm, const char *dsetdir, const kvtree_t *files,
                   scr_error_t *err)
{
    int rank, ranks, level = 0, ok = 1, nwriters = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    kvtree_t *entry = r2f_entry_files(rank, files);
    uint64_t size = kvtree_pack_size(entry); /* this level's entry's */
    if (size > R2F_ENTRY_MAX) { /* no reader would take the file: say so now */
        ok = errprintf(err,
                       "rank %d: its list of %d files takes %llu bytes in the rank2file "
                       "map, more than %d",
                       rank, kvtree_size(files), (unsigned long long)size,
                       R2F_ENTRY_MAX) == 0;
        kvtree_delete(&entry);
        size = 0;
    }
    for (;;) {
        int writer = r2f_writer(comm, size, &nwriters);
        kvtree_t *send = kvtree_new(), *recv = kvtree_new();
        if (entry) /* sent as it is, not copied */
            kvtree_setf(send, entry, "%d", writer);
        entry = NULL;
        kvtree_exchange(send, recv, comm);
        if (kvtree_size(recv) > 0) { /* I write a file of this level */
            kvtree_t *file = r2f_file_from(level, recv);
            char rel[128], path[4400];
            r2f_name(level, rank, 0, rel, sizeof(rel));
            snprintf(path, sizeof(path), "%s/%s", dsetdir, rel);
            if (kvtree_write_file(path, file, ok ? err : NULL) < 0)
                ok = 0;
            kvtree_delete(&file);
            entry = r2f_entry_pointer(level, rank);
        }
        size = entry ? kvtree_pack_size(entry) : 0;
        kvtree_delete(&send);
        kvtree_delete(&recv);
        level++;
        if (nwriters <= 1)
            break;
    }
    /* the one writer of the last level points the root at its file */
    if (entry) {
        kvtree_t *root = r2f_file(level, ranks, entry);
        char path[4400];
        snprintf(path, sizeof(path), "%s/.scr/rank2file.scr", dsetdir);
        if (kvtree_write_file(path, root, ok ? err : NULL) < 0)
            ok = 0;
        kvtree_delete(&root);
        kvtree_delete(&entry);
    }
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    return all ? 0 : -1;
}

/* read the files named by my pointers; pass on pointers or rank entries */
static int r2f_read_level(MPI_Comm comm, const char *dsetdir, int spread, kvtree_t *mine,
                          kvtree_t *next, kvtree_t *out, scr_error_t *err)
{
    int ranks, ok = 1;
    MPI_Comm_size(comm, &ranks);
    kvtree_t *send = kvtree_new(), *recv = kvtree_new();
    for (kvtree_elem_t *e = kvtree_first(mine); e; e = kvtree_elem_next(e)) {
        kvtree_t *t = kvtree_new(), *rs = kvtree_new(), *ps = kvtree_new();
        const char *rel = kvtree_get_val(kvtree_elem_tree(e), "FILE");
        if (!rel || r2f_read_file(dsetdir, rel, t, ok ? err : NULL) < 0 ||
            r2f_parse(t, rs, ps) < 0)
            ok = 0;
        for (kvtree_elem_t *p = kvtree_first(ps); p; p = kvtree_elem_next(p)) {
            int reader;
            kvtree_elem_key_int(p, &reader);
            kvtree_setf(send, kvtree_dup(kvtree_elem_tree(p)), "%d P %s", reader % ranks,
                        kvtree_elem_key(p));
        }
        for (kvtree_elem_t *r = kvtree_first(rs); r; r = kvtree_elem_next(r)) {
            int owner = -1;
            kvtree_elem_key_int(r, &owner);
            if (owner < 0 || (owner >= ranks && !spread)) {
                ok = 0;
                continue;
            }
            /* merged: with spread, several ranks' names go to one */
            kvtree_t *to = kvtree_getf(send, "%d R", owner % ranks);
            if (!to)
                to = kvtree_setf(send, NULL, "%d R", owner % ranks);
            kvtree_merge(to, kvtree_elem_tree(r));
        }
        kvtree_delete(&t);
        kvtree_delete(&rs);
        kvtree_delete(&ps);
    }
    kvtree_exchange(send, recv, comm);
    for (kvtree_elem_t *e = kvtree_first(recv); e; e = kvtree_elem_next(e)) {
        kvtree_merge(next, kvtree_get(kvtree_elem_tree(e), "P"));
        kvtree_merge(out, kvtree_get(kvtree_elem_tree(e), "R"));
    }
    kvtree_delete(&send);
    kvtree_delete(&recv);
    return ok ? 0 : -1;
}

/* spread: a rank entry of r goes to r % ranks (every name read, for a
 * tree of another job size); else one beyond the job is an error */
static int r2f_read_as(MPI_Comm comm, const char *dsetdir, int spread, kvtree_t *myfiles,
                       scr_error_t *err)
{
    int rank, ok = 1;
    MPI_Comm_rank(comm, &rank);
    kvtree_t *mine = kvtree_new();
    if (rank == 0)
        kvtree_util_set_str(kvtree_set(mine, "root", NULL), "FILE", ".scr/rank2file.scr");
    for (;;) {
        kvtree_t *next = kvtree_new(), *out = kvtree_new();
        if (r2f_read_level(comm, dsetdir, spread, mine, next, out, ok ? err : NULL) < 0)
            ok = 0;
        kvtree_merge(myfiles, kvtree_get(out, "FILE"));
        kvtree_delete(&out);
        kvtree_delete(&mine);
        mine = next;
        int more = kvtree_size(mine) > 0, any;
        MPI_Allreduce(&more, &any, 1, MPI_INT, MPI_LOR, comm);
        if (!any)
            break;
    }
    kvtree_delete(&mine);
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    return all ? 0 : -1;
}

int r2f_read_tree(MPI_Comm comm, const char *dsetdir, kvtree_t *myfiles, scr_error_t *err)
{
    return r2f_read_as(comm, dsetdir, 0, myfiles, err);
}

int r2f_read_names(MPI_Comm comm, const char *dsetdir, kvtree_t *names, scr_error_t *err)
{
    return r2f_read_as(comm, dsetdir, 1, names, err);
}
