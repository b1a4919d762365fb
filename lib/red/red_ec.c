/* SPDX-License-Identifier: BSD-3-Clause */
/* red_ec.c - XOR and Reed-Solomon sets over MPI (guide 2.11)
 *
 * XOR encoding, for each piece of the chunks (ecpipe.h runs the pieces):
 * every process sends each of its data chunks straight to the process
 * holding its stripe's parity, from a mapping of its file where it can,
 * and each process's parity piece is the XOR of what it received.  In a
 * recovery, survivors place their symbols in the lost process's slots and
 * a chain of them (ec_pipe_chain) adds them up on the way to it.  RS sets
 * use the code of spread.h instead (red_rs.c); this file keeps what both
 * share: the redundancy file, its header and CRCs, and who takes part in a
 * recovery.  Every file is read once and every redundancy byte written
 * once per operation.
 *
 * Redundancy file: a kvtree file image (the header of guide 2.11.2: DSET,
 * RANKS, GROUP, CHUNK, CURRENT, PARTNER, and for RS PARTNERS for the further
 * left neighbours and CODE) followed by m chunks of CHUNK bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "desc.h"
#include "crc32.h"
#include "crcseg.h"
#include "ec.h"
#include "ec_file.h"
#include "ecpipe.h"
#include "fault.h"
#include "filemap.h"
#include "filepool.h"
#include "io.h"
#include "kvtree_mpi.h"
#include "log.h"
#include "red.h"
#include "red_rs.h"
#include "xfer.h"

static void ec_job_free(ec_job_t *j)
{
    ec_code_free(&j->code);
    spread_free(&j->sp);
    crcseg_free(&j->pcrc);
    crcseg_free(&j->ucrc);
    kvtree_delete(&j->metas);
    xfer_close(&j->files);
    if (j->pfd >= 0)
        close(j->pfd);
}

static int ec_job_init(ec_job_t *j, const reddesc_t *rd, const char *dsetdir)
{
    memset(j, 0, sizeof(*j));
    j->pfd = -1;
    j->i = rd->set_rank;
    j->n = rd->set_size;
    j->m = rd->failures;
    j->k = j->n - j->m;
    snprintf(j->ppath, sizeof(j->ppath), "%s/%d_of_%d_in_%d.%s", dsetdir,
             rd->set_rank + 1, rd->set_size, rd->set_id,
             rd->type == RED_XOR ? "xor" : "rs");
    j->spread = rd->type != RED_XOR;
    if (j->spread)
        return spread_init(&j->sp, j->n, j->m);
    return ec_code_init(&j->code, j->n, j->m, 1);
}

/* CURRENT: RANK, FILES, FILE <i> meta (without local PATH) */
static kvtree_t *ec_current(int rank, const kvtree_t *list)
{
    kvtree_t *cur = kvtree_new();
    kvtree_util_set_int(cur, "RANK", rank);
    kvtree_util_set_int(cur, "FILES", kvtree_size(list));
    for (kvtree_elem_t *e = kvtree_first(list); e; e = kvtree_elem_next(e)) {
        kvtree_t *m = kvtree_setf(cur, kvtree_dup(kvtree_elem_tree(e)), "FILE %s",
                                  kvtree_elem_key(e));
        kvtree_unset(m, "PATH");
        kvtree_unset(m, "STAMP"); /* this node's, of no use in the set's files */
        /* until the encode has read the file: same width as the real one,
         * so the header keeps its size when rewritten (ec_finish_header) */
        if (!kvtree_get(m, "CRC"))
            kvtree_util_set_crc32(m, "CRC", 0);
    }
    return cur;
}

