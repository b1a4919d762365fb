/* SPDX-License-Identifier: BSD-3-Clause */
/* ecfile.c - serial XOR/RS rebuild of scavenged datasets */
#include <errno.h>
#include <fcntl.h>
#include <isa-l.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32.h"
#include "ec.h"
#include "ec_file.h"
#include "ecfile.h"
#include "io.h"
#include "path.h"
#include "progress.h"
#include "spread.h"

#define ECFILE_PIECE (1u << 20)

typedef struct {
    int lost, rank, redfd, nf;
    uint64_t off;
    kvtree_t *hdr;
    const kvtree_t *cur; /* CURRENT of this member (own or a neighbour's copy) */
    int *fds;
    char **names;
    uint64_t *sizes;
    io_concat_t cat;
} member_t;

typedef struct {
    int n, m, k;
    uint64_t chunk;
    int spread; /* CODE SPREAD (spread.h), else the stripes of ec.h */
    ec_code_t code;
    spread_code_t sp;
    member_t *mem;
    const char *dsetdir;
} ecset_t;

static void ecset_free(ecset_t *e)
{
    for (int s = 0; e->mem && s < e->n; s++) {
        member_t *x = &e->mem[s];
        for (int f = 0; f < x->nf; f++) {
            if (x->fds && x->fds[f] >= 0)
                close(x->fds[f]);
            if (x->names)
                free(x->names[f]);
        }
        free(x->fds);
        free(x->names);
        free(x->sizes);
        if (x->redfd >= 0)
            close(x->redfd);
        kvtree_delete(&x->hdr);
    }
    free(e->mem);
    ec_code_free(&e->code);
    spread_free(&e->sp);
}

