/* SPDX-License-Identifier: BSD-3-Clause */
/* desc.c - store and redundancy descriptors */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "desc.h"
#include "groupidx.h"
#include "log.h"
#include "path.h"
#include "rdv.h"
#include "sets.h"
#include "units.h"

const char *desc_type_name(red_type_t type)
{
    static const char *const names[] = {"SINGLE", "PARTNER", "XOR", "RS"};
    return names[type];
}

static int desc_type_parse(const char *s, red_type_t *type)
{
    static const char *const names[] = {"SINGLE", "PARTNER", "XOR", "RS"};
    for (int i = 0; i < 4; i++) {
        if (s && strcasecmp(s, names[i]) == 0) {
            *type = (red_type_t)i;
            return 0;
        }
    }
    return -1;
}

/* an attribute of a descriptor entry, else a parameter, else dflt */
static const char *desc_attr(const scr_ctx_t *ctx, const kvtree_t *attrs, const char *key,
                             const char *param)
{
    const char *v = kvtree_get_val(attrs, key);
    return v ? v : (param ? config_get(ctx->cfg, param, NULL) : NULL);
}

/* the name to quote for an attribute: the descriptor's key, or the parameter
 * it fell back to */
static const char *desc_name(const kvtree_t *attrs, const char *key, const char *param)
{
    return kvtree_get(attrs, key) || !param ? key : param;
}

static int desc_int(const char *what, const char *s, int min, int *out, scr_error_t *err)
{
    long v;
    if (!s || units_parse_long(s, &v) < 0 || v < min || v > 1000000000)
        return errprintf(err, "%s=%s is not an integer >= %d", what, s ? s : "", min);
    *out = (int)v;
    return 0;
}

static int store_add(scr_ctx_t *ctx, const char *base, const kvtree_t *attrs,
                     scr_error_t *err)
{
    if (!base || base[0] != '/')
        return errprintf(err, "STORE=%s: a store must be an absolute path",
                         base ? base : "");
    const char *allowed = config_get(ctx->cfg, "SCR_CACHE_BASES_ALLOWED", NULL);
    if (allowed && *allowed) {
        int ok = 0;
        char *copy = strdup(allowed), *save = NULL;
        for (char *a = strtok_r(copy, ":", &save); a && !ok;
             a = strtok_r(NULL, ":", &save))
            ok = path_is_under(base, a);
        free(copy);
        if (!ok)
            return errprintf(err, "store %s is not under SCR_CACHE_BASES_ALLOWED=%s",
                             base, allowed);
    }
    store_t *s = realloc(ctx->stores, sizeof(store_t) * (size_t)(ctx->nstores + 1));
    if (!s)
        return errprintf(err, "out of memory");
    ctx->stores = s;
    s = &ctx->stores[ctx->nstores];
    memset(s, 0, sizeof(*s));
    s->base = path_strdup_reduce_str(base);
    if (asprintf(&s->dir, "%s/%s/%s", s->base, ctx->user, ctx->jobdir) < 0)
        return errprintf(err, "out of memory");
    ctx->nstores++;
    const char *count = desc_attr(ctx, attrs, "COUNT", "SCR_CACHE_SIZE");
    if (desc_int("COUNT", count, 1, &s->count, err) < 0 ||
        desc_int("MKDIR", desc_attr(ctx, attrs, "MKDIR", NULL) ?: "1", 0, &s->mkdir,
                 err) < 0 ||
        desc_int("ENABLED", desc_attr(ctx, attrs, "ENABLED", NULL) ?: "1", 0, &s->enabled,
                 err) < 0) {
        char msg[sizeof(err->text)];
        snprintf(msg, sizeof(msg), "%s", err->text);
        return errprintf(err, "STORE=%s: %s", base, msg);
    }
    return 0;
}

static int store_find(const scr_ctx_t *ctx, const char *base)
{
    char *r = path_strdup_reduce_str(base);
    int found = -1;
    for (int i = 0; r && i < ctx->nstores && found < 0; i++)
        if (strcmp(ctx->stores[i].base, r) == 0)
            found = i;
    free(r);
    return found;
}