static kvtree_t *ec_header(const scr_ctx_t *ctx, const reddesc_t *rd, const ec_job_t *j,
                           const kvtree_t *dset)
{
    kvtree_t *h = kvtree_new();
    kvtree_set(h, "DSET", kvtree_dup(dset));
    kvtree_util_set_int(h, "RANKS", ctx->ranks);
    kvtree_util_set_str(h, "TYPE", desc_type_name(rd->type));
    if (j->spread)
        kvtree_util_set_str(h, "CODE", EC_CODE_SPREAD);
    kvtree_util_set_int(h, "FAILURES", j->m);
    kvtree_t *g = kvtree_set(h, "GROUP", NULL);
    kvtree_util_set_int(g, "RANKS", j->n);
    for (int s = 0; s < j->n; s++)
        kvtree_setf(g, NULL, "RANK %d %d", s, rd->members[s]);
    kvtree_util_set_u64(h, "CHUNK", j->chunk);
    kvtree_set(h, "CURRENT", kvtree_dup(kvtree_getf(j->metas, "%d", j->i)));
    kvtree_set(h, "PARTNER",
               kvtree_dup(kvtree_getf(j->metas, "%d", (j->i + j->n - 1) % j->n)));
    for (int d = 2; d <= j->m; d++)
        kvtree_setf(h, kvtree_dup(kvtree_getf(j->metas, "%d", (j->i + j->n - d) % j->n)),
                    "PARTNERS %d", d);
    return h;
}

/* create the redundancy file and write its header; record it in the
 * filemap first so the cache never holds a file the map does not know */
static int ec_write_header(scr_ctx_t *ctx, const reddesc_t *rd, ec_job_t *j, int id,
                           const kvtree_t *dset, scr_error_t *err)
{
    kvtree_t *meta = kvtree_new();
    kvtree_util_set_str(meta, "TYPE", rd->type == RED_XOR ? FM_TYPE_XOR : FM_TYPE_RS);
    kvtree_util_set_int(meta, "COMPLETE", 0);
    filemap_add_file(ctx->filemap, id, ctx->rank, j->ppath, meta);
    kvtree_delete(&meta);
    if (filemap_write(ctx->filemap_path, ctx->filemap, err) < 0)
        return -1;
    kvtree_t *h = ec_header(ctx, rd, j, dset);
    void *img;
    size_t len;
    int rc = kvtree_file_image(h, &img, &len);
    kvtree_delete(&h);
    if (rc < 0)
        return errprintf(err, "out of memory");
    /* over a kept parity file when there is one: its pages are there */
    j->pfd =
        filepool_open(ctx->pool, j->ppath, len + (uint64_t)j->m * j->chunk, NULL, err);
    if (j->pfd < 0)
        rc = -1;
    else if (io_write_full(j->pfd, img, len) < 0)
        rc = errprintf(err, "write %s: %s", j->ppath, strerror(errno));
    j->hcrc = crc32_update(0, img, len);
    free(img);
    j->data_off = len;
    /* the chunks: m streams of CHUNK bytes, each written in order */
    uint64_t size = (uint64_t)j->m * j->chunk;
    if (rc == 0 && crcseg_init(&j->pcrc, 1, &size, j->chunk ? j->chunk : 1) < 0)
        rc = errprintf(err, "out of memory");
    return rc;
}

/* record the finished redundancy file: size and CRC */
static int ec_record_parity(scr_ctx_t *ctx, const reddesc_t *rd, ec_job_t *j, int id,
                            scr_error_t *err)
{
    uint32_t crc;
    uint64_t size = j->data_off + (uint64_t)j->m * j->chunk;
    if (fsync(j->pfd) < 0)
        return errprintf(err, "fsync %s: %s", j->ppath, strerror(errno));
    /* from the bytes as they were written; read back only if they were not
     * all seen in order */
    if (crcseg_file(&j->pcrc, 0, &crc) == 0) {
        crc = crcseg_combine(j->hcrc, crc, (uint64_t)j->m * j->chunk);
    } else {
        log_dbg(2, "CRC32 of %s: reading it again", j->ppath);
        if (io_file_crc(j->ppath, &crc, &size, err) < 0)
            return -1;
    }
    kvtree_t *meta = kvtree_new();
    kvtree_util_set_str(meta, "TYPE", rd->type == RED_XOR ? FM_TYPE_XOR : FM_TYPE_RS);
    kvtree_util_set_u64(meta, "SIZE", size);
    kvtree_util_set_crc32(meta, "CRC", crc);
    kvtree_util_set_int(meta, "COMPLETE", 1);
    /* no STAMP: the CRC32 is of the bytes as they were sent to the file,
     * not as they landed.  A rebuild that uses the file checks what it
     * rebuilt against the lost files' CRC32 (a torn write shows there,
     * tests/fault x-enc-block-short); SCR_CRC_ON_RESTART=1 reads it at
     * every restart (inventory.c) */
    filemap_add_file(ctx->filemap, id, ctx->rank, j->ppath, meta);
    kvtree_delete(&meta);
    return 0;
}

