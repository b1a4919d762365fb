/* SPDX-License-Identifier: BSD-3-Clause */
/* rebuild.c - distribute and rebuild cached datasets at restart */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agree.h"
#include "cache.h"
#include "desc.h"
#include "evlog.h"
#include "fault.h"
#include "filemap.h"
#include "inventory.h"
#include "io.h"
#include "kvtree_mpi.h"
#include "log.h"
#include "path.h"
#include "red.h"
#include "xfer.h"

typedef struct {
    scr_ctx_t *ctx;
    kvtree_t *inv;    /* node master: holdings of this node */
    kvtree_t *offers; /* owner: "<dset>" -> "<holder>.<k>" -> holding summary */
    int rounds;       /* the dataset's transfers between nodes took this many */
    int moved;        /* this rank's files came from another node */
} rb_t;

/* node master: tell each owner about the copies of its files on this node */
static void rb_offer(rb_t *rb)
{
    kvtree_t *send = kvtree_new(), *recv = kvtree_new();
    for (kvtree_elem_t *e = kvtree_first(rb->inv); e; e = kvtree_elem_next(e)) {
        kvtree_t *h = kvtree_elem_tree(e);
        int owner, id;
        kvtree_util_get_int(h, "OWNER", &owner);
        kvtree_util_get_int(h, "DSET", &id);
        kvtree_t *o = kvtree_setf(send, kvtree_dup(h), "%d %d %d.%s", owner, id,
                                  rb->ctx->rank, kvtree_elem_key(e));
        kvtree_util_set_int(o, "HOLDER", rb->ctx->rank);
        kvtree_util_set_str(o, "HOST", rb->ctx->topo.hostname);
    }
    kvtree_exchange(send, recv, rb->ctx->comm);
    for (kvtree_elem_t *e = kvtree_first(recv); e; e = kvtree_elem_next(e))
        kvtree_merge(rb->offers, kvtree_elem_tree(e));
    kvtree_delete(&send);
    kvtree_delete(&recv);
}

/* the owner's pick: a usable copy, on this node if possible, the original
 * (with its redundancy file) before a partner copy */
static kvtree_t *rb_choose(rb_t *rb, int id, const char **key)
{
    kvtree_t *best = NULL;
    int best_score = -1;
    kvtree_t *offers = kvtree_getf(rb->offers, "%d", id);
    for (kvtree_elem_t *e = kvtree_first(offers); e; e = kvtree_elem_next(e)) {
        kvtree_t *h = kvtree_elem_tree(e);
        int ok = 0, parity = 0, writer = -1;
        kvtree_util_get_int(h, "USER_OK", &ok);
        kvtree_util_get_int(h, "PARITY_OK", &parity);
        kvtree_util_get_int(h, "WRITER", &writer);
        if (!ok)
            continue;
        const char *host = kvtree_get_val(h, "HOST");
        int score = (host && strcmp(host, rb->ctx->topo.hostname) == 0) * 4 +
                    (writer == rb->ctx->rank) * 2 + parity;
        if (score > best_score) {
            best = h;
            best_score = score;
            *key = kvtree_elem_key(e);
        }
    }
    return best;
}

/* rb_choose, passing over a partner copy on this node that fails its
 * check (inventory_check_later).  A copy that travels is checked on
 * arrival (xfer.c); the owner chooses one only when its original is lost,
 * so there is no other to fall back on. */
static kvtree_t *rb_choose_checked(rb_t *rb, int id, const char **key)
{
    kvtree_t *h;
    while ((h = rb_choose(rb, id, key))) {
        const char *host = kvtree_get_val(h, "HOST");
        scr_error_t err;
        if (!host || strcmp(host, rb->ctx->topo.hostname) != 0 ||
            inventory_check_later(h, &err) == 0)
            return h;
        log_warn("%s (a copy of rank %d's files): it will be restored from another",
                 err.text, rb->ctx->rank);
        kvtree_util_set_int(h, "USER_OK", 0);
    }
    return NULL;
}

/* any dataset or redundancy descriptor an offer carries */
static kvtree_t *rb_any_desc(rb_t *rb, int id, const char *which)
{
    kvtree_t *offers = kvtree_getf(rb->offers, "%d", id);
    for (kvtree_elem_t *e = kvtree_first(offers); e; e = kvtree_elem_next(e))
        if (kvtree_get(kvtree_elem_tree(e), which))
            return kvtree_get(kvtree_elem_tree(e), which);
    return NULL;
}