static int stores_create(scr_ctx_t *ctx, scr_error_t *err)
{
    const kvtree_t *t = config_get_tree(ctx->cfg, "STORE", NULL);
    if (!t)
        t = config_get_tree(ctx->cfg, "CACHE", NULL);
    for (kvtree_elem_t *e = kvtree_first(t); e; e = kvtree_elem_next(e))
        if (store_add(ctx, kvtree_elem_key(e), kvtree_elem_tree(e), err) < 0)
            return -1;
    const char *base = config_get(ctx->cfg, "SCR_CACHE_BASE", NULL);
    if (store_find(ctx, base) < 0 && store_add(ctx, base, NULL, err) < 0)
        return -1;
    return 0;
}

/* fill rd from a CKPT entry (attrs may be NULL for the implied descriptor) */
static int rd_parse(scr_ctx_t *ctx, int index, const kvtree_t *attrs, reddesc_t *rd,
                    scr_error_t *err)
{
    memset(rd, 0, sizeof(*rd));
    rd->index = index;
    rd->comm = MPI_COMM_NULL;
    const char *type = desc_attr(ctx, attrs, "TYPE", "SCR_COPY_TYPE");
    const char *size_name = desc_name(attrs, "SET_SIZE", "SCR_SET_SIZE");
    const char *fail_name = desc_name(attrs, "SET_FAILURES", "SCR_SET_FAILURES");
    if (desc_type_parse(type, &rd->type) < 0)
        return errprintf(err, "%s=%s: unknown type (use SINGLE, PARTNER, XOR or RS)",
                         desc_name(attrs, "TYPE", "SCR_COPY_TYPE"), type);
    if (desc_int("INTERVAL", desc_attr(ctx, attrs, "INTERVAL", NULL) ?: "1", 1,
                 &rd->interval, err) < 0 ||
        desc_int("ENABLED", desc_attr(ctx, attrs, "ENABLED", NULL) ?: "1", 0,
                 &rd->enabled, err) < 0 ||
        desc_int(size_name, desc_attr(ctx, attrs, "SET_SIZE", "SCR_SET_SIZE"), 1,
                 &rd->set_size_cfg, err) < 0 ||
        desc_int(fail_name, desc_attr(ctx, attrs, "SET_FAILURES", "SCR_SET_FAILURES"), 1,
                 &rd->failures, err) < 0 ||
        desc_int(desc_name(attrs, "BYPASS", "SCR_CACHE_BYPASS"),
                 desc_attr(ctx, attrs, "BYPASS", "SCR_CACHE_BYPASS") ?: "0", 0,
                 &rd->bypass, err) < 0)
        return -1;
    if (rd->type != RED_RS)
        rd->failures = rd->type == RED_SINGLE ? 0 : 1;
    if (rd->type != RED_SINGLE && rd->set_size_cfg < 2)
        return errprintf(err, "%s=%d: %s needs sets of at least 2 processes", size_name,
                         rd->set_size_cfg, desc_type_name(rd->type));
    if (rd->type == RED_RS && rd->failures >= rd->set_size_cfg)
        return errprintf(err, "%s=%d must be smaller than %s=%d", fail_name, rd->failures,
                         size_name, rd->set_size_cfg);
    if (rd->type == RED_RS && rd->failures > 32)
        return errprintf(err, "%s=%d: at most 32", fail_name, rd->failures);
    const char *store = desc_attr(ctx, attrs, "STORE", "SCR_CACHE_BASE");
    if ((rd->store = store_find(ctx, store)) < 0)
        return errprintf(err, "%s=%s is not a configured store",
                         desc_name(attrs, "STORE", "SCR_CACHE_BASE"), store);
    const char *group = desc_attr(ctx, attrs, "GROUP", "SCR_GROUP");
    if (strcmp(group, "NODE") != 0 && strcmp(group, "WORLD") != 0) {
        /* a GROUPS attribute name: some host must define it */
        int known = 0;
        const kvtree_t *g = config_get_tree(ctx->cfg, "GROUPS", NULL);
        for (kvtree_elem_t *e = kvtree_first(g); e && !known; e = kvtree_elem_next(e))
            known = kvtree_get(kvtree_elem_tree(e), group) != NULL;
        if (!known)
            return errprintf(err, "GROUP=%s is not NODE, WORLD or a GROUPS attribute",
                             group);
    }
    rd->group = strdup(group);
    return 0;
}