/* encode, prepare: each of my data chunks (the product of XOR's all-ones
 * coefficient) goes to its stripe's parity holder, from a mapping of my
 * file or read into the holder's slot; my own slot, the stripe whose
 * parity I hold, is not sent */
static int ec_encode_prepare(ec_pipe_t *pp, uint64_t off, int len, unsigned char *send,
                             scr_error_t *err)
{
    ec_job_t *j = pp->j;
    io_concat_t cat = {j->files.n, j->files.fds, j->files.names, j->files.sizes};
    int k = (int)((off / (uint64_t)pp->len) & 1);
    unsigned char **at = pp->at[k];
    int rc = 0;
    ec_pipe_unmap(pp, k);
    double t0 = scr_now();
    for (int q = 0; q < j->k; q++) {
        int s, t;
        ec_slot_symbol(&j->code, j->i, q, &s, &t);
        uint64_t pos = (uint64_t)q * j->chunk + off;
        int h = ec_holder(&j->code, s, j->k);
        at[h] = ec_pipe_map(pp, k, h, pos, (size_t)len);
        if (!at[h]) {
            at[h] = send + (size_t)h * (size_t)len;
            if (rc == 0 && io_read_pad_n(&cat, at[h], (size_t)len, pos, err) < 0)
                rc = -1;
        }
        crcseg_update(&j->ucrc, pos, at[h], (size_t)len);
    }
    pp->read += scr_now() - t0;
    return rc;
}

/* encode, finish: my parity piece, the XOR of the slots the others sent
 * me, into the redundancy file */
static int ec_encode_finish(ec_pipe_t *pp, uint64_t off, int len, unsigned char *recv,
                            scr_error_t *err)
{
    ec_job_t *j = pp->j;
    double t0 = scr_now();
    ec_xor_slots(pp->data, recv, j->n, j->i, len);
    double t1 = scr_now();
    int rc = 0;
    crcseg_update(&j->pcrc, off, pp->data, (size_t)len);
    if (io_pwrite_full(j->pfd, pp->data, (size_t)len, (off_t)(j->data_off + off)) < 0)
        rc = errprintf(err, "write %s: %s", j->ppath, strerror(errno));
    pp->mul += t1 - t0;
    pp->write += scr_now() - t1;
    ec_pipe_fault(pp, off, "encode.block", "encode.half");
    return rc;
}

static int ec_encode(ec_job_t *j, const scr_ctx_t *ctx, MPI_Comm comm, scr_error_t *err)
{
    if (j->spread)
        return red_rs_encode(j, ctx, comm, err);
    /* XOR: one parity chunk (m = 1).  n slots to receive, twice: 2 MiB
     * each (512 KiB pieces for a set of 4) took the extra memory per rank
     * from 28-35 MiB to 14-17 MiB with 1 MiB pieces, no slower; 1 MiB
     * each (256 KiB pieces) took the anonymous part from 9.5 to 4.3 MiB,
     * within 3 % of the speed (bench/README.md) */
    ec_pipe_t pp;
    ec_pipe_init(&pp, j, ctx, (size_t)j->n, (size_t)j->n, 1,
                 ec_encode_cap(j, EC_PIPE_CAP), comm, err);
    pp.prepare = ec_encode_prepare;
    pp.xchg = ec_pipe_trade_all;
    pp.finish = ec_encode_finish;
    int rc = ec_pipe_run(&pp, comm, "encode");
    ec_pipe_free(&pp);
    return rc;
}