/* where a file of a holding goes in the owner's dataset directory */
static const char *rb_rel(const kvtree_t *meta, const char *path)
{
    const char *type = kvtree_get_val(meta, "TYPE");
    if (type && strcmp(type, FM_TYPE_USER) == 0)
        return kvtree_get_val(meta, "REL");
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* a holding as an xfer list */
static kvtree_t *rb_list(const kvtree_t *h)
{
    kvtree_t *list = kvtree_new();
    int i = 0;
    kvtree_t *files = kvtree_get(h, "FILE");
    for (kvtree_elem_t *e = kvtree_first(files); e; e = kvtree_elem_next(e)) {
        kvtree_t *m = kvtree_setf(list, kvtree_dup(kvtree_elem_tree(e)), "%d", i++);
        kvtree_util_set_str(m, "PATH", kvtree_elem_key(e));
        const char *rel = rb_rel(kvtree_elem_tree(e), kvtree_elem_key(e));
        if (rel)
            kvtree_util_set_str(m, "REL", rel);
    }
    return list;
}

typedef struct {
    scr_ctx_t *ctx;
    int id;
} rb_hook_t;

/* add files to the owner's filemap (in memory), COMPLETE as given */
static int rb_add(const rb_hook_t *hk, const kvtree_t *recv, const char *dir,
                  int complete, scr_error_t *err)
{
    for (kvtree_elem_t *e = kvtree_first(recv); e; e = kvtree_elem_next(e)) {
        kvtree_t *m = kvtree_dup(kvtree_elem_tree(e));
        char *p = NULL;
        const char *rel = kvtree_get_val(m, "REL");
        if (!rel || !path_is_safe_relative(rel) || asprintf(&p, "%s/%s", dir, rel) < 0) {
            kvtree_delete(&m);
            return errprintf(err, "refusing unsafe file name '%s'", rel ? rel : "");
        }
        /* where the file is and goes (rb_split): not part of its record */
        kvtree_unset(m, "PATH");
        kvtree_unset(m, "DST");
        kvtree_util_set_int(m, "COMPLETE", complete);
        filemap_add_file(hk->ctx->filemap, hk->id, hk->ctx->rank, p, m);
        kvtree_delete(&m);
        free(p);
    }
    return 0;
}

/* record arriving files in the owner's filemap before they are created,
 * incomplete until they have arrived and checked out */
static int rb_record(const kvtree_t *recv, const char *dir, void *arg, scr_error_t *err)
{
    const rb_hook_t *hk = arg;
    if (rb_add(hk, recv, dir, 0, err) < 0)
        return -1;
    return filemap_write(hk->ctx->filemap_path, hk->ctx->filemap, err);
}

/* mark arrived files complete */
static void rb_complete(scr_ctx_t *ctx, int id, const kvtree_t *recv)
{
    for (kvtree_elem_t *e = kvtree_first(recv); e; e = kvtree_elem_next(e)) {
        const char *p = kvtree_get_val(kvtree_elem_tree(e), "PATH");
        kvtree_t *m = p ? filemap_file(ctx->filemap, id, ctx->rank, p) : NULL;
        if (m)
            kvtree_util_set_int(m, "COMPLETE", 1);
    }
}

/* split a holding's files: those already where the owner keeps them, the
 * ones that must move (with DST, where they go) */
static void rb_split(const kvtree_t *h, const char *dir, kvtree_t *here, kvtree_t *moves)
{
    kvtree_t *all = rb_list(h);
    int i = 0;
    for (kvtree_elem_t *e = kvtree_first(all); e; e = kvtree_elem_next(e)) {
        kvtree_t *m = kvtree_elem_tree(e);
        const char *src = kvtree_get_val(m, "PATH"), *rel = kvtree_get_val(m, "REL");
        char *dst = NULL;
        int in_place =
            src && rel && asprintf(&dst, "%s/%s", dir, rel) >= 0 && strcmp(src, dst) == 0;
        kvtree_t *c = kvtree_setf(in_place ? here : moves, kvtree_dup(m), "%d", i++);
        if (!in_place && dst)
            kvtree_util_set_str(c, "DST", dst);
        free(dst);
    }
    kvtree_delete(&all);
}

/* give src the name dst as well (a copy where a link cannot be made) */
static int rb_link(const char *src, const char *dst, scr_error_t *err)
{
    if (link(src, dst) == 0)
        return 0;
    if (errno == EEXIST && unlink(dst) == 0 && link(src, dst) == 0)
        return 0;
    if (errno != EXDEV && errno != EPERM && errno != ENOTSUP)
        return errprintf(err, "link %s to %s: %s", src, dst, strerror(errno));
    return io_copy_file(src, dst, NULL, NULL, err) < 0 ? -1 : 0;
}

/* files of list not linked home are not complete where the filemap (in
 * memory) says: the next write records that */
static void rb_unmoved(scr_ctx_t *ctx, int id, const kvtree_t *list)
{
    for (kvtree_elem_t *e = kvtree_first(list); e; e = kvtree_elem_next(e)) {
        kvtree_t *m = kvtree_elem_tree(e);
        const char *dst = kvtree_get_val(m, "DST");
        kvtree_t *fm = dst && !kvtree_get(m, "MOVED")
                           ? filemap_file(ctx->filemap, id, ctx->rank, dst)
                           : NULL;
        if (fm)
            kvtree_util_set_int(fm, "COMPLETE", 0);
    }
}

/* The owner takes a copy on its own node into its directory.  Its files
 * are recorded complete at their new paths first, in one write; then each
 * gets its new name as a hard link, and only when all have one do the old
 * names go.  The holder's record names the old paths, so at every point
 * one of the two records lists a whole set of files (the inventory checks
 * each file's size and CRC32).  The owner's own files, already in place,
 * stay recorded complete: the transfers that follow may fail, and by then
 * the copies elsewhere are gone. */
static int rb_move_local(scr_ctx_t *ctx, int id, const kvtree_t *h, const char *dir,
                         scr_error_t *err)
{
    kvtree_t *here = kvtree_new(), *list = kvtree_new();
    rb_hook_t hk = {ctx, id};
    rb_split(h, dir, here, list);
    int rc = rb_add(&hk, here, dir, 1, err) == 0 && rb_add(&hk, list, dir, 1, err) == 0
                 ? filemap_write(ctx->filemap_path, ctx->filemap, err)
                 : -1;
    for (kvtree_elem_t *e = kvtree_first(list); rc == 0 && e; e = kvtree_elem_next(e)) {
        kvtree_t *m = kvtree_elem_tree(e);
        const char *dst = kvtree_get_val(m, "DST");
        char *parent = dst ? strdup(dst) : NULL;
        if (!parent)
            rc = errprintf(err, "out of memory");
        else { /* every file in list moves (rb_split) */
            *strrchr(parent, '/') = '\0';
            rc = io_mkdir_p(parent, 0700, err) < 0
                     ? -1
                     : rb_link(kvtree_get_val(m, "PATH"), dst, err);
        }
        if (rc == 0 && e == kvtree_first(list))
            fault_point("rebuild.linked", ctx->rank);
        if (rc == 0)
            kvtree_util_set_int(m, "MOVED", 1);
        free(parent);
    }
    for (kvtree_elem_t *e = kvtree_first(list); rc == 0 && e; e = kvtree_elem_next(e)) {
        const char *src = kvtree_get_val(kvtree_elem_tree(e), "PATH");
        if (cache_path_ok(ctx, src))
            unlink(src);
    }
    if (rc < 0)
        rb_unmoved(ctx, id, list);
    kvtree_delete(&here);
    kvtree_delete(&list);
    return rc;
}

/* a holding's key on its holder ("<holder>.<k>" -> "<k>"), or NULL */
static const char *rb_local_key(const kvtree_t *o)
{
    const char *k = kvtree_get_val(o, "KEY");
    const char *dot = k ? strchr(k, '.') : NULL;
    return dot ? dot + 1 : NULL;
}

/* the world ranks of this node's processes, *n of them */
static int *rb_local_ranks(const scr_ctx_t *ctx, int *n)
{
    MPI_Comm_size(ctx->topo.comm_node, n);
    int *local = malloc(sizeof(int) * (size_t)*n);
    if (local)
        MPI_Allgather(&ctx->rank, 1, MPI_INT, local, 1, MPI_INT, ctx->topo.comm_node);
    return local;
}

/* The holder's half of rb_schedule: KEEP what stays, and hand each remote
 * owner's holding to a process of this node in turn (rep: "<sender> SEND
 * <round>"), so that the node's processes stream to lost ranks side by
 * side, not one after another from the node master. */
static void rb_assign(rb_t *rb, const kvtree_t *got, kvtree_t *sends, kvtree_t *rep)
{
    int lsize, nsend = 0, *local = rb_local_ranks(rb->ctx, &lsize);
    for (const kvtree_elem_t *f = kvtree_first(got); f; f = kvtree_elem_next(f)) {
        kvtree_t *keeps = kvtree_get(kvtree_elem_tree(f), "KEEP");
        for (kvtree_elem_t *o = kvtree_first(keeps); o; o = kvtree_elem_next(o)) {
            const char *k = rb_local_key(kvtree_elem_tree(o));
            if (k && kvtree_get(rb->inv, k))
                kvtree_setf(sends, NULL, "KEEP %s", k);
        }
        kvtree_t *reqs = kvtree_get(kvtree_elem_tree(f), "REQ");
        for (kvtree_elem_t *o = kvtree_first(reqs); o; o = kvtree_elem_next(o)) {
            int owner, is_local = 0;
            const char *k = rb_local_key(kvtree_elem_tree(o));
            kvtree_t *h = k ? kvtree_get(rb->inv, k) : NULL;
            kvtree_elem_key_int(o, &owner);
            kvtree_util_get_int(kvtree_elem_tree(o), "LOCAL", &is_local);
            if (!h)
                continue;
            kvtree_setf(sends, NULL, "%s %s", is_local ? "KEEP" : "SENT", k);
            if (is_local)
                continue;
            int by = local ? local[nsend % lsize] : rb->ctx->rank;
            int round = local ? nsend / lsize : nsend;
            kvtree_setf(rep, NULL, "%d ROUND %d", owner, round);
            kvtree_setf(rep, NULL, "%d FROM %d", owner, by);
            kvtree_util_set_int(kvtree_setf(rep, kvtree_dup(h), "%d SEND %d", by, round),
                                "TO", owner);
            nsend++;
        }
    }
    free(local);
}

/* Holders learn who wants which holding.  An owner on the holder's node
 * moves the files itself (the holder keeps them: KEEP); remote owners get a
 * round each on one of the holder's node's processes (rb_assign), which
 * streams the files to them.  An owner may also ask that its partner copy
 * stay where it is (pkey on pholder: KEEP too).  This rank's sends land in
 * sends as "ROUND <r>".  Returns the number of rounds; *my_round is when
 * this owner receives (-1: never), *from which process sends. */
static int rb_schedule(rb_t *rb, const char *key, int holder, int local, const char *pkey,
                       int pholder, kvtree_t *sends, int *my_round, int *from)
{
    scr_ctx_t *ctx = rb->ctx;
    kvtree_t *req = kvtree_new(), *got = kvtree_new(), *rep = kvtree_new(),
             *ans = kvtree_new();
    if (key) {
        kvtree_t *r = kvtree_setf(req, NULL, "%d REQ %d", holder, ctx->rank);
        kvtree_util_set_str(r, "KEY", key);
        kvtree_util_set_int(r, "LOCAL", local);
    }
    if (pkey)
        kvtree_util_set_str(kvtree_setf(req, NULL, "%d KEEP %d", pholder, ctx->rank),
                            "KEY", pkey);
    kvtree_exchange(req, got, ctx->comm);
    rb_assign(rb, got, sends, rep);
    kvtree_exchange(rep, ans, ctx->comm);
    *my_round = -1;
    *from = MPI_PROC_NULL;
    if (key && !local) {
        kvtree_t *a = kvtree_getf(ans, "%d", holder);
        kvtree_util_get_int(a, "ROUND", my_round);
        kvtree_util_get_int(a, "FROM", from);
    }
    int nround = 0, rounds;
    for (kvtree_elem_t *f = kvtree_first(ans); f; f = kvtree_elem_next(f)) {
        kvtree_t *sd = kvtree_get(kvtree_elem_tree(f), "SEND");
        for (kvtree_elem_t *r = kvtree_first(sd); r; r = kvtree_elem_next(r)) {
            int t;
            kvtree_elem_key_int(r, &t);
            kvtree_setf(sends, kvtree_dup(kvtree_elem_tree(r)), "ROUND %d", t);
            nround = t + 1 > nround ? t + 1 : nround;
        }
    }
    MPI_Allreduce(&nround, &rounds, 1, MPI_INT, MPI_MAX, ctx->comm);
    rb->rounds = rounds;
    rb->moved = *my_round >= 0;
    kvtree_delete(&req);
    kvtree_delete(&got);
    kvtree_delete(&rep);
    kvtree_delete(&ans);
    return rounds;
}

/* rounds of pairwise transfers: the holders' nodes send, owners receive.  With
 * reread, the files that arrive are read back from the disk against the
 * sender's CRC32 (xfer_opts_t): a partner copy made of them afterwards
 * would read them anyway; one kept in place (rb_partner_keep) does not */
static int rb_transfer(rb_t *rb, int id, int rounds, const kvtree_t *sends, int my_round,
                       int from, const char *dir, int reread, scr_error_t *err)
{
    scr_ctx_t *ctx = rb->ctx;
    int ok = 1;
    for (int t = 0; t < rounds; t++) {
        kvtree_t *sd = kvtree_getf(sends, "ROUND %d", t);
        int dest = MPI_PROC_NULL;
        if (sd)
            kvtree_util_get_int(sd, "TO", &dest);
        int src = t == my_round ? from : MPI_PROC_NULL;
        kvtree_t *list = sd ? rb_list(sd) : kvtree_new(), *recv = kvtree_new();
        rb_hook_t hk = {ctx, id};
        scr_error_t e;
        /* never trusted: what arrives is the restart's own copy */
        xfer_opts_t opt = {.bufsize = XFER_SYNC_PIECE(ctx->buf_size),
                           .stage = "rebuild",
                           .pool = ctx->pool,
                           .map = ctx->copy_map,
                           .reread = reread};
        int rc =
            xfer_files(ctx->comm, dest, list, src, dir, recv, &opt, rb_record, &hk, &e);
        if (src != MPI_PROC_NULL) {
            if (rc == 0)
                rb_complete(ctx, id, recv);
            else {
                ok = 0;
                errprintf(err, "%s", e.text);
            }
        } else if (rc < 0)
            log_warn("sending dataset %d files to rank %d: %s", id, dest, e.text);
        kvtree_delete(&list);
        kvtree_delete(&recv);
    }
    return ok ? 0 : -1;
}

/* 1 if path is a file of one of the holdings listed under which in sends */
static int rb_protected(const rb_t *rb, const kvtree_t *sends, const char *which,
                        const char *path)
{
    kvtree_t *keys = kvtree_get(sends, which);
    for (kvtree_elem_t *k = kvtree_first(keys); k; k = kvtree_elem_next(k))
        if (kvtree_getf(rb->inv, "%s FILE %s", kvtree_elem_key(k), path))
            return 1;
    return 0;
}

/* Node master: delete copies of dataset id on this node.  Before the moves
 * (sent == 0): every copy nobody chose, so a rank's fresh copy can land on
 * the path of its stale one.  After (sent == 1): the copies sent away.
 * Files of copies kept in place are never touched. */
static void rb_drop_copies(rb_t *rb, int id, const kvtree_t *sends, int sent)
{
    for (kvtree_elem_t *e = kvtree_first(rb->inv); e; e = kvtree_elem_next(e)) {
        kvtree_t *h = kvtree_elem_tree(e);
        int d, was_sent = kvtree_getf(sends, "SENT %s", kvtree_elem_key(e)) != NULL;
        if (kvtree_util_get_int(h, "DSET", &d) < 0 || d != id ||
            kvtree_getf(sends, "KEEP %s", kvtree_elem_key(e)) || was_sent != sent)
            continue;
        kvtree_t *files = kvtree_get(h, "FILE");
        for (kvtree_elem_t *f = kvtree_first(files); f; f = kvtree_elem_next(f)) {
            const char *p = kvtree_elem_key(f);
            if (cache_path_ok(rb->ctx, p) && !rb_protected(rb, sends, "KEEP", p) &&
                (sent || !rb_protected(rb, sends, "SENT", p)))
                unlink(p);
        }
    }
}

/* Ranks with a redundancy descriptor send it (and the dataset descriptor)
 * to the other members of their set, so a rank whose node was lost learns
 * how its data was protected. */
static void rb_share_descs(rb_t *rb, kvtree_t *red, kvtree_t *dset)
{
    scr_ctx_t *ctx = rb->ctx;
    kvtree_t *send = kvtree_new(), *recv = kvtree_new();
    kvtree_t *members = kvtree_getf(red, "SET MEMBERS");
    for (kvtree_elem_t *m = kvtree_first(members); m; m = kvtree_elem_next(m)) {
        int world;
        const char *w = kvtree_elem_key(kvtree_first(kvtree_elem_tree(m)));
        if (!w || sscanf(w, "%d", &world) != 1 || world == ctx->rank || world < 0 ||
            world >= ctx->ranks)
            continue;
        kvtree_setf(send, kvtree_dup(red), "%d REDDESC", world);
        kvtree_setf(send, kvtree_dup(dset), "%d DSETDESC", world);
    }
    kvtree_exchange(send, recv, ctx->comm);
    for (kvtree_elem_t *e = kvtree_first(recv); e; e = kvtree_elem_next(e)) {
        kvtree_t *r = kvtree_get(kvtree_elem_tree(e), "REDDESC");
        if (kvtree_size(red) == 0 && r) {
            kvtree_merge(red, r);
            /* my place in the set is where my rank is listed */
            kvtree_t *ms = kvtree_getf(red, "SET MEMBERS");
            for (kvtree_elem_t *m = kvtree_first(ms); m; m = kvtree_elem_next(m)) {
                int world = -1;
                sscanf(kvtree_elem_key(kvtree_first(kvtree_elem_tree(m))), "%d", &world);
                if (world == ctx->rank)
                    kvtree_util_set_str(kvtree_get(red, "SET"), "RANK",
                                        kvtree_elem_key(m));
            }
        }
        kvtree_t *d = kvtree_get(kvtree_elem_tree(e), "DSETDESC");
        if (kvtree_size(dset) == 0 && d)
            kvtree_merge(dset, d);
    }
    kvtree_delete(&send);
    kvtree_delete(&recv);
}

/* PARTNER: the offer of this rank's partner copy that can stay where it is
 * (its right neighbour in the set holds it, on the node where that
 * neighbour runs now, which is not this rank's node), or NULL */
static kvtree_t *rb_partner_offer(rb_t *rb, int id, const reddesc_t *rd, const char **key)
{
    scr_ctx_t *ctx = rb->ctx;
    int n = rd->set_size, right = (rd->set_rank + 1) % n,
        left = (rd->set_rank + n - 1) % n;
    char rhost[sizeof(ctx->topo.hostname)] = "";
    MPI_Sendrecv(ctx->topo.hostname, (int)sizeof(rhost), MPI_CHAR, left, 0, rhost,
                 (int)sizeof(rhost), MPI_CHAR, right, 0, rd->comm, MPI_STATUS_IGNORE);
    rhost[sizeof(rhost) - 1] = '\0';
    if (strcmp(rhost, ctx->topo.hostname) == 0)
        return NULL;
    kvtree_t *offers = kvtree_getf(rb->offers, "%d", id);
    for (kvtree_elem_t *e = kvtree_first(offers); e; e = kvtree_elem_next(e)) {
        kvtree_t *h = kvtree_elem_tree(e);
        int ok = 0, writer = -1;
        const char *host = kvtree_get_val(h, "HOST");
        kvtree_util_get_int(h, "USER_OK", &ok);
        kvtree_util_get_int(h, "WRITER", &writer);
        if (ok && writer == rd->members[right] && host && strcmp(host, rhost) == 0) {
            *key = kvtree_elem_key(e);
            return h;
        }
    }
    return NULL;
}

/* Collective over a PARTNER set: 1 if this rank has its files (h) and its
 * partner copy can stay where it is (rb_partner_offer): the copy is then
 * kept, not sent again, whether the files came home from the original or
 * from that very copy.  Only the copies a lost node held, or whose holder
 * moved, are made again (red_partner_apply_some).  *pkey and *pholder name
 * this rank's copy, for its holder to keep. */
static int rb_partner_keep(rb_t *rb, int id, const reddesc_t *rd, int have,
                           const char **pkey, int *pholder)
{
    if (!rd || rd->type != RED_PARTNER || rd->comm == MPI_COMM_NULL || rd->set_size < 2)
        return 0;
    kvtree_t *h = rb_partner_offer(rb, id, rd, pkey);
    if (!have || !h)
        return 0;
    kvtree_util_get_int(h, "HOLDER", pholder);
    return 1;
}

/* Bring this rank's copy home: returns 1 if its files are now in place.
 * *kept: this rank's PARTNER set kept its partner copies (rb_partner_keep;
 * rd, when not NULL, is how the dataset was protected). */
static int rb_distribute(rb_t *rb, int id, const char *dir, const reddesc_t *rd,
                         int *kept, scr_error_t *err)
{
    scr_ctx_t *ctx = rb->ctx;
    const char *key = NULL;
    kvtree_t *h = dir ? rb_choose_checked(rb, id, &key) : NULL;
    int holder = -1, local = 0, ok = h != NULL;
    if (h) {
        const char *host = kvtree_get_val(h, "HOST");
        kvtree_util_get_int(h, "HOLDER", &holder);
        local = host && strcmp(host, ctx->topo.hostname) == 0;
        /* the file count goes with the first record of the files: without
         * it a restart cannot tell a whole set of files from part of one,
         * and a failure during the moves would lose files already home */
        int files = 0;
        kvtree_util_get_int(h, "FILES", &files);
        kvtree_t *mine = filemap_rank(ctx->filemap, id, ctx->rank);
        kvtree_util_set_int(mine, "FILES", files);
        kvtree_util_set_str(mine, "HOST", ctx->topo.hostname);
    }
    const char *pkey = NULL;
    int pholder = -1;
    *kept = rb_partner_keep(rb, id, rd, h != NULL, &pkey, &pholder);
    kvtree_t *sends = kvtree_new();
    int my_round, from,
        rounds = rb_schedule(rb, h ? key : NULL, holder, local, *kept ? pkey : NULL,
                             pholder, sends, &my_round, &from);
    int master = kvtree_size(rb->inv) > 0;
    if (master)
        rb_drop_copies(rb, id, sends, 0);
    MPI_Barrier(ctx->comm);
    if (h && local && rb_move_local(ctx, id, h, dir, err) < 0)
        ok = 0;
    fault_point("rebuild.moved", ctx->rank);
    if (rb_transfer(rb, id, rounds, sends, my_round, from, dir, *kept, err) < 0)
        ok = 0;
    /* what is in place is recorded complete before the copies sent go: a
     * failure later in the rebuild must find these files, not lose them */
    scr_error_t werr;
    if (filemap_write(ctx->filemap_path, ctx->filemap, &werr) < 0)
        log_err("rebuild of dataset %d: %s", id, werr.text);
    MPI_Barrier(ctx->comm);
    if (master)
        rb_drop_copies(rb, id, sends, 1);
    int parity = 0;
    if (h)
        kvtree_util_get_int(h, "PARITY_OK", &parity);
    kvtree_delete(&sends);
    /* XOR and RS also need the rank's redundancy file */
    const char *type = kvtree_get_val(rb_any_desc(rb, id, "REDDESC"), "TYPE");
    if (ok && type && (strcmp(type, "XOR") == 0 || strcmp(type, "RS") == 0) && !parity)
        ok = 0;
    return ok;
}

/* Forget dataset id but the copies this rank holds of other ranks' files
 * (PARTNER): the filemap is written before the redundancy is made again,
 * and a failure in between must still find them.  The partner copy, when
 * made again, replaces them. */
static void rb_forget_own(scr_ctx_t *ctx, int id)
{
    kvtree_t *ranks = kvtree_dup(kvtree_getf(ctx->filemap, "DSET %d RANK", id));
    filemap_remove_dset(ctx->filemap, id);
    for (kvtree_elem_t *e = kvtree_first(ranks); e; e = kvtree_elem_next(e)) {
        int r;
        if (kvtree_elem_key_int(e, &r) == 0 && r != ctx->rank)
            kvtree_setf(ctx->filemap, kvtree_dup(kvtree_elem_tree(e)), "DSET %d RANK %d",
                        id, r);
    }
    kvtree_delete(&ranks);
}

/* what a dataset's rebuild did, over all ranks */
typedef struct {
    int rebuilt; /* ranks whose files were lost */
    int kept;    /* ranks whose partner copy stayed where it was */
    int moved;   /* ranks whose files came from another node */
    int rounds;  /* the rounds those transfers took */
} rb_tally_t;

/* One dataset: distribute, recover, restore redundancy.  Collective.
 * Returns 0, -1 (cannot be rebuilt) or -2 (never completed). */
static int rb_dataset(rb_t *rb, int id, rb_tally_t *tally, scr_error_t *err)
{
    scr_ctx_t *ctx = rb->ctx;
    kvtree_t *red = kvtree_dup(rb_any_desc(rb, id, "REDDESC"));
    kvtree_t *dset = kvtree_dup(rb_any_desc(rb, id, "DSETDESC"));
    rb_forget_own(ctx, id);
    /* complete if any rank recorded it so: that rank saw every rank succeed */
    int complete = 0, any;
    kvtree_util_get_int(dset, "COMPLETE", &complete);
    MPI_Allreduce(&complete, &any, 1, MPI_INT, MPI_MAX, ctx->comm);
    if (!any) {
        const char *name = kvtree_get_val(dset, "NAME");
        errprintf(err, "dataset %d (%s) was never completed", id, name ? name : "?");
        /* every copy on the node goes, then the (now empty) directories */
        kvtree_t *none = kvtree_new();
        if (kvtree_size(rb->inv) > 0)
            rb_drop_copies(rb, id, none, 0);
        kvtree_delete(&none);
        filemap_set_desc(ctx->filemap, id, "DSETDESC", dset);
        kvtree_delete(&red);
        kvtree_delete(&dset);
        return -2;
    }
    rb_share_descs(rb, red, dset);
    const char *dir = kvtree_get_val(dset, "DIR");
    int ok = dir && cache_path_ok(ctx, dir);
    if (kvtree_size(red) == 0)
        errprintf(err,
                  "the files of rank %d are lost, and no record of their redundancy "
                  "survived",
                  ctx->rank);
    else if (!ok)
        errprintf(err, "rank %d has no valid cache directory for dataset %d", ctx->rank,
                  id);
    filemap_set_desc(ctx->filemap, id, "DSETDESC", dset);
    filemap_set_desc(ctx->filemap, id, "REDDESC", red);
    reddesc_t rd;
    scr_error_t rderr;
    int rd_ok = reddesc_from_kvtree(ctx, kvtree_size(red) ? red : NULL, &rd, &rderr) == 0;
    /* collective: every rank takes part, with or without a usable directory */
    int kept = 0;
    int have =
        rb_distribute(rb, id, ok ? dir : NULL, rd_ok ? &rd : NULL, &kept, err) && ok;
    if (!rd_ok) {
        if (ok)
            *err = rderr;
        ok = 0;
    }
    int need = !have, mine[3] = {need, kept, rb->moved}, sums[3];
    MPI_Allreduce(mine, sums, 3, MPI_INT, MPI_SUM, ctx->comm);
    tally->rebuilt = sums[0];
    tally->kept = sums[1];
    tally->moved = sums[2];
    tally->rounds = rb->rounds;
    if (red_all(ctx->comm, ok)) {
        /* a reason already given (why the files are not here) is the one */
        scr_error_t later;
        ok = red_recover(ctx, &rd, id, dir, need, err->text[0] ? &later : err) == 0;
        if (ok && rd.type == RED_PARTNER)
            ok = red_partner_apply_some(ctx, &rd, id, dir, !kept, err) == 0;
    } else {
        ok = 0;
    }
    reddesc_free(&rd);
    kvtree_delete(&red);
    kvtree_delete(&dset);
    if (!red_all(ctx->comm, ok))
        return -1;
    if (tally->rebuilt > 0) /* the lost files are back, nothing records it yet */
        fault_point("rebuild.recovered", ctx->rank);
    kvtree_util_set_int(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "COMPLETE", 1);
    return 0;
}

/* A dataset no rank completed goes whole: its recorded files on every
 * rank, then, once every process of the node is done, anything else in
 * its directory on the node, such as files routed after the last time a
 * process that died wrote its filemap (api_output.c: route_record). */
static void rb_drop_never_completed(scr_ctx_t *ctx, int id, int node_rank)
{
    const char *d = kvtree_get_val(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "DIR");
    char *dir = d && cache_path_ok(ctx, d) ? strdup(d) : NULL;
    cache_delete_dset(ctx, id);
    /* the lowest process of the node that knows the directory, once all
     * are done (the barrier of the reduction) */
    int mine = dir ? node_rank : INT32_MAX, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, ctx->topo.comm_node);
    int failed = first == node_rank ? filemap_purge_dir(dir) : 0;
    if (failed)
        log_warn("dataset %d: could not remove %d entries of %s", id, failed, dir);
    free(dir);
}