/* this process's failure group name for rd */
static void rd_group_name(const scr_ctx_t *ctx, const reddesc_t *rd, char *name,
                          size_t len)
{
    if (strcmp(rd->group, "NODE") == 0) {
        snprintf(name, len, "%s", ctx->topo.hostname);
        return;
    }
    if (strcmp(rd->group, "WORLD") == 0) {
        snprintf(name, len, "WORLD");
        return;
    }
    const kvtree_t *g = config_get_tree(ctx->cfg, "GROUPS", NULL);
    const char *v = kvtree_get_val(kvtree_get(g, ctx->topo.hostname), rd->group);
    if (v)
        snprintf(name, len, "%s=%s", rd->group, v);
    else
        snprintf(name, len, "host=%s", ctx->topo.hostname); /* alone in its group */
}

/* the members' lists and MPI_Comm_create_group's tag: the sets are
 * disjoint, so one serves all */
#define RD_SET_TAG 7801

/* a member's rank to its set's leader, and the leader's list back */
#define RD_JOIN_TAG 7802
#define RD_LIST_TAG 7803

static int rd_rank_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* out of memory for n (when known, else -1) what: the job ends, for a
 * process that cannot hold its set's few ranks, or a count per row of the
 * failure groups, could not take part in any checkpoint */
static void rd_oom(scr_ctx_t *ctx, int n, const char *what)
{
    if (n >= 0)
        log_err("rank %d: out of memory for %d %s", ctx->rank, n, what);
    else
        log_err("rank %d: out of memory for the %s", ctx->rank, what);
    MPI_Abort(ctx->comm, 1);
}

/* room for n ints, or the job ends (rd_oom) */
static int *rd_ints_alloc(scr_ctx_t *ctx, int n, const char *what)
{
    int *m = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!m)
        rd_oom(ctx, n, what);
    return m;
}

/* room for n members of a set */
static int *rd_members_alloc(scr_ctx_t *ctx, int n)
{
    return rd_ints_alloc(ctx, n, "members of its redundancy set");
}

/* a member's list of its set, from the set's lowest member */
static int rd_recv_set(scr_ctx_t *ctx, int set_id, int **members, int *n)
{
    MPI_Status st;
    MPI_Probe(set_id, RD_SET_TAG, ctx->comm, &st);
    MPI_Get_count(&st, MPI_INT, n);
    free(*members);
    *members = rd_members_alloc(ctx, *n);
    MPI_Recv(*members, *n, MPI_INT, set_id, RD_SET_TAG, ctx->comm, MPI_STATUS_IGNORE);
    return 0;
}

/* Rank 0's lists of the sets for MPI_Scatterv to their lowest members:
 * cnt[r] members for a set's lowest rank r (0 for the others), the lists
 * back to back in rank order from displs[r], each ascending.  set_of is
 * sets.h's (a set's id is its lowest rank). */
static int *rd_set_lists(const int *set_of, int ranks, int *cnt, int *displs)
{
    int *buf = malloc(sizeof(int) * (size_t)ranks);
    if (!buf)
        return NULL;
    memset(cnt, 0, sizeof(int) * (size_t)ranks);
    for (int r = 0; r < ranks; r++)
        cnt[set_of[r]]++;
    for (int r = 0, at = 0; r < ranks; at += cnt[r++])
        displs[r] = at;
    memset(cnt, 0, sizeof(int) * (size_t)ranks);
    for (int r = 0; r < ranks; r++) /* cnt counts the slots filled */
        buf[displs[set_of[r]] + cnt[set_of[r]]++] = r;
    return buf;
}

