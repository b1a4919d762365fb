/* SPDX-License-Identifier: BSD-3-Clause */
/* nodelist.c - expand and compress Slurm-style host lists */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodelist.h"

struct nodelist {
    int n;
    int cap;
    char **hosts;
};

nodelist_t *nodelist_new(void)
{
    return calloc(1, sizeof(nodelist_t));
}

void nodelist_delete(nodelist_t **hl)
{
    if (hl && *hl) {
        for (int i = 0; i < (*hl)->n; i++)
            free((*hl)->hosts[i]);
        free((*hl)->hosts);
        free(*hl);
        *hl = NULL;
    }
}

int nodelist_append(nodelist_t *hl, const char *host)
{
    if (hl->n >= NODELIST_MAX_HOSTS) {
        errno = E2BIG;
        return -1;
    }
    if (hl->n == hl->cap) {
        int cap = hl->cap ? hl->cap * 2 : 16;
        char **h = realloc(hl->hosts, sizeof(char *) * (size_t)cap);
        if (!h)
            return -1;
        hl->hosts = h;
        hl->cap = cap;
    }
    if (!(hl->hosts[hl->n] = strdup(host)))
        return -1;
    hl->n++;
    return 0;
}

int nodelist_count(const nodelist_t *hl)
{
    return hl ? hl->n : 0;
}

const char *nodelist_nth(const nodelist_t *hl, int i)
{
    return hl && i >= 0 && i < hl->n ? hl->hosts[i] : NULL;
}

int nodelist_find(const nodelist_t *hl, const char *host)
{
    for (int i = 0; hl && i < hl->n; i++) {
        if (strcmp(hl->hosts[i], host) == 0)
            return i;
    }
    return -1;
}

/* Expand "prefix[ranges]rest" recursively into hl. */
static int expand_word(nodelist_t *hl, const char *done, const char *word,
                       scr_error_t *err);