/* After the encode: every file's CRC32 from the bytes it read (checked
 * against a CRC recorded earlier, as after a fetch), shared with the set,
 * and the header rewritten in place with them.  Collective over the set. */
static int ec_finish_header(scr_ctx_t *ctx, const reddesc_t *rd, ec_job_t *j, int ok,
                            kvtree_t *list, const kvtree_t *dset, scr_error_t *err)
{
    for (int f = 0; ok && f < j->files.n; f++) {
        kvtree_t *m = kvtree_getf(list, "%d", f);
        uint32_t crc, want;
        if (crcseg_file_or_read(&j->ucrc, f, j->files.names[f], &crc, err) < 0)
            ok = 0;
        else if (kvtree_util_get_crc32(m, "CRC", &want) == 0 && want != crc)
            ok = errprintf(err, "%s: CRC32 0x%08x while encoding, recorded 0x%08x",
                           j->files.names[f], crc, want) == 0;
        else
            kvtree_util_set_crc32(m, "CRC", crc);
    }
    /* each member's verdict travels with its CRCs: one collective, not two */
    kvtree_t *cur = ec_current(ctx->rank, list);
    kvtree_util_set_int(cur, "EC_OK", ok);
    kvtree_delete(&j->metas);
    j->metas = kvtree_new();
    int all = kvtree_allgather(cur, j->metas, rd->comm) == 0;
    kvtree_delete(&cur);
    for (int s = 0; s < j->n; s++) {
        kvtree_t *m = kvtree_getf(j->metas, "%d", s);
        int o = 0;
        all &= m && kvtree_util_get_int(m, "EC_OK", &o) == 0 && o;
        if (m)
            kvtree_unset(m, "EC_OK");
    }
    if (!all)
        return -1;
    kvtree_t *h = ec_header(ctx, rd, j, dset);
    void *img = NULL;
    size_t len = 0;
    int rc = kvtree_file_image(h, &img, &len);
    kvtree_delete(&h);
    if (rc < 0)
        rc = errprintf(err, "out of memory");
    else if (len != j->data_off)
        rc = errprintf(err, "%s: header grew from %llu to %zu bytes", j->ppath,
                       (unsigned long long)j->data_off, len);
    else if (io_pwrite_full(j->pfd, img, len, 0) < 0)
        rc = errprintf(err, "write %s: %s", j->ppath, strerror(errno));
    else
        j->hcrc = crc32_update(0, img, len);
    free(img);
    return rc;
}

