/* SPDX-License-Identifier: BSD-3-Clause */
/* path.c - path component lists */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path.h"

struct path {
    int n;
    int cap;
    char **comp;
};

path_t *path_new(void)
{
    return calloc(1, sizeof(path_t));
}

void path_delete(path_t **p)
{
    if (p && *p) {
        for (int i = 0; i < (*p)->n; i++)
            free((*p)->comp[i]);
        free((*p)->comp);
        free(*p);
        *p = NULL;
    }
}

static int path_reserve(path_t *p, int extra)
{
    if (p->n + extra <= p->cap)
        return 0;
    int cap = p->cap ? p->cap : 8;
    while (cap < p->n + extra)
        cap *= 2;
    char **c = realloc(p->comp, sizeof(char *) * (size_t)cap);
    if (!c)
        return -1;
    p->comp = c;
    p->cap = cap;
    return 0;
}

/* insert copies of strs[0..count) at offset */
static int path_insert_strs(path_t *p, int offset, char *const *strs, int count)
{
    if (offset < 0 || offset > p->n || path_reserve(p, count) < 0)
        return -1;
    char **copies = malloc(sizeof(char *) * (size_t)(count ? count : 1));
    if (!copies)
        return -1;
    for (int i = 0; i < count; i++) {
        if (!(copies[i] = strdup(strs[i]))) {
            while (i-- > 0)
                free(copies[i]);
            free(copies);
            return -1;
        }
    }
    memmove(p->comp + offset + count, p->comp + offset,
            sizeof(char *) * (size_t)(p->n - offset));
    memcpy(p->comp + offset, copies, sizeof(char *) * (size_t)count);
    p->n += count;
    free(copies);
    return 0;
}

/* split str at '/' and insert the pieces at offset */
static int path_insert_str(path_t *p, int offset, const char *str)
{
    if (!str || !*str)
        return 0;
    path_t *tmp = path_new();
    char *copy = strdup(str);
    int rc = -1;
    if (tmp && copy) {
        rc = 0;
        char *s = copy;
        for (;;) {
            char *slash = strchr(s, '/');
            if (slash)
                *slash = '\0';
            if (path_insert_strs(tmp, tmp->n, &s, 1) < 0) {
                rc = -1;
                break;
            }
            if (!slash)
                break;
            s = slash + 1;
        }
        if (rc == 0)
            rc = path_insert(p, offset, tmp);
    }
    free(copy);
    path_delete(&tmp);
    return rc;
}

path_t *path_from_str(const char *str)
{
    path_t *p = path_new();
    if (p && path_insert_str(p, 0, str) < 0)
        path_delete(&p);
    return p;
}

/* append a formatted string at the end of p (pieces split on '/') */
static int path_append_vstrf(path_t *p, const char *fmt, va_list ap)
{
    char *s = NULL;
    if (!p || vasprintf(&s, fmt, ap) < 0)
        return -1;
    int rc = path_insert_str(p, p->n, s);
    free(s);
    return rc;
}

path_t *path_from_strf(const char *fmt, ...)
{
    path_t *p = path_new();
    va_list ap;
    va_start(ap, fmt);
    if (path_append_vstrf(p, fmt, ap) < 0)
        path_delete(&p);
    va_end(ap);
    return p;
}

path_t *path_dup(const path_t *p)
{
    path_t *d = path_new();
    if (d && p && path_append(d, p) < 0)
        path_delete(&d);
    return d;
}

int path_components(const path_t *p)
{
    return p ? p->n : 0;
}

int path_is_null(const path_t *p)
{
    return path_components(p) == 0;
}

int path_is_absolute(const path_t *p)
{
    return p && p->n > 0 && p->comp[0][0] == '\0';
}

const char *path_component(const path_t *p, int i)
{
    return p && i >= 0 && i < p->n ? p->comp[i] : NULL;
}

size_t path_strlen(const path_t *p)
{
    size_t len = 0;
    for (int i = 0; p && i < p->n; i++)
        len += strlen(p->comp[i]) + (i > 0);
    /* "/" alone is one empty component */
    if (p && p->n == 1 && p->comp[0][0] == '\0')
        len = 1;
    return len;
}

char *path_strdup(const path_t *p)
{
    size_t len = path_strlen(p);
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    if (p && p->n == 1 && p->comp[0][0] == '\0') {
        strcpy(s, "/");
        return s;
    }
    char *q = s;
    for (int i = 0; p && i < p->n; i++) {
        if (i > 0)
            *q++ = '/';
        size_t l = strlen(p->comp[i]);
        memcpy(q, p->comp[i], l);
        q += l;
    }
    *q = '\0';
    return s;
}

int path_insert(path_t *p, int offset, const path_t *p2)
{
    if (!p)
        return -1;
    if (!p2 || p2->n == 0)
        return 0;
    return path_insert_strs(p, offset, p2->comp, p2->n);
}

int path_prepend(path_t *p, const path_t *p2)
{
    return path_insert(p, 0, p2);
}

int path_append(path_t *p, const path_t *p2)
{
    return p ? path_insert(p, p->n, p2) : -1;
}

int path_append_str(path_t *p, const char *str)
{
    return p ? path_insert_str(p, p->n, str) : -1;
}