/* Every rank gets its set's members from rank 0: the set's lowest member
 * its list through MPI_Scatterv, and the others theirs from it.  No process
 * but rank 0 holds anything of the other sets.  *members is malloc'd. */
static int rd_send_sets(scr_ctx_t *ctx, const int *set_of, int set_id, int **members,
                        int *n)
{
    int root = ctx->rank == 0, ok = 1;
    int *cnt = root ? malloc(sizeof(int) * (size_t)ctx->ranks) : NULL;
    int *displs = root ? malloc(sizeof(int) * (size_t)ctx->ranks) : NULL;
    int *lists =
        root && cnt && displs ? rd_set_lists(set_of, ctx->ranks, cnt, displs) : NULL;
    if (root)
        ok = lists != NULL;
    MPI_Bcast(&ok, 1, MPI_INT, 0, ctx->comm);
    if (ok) {
        MPI_Scatter(cnt, 1, MPI_INT, n, 1, MPI_INT, 0, ctx->comm);
        *members = rd_members_alloc(ctx, *n);
        MPI_Scatterv(lists, cnt, displs, MPI_INT, *members, *n, MPI_INT, 0, ctx->comm);
    }
    free(cnt);
    free(displs);
    free(lists);
    if (!ok)
        return -1;
    if (set_id != ctx->rank)
        return rd_recv_set(ctx, set_id, members, n);
    for (int i = 1; i < *n; i++) /* small: sent eagerly, no one sends back */
        MPI_Send(*members, *n, MPI_INT, (*members)[i], RD_SET_TAG, ctx->comm);
    return 0;
}

/* every rank a set of its own */
static int rd_own_set(scr_ctx_t *ctx, int *set_id, int **members, int *n)
{
    *set_id = ctx->rank;
    *n = 1;
    *members = rd_members_alloc(ctx, 1);
    (*members)[0] = ctx->rank;
    return 0;
}

/* Rank 0 partitions (sets_partition), from the group of every rank (its
 * group's lowest rank, 4 bytes a rank at rank 0 alone), and tells each
 * rank its set.  For jobs whose groups differ so much in size that a row
 * is too short for a set (groupidx_rows): sets_partition borrows members
 * across rows, which needs the whole job in view. */
static int rd_central(scr_ctx_t *ctx, const groupidx_t *gi, int size, int min_size,
                      int *set_id, int **members, int *n)
{
    int root = ctx->rank == 0, ok = 1;
    int *group = root ? malloc(sizeof(int) * (size_t)ctx->ranks) : NULL;
    int *set_of = root ? malloc(sizeof(int) * (size_t)ctx->ranks) : NULL;
    if (root)
        ok = group && set_of;
    MPI_Bcast(&ok, 1, MPI_INT, 0, ctx->comm);
    if (ok)
        MPI_Gather(&gi->first, 1, MPI_INT, group, 1, MPI_INT, 0, ctx->comm);
    if (ok && root) {
        /* a group's index: its lowest rank's place among the lowest ranks */
        for (int r = 0, next = 0; r < ctx->ranks; r++)
            group[r] = group[r] == r ? next++ : group[group[r]];
        ok = sets_partition(group, ctx->ranks, size, min_size, set_of) > 0;
    }
    free(group);
    MPI_Bcast(&ok, 1, MPI_INT, 0, ctx->comm);
    if (ok)
        MPI_Scatter(set_of, 1, MPI_INT, set_id, 1, MPI_INT, 0, ctx->comm);
    if (ok)
        ok = rd_send_sets(ctx, set_of, *set_id, members, n) == 0;
    free(set_of);
    return ok ? 0 : -1;
}

/* rows longer than this (a failure group of more ranks) take rd_central:
 * each process holds vectors of a count per row */
#define RD_ROWS_MAX 4096

/* each rank's row's count, its position in it and the rows counted
 * (groupidx_rows): -1 on every rank when the rows are too long for the
 * vectors or a row is too short for a set */