int red_ec_apply(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir,
                 int background, scr_error_t *err)
{
    ec_job_t j;
    if (ec_job_init(&j, rd, dsetdir) < 0)
        return errprintf(err, "bad %s set of %d with %d failures",
                         desc_type_name(rd->type), rd->set_size, rd->failures);
    j.rank = ctx->rank;
    kvtree_t *list = red_user_files(ctx->filemap, id, ctx->rank);
    kvtree_t *cur = ec_current(ctx->rank, list);
    j.metas = kvtree_new();
    kvtree_allgather(cur, j.metas, rd->comm);
    kvtree_delete(&cur);
    uint64_t max = 0;
    for (int s = 0; s < j.n; s++) {
        uint64_t size =
            filemap_sum_sizes(kvtree_get(kvtree_getf(j.metas, "%d", s), "FILE"));
        max = size > max ? size : max;
    }
    /* chunks in whole 8-byte words, as redundancy files have always been
     * laid out (the ring no longer needs it; its vector path wants 32) */
    j.chunk = (max + (uint64_t)j.k - 1) / (uint64_t)j.k;
    j.chunk = (j.chunk + 7) & ~(uint64_t)7;
    kvtree_t *dset = filemap_get_desc(ctx->filemap, id, "DSETDESC");
    /* mappings only while the application waits (see red_partner_apply) */
    j.map = ctx->copy_map && !background;
    j.background = background;
    int ok = xfer_open(list, NULL, NULL, j.map, &j.files, err) == 0;
    if (ok && crcseg_init(&j.ucrc, j.files.n, j.files.sizes, j.chunk ? j.chunk : 1) < 0)
        ok = errprintf(err, "out of memory") == 0;
    ok = ok && ec_write_header(ctx, rd, &j, id, dset, err) == 0;
    if (ok)
        fault_point("encode.header", ctx->rank);
    /* every member must take part in every piece, ready or not */
    int all = red_all(rd->comm, ok);
    if (all && ec_encode(&j, ctx, rd->comm, err) < 0)
        ok = 0;
    if (all && ok)
        fault_point("encode.parity", ctx->rank); /* the header has no CRC32s yet */
    if (all && ec_finish_header(ctx, rd, &j, ok, list, dset, err) < 0)
        ok = 0;
    if (all && ok)
        fault_point("encode.done", ctx->rank); /* not recorded in the filemap */
    if (all && ok && ec_record_parity(ctx, rd, &j, id, err) < 0)
        ok = 0;
    if (all && ok)
        red_record_crcs(ctx, id, list);
    kvtree_delete(&list);
    ec_job_free(&j);
    return all && ok ? 0 : -1;
}

/* ---- recovery ---- */

/* what a survivor knows: META of itself and its left neighbours, CHUNK, DSET */
static kvtree_t *ec_knowledge(ec_job_t *j, const kvtree_t *h)
{
    kvtree_t *k = kvtree_new();
    kvtree_set(k, "DSET", kvtree_dup(kvtree_get(h, "DSET")));
    kvtree_util_set_u64(k, "CHUNK", j->chunk);
    kvtree_setf(k, kvtree_dup(kvtree_get(h, "CURRENT")), "META %d", j->i);
    kvtree_setf(k, kvtree_dup(kvtree_get(h, "PARTNER")), "META %d",
                (j->i + j->n - 1) % j->n);
    for (int d = 2; d <= j->m; d++)
        kvtree_setf(k, kvtree_dup(kvtree_getf(h, "PARTNERS %d", d)), "META %d",
                    (j->i + j->n - d) % j->n);
    return k;
}

/* the code the header names is the one this set decodes */
static int ec_check_code(const ec_job_t *j, const kvtree_t *h, scr_error_t *err)
{
    const char *code = kvtree_get_val(h, "CODE");
    if (j->spread == (code && strcmp(code, EC_CODE_SPREAD) == 0))
        return 0;
    return errprintf(err, "%s: parity of %s code, cannot rebuild from it", j->ppath,
                     code ? code : "the older striped");
}