int path_append_strf(path_t *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = path_append_vstrf(p, fmt, ap);
    va_end(ap);
    return rc;
}

int path_prepend_str(path_t *p, const char *str)
{
    return p ? path_insert_str(p, 0, str) : -1;
}

/* normalize (offset, length) into a range [start, end) of p */
static void path_range(const path_t *p, int offset, int length, int *start, int *end)
{
    int s = offset < 0 ? p->n + offset : offset;
    if (s < 0)
        s = 0;
    if (s > p->n)
        s = p->n;
    int e = length < 0 ? p->n : s + length;
    if (e > p->n)
        e = p->n;
    *start = s;
    *end = e;
}

int path_slice(path_t *p, int offset, int length)
{
    if (!p)
        return -1;
    int s, e;
    path_range(p, offset, length, &s, &e);
    for (int i = 0; i < p->n; i++) {
        if (i < s || i >= e)
            free(p->comp[i]);
    }
    memmove(p->comp, p->comp + s, sizeof(char *) * (size_t)(e - s));
    p->n = e - s;
    return 0;
}

int path_dirname(path_t *p)
{
    if (path_is_absolute(p) && p->n == 1)
        return 0; /* dirname of "/" is "/" */
    return p && p->n > 0 ? path_slice(p, 0, p->n - 1) : 0;
}

int path_basename(path_t *p)
{
    return p && p->n > 0 ? path_slice(p, -1, 1) : 0;
}

path_t *path_sub(const path_t *p, int offset, int length)
{
    path_t *d = path_dup(p);
    if (d && path_slice(d, offset, length) < 0)
        path_delete(&d);
    return d;
}

path_t *path_cut(path_t *p, int offset)
{
    path_t *rest = path_sub(p, offset, -1);
    if (rest) {
        int s, e;
        path_range(p, offset, -1, &s, &e);
        path_slice(p, 0, s);
    }
    return rest;
}

int path_reduce(path_t *p)
{
    if (!p)
        return -1;
    int abs = path_is_absolute(p);
    int out = abs ? 1 : 0;
    for (int i = out; i < p->n; i++) {
        char *c = p->comp[i];
        int keep = 1;
        if (c[0] == '\0' || strcmp(c, ".") == 0)
            keep = 0;
        else if (strcmp(c, "..") == 0) {
            int top = abs ? 1 : 0;
            if (out > top && strcmp(p->comp[out - 1], "..") != 0) {
                free(p->comp[--out]);
                keep = 0;
            } else if (abs)
                keep = 0; /* ".." of "/" is "/" */
        }
        if (keep)
            p->comp[out++] = c;
        else
            free(c);
    }
    p->n = out;
    return 0;
}

char *path_strdup_reduce_str(const char *str)
{
    path_t *p = path_from_str(str);
    char *s = NULL;
    if (p && path_reduce(p) == 0)
        s = path_strdup(p);
    path_delete(&p);
    return s;
}

char *path_abs_reduce_str(const char *str)
{
    char cwd[4096], *abs = NULL;
    if (!str)
        return NULL;
    if (str[0] == '/')
        abs = strdup(str);
    else if (getcwd(cwd, sizeof(cwd)) && asprintf(&abs, "%s/%s", cwd, str) < 0)
        abs = NULL;
    char *r = abs ? path_strdup_reduce_str(abs) : NULL;
    free(abs);
    return r;
}

path_t *path_relative(const path_t *src, const path_t *dst)
{
    path_t *a = path_dup(src), *b = path_dup(dst), *rel = NULL;
    if (!a || !b || path_reduce(a) < 0 || path_reduce(b) < 0)
        goto out;
    if (path_is_absolute(a) != path_is_absolute(b))
        goto out;
    int common = 0;
    while (common < a->n && common < b->n &&
           strcmp(a->comp[common], b->comp[common]) == 0)
        common++;
    if (!(rel = path_new()))
        goto out;
    for (int i = common; i < a->n; i++) {
        if (path_append_str(rel, "..") < 0) {
            path_delete(&rel);
            goto out;
        }
    }
    path_t *tail = path_sub(b, common, -1);
    if (!tail || path_append(rel, tail) < 0)
        path_delete(&rel);
    path_delete(&tail);
out:
    path_delete(&a);
    path_delete(&b);
    return rel;
}

int path_is_under(const char *path, const char *prefix)
{
    path_t *p = path_from_str(path), *q = path_from_str(prefix);
    int under = 0;
    if (p && q && path_reduce(p) == 0 && path_reduce(q) == 0 && q->n > 0 &&
        path_is_absolute(p) == path_is_absolute(q) && p->n >= q->n) {
        under = 1;
        for (int i = 0; i < q->n && under; i++)
            under = strcmp(p->comp[i], q->comp[i]) == 0;
    }
    path_delete(&p);
    path_delete(&q);
    return under;
}

int path_is_safe_relative(const char *str)
{
    if (!str || !*str || str[0] == '/')
        return 0;
    path_t *p = path_from_str(str);
    int safe = p != NULL;
    for (int i = 0; safe && i < p->n; i++)
        safe = strcmp(p->comp[i], "..") != 0;
    path_delete(&p);
    return safe;
}
