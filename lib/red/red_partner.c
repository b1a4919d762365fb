/* SPDX-License-Identifier: BSD-3-Clause */
/* red_partner.c - PARTNER: a full copy of every file on the right neighbour
 * (guide 2.10.2).  The set holds one process per failure group, so a process
 * and its partner do not fail together.  Copies live in
 * <dataset>/.partner.<rank>/ and are recorded in the filemap under RANK
 * <rank>; a restart finds them like any other copy of rank's files.  The
 * copy reads each file once: the CRC32 recorded for it is computed on the
 * way (SCR_Complete_output leaves it to us).  The partner records that
 * CRC32 for its copy without reading the bytes again (SCR_CRC_ON_COPY=1:
 * it checksums what arrived): whatever reads a copy later, the rebuild that
 * sends it back, a flush or the scavenge, checks it against that record, so
 * a copy damaged on the way or in cache is found where it would be used,
 * for a pass less over every byte at each checkpoint (docs/design.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "filemap.h"
#include "red.h"
#include "xfer.h"

typedef struct {
    scr_ctx_t *ctx;
    int id;
    int owner;
    const char *owner_host;
    int complete;
} partner_rec_t;

/* record the partner copies (incomplete until they arrive) */
static int partner_record(const kvtree_t *recv, const char *dir, void *arg,
                          scr_error_t *err)
{
    partner_rec_t *pr = arg;
    kvtree_t *r = filemap_rank(pr->ctx->filemap, pr->id, pr->owner);
    kvtree_unset(r, "FILE");
    kvtree_util_set_int(r, "FILES", kvtree_size(recv));
    /* a scavenge copies this copy only if the owner's node did not (scavenge.h) */
    if (pr->owner_host[0])
        kvtree_util_set_str(r, "HOST", pr->owner_host);
    for (kvtree_elem_t *e = kvtree_first(recv); e; e = kvtree_elem_next(e)) {
        kvtree_t *m = kvtree_dup(kvtree_elem_tree(e));
        const char *path = pr->complete ? kvtree_get_val(m, "PATH") : NULL;
        char *p = NULL;
        /* copy the path: it lives in m, which loses PATH below */
        if (path)
            p = strdup(path);
        else if (asprintf(&p, "%s/%s", dir, kvtree_get_val(m, "REL")) < 0)
            p = NULL;
        kvtree_unset(m, "PATH");
        kvtree_util_set_int(m, "COMPLETE", pr->complete);
        if (p)
            filemap_add_file(pr->ctx->filemap, pr->id, pr->owner, p, m);
        kvtree_delete(&m);
        free(p);
    }
    return pr->complete ? 0 : filemap_write(pr->ctx->filemap_path, pr->ctx->filemap, err);
}

/* Copy this rank's files to its right neighbour if send, and take its
 * left neighbour's if lsend (that neighbour's send) */
static int partner_copy(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir,
                        int background, int send, int lsend, scr_error_t *err)
{
    int n = rd->set_size;
    int right = (rd->set_rank + 1) % n, left = (rd->set_rank + n - 1) % n;
    int owner = rd->members[left];
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/.partner.%d", dsetdir, owner);
    kvtree_t *list = red_user_files(ctx->filemap, id, ctx->rank), *recv = kvtree_new();
    char lhost[sizeof(ctx->topo.hostname)] = "";
    MPI_Sendrecv(ctx->topo.hostname, (int)sizeof(lhost), MPI_CHAR,
                 send ? right : MPI_PROC_NULL, 0, lhost, (int)sizeof(lhost), MPI_CHAR,
                 lsend ? left : MPI_PROC_NULL, 0, rd->comm, MPI_STATUS_IGNORE);
    lhost[sizeof(lhost) - 1] = '\0';
    partner_rec_t pr = {ctx, id, owner, lhost, 0};
    /* While the application waits, mappings and large messages save a
     * copy on each side (bench/README.md).  Beside it (asynchronous
     * redundancy) nobody waits, and each unmapping would interrupt the
     * application's threads on the other cores (a TLB shootdown); the
     * asynchronous checkpoint measured no better with them (0.253 s against
     * 0.219 s without, within this machine's noise). */
    xfer_opts_t opt = {.bufsize =
                           background ? ctx->buf_size : XFER_SYNC_PIECE(ctx->buf_size),
                       .stage = "partner",
                       .pool = ctx->pool,
                       .map = ctx->copy_map && !background,
                       .trust = !ctx->crc_on_copy};
    int rc = xfer_files(rd->comm, send ? right : MPI_PROC_NULL, list,
                        lsend ? left : MPI_PROC_NULL, dir, recv, &opt, partner_record,
                        &pr, err);
    if (rc == 0) {
        fault_point("partner.copied", ctx->rank); /* checked, not recorded */
        pr.complete = 1;
        if (lsend)
            partner_record(recv, dir, &pr, NULL);
        if (send)
            red_record_crcs(ctx, id, list);
    }
    kvtree_delete(&list);
    kvtree_delete(&recv);
    return red_all(rd->comm, rc == 0) ? 0 : -1;
}

int red_partner_apply(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir,
                      int background, scr_error_t *err)
{
    return partner_copy(ctx, rd, id, dsetdir, background, 1, 1, err);
}

int red_partner_apply_some(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir,
                           int send, scr_error_t *err)
{
    int n = rd->set_size, lsend = 0;
    int right = (rd->set_rank + 1) % n, left = (rd->set_rank + n - 1) % n;
    MPI_Sendrecv(&send, 1, MPI_INT, right, 0, &lsend, 1, MPI_INT, left, 0, rd->comm,
                 MPI_STATUS_IGNORE);
    return partner_copy(ctx, rd, id, dsetdir, 0, send, lsend, err);
}