/* survivors open their files and header; everyone learns metas and chunk */
static int ec_gather_knowledge(scr_ctx_t *ctx, reddesc_t *rd, ec_job_t *j, int id,
                               int lost, kvtree_t *dset, scr_error_t *err)
{
    kvtree_t *mine = kvtree_new(), *all = kvtree_new();
    int ok = 1;
    if (!lost) {
        kvtree_t *h = kvtree_new(), *list = red_user_files(ctx->filemap, id, ctx->rank);
        ok = ec_read_header(j->ppath, h, &j->pfd, &j->data_off, err) == 0 &&
             kvtree_util_get_u64(h, "CHUNK", &j->chunk) == 0 &&
             ec_check_code(j, h, err) == 0 &&
             xfer_open(list, NULL, NULL, j->map, &j->files, err) == 0;
        if (ok) {
            kvtree_delete(&mine);
            mine = ec_knowledge(j, h);
        } else /* the lost member says why its record is missing */
            kvtree_util_set_str(mine, "WHY", err->text);
        kvtree_delete(&h);
        kvtree_delete(&list);
    }
    kvtree_allgather(mine, all, rd->comm);
    j->metas = kvtree_new();
    const char *why = NULL;
    for (kvtree_elem_t *e = kvtree_first(all); e; e = kvtree_elem_next(e)) {
        kvtree_t *k = kvtree_elem_tree(e);
        const char *w = kvtree_get_val(k, "WHY");
        if (!why && w && *w)
            why = w;
        kvtree_t *metas = kvtree_get(k, "META");
        for (kvtree_elem_t *m = kvtree_first(metas); m; m = kvtree_elem_next(m))
            if (!kvtree_get(j->metas, kvtree_elem_key(m)))
                kvtree_set(j->metas, kvtree_elem_key(m), kvtree_dup(kvtree_elem_tree(m)));
        if (kvtree_get(k, "DSET") && kvtree_size(dset) == 0)
            kvtree_merge(dset, kvtree_get(k, "DSET"));
        if (lost)
            kvtree_util_get_u64(k, "CHUNK", &j->chunk);
    }
    if (lost && !kvtree_getf(j->metas, "%d", j->i))
        ok = errprintf(err, "no surviving record of rank %d's files%s%s", ctx->rank,
                       why ? ": " : "", why ? why : "") == 0;
    kvtree_delete(&mine);
    kvtree_delete(&all);
    return ok ? 0 : -1;
}

/* a lost process recreates its files (empty) and its redundancy header */
static int ec_prepare_lost(scr_ctx_t *ctx, reddesc_t *rd, ec_job_t *j, int id,
                           const char *dsetdir, const kvtree_t *dset, kvtree_t **list,
                           scr_error_t *err)
{
    kvtree_t *files = kvtree_getf(j->metas, "%d FILE", j->i);
    *list = kvtree_dup(files);
    if (!*list)
        *list = kvtree_new();
    kvtree_t *meta = kvtree_new();
    kvtree_util_set_str(meta, "TYPE", FM_TYPE_USER);
    kvtree_util_set_int(meta, "COMPLETE", 0);
    for (kvtree_elem_t *e = kvtree_first(*list); e; e = kvtree_elem_next(e)) {
        char *p = NULL;
        const char *rel = kvtree_get_val(kvtree_elem_tree(e), "REL");
        if (rel && asprintf(&p, "%s/%s", dsetdir, rel) >= 0)
            filemap_add_file(ctx->filemap, id, ctx->rank, p, meta);
        free(p);
    }
    kvtree_delete(&meta);
    /* the header's copy predates completion: keep the restart's own */
    if (!filemap_get_desc(ctx->filemap, id, "DSETDESC"))
        filemap_set_desc(ctx->filemap, id, "DSETDESC", dset);
    /* a rank without files has no file whose path would create it */
    if (io_mkdir_p(dsetdir, 0700, err) < 0 ||
        xfer_open(*list, dsetdir, ctx->pool, 0, &j->files, err) < 0)
        return -1;
    if (crcseg_init(&j->ucrc, j->files.n, j->files.sizes, j->chunk ? j->chunk : 1) < 0)
        return errprintf(err, "out of memory");
    return ec_write_header(ctx, rd, j, id, dset, err);
}

/* what an XOR recovery knows: who is lost, and the lost process's slot in
 * each stripe (its place in the send buffer) */
typedef struct {
    const int *lost;
    int slot[256];
} ec_lost_t;

/* recovery, prepare (XOR: RS recovers in red_rs.c).  One process is lost,
 * and each slot of a survivor is that process's slot of the same stripe
 * times 1: its place in the send buffer, which the chain adds up on its
 * way to the lost process (which sends nothing).  The chain's first sends
 * the buffer whole, so its slots are read into it; a survivor in the
 * middle only adds its slots to the sum, so each data slot stays in a
 * mapping of its file where it can (pp->at), a copy less of every byte. */