/* open (or, for a lost member, create) the member's application files */
static int ecset_open_files(ecset_t *e, member_t *x)
{
    kvtree_util_get_int(x->cur, "FILES", &x->nf);
    if (x->nf < 0 || x->nf > kvtree_size(kvtree_get(x->cur, "FILE"))) {
        x->nf = 0; /* the header is the user's: no more files than it lists */
        errno = EBADMSG;
        return -1;
    }
    x->fds = malloc(sizeof(int) * (size_t)(x->nf + 1));
    x->names = calloc((size_t)x->nf + 1, sizeof(char *));
    x->sizes = calloc((size_t)x->nf + 1, sizeof(uint64_t));
    for (int f = 0; f < x->nf; f++)
        x->fds[f] = -1;
    uint64_t room = (uint64_t)e->k * e->chunk; /* e->chunk fits the parity file */
    for (int f = 0; f < x->nf; f++) {
        kvtree_t *m = kvtree_getf(x->cur, "FILE %d", f);
        const char *rel = kvtree_get_val(m, "REL");
        /* the header is the user's: a rebuild writes only inside the dataset */
        if (!rel || !path_is_safe_relative(rel) ||
            kvtree_util_get_u64(m, "SIZE", &x->sizes[f]) < 0 ||
            x->sizes[f] > room) { /* more than its k chunks protect */
            errno = EBADMSG;
            return -1;
        }
        room -= x->sizes[f];
        if (asprintf(&x->names[f], "%s/%s", e->dsetdir, rel) < 0)
            return -1;
        if (!x->lost) {
            struct stat st;
            x->fds[f] = open(x->names[f], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
            if (x->fds[f] < 0 || fstat(x->fds[f], &st) < 0 || !S_ISREG(st.st_mode) ||
                (uint64_t)st.st_size != x->sizes[f])
                return -1;
            continue;
        }
        char *parent = strdup(x->names[f]);
        *strrchr(parent, '/') = '\0';
        io_mkdir_p(parent, 0700, NULL);
        free(parent);
        x->fds[f] =
            open(x->names[f], O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (x->fds[f] < 0 || ftruncate(x->fds[f], (off_t)x->sizes[f]) < 0)
            return -1;
    }
    x->cat = (io_concat_t){x->nf, x->fds, (const char *const *)x->names, x->sizes};
    return 0;
}

/* a lost member's CURRENT as kept by its right neighbours */
static const kvtree_t *ecset_neighbour_copy(const ecset_t *e, int s)
{
    for (int d = 1; d <= e->m; d++) {
        const member_t *y = &e->mem[(s + d) % e->n];
        if (y->lost)
            continue;
        const kvtree_t *c = d == 1 ? kvtree_get(y->hdr, "PARTNER")
                                   : kvtree_getf(y->hdr, "PARTNERS %d", d);
        if (c)
            return c;
    }
    return NULL;
}

static int ecset_load(ecset_t *e, const kvtree_t *set, scr_error_t *err)
{
    const kvtree_t *ref = NULL;
    kvtree_util_get_int(set, "MEMBERS", &e->n);
    if (e->n < 2 || e->n > 255)
        return errprintf(err, "set of %d members", e->n);
    e->mem = calloc((size_t)e->n, sizeof(member_t));
    for (int s = 0; s < e->n; s++) {
        member_t *x = &e->mem[s];
        const char *f = kvtree_getf(set, "MEMBER %d", s)
                            ? kvtree_get_val(kvtree_getf(set, "MEMBER %d", s), "FILE")
                            : NULL;
        x->redfd = -1;
        x->hdr = kvtree_new();
        x->lost = !f || ec_read_header(f, x->hdr, &x->redfd, &x->off, NULL) < 0;
        if (!x->lost && !ref)
            ref = x->hdr;
    }
    if (!ref)
        return errprintf(err, "no redundancy file of the set survived");
    const char *type = kvtree_get_val(ref, "TYPE");
    kvtree_util_get_int(ref, "FAILURES", &e->m);
    kvtree_util_get_u64(ref, "CHUNK", &e->chunk);
    const char *code = kvtree_get_val(ref, "CODE");
    e->k = e->n - e->m;
    e->spread = code && strcmp(code, EC_CODE_SPREAD) == 0;
    if (code && !e->spread)
        return errprintf(err, "redundancy header names an unknown CODE %s", code);
    if (e->m < 1 || e->k < 1 || e->chunk == 0 || !type ||
        (e->spread ? spread_init(&e->sp, e->n, e->m)
                   : ec_code_init(&e->code, e->n, e->m, strcmp(type, "XOR") == 0)) < 0)
        return errprintf(err, "bad redundancy header (TYPE, FAILURES, CHUNK)");
    for (int s = 0; s < e->n; s++) {
        member_t *x = &e->mem[s];
        const char *grank =
            kvtree_elem_key(kvtree_first(kvtree_getf(ref, "GROUP RANK %d", s)));
        if (kvtree_util_get_int(kvtree_get(ref, "GROUP"), "RANKS", &(int){0}) < 0 ||
            !grank)
            return errprintf(err, "redundancy header without set member %d", s);
        x->rank = atoi(grank);
        struct stat st;
        if (!x->lost && (fstat(x->redfd, &st) < 0 || e->chunk > (uint64_t)st.st_size ||
                         (uint64_t)st.st_size - x->off < (uint64_t)e->m * e->chunk))
            x->lost = 1; /* fewer parity bytes than the header's chunks */
        x->cur = x->lost ? NULL : kvtree_get(x->hdr, "CURRENT");
        if (!x->lost && (!x->cur || ecset_open_files(e, x) < 0))
            x->lost = 1; /* its parity is still fine, but count it lost */
    }
    /* a set that cannot be rebuilt keeps every file as it is: below, the
     * files of members counted lost are created afresh (truncated) */
    int nlost = 0;
    for (int s = 0; s < e->n; s++)
        nlost += e->mem[s].lost;
    if (nlost > e->m)
        return errprintf(err, "%d of %d members lost, the set can rebuild %d", nlost,
                         e->n, e->m);
    for (int s = 0; s < e->n; s++) {
        member_t *x = &e->mem[s];
        if (!x->lost)
            continue;
        for (int f = 0; f < x->nf; f++) {
            if (x->fds[f] >= 0)
                close(x->fds[f]);
            free(x->names[f]);
        }
        free(x->fds);
        free(x->names);
        free(x->sizes);
        x->fds = NULL;
        x->names = NULL;
        x->sizes = NULL;
        x->nf = 0;
        x->cur = ecset_neighbour_copy(e, s);
        if (!x->cur)
            return errprintf(err, "no file list of lost rank %d survived", x->rank);
        if (ecset_open_files(e, x) < 0)
            return errprintf(err, "cannot create the files of rank %d: %s", x->rank,
                             strerror(errno));
    }
    return 0;
}

/* read one symbol's piece: a data chunk of the logical file or a parity chunk */
static int ecset_read(ecset_t *e, int s, int t, uint64_t off, size_t len,
                      unsigned char *buf, scr_error_t *err)
{
    member_t *x = &e->mem[ec_holder(&e->code, s, t)];
    int slot = ec_symbol_slot(&e->code, s, t);
    if (slot < e->k)
        return io_read_pad_n(&x->cat, buf, len, (uint64_t)slot * e->chunk + off, err);
    off_t at = (off_t)(x->off + (uint64_t)(slot - e->k) * e->chunk + off);
    if (io_pread_full(x->redfd, buf, len, at) != (ssize_t)len)
        return errprintf(err, "redundancy file of rank %d is truncated", x->rank);
    return 0;
}

static int ecset_decode(ecset_t *e, const ec_plan_t *plans, scr_error_t *err)
{
    unsigned char *src = malloc(ECFILE_PIECE), *tmp[32], *acc[32];
    int rc = src ? 0 : errprintf(err, "out of memory");
    for (int x = 0; x < e->m; x++) {
        tmp[x] = malloc(ECFILE_PIECE);
        acc[x] = malloc(ECFILE_PIECE);
        if (!tmp[x] || !acc[x])
            rc = errprintf(err, "out of memory");
    }
    /* progress in bytes of stripe decoded, one chunk per member with targets */
    progress_t prog;
    uint64_t total = 0, done = 0;
    for (int s = 0; s < e->n; s++)
        total += plans[s].ntargets > 0 ? e->chunk : 0;
    progress_begin(&prog, total, "rebuild in %s", e->dsetdir);
    for (int s = 0; rc == 0 && s < e->n; s++) {
        const ec_plan_t *p = &plans[s];
        for (uint64_t off = 0; rc == 0 && p->ntargets > 0 && off < e->chunk;
             off += ECFILE_PIECE) {
            size_t len =
                e->chunk - off < ECFILE_PIECE ? (size_t)(e->chunk - off) : ECFILE_PIECE;
            for (int x = 0; x < p->ntargets; x++)
                memset(acc[x], 0, len);
            for (int u = 0; rc == 0 && u < e->k; u++) {
                rc = ecset_read(e, s, p->chosen[u], off, len, src, err);
                ec_decode_part(p, u, (int)len, src, tmp);
                for (int x = 0; x < p->ntargets; x++)
                    for (size_t b = 0; b < len; b++)
                        acc[x][b] ^= tmp[x][b];
            }
            for (int x = 0; rc == 0 && x < p->ntargets; x++) {
                int t = p->targets[x], slot = ec_symbol_slot(&e->code, s, t);
                member_t *h = &e->mem[ec_holder(&e->code, s, t)];
                if (slot < e->k) /* parity of a lost member is not needed */
                    rc = io_write_pad_n(&h->cat, acc[x], len,
                                        (uint64_t)slot * e->chunk + off, err);
            }
            progress_set(&prog, done += len);
        }
    }
    progress_end(&prog);
    free(src);
    for (int x = 0; x < e->m; x++)
        free(tmp[x]), free(acc[x]);
    return rc;
}

/* ---- RS sets of spread.h: every slice a survivor sent, solved at each
 * survivor for the slices of the lost, decoded at each lost member ---- */

typedef struct {
    int len;
    unsigned char *sl;   /* n x n-1 slots: member's slice u */
    unsigned char *got;  /* n x n-1 slots: a lost member's slice u, solved */
    unsigned char *par;  /* m slots */
    unsigned char *dec;  /* k slots */
    spread_solve_t *sv;  /* per survivor */
    spread_decode_t *dp; /* per lost member, in set order */
} spwork_t;

static unsigned char *sp_slot(const ecset_t *e, unsigned char *buf, int member, int u,
                              int len)
{
    return buf + ((size_t)member * (size_t)(e->n - 1) + (size_t)u) * (size_t)len;
}

/* survivor l's slices of the piece at off */
static int sp_slices(ecset_t *e, spwork_t *w, int l, uint64_t off, int len,
                     scr_error_t *err)
{
    unsigned char *chunks[256], *outs[32];
    for (int q = 0; q < e->k; q++) {
        chunks[q] = sp_slot(e, w->sl, l, q, len);
        if (io_read_pad_n(&e->mem[l].cat, chunks[q], (size_t)len,
                          (uint64_t)q * e->chunk + off, err) < 0)
            return -1;
    }
    for (int x = 0; x < e->m - 1; x++)
        outs[x] = sp_slot(e, w->sl, l, e->k + x, len);
    spread_inner(&e->sp, len, chunks, outs);
    return 0;
}

/* survivor j: the slices the lost members had sent it */
static int sp_solve(ecset_t *e, spwork_t *w, int j, uint64_t off, int len,
                    scr_error_t *err)
{
    const spread_solve_t *sv = &w->sv[j];
    member_t *x = &e->mem[j];
    unsigned char *par[32], *by_d[256], *lost_by_d[256];
    for (int p = 0; p < sv->npar; p++) {
        par[p] = w->par + (size_t)p * (size_t)len;
        off_t at = (off_t)(x->off + (uint64_t)p * e->chunk + off);
        if (io_pread_full(x->redfd, par[p], (size_t)len, at) != (ssize_t)len)
            return errprintf(err, "redundancy file of rank %d is truncated", x->rank);
    }
    for (int d = 1; d < e->n; d++) {
        by_d[d] = sp_slot(e, w->sl, (j + e->n - d) % e->n, d - 1, len);
        lost_by_d[d] = sp_slot(e, w->got, (j + e->n - d) % e->n, d - 1, len);
    }
    spread_solve(sv, len, par, by_d, lost_by_d);
    return 0;
}

/* lost member a: its chunks from the solved slices, written */
static int sp_write(ecset_t *e, spwork_t *w, int a, const spread_decode_t *dp,
                    uint64_t off, int len, scr_error_t *err)
{
    unsigned char *slice[256], *scratch[256], *chunk[256];
    for (int u = 0; u < e->n - 1; u++)
        slice[u] = sp_slot(e, w->got, a, u, len);
    for (int y = 0; y < dp->ntargets; y++)
        scratch[y] = w->dec + (size_t)y * (size_t)len;
    spread_decode(&e->sp, dp, len, slice, scratch, chunk);
    for (int q = 0; q < e->k; q++)
        if (io_write_pad_n(&e->mem[a].cat, chunk[q], (size_t)len,
                           (uint64_t)q * e->chunk + off, err) < 0)
            return -1;
    return 0;
}

static void sp_free(const ecset_t *e, spwork_t *w)
{
    for (int j = 0; w->sv && j < e->n; j++)
        spread_solve_free(&w->sv[j]);
    for (int a = 0; w->dp && a < e->m; a++)
        spread_decode_free(&w->dp[a]);
    free(w->sv);
    free(w->dp);
    free(w->sl);
    free(w->got);
    free(w->par);
    free(w->dec);
}

static int sp_init(const ecset_t *e, spwork_t *w, const int *lost)
{
    /* two n x n-1 slot arrays within 64 MiB */
    size_t per = 2 * (size_t)e->n * (size_t)(e->n - 1), len = ((size_t)64 << 20) / per;
    len = len > ECFILE_PIECE ? ECFILE_PIECE : len < 4096 ? 4096 : len & ~(size_t)63;
    w->len = (int)(e->chunk < len ? e->chunk : len);
    size_t slots = (size_t)e->n * (size_t)(e->n - 1) * (size_t)w->len;
    w->sl = malloc(slots);
    w->got = malloc(slots);
    w->par = malloc((size_t)e->m * (size_t)w->len);
    w->dec = malloc((size_t)e->k * (size_t)w->len);
    w->sv = calloc((size_t)e->n, sizeof(*w->sv));
    w->dp = calloc((size_t)e->m, sizeof(*w->dp));
    if (!w->sl || !w->got || !w->par || !w->dec || !w->sv || !w->dp)
        return -1;
    for (int j = 0, a = 0; j < e->n; j++)
        if (lost[j] ? spread_decode_plan(&e->sp, lost, j, &w->dp[a++])
                    : spread_solve_plan(&e->sp, lost, NULL, j, &w->sv[j]))
            return -1;
    return 0;
}

static int ecset_spread_decode(ecset_t *e, const int *lost, scr_error_t *err)
{
    spwork_t w;
    memset(&w, 0, sizeof(w));
    int rc = sp_init(e, &w, lost) < 0 ? errprintf(err, "out of memory") : 0;
    progress_t prog;
    progress_begin(&prog, e->chunk, "rebuild in %s", e->dsetdir);
    for (uint64_t off = 0; rc == 0 && off < e->chunk; off += (uint64_t)w.len) {
        int len = e->chunk - off < (uint64_t)w.len ? (int)(e->chunk - off) : w.len;
        for (int l = 0; rc == 0 && l < e->n; l++)
            if (!lost[l])
                rc = sp_slices(e, &w, l, off, len, err);
        for (int j = 0; rc == 0 && j < e->n; j++)
            if (!lost[j])
                rc = sp_solve(e, &w, j, off, len, err);
        for (int a = 0, x = 0; rc == 0 && a < e->n; a++)
            if (lost[a])
                rc = sp_write(e, &w, a, &w.dp[x++], off, len, err);
        progress_set(&prog, off + (uint64_t)len);
    }
    progress_end(&prog);
    sp_free(e, &w);
    return rc;
}

/* sync the rebuilt files, check each against its recorded CRC32 and
 * describe the rank for its .scrfilemap */
static int ecset_finish(ecset_t *e, member_t *x, kvtree_t *rebuilt, scr_error_t *err)
{
    kvtree_t *rk = kvtree_setf(rebuilt, NULL, "RANK %d", x->rank);
    kvtree_t *s0 = e->mem[0].lost ? NULL : e->mem[0].hdr;
    for (int s = 0; !s0 && s < e->n; s++)
        if (!e->mem[s].lost)
            s0 = e->mem[s].hdr;
    kvtree_set(rk, "DSETDESC", kvtree_dup(kvtree_get(s0, "DSET")));
    kvtree_util_set_int(rk, "FILES", x->nf);
    for (int f = 0; f < x->nf; f++) {
        const kvtree_t *m = kvtree_getf(x->cur, "FILE %d", f);
        uint32_t crc = 0, want;
        uint64_t size = 0;
        if (fsync(x->fds[f]) < 0)
            return errprintf(err, "fsync %s: %s", x->names[f], strerror(errno));
        if (io_file_crc(x->names[f], &crc, &size, err) < 0)
            return -1;
        if (kvtree_util_get_crc32(m, "CRC", &want) == 0 && want != crc)
            return errprintf(err, "rebuilt %s has CRC32 0x%08x, recorded 0x%08x",
                             x->names[f], crc, want);
        kvtree_setf(rk, kvtree_dup(m), "FILE %s", kvtree_get_val(m, "REL"));
    }
    return 0;
}

int ecfile_rebuild(const char *dsetdir, const kvtree_t *set, kvtree_t *rebuilt,
                   scr_error_t *err)
{
    ecset_t e;
    memset(&e, 0, sizeof(e));
    e.dsetdir = dsetdir;
    int rc = ecset_load(&e, set, err), nlost = 0;
    int lost[256] = {0};
    for (int s = 0; rc == 0 && s < e.n; s++)
        nlost += lost[s] = e.mem[s].lost;
    if (rc == 0 && nlost > e.m)
        rc = errprintf(err, "%d of %d members lost, the set can rebuild %d", nlost, e.n,
                       e.m);
    /* after a failed load e.n is whatever the set claimed: size nothing by it */
    ec_plan_t *plans = rc == 0 ? calloc((size_t)e.n, sizeof(ec_plan_t)) : NULL;
    if (rc == 0 && !plans)
        rc = errprintf(err, "out of memory");
    if (rc == 0 && nlost > 0) {
        if (e.spread)
            rc = ecset_spread_decode(&e, lost, err);
        else if (ec_plan_create(&e.code, lost, plans) < 0)
            rc = errprintf(err, "no decoding plan for the lost members");
        else {
            rc = ecset_decode(&e, plans, err);
            ec_plan_free(&e.code, plans);
        }
        for (int s = 0; rc == 0 && s < e.n; s++)
            if (lost[s])
                rc = ecset_finish(&e, &e.mem[s], rebuilt, err);
    }
    free(plans);
    ecset_free(&e);
    return rc < 0 ? -1 : nlost;
}