/* the lowest failing rank's reason, printed once */
static void rb_report(scr_ctx_t *ctx, int id, int failed, const scr_error_t *err)
{
    int first = agree_first_failure(ctx->comm, failed);
    if (first == ctx->rank)
        log_err("dataset %d cannot be rebuilt from cache: %s; deleting it", id,
                err->text);
    else if (first == ctx->ranks && ctx->rank == 0)
        log_err("dataset %d cannot be rebuilt from cache; deleting it", id);
}

/* largest dataset id below prev that any rank was offered, or -1 */
static int rb_next_id(rb_t *rb, int prev)
{
    int mine = -1, id;
    for (kvtree_elem_t *e = kvtree_first(rb->offers); e; e = kvtree_elem_next(e)) {
        int d;
        if (kvtree_elem_key_int(e, &d) == 0 && d < prev && d > mine)
            mine = d;
    }
    MPI_Allreduce(&mine, &id, 1, MPI_INT, MPI_MAX, rb->ctx->comm);
    return id;
}

/* node master: remove filemaps of ranks that no longer run on this node */
static void rb_drop_old_maps(scr_ctx_t *ctx, const kvtree_t *maps)
{
    int lsize, *local = rb_local_ranks(ctx, &lsize);
    if (!local)
        return; /* out of memory: the old maps stay, harmless */
    {
        for (kvtree_elem_t *e = kvtree_first(maps); e; e = kvtree_elem_next(e)) {
            int writer, here = 0;
            kvtree_elem_key_int(e, &writer);
            for (int i = 0; i < lsize; i++)
                here |= local[i] == writer;
            if (!here)
                unlink(kvtree_elem_key(kvtree_first(kvtree_elem_tree(e))));
        }
    }
    free(local);
}