static int ec_recover_prepare(ec_pipe_t *pp, uint64_t off, int len, unsigned char *send,
                              scr_error_t *err)
{
    ec_job_t *j = pp->j;
    const ec_lost_t *l = pp->plan;
    const ec_chain_t *c = pp->xstate;
    io_concat_t cat = {j->files.n, j->files.fds, j->files.names, j->files.sizes};
    int rc = 0, k = (int)((off / (uint64_t)pp->len) & 1), middle = c->prev >= 0;
    ec_pipe_unmap(pp, k);
    double t0 = scr_now();
    for (int slot = 0; slot < j->n && !l->lost[j->i]; slot++) {
        int s, t;
        ec_slot_symbol(&j->code, j->i, slot, &s, &t);
        int r = l->slot[s];
        uint64_t pos = (uint64_t)slot * j->chunk + off;
        unsigned char *in = pp->at[k][r] = send + (size_t)r * (size_t)len;
        if (slot < j->k) {
            unsigned char *m = middle ? ec_pipe_map(pp, k, r, pos, (size_t)len) : NULL;
            if (m)
                pp->at[k][r] = m;
            else if (io_read_pad_n(&cat, in, (size_t)len, pos, err) < 0)
                rc = -1;
        } else if (io_pread_full(
                       j->pfd, in, (size_t)len,
                       (off_t)(j->data_off + (uint64_t)(slot - j->k) * j->chunk + off)) !=
                   len) {
            rc = errprintf(err, "read %s: short read", j->ppath);
        }
    }
    pp->read += scr_now() - t0;
    return rc;
}

/* recovery, finish: a lost process writes its rebuilt data and parity */
static int ec_recover_finish(ec_pipe_t *pp, uint64_t off, int len, unsigned char *recv,
                             scr_error_t *err)
{
    ec_job_t *j = pp->j;
    const ec_lost_t *l = pp->plan;
    double t0 = scr_now();
    int rc = 0;
    for (int slot = 0; slot < j->n && l->lost[j->i] && rc == 0; slot++) {
        unsigned char *piece = recv + (size_t)slot * (size_t)len;
        uint64_t at = (uint64_t)(slot - j->k) * j->chunk + off;
        if (slot < j->k) {
            rc = ec_write_back(j, piece, pp->data, (size_t)len,
                               (uint64_t)slot * j->chunk + off, err);
            continue;
        }
        crcseg_update(&j->pcrc, at, piece, (size_t)len);
        if (io_pwrite_full(j->pfd, piece, (size_t)len, (off_t)(j->data_off + at)) < 0)
            rc = errprintf(err, "write %s: %s", j->ppath, strerror(errno));
    }
    pp->write += scr_now() - t0;
    if (l->lost[j->i])
        ec_pipe_fault(pp, off, "recover.block", "recover.half");
    return rc;
}

static int ec_recover_data(ec_job_t *j, const scr_ctx_t *ctx, MPI_Comm comm,
                           const int *lost, int nlost, scr_error_t *err)
{
    if (j->spread)
        return red_rs_recover(j, ctx, comm, lost, nlost, err);
    /* XOR sets lose one member at most (red_ec_recover refuses more) */
    ec_lost_t l = {lost, {0}};
    for (int r = 0; r < j->n; r++)
        for (int q = 0; lost[r] && q < j->n; q++) {
            int s, t;
            ec_slot_symbol(&j->code, r, q, &s, &t);
            l.slot[s] = q;
        }
    /* 1 MiB a message along the chain, as the encode's buffers: 4 MiB (1
     * MiB pieces of a set of 4) took 0.33-0.37 s in SCR's calls at 8 x 64
     * MiB, 1 MiB 0.24-0.29 s, 512 KiB 0.26-0.28 s (bench/README.md) */
    ec_pipe_t pp;
    ec_pipe_init(&pp, j, ctx, (size_t)j->n, (size_t)j->n, 1, EC_PIPE_CAP, comm, err);
    pp.prepare = ec_recover_prepare;
    pp.finish = ec_recover_finish;
    pp.plan = &l;
    int who = 0;
    while (!lost[who])
        who++;
    ec_chain_t chain;
    ec_chain_init(&chain, j->i, j->n, who);
    pp.xchg = ec_pipe_chain;
    pp.xstate = &chain;
    int rc = ec_pipe_run(&pp, comm, "recovery");
    ec_pipe_free(&pp);
    return rc;
}