static int rd_row_place(scr_ctx_t *ctx, const groupidx_t *gi, int min_size, int *count,
                        int *pos, int *rows)
{
    int shortest = groupidx_rows(ctx->comm, gi, 64, RD_ROWS_MAX, count, pos, rows);
    if (shortest == -2)
        rd_oom(ctx, -1, "counts per row of the failure groups");
    return shortest >= min_size ? 0 : -1;
}

/* the first rank of each piece of a row leads its set: every rank finds
 * its leader, the latest leader of its row at or below it, from one
 * MPI_Scan of a vector with a rank per row (positions grow with rank) */
static int rd_row_leader(scr_ctx_t *ctx, int row, int rows, int lead)
{
    int *v = rd_ints_alloc(ctx, 2 * rows, "leaders per row of the failure groups"),
        leader;
    for (int r = 0; r < rows; r++)
        v[r] = -1;
    v[row] = lead ? ctx->rank : -1;
    MPI_Scan(v, v + rows, rows, MPI_INT, MPI_MAX, ctx->comm);
    leader = v[rows + row];
    free(v);
    return leader;
}

/* The sets without any process seeing the whole job: a rank's piece of
 * its row (sets_row_piece) is its set.  Each member tells the set's
 * leader (its lowest rank) its rank, and the leader sends back the list. */
static int rd_by_rows(scr_ctx_t *ctx, const groupidx_t *gi, int size, int min_size,
                      int count, int pos, int rows, int *set_id, int **members, int *n)
{
    int piece = sets_row_piece(count, size, min_size, pos);
    int lead = pos == piece * size;
    *set_id = rd_row_leader(ctx, gi->row, rows, lead);
    *n = sets_piece_size(count, size, min_size, piece);
    *members = rd_members_alloc(ctx, *n);
    if (!lead) {
        MPI_Send(&ctx->rank, 1, MPI_INT, *set_id, RD_JOIN_TAG, ctx->comm);
        MPI_Recv(*members, *n, MPI_INT, *set_id, RD_LIST_TAG, ctx->comm,
                 MPI_STATUS_IGNORE);
        return 0;
    }
    (*members)[0] = ctx->rank;
    for (int i = 1; i < *n; i++)
        MPI_Recv(&(*members)[i], 1, MPI_INT, MPI_ANY_SOURCE, RD_JOIN_TAG, ctx->comm,
                 MPI_STATUS_IGNORE);
    qsort(*members, (size_t)*n, sizeof(int), rd_rank_cmp);
    for (int i = 1; i < *n; i++) /* small: sent eagerly, no one sends back */
        MPI_Send(*members, *n, MPI_INT, (*members)[i], RD_LIST_TAG, ctx->comm);
    return 0;
}

/* Every rank learns its set's id and members.  SINGLE, GROUP=WORLD, or
 * fewer groups than min_size: every rank a set of its own.  *groups
 * becomes the number of failure groups on every rank.  0, or -1 on every
 * rank (out of memory). */
static int rd_partition(scr_ctx_t *ctx, const reddesc_t *rd, int size, int min_size,
                        int *set_id, int **members, int *n, int *groups)
{
    *groups = 1;
    if (rd->type == RED_SINGLE || strcmp(rd->group, "WORLD") == 0)
        return rd_own_set(ctx, set_id, members, n);
    groupidx_t gi = ctx->topo.node; /* GROUP=NODE: the node's ranks, known */
    if (strcmp(rd->group, "NODE") != 0) {
        char mine[GROUPIDX_NAME] = "";
        rd_group_name(ctx, rd, mine, sizeof(mine));
        groupidx_build(ctx->comm, mine, 0, &gi);
    }
    *groups = gi.ngroups;
    if (gi.ngroups < min_size)
        return rd_own_set(ctx, set_id, members, n);
    int count = 0, pos = 0, rows = 0;
    if (rd_row_place(ctx, &gi, min_size, &count, &pos, &rows) == 0)
        return rd_by_rows(ctx, &gi, size, min_size, count, pos, rows, set_id, members, n);
    if (ctx->rank == 0)
        log_dbg(1,
                "CKPT=%d: a row of the failure groups is too short or too long for "
                "sets made row by row: rank 0 partitions the job",
                rd->index);
    return rd_central(ctx, &gi, size, min_size, set_id, members, n);
}