/* rank 0: dataset id is ready */
static void rb_log_ready(const scr_ctx_t *ctx, int id, const rb_tally_t *t)
{
    if (ctx->rank != 0)
        return;
    const char *name =
        kvtree_get_val(filemap_get_desc(ctx->filemap, id, "DSETDESC"), "NAME");
    char kept[96] = "", moved[96] = "";
    if (t->kept > 0)
        snprintf(kept, sizeof(kept), ", the partner copies of %d rank%s kept in place",
                 t->kept, t->kept == 1 ? "" : "s");
    if (t->moved > 0)
        snprintf(moved, sizeof(moved),
                 ", the files of %d rank%s sent between nodes in %d round%s", t->moved,
                 t->moved == 1 ? "" : "s", t->rounds, t->rounds == 1 ? "" : "s");
    log_msg("restart from cache: dataset %d (%s) ready, %d rank%s rebuilt%s%s", id,
            name ? name : "?", t->rebuilt, t->rebuilt == 1 ? "" : "s", kept, moved);
}

int rebuild_cache(scr_ctx_t *ctx)
{
    int node_rank;
    MPI_Comm_rank(ctx->topo.comm_node, &node_rank);
    rb_t rb = {ctx, NULL, kvtree_new(), 0, 0};
    kvtree_t *maps = kvtree_new();
    rb.inv = node_rank == 0 ? inventory_read(ctx, maps) : kvtree_new();
    rb_offer(&rb);
    int kept = 0, id = INT32_MAX;
    double t0 = scr_now();
    while ((id = rb_next_id(&rb, id)) >= 0) {
        scr_error_t err = {""};
        rb_tally_t tally = {0, 0, 0, 0};
        double t1 = scr_now();
        int rc = rb_dataset(&rb, id, &tally, &err);
        if (ctx->rank == 0)
            evlog_event(ctx, "REBUILD",
                        "dset=%d lost_ranks=%d secs=%.3f ok=%d never_completed=%d "
                        "kept_copies=%d moved_ranks=%d rounds=%d",
                        id, tally.rebuilt, scr_now() - t1, rc == 0, rc == -2, tally.kept,
                        tally.moved, tally.rounds);
        if (rc == 0) {
            kept++;
            rb_log_ready(ctx, id, &tally);
        } else if (rc == -2) {
            if (ctx->rank == 0)
                log_msg("%s; deleting it from cache", err.text);
            rb_drop_never_completed(ctx, id, node_rank);
        } else {
            rb_report(ctx, id, err.text[0] != '\0', &err);
            cache_delete_dset(ctx, id);
        }
    }
    scr_error_t err;
    if (filemap_write(ctx->filemap_path, ctx->filemap, &err) < 0)
        log_err("%s", err.text);
    fault_point("rebuild.written", ctx->rank);
    MPI_Barrier(ctx->comm);
    rb_drop_old_maps(ctx, maps);
    if (ctx->rank == 0 && ctx->debug > 0)
        log_msg("cache rebuild: %d datasets kept in %.3f s", kept, scr_now() - t0);
    kvtree_delete(&maps);
    kvtree_delete(&rb.inv);
    kvtree_delete(&rb.offers);
    return kept;
}