/* a rebuilt process checks sizes and CRCs and records its files */
static int ec_finish_lost(scr_ctx_t *ctx, reddesc_t *rd, ec_job_t *j, int id,
                          kvtree_t *list, scr_error_t *err)
{
    for (int f = 0; f < j->files.n; f++) {
        kvtree_t *meta = kvtree_getf(list, "%d", f);
        uint32_t want, got;
        if (ftruncate(j->files.fds[f], (off_t)j->files.sizes[f]) < 0 ||
            fsync(j->files.fds[f]) < 0)
            return errprintf(err, "write %s: %s", j->files.names[f], strerror(errno));
        /* of the bytes read back after each write (ec_recover_finish,
         * rec_decode), not of those handed to write: nothing else would
         * catch a write the device did not complete */
        if (crcseg_file_or_read(&j->ucrc, f, j->files.names[f], &got, err) < 0)
            return -1;
        if (kvtree_util_get_crc32(meta, "CRC", &want) == 0 && want != got)
            return errprintf(err, "%s: rebuilt data has CRC32 0x%08x, expected 0x%08x",
                             j->files.names[f], got, want);
        kvtree_t *m = kvtree_dup(meta);
        kvtree_unset(m, "PATH");
        kvtree_util_set_int(m, "COMPLETE", 1);
        filemap_add_file(ctx->filemap, id, ctx->rank, j->files.names[f], m);
        kvtree_delete(&m);
    }
    kvtree_util_set_int(filemap_rank(ctx->filemap, id, ctx->rank), "FILES", j->files.n);
    return ec_record_parity(ctx, rd, j, id, err);
}

int red_ec_recover(scr_ctx_t *ctx, reddesc_t *rd, int id, const char *dsetdir, int need,
                   scr_error_t *err)
{
    ec_job_t j;
    int lost[256], nlost = 0, ok = 1;
    if (ec_job_init(&j, rd, dsetdir) < 0 || rd->set_size > 256)
        return errprintf(err, "bad %s set", desc_type_name(rd->type));
    j.rank = ctx->rank;
    /* XOR's survivors add their slots from mappings (ec_recover_prepare),
     * RS's send their slices from them (rec_read in red_rs.c) */
    j.map = ctx->copy_map;
    MPI_Allgather(&need, 1, MPI_INT, lost, 1, MPI_INT, rd->comm);
    for (int r = 0; r < j.n; r++)
        nlost += lost[r] != 0;
    if (nlost == 0 || nlost > j.m) {
        ec_job_free(&j);
        if (nlost > j.m)
            return errprintf(err, "%s set %d lost %d of %d members and can rebuild %d",
                             desc_type_name(rd->type), rd->set_id, nlost, j.n, j.m);
        return 0;
    }
    kvtree_t *dset = kvtree_new(), *list = NULL;
    ok = ec_gather_knowledge(ctx, rd, &j, id, need, dset, err) == 0;
    if (need && ok)
        ok = ec_prepare_lost(ctx, rd, &j, id, dsetdir, dset, &list, err) == 0;
    if (red_all(rd->comm, ok)) {
        ok = ec_recover_data(&j, ctx, rd->comm, lost, nlost, err) == 0;
        if (need && ok)
            ok = ec_finish_lost(ctx, rd, &j, id, list, err) == 0;
    } else {
        /* the member that cannot take part says why (rb_report picks the
         * lowest rank with a reason): a consequence would hide it */
        ok = 0;
    }
    kvtree_delete(&list);
    kvtree_delete(&dset);
    ec_job_free(&j);
    return red_all(rd->comm, ok) ? 0 : -1;
}