/* rd->comm over rd->members (ascending ranks of ctx->comm, so the set's
 * ranks follow them), made by the members alone (rdv_comm_create) */
static int rd_comm_create(scr_ctx_t *ctx, reddesc_t *rd)
{
    if (rdv_comm_create(ctx->comm, rd->members, rd->set_size, RD_SET_TAG, &rd->comm) < 0)
        return -1;
    MPI_Comm_rank(rd->comm, &rd->set_rank);
    return 0;
}

/* join set set_id (its lowest member's world rank), whose members are
 * members (n, ascending world rank), which rd takes */
static int rd_join_set(scr_ctx_t *ctx, reddesc_t *rd, int set_id, int *members, int n)
{
    rd->set_id = set_id;
    rd->members = members;
    rd->set_size = n;
    return rd_comm_create(ctx, rd);
}

static int rd_realize(scr_ctx_t *ctx, reddesc_t *rd)
{
    int min_size = rd->type == RED_SINGLE ? 1 : rd->failures + 1;
    int size = rd->type == RED_SINGLE ? 1 : rd->set_size_cfg, set_id, groups, n = 0;
    int *members = NULL;
    if (rd_partition(ctx, rd, size, min_size, &set_id, &members, &n, &groups) < 0)
        MPI_Abort(ctx->comm, 1);
    if (rd->type != RED_SINGLE && groups < min_size) {
        if (ctx->rank == 0)
            log_warn("CKPT=%d: %s needs %d failure groups (GROUP=%s) but the job has %d; "
                     "falling back to SINGLE",
                     rd->index, desc_type_name(rd->type), min_size, rd->group, groups);
        rd->type = RED_SINGLE;
        rd->failures = 0;
    }
    int rc = rd_join_set(ctx, rd, set_id, members, n);
    if (rc == 0 && rd->type != RED_SINGLE && rd->set_size < min_size) {
        log_warn("CKPT=%d: no %s partner outside failure group of rank %d; its data is "
                 "kept as SINGLE",
                 rd->index, desc_type_name(rd->type), ctx->rank);
        rd->type = RED_SINGLE;
        rd->failures = 0;
    }
    return rc;
}

void reddesc_free(reddesc_t *rd)
{
    if (rd->comm != MPI_COMM_NULL)
        MPI_Comm_free(&rd->comm);
    free(rd->members);
    free(rd->group);
    rd->members = NULL;
    rd->group = NULL;
}

static int rds_create(scr_ctx_t *ctx, scr_error_t *err)
{
    const kvtree_t *t = config_get_tree(ctx->cfg, "CKPT", NULL);
    int n = t ? kvtree_size(t) : 1;
    ctx->rds = calloc((size_t)n, sizeof(reddesc_t));
    if (!ctx->rds)
        return errprintf(err, "out of memory");
    if (!t) {
        ctx->nrds = 1;
        return rd_parse(ctx, 0, NULL, &ctx->rds[0], err);
    }
    kvtree_t *sorted = kvtree_dup(t);
    kvtree_sort_int(sorted, KVTREE_SORT_ASCENDING);
    int rc = 0;
    for (kvtree_elem_t *e = kvtree_first(sorted); e && rc == 0; e = kvtree_elem_next(e)) {
        int index;
        if (kvtree_elem_key_int(e, &index) < 0) {
            rc = errprintf(err, "CKPT=%s: the descriptor index must be an integer",
                           kvtree_elem_key(e));
            break;
        }
        rc = rd_parse(ctx, index, kvtree_elem_tree(e), &ctx->rds[ctx->nrds], err);
        ctx->nrds++;
        if (rc < 0) {
            char msg[sizeof(err->text)];
            snprintf(msg, sizeof(msg), "%s", err->text);
            errprintf(err, "CKPT=%d: %s", index, msg);
        }
    }
    kvtree_delete(&sorted);
    return rc;
}

