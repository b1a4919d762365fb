/* SPDX-License-Identifier: BSD-3-Clause */
/* kvtree.c - the tree itself: elements, lookup, merge, sort */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kvtree.h"

/* the key lives in the element's own allocation: one malloc and one free
 * per element, which is most of a large tree's cost (bench/README.md) */
struct kvtree_elem {
    kvtree_t *tree;
    kvtree_elem_t *next;
    kvtree_elem_t *prev;
    char key[];
};

/* Trees with many keys (filemaps of many files, exchange results, rank2file
 * maps) get an open-addressing index over their elements, so lookups stay
 * O(1) and merges linear.  Small trees stay plain lists. */
#define KVTREE_INDEX_MIN 32

struct kvtree {
    kvtree_elem_t *head;
    kvtree_elem_t *tail;
    int count;
    kvtree_elem_t **slots; /* NULL: no index */
    size_t nslots;         /* power of two */
    size_t used;           /* live + tombstones */
};

static kvtree_elem_t kvtree_tombstone;

kvtree_t *kvtree_new(void)
{
    return calloc(1, sizeof(kvtree_t));
}

static size_t kvtree_hash(const char *key)
{
    size_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

static void kvtree_index_drop(kvtree_t *t)
{
    free(t->slots);
    t->slots = NULL;
    t->nslots = t->used = 0;
}

static void kvtree_index_put(kvtree_t *t, kvtree_elem_t *e)
{
    size_t mask = t->nslots - 1, i = kvtree_hash(e->key) & mask;
    while (t->slots[i] && t->slots[i] != &kvtree_tombstone)
        i = (i + 1) & mask;
    if (!t->slots[i])
        t->used++;
    t->slots[i] = e;
}

/* (re)build the index with room for twice the elements */
static void kvtree_index_build(kvtree_t *t)
{
    size_t n = 64;
    while (n < (size_t)t->count * 2 + 2)
        n *= 2;
    kvtree_index_drop(t);
    if (!(t->slots = calloc(n, sizeof(*t->slots))))
        return; /* without memory for an index, lookups stay linear */
    t->nslots = n;
    for (kvtree_elem_t *e = t->head; e; e = e->next)
        kvtree_index_put(t, e);
}

static kvtree_elem_t **kvtree_index_slot(const kvtree_t *t, const char *key)
{
    size_t mask = t->nslots - 1, i = kvtree_hash(key) & mask;
    while (t->slots[i]) {
        if (t->slots[i] != &kvtree_tombstone && strcmp(t->slots[i]->key, key) == 0)
            return &t->slots[i];
        i = (i + 1) & mask;
    }
    return NULL;
}

static void kvtree_elem_free(kvtree_elem_t *e)
{
    kvtree_delete(&e->tree);
    free(e);
}

void kvtree_clear(kvtree_t *t)
{
    if (!t)
        return;
    kvtree_elem_t *e = t->head;
    while (e) {
        kvtree_elem_t *next = e->next;
        kvtree_elem_free(e);
        e = next;
    }
    t->head = t->tail = NULL;
    t->count = 0;
    kvtree_index_drop(t);
}

void kvtree_delete(kvtree_t **t)
{
    if (t && *t) {
        kvtree_clear(*t);
        free(*t);
        *t = NULL;
    }
}

int kvtree_size(const kvtree_t *t)
{
    return t ? t->count : 0;
}

static kvtree_elem_t *kvtree_find(const kvtree_t *t, const char *key)
{
    if (!t || !key)
        return NULL;
    if (t->slots) {
        kvtree_elem_t **slot = kvtree_index_slot(t, key);
        return slot ? *slot : NULL;
    }
    for (kvtree_elem_t *e = t->head; e; e = e->next) {
        if (strcmp(e->key, key) == 0)
            return e;
    }
    return NULL;
}

static void kvtree_unlink(kvtree_t *t, kvtree_elem_t *e)
{
    if (t->slots) {
        kvtree_elem_t **slot = kvtree_index_slot(t, e->key);
        if (slot)
            *slot = &kvtree_tombstone;
    }
    if (e->prev)
        e->prev->next = e->next;
    else
        t->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        t->tail = e->prev;
    e->next = e->prev = NULL;
    t->count--;
}

static void kvtree_append(kvtree_t *t, kvtree_elem_t *e)
{
    e->prev = t->tail;
    e->next = NULL;
    if (t->tail)
        t->tail->next = e;
    else
        t->head = e;
    t->tail = e;
    t->count++;
    if (t->slots && (t->used + 1) * 10 < t->nslots * 7)
        kvtree_index_put(t, e);
    else if (t->count >= KVTREE_INDEX_MIN)
        kvtree_index_build(t);
}

kvtree_t *kvtree_set(kvtree_t *t, const char *key, kvtree_t *sub)
{
    if (!t || !key) {
        kvtree_delete(&sub);
        errno = EINVAL;
        return NULL;
    }
    if (!sub && !(sub = kvtree_new()))
        return NULL;
    kvtree_elem_t *e = kvtree_find(t, key);
    if (e) {
        if (e->tree != sub)
            kvtree_delete(&e->tree);
        e->tree = sub;
        return sub;
    }
    size_t len = strlen(key) + 1;
    if (!(e = malloc(sizeof(*e) + len))) {
        kvtree_delete(&sub);
        return NULL;
    }
    memcpy(e->key, key, len);
    e->next = e->prev = NULL;
    e->tree = sub;
    kvtree_append(t, e);
    return sub;
}

kvtree_t *kvtree_get(const kvtree_t *t, const char *key)
{
    kvtree_elem_t *e = kvtree_find(t, key);
    return e ? e->tree : NULL;
}

kvtree_t *kvtree_extract(kvtree_t *t, const char *key)
{
    kvtree_elem_t *e = kvtree_find(t, key);
    if (!e)
        return NULL;
    kvtree_unlink(t, e);
    kvtree_t *sub = e->tree;
    e->tree = NULL;
    kvtree_elem_free(e);
    return sub;
}

int kvtree_unset(kvtree_t *t, const char *key)
{
    kvtree_t *sub = kvtree_extract(t, key);
    kvtree_delete(&sub);
    return 0;
}

kvtree_t *kvtree_dup(const kvtree_t *t)
{
    kvtree_t *d = kvtree_new();
    if (d && t && kvtree_merge(d, t) < 0)
        kvtree_delete(&d);
    return d;
}

int kvtree_merge(kvtree_t *dst, const kvtree_t *src)
{
    if (!dst)
        return -1;
    for (kvtree_elem_t *e = src ? src->head : NULL; e; e = e->next) {
        kvtree_t *sub = kvtree_get(dst, e->key);
        if (!sub && !(sub = kvtree_set(dst, e->key, NULL)))
            return -1;
        if (kvtree_merge(sub, e->tree) < 0)
            return -1;
    }
    return 0;
}

int kvtree_equal(const kvtree_t *a, const kvtree_t *b)
{
    if (kvtree_size(a) != kvtree_size(b))
        return 0;
    for (kvtree_elem_t *e = a ? a->head : NULL; e; e = e->next) {
        kvtree_t *other = kvtree_get(b, e->key);
        if (!other || !kvtree_equal(e->tree, other))
            return 0;
    }
    return 1;
}

kvtree_elem_t *kvtree_first(const kvtree_t *t)
{
    return t ? t->head : NULL;
}

kvtree_elem_t *kvtree_elem_next(const kvtree_elem_t *e)
{
    return e ? e->next : NULL;
}

const char *kvtree_elem_key(const kvtree_elem_t *e)
{
    return e ? e->key : NULL;
}

kvtree_t *kvtree_elem_tree(const kvtree_elem_t *e)
{
    return e ? e->tree : NULL;
}

static int kvtree_parse_int(const char *s, int *val)
{
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < INT_MIN || v > INT_MAX)
        return -1;
    *val = (int)v;
    return 0;
}

