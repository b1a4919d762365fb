/* SPDX-License-Identifier: BSD-3-Clause */
/* red_partner.c - PARTNER: a full copy of every file on the right neighbour
 * (guide 2.10.2).  The set holds one process per failure group, so a process
 * and its partner do not fail together.  Copies live in
 * <dataset>/.partner.<rank>/ and are recorded in the filemap under RANK
 * <rank>; a restart finds them like any other copy of rank's files.  The
 * copy reads each file once: the CRC32 recorded for it is computed on the
 * way (SCR_Complete_output leaves it to us).
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

/* one rank's part in a round of partner copies: what it sends to its
 * right neighbour, what it takes from its left one, as one stream pair */
struct red_partner_copy {
    scr_ctx_t *ctx;
    int id, send, lsend;
    char dir[4200];
    char lhost[sizeof(((scr_ctx_t *)0)->topo.hostname)];
    kvtree_t *list, *recv;
    xfer_opts_t opt;
    partner_rec_t pr;
    xfer_pair_t pair;
};

red_partner_copy_t *red_partner_copy_begin(scr_ctx_t *ctx, const reddesc_t *rd, int id,
                                           const char *dsetdir, int background, int send,
                                           int lsend)
{
    red_partner_copy_t *pc = calloc(1, sizeof(*pc));
    if (!pc)
        MPI_Abort(ctx->comm, 1);
    int n = rd->set_size;
    int right = (rd->set_rank + 1) % n, left = (rd->set_rank + n - 1) % n;
    int owner = rd->members[left];
    pc->ctx = ctx;
    pc->id = id;
    pc->send = send;
    pc->lsend = lsend;
    snprintf(pc->dir, sizeof(pc->dir), "%s/.partner.%d", dsetdir, owner);
    pc->list = red_user_files(ctx->filemap, id, ctx->rank);
    pc->recv = kvtree_new();
    MPI_Sendrecv(ctx->topo.hostname, (int)sizeof(pc->lhost), MPI_CHAR,
                 send ? right : MPI_PROC_NULL, 0, pc->lhost, (int)sizeof(pc->lhost),
                 MPI_CHAR, lsend ? left : MPI_PROC_NULL, 0, rd->comm, MPI_STATUS_IGNORE);
    pc->lhost[sizeof(pc->lhost) - 1] = '\0';
    pc->pr = (partner_rec_t){ctx, id, owner, pc->lhost, 0};
    /* While the application waits, mappings and large messages save a
     * copy on each side (bench/README.md).  Beside it (asynchronous
     * redundancy) nobody waits, and each unmapping would interrupt the
     * application's threads on the other cores (a TLB shootdown); the
     * asynchronous checkpoint measured no better with them (0.253 s against
     * 0.219 s without, within this machine's noise). */
    pc->opt = (xfer_opts_t){background ? ctx->buf_size : XFER_SYNC_PIECE(ctx->buf_size),
                            "partner", ctx->pool, ctx->copy_map && !background, 0};
    pc->pair = (xfer_pair_t){.comm = rd->comm,
                             .dest = send ? right : MPI_PROC_NULL,
                             .send = pc->list,
                             .src = lsend ? left : MPI_PROC_NULL,
                             .recv_dir = pc->dir,
                             .recv = pc->recv,
                             .opt = &pc->opt,
                             .hook = partner_record,
                             .arg = &pc->pr};
    return pc;
}

xfer_pair_t *red_partner_copy_pair(red_partner_copy_t *pc)
{
    return &pc->pair;
}

int red_partner_copy_end(red_partner_copy_t *pc, int *sent, int *got, scr_error_t *err)
{
    xfer_pair_t *p = &pc->pair;
    if (p->rc == 0)
        fault_point("partner.copied", pc->ctx->rank); /* checked, not recorded */
    if (pc->lsend && p->got) {
        pc->pr.complete = 1;
        partner_record(pc->recv, pc->dir, &pc->pr, NULL);
    }
    if (pc->send && p->sent)
        red_record_crcs(pc->ctx, pc->id, pc->list);
    if (p->rc < 0 && err)
        *err = p->err;
    if (sent)
        *sent = p->sent;
    if (got)
        *got = p->got;
    int rc = p->rc;
    kvtree_delete(&pc->list);
    kvtree_delete(&pc->recv);
    free(pc);
    return rc;
}

/* Copy this rank's files to its right neighbour if send, and take its
 * left neighbour's if lsend (that neighbour's send) */
static int partner_copy(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir,
                        int background, int send, int lsend, scr_error_t *err)
{
    red_partner_copy_t *pc =
        red_partner_copy_begin(ctx, rd, id, dsetdir, background, send, lsend);
    xfer_pair_t *pair = red_partner_copy_pair(pc);
    xfer_pairs(&pair, 1);
    int rc = red_partner_copy_end(pc, NULL, NULL, err);
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
