/* SPDX-License-Identifier: BSD-3-Clause */
/* red.c - redundancy dispatch and helpers shared by the schemes */
#include <string.h>

#include "filemap.h"
#include "log.h"
#include "desc.h"
#include "red.h"

int red_all(MPI_Comm comm, int ok)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}

kvtree_t *red_user_files(const kvtree_t *fm, int id, int rank)
{
    kvtree_t *list = kvtree_new();
    kvtree_t *files = kvtree_dup(kvtree_get(filemap_get_rank(fm, id, rank), "FILE"));
    kvtree_sort(files, KVTREE_SORT_ASCENDING);
    int i = 0;
    for (kvtree_elem_t *e = kvtree_first(files); list && e; e = kvtree_elem_next(e)) {
        kvtree_t *meta = kvtree_elem_tree(e);
        const char *type = kvtree_get_val(meta, "TYPE");
        if (!type || strcmp(type, FM_TYPE_USER) != 0)
            continue;
        kvtree_t *m = kvtree_setf(list, kvtree_dup(meta), "%d", i++);
        kvtree_util_set_str(m, "PATH", kvtree_elem_key(e));
    }
    kvtree_delete(&files);
    return list;
}

void red_record_crcs(scr_ctx_t *ctx, int id, const kvtree_t *list)
{
    for (kvtree_elem_t *e = kvtree_first(list); e; e = kvtree_elem_next(e)) {
        uint32_t crc;
        kvtree_t *m = kvtree_elem_tree(e);
        kvtree_t *fm =
            filemap_file(ctx->filemap, id, ctx->rank, kvtree_get_val(m, "PATH"));
        if (fm && kvtree_util_get_crc32(m, "CRC", &crc) == 0)
            kvtree_util_set_crc32(fm, "CRC", crc);
    }
}

int red_apply(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir, MPI_Comm world,
              scr_error_t *err)
{
    int rc = 0, bg = world != MPI_COMM_NULL && world == ctx->bg_comm;
    switch (rd->type) {
    case RED_SINGLE:
        break;
    case RED_PARTNER:
        rc = red_partner_apply(ctx, rd, id, dsetdir, bg, err);
        break;
    case RED_XOR:
    case RED_RS:
        rc = red_ec_apply(ctx, rd, id, dsetdir, bg, err);
        break;
    }
    /* My redundancy on disk as good before the sets agree: the dataset is
     * complete once any rank records it so, and a rank killed before its
     * own record must still count as protected. */
    if (rc == 0 && rd->type != RED_SINGLE &&
        filemap_write(ctx->filemap_path, ctx->filemap, err) < 0)
        rc = -1;
    /* sets are independent; the dataset is good only if every set is */
    return red_all(world, rc == 0) ? 0 : -1;
}

int red_recover(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir, int need,
                scr_error_t *err)
{
    int rc = 0;
    switch (rd->type) {
    case RED_SINGLE:
    case RED_PARTNER: /* partner copies came back during distribution */
        if (need)
            rc = errprintf(err, "files of rank %d are lost and %s cannot rebuild them",
                           ctx->rank, desc_type_name(rd->type));
        break;
    case RED_XOR:
    case RED_RS:
        rc = red_ec_recover(ctx, rd, id, dsetdir, need, err);
        break;
    }
    return red_all(ctx->comm, rc == 0) ? 0 : -1;
}
