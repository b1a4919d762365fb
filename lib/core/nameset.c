/* SPDX-License-Identifier: BSD-3-Clause */
/* nameset.c - file names routed to the rank that judges them */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nameset.h"

int nameset_owner(const char *rel, int ranks)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)rel; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (int)(h % (uint64_t)ranks);
}

void nameset_route(kvtree_t *send, const kvtree_t *names, const char *tag, int ranks)
{
    for (kvtree_elem_t *e = kvtree_first(names); e; e = kvtree_elem_next(e))
        kvtree_setf(send, NULL, "%d %s %s", nameset_owner(kvtree_elem_key(e), ranks), tag,
                    kvtree_elem_key(e));
}

void nameset_route_entries(kvtree_t *send, const kvtree_t *entries, int ranks)
{
    for (kvtree_elem_t *e = kvtree_first(entries); e; e = kvtree_elem_next(e))
        kvtree_setf(send, kvtree_dup(kvtree_elem_tree(e)), "%d %s",
                    nameset_owner(kvtree_elem_key(e), ranks), kvtree_elem_key(e));
}

int nameset_meets(const kvtree_t *got, const char *own, const char *tag)
{
    kvtree_t *mine = kvtree_get(got, own);
    for (kvtree_elem_t *e = kvtree_first(kvtree_get(got, tag)); e;
         e = kvtree_elem_next(e))
        if (kvtree_get(mine, kvtree_elem_key(e)))
            return 1;
    return 0;
}

typedef struct {
    int owner, tag;
    const char *name;
    size_t len; /* with the NUL */
} nameset_rec_t;

static int nameset_rec_cmp(const void *a, const void *b)
{
    const nameset_rec_t *x = a, *y = b;
    return (x->owner > y->owner) - (x->owner < y->owner);
}

/* every name of every set, with its judge, sorted by judge */
static nameset_rec_t *nameset_records(const kvtree_t *const *sets, int k, int ranks,
                                      size_t *n)
{
    size_t total = 0, i = 0;
    for (int t = 0; t < k; t++)
        total += (size_t)kvtree_size(sets[t]);
    nameset_rec_t *r = malloc(sizeof(*r) * (total ? total : 1));
    for (int t = 0; r && t < k; t++)
        for (kvtree_elem_t *e = kvtree_first(sets[t]); e; e = kvtree_elem_next(e)) {
            const char *name = kvtree_elem_key(e);
            r[i++] =
                (nameset_rec_t){nameset_owner(name, ranks), t, name, strlen(name) + 1};
        }
    if (r)
        qsort(r, total, sizeof(*r), nameset_rec_cmp);
    *n = total;
    return r;
}

void nameset_out_free(nameset_out_t *out)
{
    free(out->dest);
    free(out->len);
    free(out->buf);
    free(out->all);
    memset(out, 0, sizeof(*out));
}

int nameset_pack(const kvtree_t *const *sets, int k, int ranks, nameset_out_t *out)
{
    size_t n, bytes = 0, judges = 0;
    memset(out, 0, sizeof(*out));
    nameset_rec_t *r = nameset_records(sets, k, ranks, &n);
    for (size_t i = 0; r && i < n; i++) {
        bytes += 4 + r[i].len;
        judges += i == 0 || r[i].owner != r[i - 1].owner;
    }
    out->dest = malloc(sizeof(int) * (judges + 1));
    out->len = malloc(sizeof(int) * (judges + 1));
    out->buf = malloc(sizeof(char *) * (judges + 1));
    out->all = malloc(bytes + 1);
    if (!r || !out->dest || !out->len || !out->buf || !out->all) {
        free(r);
        nameset_out_free(out);
        return -1;
    }
    char *p = out->all;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || r[i].owner != r[i - 1].owner) {
            out->dest[out->n] = r[i].owner;
            out->buf[out->n] = p;
            out->len[out->n++] = 0;
        }
        int32_t tag = r[i].tag;
        memcpy(p, &tag, 4);
        memcpy(p + 4, r[i].name, r[i].len);
        p += 4 + r[i].len;
        size_t now = (size_t)(p - out->buf[out->n - 1]);
        if (now > 0x7fffffff) {
            free(r);
            nameset_out_free(out);
            return -1;
        }
        out->len[out->n - 1] = (int)now;
    }
    free(r);
    return 0;
}

int nameset_take(nameset_in_t *in, const char *buf, size_t len)
{
    if (in->len + len > in->cap) {
        size_t cap = (in->cap ? in->cap * 2 : 4096) + len;
        char *b = realloc(in->buf, cap);
        if (!b)
            return -1;
        in->buf = b;
        in->cap = cap;
    }
    memcpy(in->buf + in->len, buf, len);
    in->len += len;
    return 0;
}

static int nameset_str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* the records of in, in turn: 1 with *tag and *name set, 0 at the end, -1
 * on a malformed one */
static int nameset_next(const nameset_in_t *in, size_t *at, int32_t *tag,
                        const char **name)
{
    if (*at >= in->len)
        return 0;
    const char *p = in->buf + *at, *nul;
    if (in->len - *at < 5 || !(nul = memchr(p + 4, '\0', in->len - *at - 4)))
        return -1;
    memcpy(tag, p, 4);
    *name = p + 4;
    *at = (size_t)(nul + 1 - in->buf);
    return 1;
}

int nameset_judge(const nameset_in_t *in, int k, int *hit)
{
    size_t at = 0, own = 0;
    int32_t tag;
    const char *name;
    int rc;
    for (int t = 1; t < k; t++)
        hit[t - 1] = 0;
    /* a record takes 5 bytes at the least */
    const char **mine = malloc(sizeof(char *) * (in->len / 5 + 1));
    if (!mine)
        return -1;
    while ((rc = nameset_next(in, &at, &tag, &name)) > 0)
        if (tag == 0)
            mine[own++] = name;
    if (rc < 0) {
        free(mine);
        return -1;
    }
    qsort(mine, own, sizeof(char *), nameset_str_cmp);
    for (at = 0; nameset_next(in, &at, &tag, &name) > 0;)
        if (tag > 0 && tag < k && !hit[tag - 1] &&
            bsearch(&name, mine, own, sizeof(char *), nameset_str_cmp))
            hit[tag - 1] = 1;
    free(mine);
    return 0;
}

void nameset_in_free(nameset_in_t *in)
{
    free(in->buf);
    memset(in, 0, sizeof(*in));
}