int kvtree_elem_key_int(const kvtree_elem_t *e, int *val)
{
    return e ? kvtree_parse_int(e->key, val) : -1;
}

/* sort by relinking the elements in the order of an array */
static int kvtree_sort_by(kvtree_t *t, int (*cmp)(const void *, const void *))
{
    if (!t || t->count < 2)
        return 0;
    kvtree_elem_t **v = malloc(sizeof(*v) * (size_t)t->count);
    if (!v)
        return -1;
    int n = 0;
    for (kvtree_elem_t *e = t->head; e; e = e->next)
        v[n++] = e;
    qsort(v, (size_t)n, sizeof(*v), cmp);
    kvtree_index_drop(t);
    t->head = t->tail = NULL;
    t->count = 0;
    for (int i = 0; i < n; i++)
        kvtree_append(t, v[i]);
    free(v);
    return 0;
}

static int cmp_str_asc(const void *a, const void *b)
{
    return strcmp((*(kvtree_elem_t *const *)a)->key, (*(kvtree_elem_t *const *)b)->key);
}

static int cmp_str_desc(const void *a, const void *b)
{
    return -cmp_str_asc(a, b);
}

static int cmp_int_asc(const void *a, const void *b)
{
    int x, y;
    int xi = kvtree_parse_int((*(kvtree_elem_t *const *)a)->key, &x) == 0;
    int yi = kvtree_parse_int((*(kvtree_elem_t *const *)b)->key, &y) == 0;
    if (xi != yi)
        return xi ? -1 : 1; /* integers before non-integers */
    if (!xi)
        return cmp_str_asc(a, b);
    return (x > y) - (x < y);
}

static int cmp_int_desc(const void *a, const void *b)
{
    int x, y;
    int xi = kvtree_parse_int((*(kvtree_elem_t *const *)a)->key, &x) == 0;
    int yi = kvtree_parse_int((*(kvtree_elem_t *const *)b)->key, &y) == 0;
    if (xi != yi || !xi)
        return cmp_int_asc(a, b);
    return (x < y) - (x > y);
}

int kvtree_sort(kvtree_t *t, int direction)
{
    return kvtree_sort_by(t, direction == KVTREE_SORT_DESCENDING ? cmp_str_desc
                                                                 : cmp_str_asc);
}

int kvtree_sort_int(kvtree_t *t, int direction)
{
    return kvtree_sort_by(t, direction == KVTREE_SORT_DESCENDING ? cmp_int_desc
                                                                 : cmp_int_asc);
}

static int cmp_intval(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int kvtree_list_int(const kvtree_t *t, int *count, int **list)
{
    int n = kvtree_size(t);
    int *v = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!v)
        return -1;
    int i = 0;
    for (kvtree_elem_t *e = kvtree_first(t); e; e = e->next) {
        if (kvtree_parse_int(e->key, &v[i++]) < 0) {
            free(v);
            errno = EINVAL;
            return -1;
        }
    }
    qsort(v, (size_t)n, sizeof(int), cmp_intval);
    *count = n;
    *list = v;
    return 0;
}