static int expand_range(nodelist_t *hl, const char *done, const char *range, size_t rlen,
                        const char *rest, scr_error_t *err)
{
    char buf[64];
    if (rlen == 0 || rlen >= sizeof(buf))
        return errprintf(err, "bad range '%.*s'", (int)rlen, range);
    memcpy(buf, range, rlen);
    buf[rlen] = '\0';
    char *dash = strchr(buf, '-');
    const char *hi_s = dash ? dash + 1 : buf;
    if (dash)
        *dash = '\0';
    for (const char *c = buf; *c; c++)
        if (!isdigit((unsigned char)*c))
            return errprintf(err, "bad range '%.*s'", (int)rlen, range);
    for (const char *c = hi_s; *c; c++)
        if (!isdigit((unsigned char)*c))
            return errprintf(err, "bad range '%.*s'", (int)rlen, range);
    if (!*buf || !*hi_s || strlen(buf) > 9 || strlen(hi_s) > 9)
        return errprintf(err, "bad range '%.*s'", (int)rlen, range);
    long lo = atol(buf), hi = atol(hi_s);
    int width = buf[0] == '0' && strlen(buf) > 1 ? (int)strlen(buf) : 0;
    if (hi < lo)
        return errprintf(err, "bad range '%.*s': end before start", (int)rlen, range);
    if (hi - lo >= NODELIST_MAX_HOSTS)
        return errprintf(err, "range '%.*s' is too large", (int)rlen, range);
    size_t dlen = strlen(done);
    for (long i = lo; i <= hi; i++) {
        char *next = malloc(dlen + 16);
        if (!next)
            return errprintf(err, "out of memory");
        snprintf(next, dlen + 16, "%s%0*ld", done, width, i);
        int rc = expand_word(hl, next, rest, err);
        free(next);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int expand_word(nodelist_t *hl, const char *done, const char *word,
                       scr_error_t *err)
{
    const char *open = strchr(word, '[');
    if (!open) {
        if (strchr(word, ']'))
            return errprintf(err, "unbalanced ']' in '%s'", word);
        size_t len = strlen(done) + strlen(word);
        char *host = malloc(len + 1);
        if (!host)
            return errprintf(err, "out of memory");
        snprintf(host, len + 1, "%s%s", done, word);
        int rc = nodelist_append(hl, host);
        free(host);
        return rc < 0 ? errprintf(err, "too many hosts (limit %d)", NODELIST_MAX_HOSTS)
                      : 0;
    }
    const char *close = strchr(open, ']');
    if (!close || memchr(open + 1, '[', (size_t)(close - open - 1)))
        return errprintf(err, "unbalanced '[' in '%s'", word);
    if (memchr(word, ']', (size_t)(open - word)))
        return errprintf(err, "unbalanced ']' in '%s'", word);
    size_t plen = (size_t)(open - word);
    char *prefix = malloc(strlen(done) + plen + 1);
    if (!prefix)
        return errprintf(err, "out of memory");
    sprintf(prefix, "%s%.*s", done, (int)plen, word);
    int rc = 0;
    const char *r = open + 1;
    while (rc == 0 && r < close) {
        const char *comma = memchr(r, ',', (size_t)(close - r));
        const char *end = comma ? comma : close;
        rc = expand_range(hl, prefix, r, (size_t)(end - r), close + 1, err);
        r = end + 1;
    }
    if (rc == 0 && open + 1 == close)
        rc = errprintf(err, "empty brackets in '%s'", word);
    free(prefix);
    return rc;
}

int nodelist_expand(nodelist_t *hl, const char *str, scr_error_t *err)
{
    if (!hl || !str)
        return errprintf(err, "no host list");
    char *copy = strdup(str);
    if (!copy)
        return errprintf(err, "out of memory");
    int rc = 0, depth = 0;
    char *word = copy;
    /* split at commas and spaces outside brackets */
    for (char *c = copy;; c++) {
        if (*c == '[')
            depth++;
        else if (*c == ']' && --depth < 0) {
            rc = errprintf(err, "unbalanced ']'");
            break;
        }
        if (*c == '\0' || (depth == 0 && (*c == ',' || isspace((unsigned char)*c)))) {
            int last = *c == '\0';
            *c = '\0';
            if (*word && (rc = expand_word(hl, "", word, err)) < 0)
                break;
            if (last)
                break;
            word = c + 1;
        }
    }
    if (rc < 0) {
        char text[sizeof(err->text)];
        snprintf(text, sizeof(text), "%s", err ? err->text : "");
        rc = errprintf(err, "bad host list '%s': %s", str, text);
    }
    free(copy);
    return rc;
}

nodelist_t *nodelist_from_str(const char *str, scr_error_t *err)
{
    nodelist_t *hl = nodelist_new();
    if (hl && nodelist_expand(hl, str, err) < 0)
        nodelist_delete(&hl);
    return hl;
}

/* split a host name into a prefix and a trailing number */
static void host_split(const char *h, size_t *plen, long *num, int *width)
{
    size_t len = strlen(h), i = len;
    while (i > 0 && isdigit((unsigned char)h[i - 1]) && len - i < 9)
        i--;
    *plen = i;
    *width = (int)(len - i);
    *num = *width ? atol(h + i) : -1;
}

static int host_cmp(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t px, py;
    long nx, ny;
    int wx, wy;
    host_split(x, &px, &nx, &wx);
    host_split(y, &py, &ny, &wy);
    size_t pm = px < py ? px : py;
    int c = strncmp(x, y, pm);
    if (c != 0 || px != py)
        return c != 0 ? c : (px < py ? -1 : 1);
    if (wx != wy && (x[px] == '0' || y[py] == '0'))
        return wx < wy ? -1 : 1;
    return (nx > ny) - (nx < ny);
}

void nodelist_uniq(nodelist_t *hl)
{
    if (!hl || hl->n < 2)
        return;
    qsort(hl->hosts, (size_t)hl->n, sizeof(char *), host_cmp);
    int out = 1;
    for (int i = 1; i < hl->n; i++) {
        if (strcmp(hl->hosts[i], hl->hosts[out - 1]) == 0)
            free(hl->hosts[i]);
        else
            hl->hosts[out++] = hl->hosts[i];
    }
    hl->n = out;
}

/* append text to a growing string */
static int str_add(char **s, size_t *len, size_t *cap, const char *text)
{
    size_t t = strlen(text);
    if (*len + t + 1 > *cap) {
        size_t c = *cap ? *cap : 64;
        while (*len + t + 1 > c)
            c *= 2;
        char *n = realloc(*s, c);
        if (!n)
            return -1;
        *s = n;
        *cap = c;
    }
    memcpy(*s + *len, text, t + 1);
    *len += t;
    return 0;
}

/* hosts [i, j) share prefix and width: emit "prefix[a-b,c]" */
static int compress_group(char **s, size_t *len, size_t *cap, char **hosts, int i, int j)
{
    size_t plen;
    long num;
    int width;
    host_split(hosts[i], &plen, &num, &width);
    char buf[64];
    if (j - i == 1)
        return str_add(s, len, cap, hosts[i]);
    char *prefix = strndup(hosts[i], plen);
    if (!prefix)
        return -1;
    int rc = str_add(s, len, cap, prefix) | str_add(s, len, cap, "[");
    free(prefix);
    for (int k = i; k < j && rc == 0;) {
        long lo, hi;
        host_split(hosts[k], &plen, &lo, &width);
        /* pad to the width of the run's first number when it is padded */
        int zw = hosts[k][plen] == '0' ? width : 0;
        int m = k + 1;
        hi = lo;
        while (m < j) {
            long nx;
            int w;
            host_split(hosts[m], &plen, &nx, &w);
            if (nx != hi + 1)
                break;
            hi = nx;
            m++;
        }
        if (hi > lo)
            snprintf(buf, sizeof(buf), "%s%0*ld-%0*ld", k > i ? "," : "", zw, lo, zw, hi);
        else
            snprintf(buf, sizeof(buf), "%s%0*ld", k > i ? "," : "", zw, lo);
        rc = str_add(s, len, cap, buf);
        k = m;
    }
    return rc ? rc : str_add(s, len, cap, "]");
}

static int same_group(const char *a, const char *b)
{
    size_t pa, pb;
    long na, nb;
    int wa, wb;
    host_split(a, &pa, &na, &wa);
    host_split(b, &pb, &nb, &wb);
    if (wa == 0 || wb == 0 || pa != pb || strncmp(a, b, pa) != 0)
        return 0;
    /* zero-padded numbers group only with numbers of the same width */
    int za = a[pa] == '0' && wa > 1, zb = b[pb] == '0' && wb > 1;
    return (za || zb) ? wa == wb : 1;
}

char *nodelist_compress(const nodelist_t *hl)
{
    nodelist_t *h = nodelist_new();
    char *s = NULL;
    size_t len = 0, cap = 0;
    for (int i = 0; h && hl && i < hl->n; i++) {
        if (nodelist_append(h, hl->hosts[i]) < 0)
            goto out;
    }
    nodelist_uniq(h);
    if (str_add(&s, &len, &cap, "") < 0)
        goto out;
    for (int i = 0; h && i < h->n;) {
        int j = i + 1;
        while (j < h->n && same_group(h->hosts[i], h->hosts[j]))
            j++;
        if ((i > 0 && str_add(&s, &len, &cap, ",") < 0) ||
            compress_group(&s, &len, &cap, h->hosts, i, j) < 0) {
            free(s);
            s = NULL;
            goto out;
        }
        i = j;
    }
out:
    nodelist_delete(&h);
    return s;
}

typedef struct {
    const char *name;
    int pos;
} name_ref_t;

static int name_ref_cmp(const void *a, const void *b)
{
    const name_ref_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

static int str_ptr_cmp(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* which hosts of a come first in a (no earlier duplicate): first[i] */
static int nodelist_firsts(const nodelist_t *a, int n, char *first)
{
    name_ref_t *v = malloc(sizeof(*v) * (size_t)(n > 0 ? n : 1));
    if (!v)
        return -1;
    for (int i = 0; i < n; i++)
        v[i] = (name_ref_t){a->hosts[i], i};
    qsort(v, (size_t)n, sizeof(*v), name_ref_cmp);
    for (int i = 0; i < n; i++)
        first[v[i].pos] = i == 0 || strcmp(v[i].name, v[i - 1].name) != 0;
    free(v);
    return 0;
}

/* The hosts of a, in a's order and once each, that are in b (keep_in_b)
 * or are not.  scr run and every epilog compare lists of all the job's
 * nodes: a search of b per host was quadratic (bench/scr-model: 116 s of
 * one core per epilog at 125,000 nodes), sorted lookups are not. */
static nodelist_t *nodelist_filter(const nodelist_t *a, const nodelist_t *b,
                                   int keep_in_b)
{
    int na = nodelist_count(a), nb = nodelist_count(b);
    nodelist_t *r = nodelist_new();
    char **sb = malloc(sizeof(char *) * (size_t)(nb > 0 ? nb : 1));
    char *first = malloc((size_t)(na > 0 ? na : 1));
    if (!r || !sb || !first || nodelist_firsts(a, na, first) < 0) {
        nodelist_delete(&r);
        na = nb = 0;
    }
    for (int i = 0; i < nb; i++)
        sb[i] = b->hosts[i];
    if (nb > 0)
        qsort(sb, (size_t)nb, sizeof(char *), str_ptr_cmp);
    for (int i = 0; r && i < na; i++) {
        int in_b = nb > 0 && bsearch(&a->hosts[i], sb, (size_t)nb, sizeof(char *),
                                     str_ptr_cmp) != NULL;
        if (first[i] && in_b == keep_in_b && nodelist_append(r, a->hosts[i]) < 0)
            nodelist_delete(&r);
    }
    free(sb);
    free(first);
    return r;
}

nodelist_t *nodelist_minus(const nodelist_t *a, const nodelist_t *b)
{
    return nodelist_filter(a, b, 0);
}

nodelist_t *nodelist_intersect(const nodelist_t *a, const nodelist_t *b)
{
    return nodelist_filter(a, b, 1);
}

int names_index(const char *names, int n, size_t width, int *idx)
{
    name_ref_t *v = malloc(sizeof(*v) * (size_t)(n > 0 ? n : 1));
    int *first = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!v || !first) {
        free(v);
        free(first);
        return -1;
    }
    for (int i = 0; i < n; i++)
        v[i] = (name_ref_t){names + (size_t)i * width, i};
    qsort(v, (size_t)n, sizeof(*v), name_ref_cmp);
    /* each name's first position, then number names by first positions */
    for (int i = 0; i < n; i++)
        first[v[i].pos] = i > 0 && strcmp(v[i].name, v[i - 1].name) == 0
                              ? first[v[i - 1].pos]
                              : v[i].pos;
    int distinct = 0;
    for (int i = 0; i < n; i++)
        idx[i] = first[i] == i ? distinct++ : idx[first[i]];
    free(v);
    free(first);
    return distinct;
}
