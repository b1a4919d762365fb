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
    ec_code_t code;
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
    e->k = e->n - e->m;
    if (e->m < 1 || e->k < 1 || e->chunk == 0 || !type ||
        ec_code_init(&e->code, e->n, e->m, strcmp(type, "XOR") == 0) < 0)
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
        if (ec_plan_create(&e.code, lost, plans) < 0)
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