int desc_create(scr_ctx_t *ctx, scr_error_t *err)
{
    /* the configuration is the same everywhere (rank 0 broadcast it), so
     * every process reaches the same verdict without talking */
    if (stores_create(ctx, err) < 0 || rds_create(ctx, err) < 0)
        return -1;
    for (int i = 0; i < ctx->nrds; i++)
        if (rd_realize(ctx, &ctx->rds[i]) < 0)
            return errprintf(err, "cannot build redundancy sets for CKPT=%d",
                             ctx->rds[i].index);
    return 0;
}

void desc_free(scr_ctx_t *ctx)
{
    for (int i = 0; i < ctx->nrds; i++)
        reddesc_free(&ctx->rds[i]);
    free(ctx->rds);
    ctx->rds = NULL;
    ctx->nrds = 0;
    for (int i = 0; i < ctx->nstores; i++) {
        free(ctx->stores[i].base);
        free(ctx->stores[i].dir);
    }
    free(ctx->stores);
    ctx->stores = NULL;
    ctx->nstores = 0;
}

reddesc_t *desc_select(scr_ctx_t *ctx, int id)
{
    reddesc_t *best = NULL;
    for (int i = 0; i < ctx->nrds; i++) {
        reddesc_t *rd = &ctx->rds[i];
        if (rd->enabled && id % rd->interval == 0 &&
            (!best || rd->interval > best->interval))
            best = rd;
    }
    return best;
}

reddesc_t *desc_by_index(scr_ctx_t *ctx, int index)
{
    for (int i = 0; i < ctx->nrds; i++)
        if (ctx->rds[i].enabled && ctx->rds[i].index == index)
            return &ctx->rds[i];
    return NULL;
}

kvtree_t *reddesc_to_kvtree(const scr_ctx_t *ctx, const reddesc_t *rd)
{
    kvtree_t *t = kvtree_new();
    if (!t)
        return NULL;
    kvtree_util_set_str(t, "TYPE", desc_type_name(rd->type));
    kvtree_util_set_int(t, "INDEX", rd->index);
    kvtree_util_set_int(t, "INTERVAL", rd->interval);
    kvtree_util_set_int(t, "FAILURES", rd->failures);
    kvtree_util_set_str(t, "STORE", ctx->stores[rd->store].base);
    kvtree_util_set_str(t, "GROUP", rd->group);
    kvtree_t *set = kvtree_set(t, "SET", NULL);
    kvtree_util_set_int(set, "ID", rd->set_id);
    kvtree_util_set_int(set, "SIZE", rd->set_size);
    kvtree_util_set_int(set, "RANK", rd->set_rank);
    for (int i = 0; i < rd->set_size; i++)
        kvtree_setf(set, NULL, "MEMBERS %d %d", i, rd->members[i]);
    return t;
}

kvtree_t *reddesc_single_kvtree(const scr_ctx_t *ctx, const reddesc_t *rd)
{
    kvtree_t *t = reddesc_to_kvtree(ctx, rd);
    if (!t)
        return NULL;
    kvtree_util_set_str(t, "TYPE", desc_type_name(RED_SINGLE));
    kvtree_util_set_int(t, "FAILURES", 0);
    kvtree_unset(t, "SET");
    kvtree_t *set = kvtree_set(t, "SET", NULL);
    kvtree_util_set_int(set, "ID", ctx->rank); /* as rd_realize numbers them */
    kvtree_util_set_int(set, "SIZE", 1);
    kvtree_util_set_int(set, "RANK", 0);
    kvtree_setf(set, NULL, "MEMBERS 0 %d", ctx->rank);
    return t;
}

/* parse a stored descriptor; -1 if it is malformed */
static int rd_parse_stored(scr_ctx_t *ctx, const kvtree_t *t, reddesc_t *rd,
                           int **members)
{
    const char *type = kvtree_get_val(t, "TYPE"), *store = kvtree_get_val(t, "STORE");
    kvtree_t *set = kvtree_get(t, "SET");
    if (desc_type_parse(type, &rd->type) < 0 || !store ||
        kvtree_util_get_int(t, "FAILURES", &rd->failures) < 0 ||
        kvtree_util_get_int(set, "ID", &rd->set_id) < 0 ||
        kvtree_util_get_int(set, "SIZE", &rd->set_size) < 0 || rd->set_size < 1 ||
        rd->set_size > ctx->ranks)
        return -1;
    kvtree_util_get_int(t, "INDEX", &rd->index);
    kvtree_util_get_int(t, "INTERVAL", &rd->interval);
    rd->store = store_find(ctx, store);
    *members = malloc(sizeof(int) * (size_t)rd->set_size);
    for (int i = 0; *members && i < rd->set_size; i++) {
        const char *m = kvtree_elem_key(kvtree_first(kvtree_getf(set, "MEMBERS %d", i)));
        long v;
        if (!m || units_parse_long(m, &v) < 0 || v < 0 || v >= ctx->ranks)
            return -1;
        (*members)[i] = (int)v;
    }
    if (!*members || (*members)[0] != rd->set_id)
        return -1;
    const char *g = kvtree_get_val(t, "GROUP");
    rd->group = strdup(g ? g : "NODE");
    return 0;
}

/* 1 on every rank when every rank has a stored set and the sets agree
 * (sets_agree_terms): then each set makes its communicator alone */
static int rd_sets_agree(scr_ctx_t *ctx, const reddesc_t *rd, int ok)
{
    uint64_t mine[3] = {0, 0, 0}, sums[3];
    if (!ok || sets_agree_terms(rd->members, rd->set_size, ctx->rank, &mine[1]) < 0)
        mine[0] = 1;
    MPI_Allreduce(mine, sums, 3, MPI_UINT64_T, MPI_SUM, ctx->comm);
    return sums[0] == 0 && sums[1] == sums[2];
}

int reddesc_from_kvtree(scr_ctx_t *ctx, const kvtree_t *t, reddesc_t *rd,
                        scr_error_t *err)
{
    memset(rd, 0, sizeof(*rd));
    rd->comm = MPI_COMM_NULL;
    int *members = NULL, ok = t && rd_parse_stored(ctx, t, rd, &members) == 0;
    if (!ok) {
        free(members);
        members = NULL;
        rd->set_size = 0;
    }
    rd->members = members;
    rd->set_rank = -1;
    for (int i = 0; ok && i < rd->set_size; i++)
        if (members[i] == ctx->rank)
            rd->set_rank = i;
    ok = ok && rd->set_rank >= 0;
    if (rd_sets_agree(ctx, rd, ok))
        return rd_comm_create(ctx, rd) == 0
                   ? 0
                   : errprintf(err, "rank %d: set %d: no communicator", ctx->rank,
                               rd->set_id);
    if (ctx->rank == 0)
        log_dbg(1, "a rank without its redundancy set, or sets that disagree: "
                   "the members of each set meet by its id");
    /* some rank without its set, or sets that disagree: the ranks that
     * still hold each set meet at its id's home (rdv.h), which finds which
     * members each set really has */
    rdv_peers_t p;
    int id = rd->set_id;
    rdv_find(ctx->comm, ok ? &id : NULL, (int)sizeof(id), (uint64_t)(unsigned)id, 1,
             &p); /* the home of a set is its id, its lowest member */
    if (!ok)
        return errprintf(err, "no usable redundancy descriptor");
    if (p.count != rd->set_size) {
        rdv_peers_free(&p);
        return errprintf(err, "set %d has %d of its %d members", rd->set_id, p.count,
                         rd->set_size);
    }
    free(rd->members);
    rd->members = p.members;
    rd->set_rank = p.row;
    return rd_comm_create(ctx, rd) == 0
               ? 0
               : errprintf(err, "rank %d: set %d: no communicator", ctx->rank,
                           rd->set_id);
}
