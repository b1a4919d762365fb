/* SPDX-License-Identifier: BSD-3-Clause */
/* kvtree_kv.c - key/value pairs, formatted key paths, typed fields */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvtree.h"
#include "units.h"

kvtree_t *kvtree_set_kv(kvtree_t *t, const char *key, const char *val)
{
    kvtree_t *k = kvtree_get(t, key);
    if (!k && !(k = kvtree_set(t, key, NULL)))
        return NULL;
    kvtree_t *v = kvtree_get(k, val);
    return v ? v : kvtree_set(k, val, NULL);
}

kvtree_t *kvtree_set_kv_int(kvtree_t *t, const char *key, int val)
{
    char buf[16];
    snprintf(buf, sizeof(buf), "%d", val);
    return kvtree_set_kv(t, key, buf);
}

kvtree_t *kvtree_get_kv(const kvtree_t *t, const char *key, const char *val)
{
    return kvtree_get(kvtree_get(t, key), val);
}

kvtree_t *kvtree_get_kv_int(const kvtree_t *t, const char *key, int val)
{
    char buf[16];
    snprintf(buf, sizeof(buf), "%d", val);
    return kvtree_get_kv(t, key, buf);
}

int kvtree_unset_kv(kvtree_t *t, const char *key, const char *val)
{
    kvtree_t *k = kvtree_get(t, key);
    kvtree_unset(k, val);
    if (k && kvtree_size(k) == 0)
        kvtree_unset(t, key);
    return 0;
}

const char *kvtree_get_val(const kvtree_t *t, const char *key)
{
    return kvtree_elem_key(kvtree_first(kvtree_get(t, key)));
}

/* ---- formatted key paths ---- */

/* Append one conversion starting at fmt[0] == '%' to out; returns the
 * number of format characters used, or -1 for an unsupported conversion. */
static int fmt_one(const char *fmt, va_list *ap, char *out, size_t len)
{
    int i = 1, longs = 0, sz = 0;
    while (fmt[i] == 'l') {
        longs++;
        i++;
    }
    if (fmt[i] == 'z') {
        sz = 1;
        i++;
    }
    switch (fmt[i]) {
    case '%':
        snprintf(out, len, "%%");
        break;
    case 's':
        snprintf(out, len, "%s", va_arg(*ap, const char *));
        break;
    case 'd':
    case 'i':
        if (longs >= 2)
            snprintf(out, len, "%lld", va_arg(*ap, long long));
        else if (longs == 1)
            snprintf(out, len, "%ld", va_arg(*ap, long));
        else
            snprintf(out, len, "%d", va_arg(*ap, int));
        break;
    case 'u':
    case 'x':
        if (sz)
            snprintf(out, len, fmt[i] == 'u' ? "%zu" : "%zx", va_arg(*ap, size_t));
        else if (longs >= 2)
            snprintf(out, len, fmt[i] == 'u' ? "%llu" : "%llx",
                     va_arg(*ap, unsigned long long));
        else if (longs == 1)
            snprintf(out, len, fmt[i] == 'u' ? "%lu" : "%lx", va_arg(*ap, unsigned long));
        else
            snprintf(out, len, fmt[i] == 'u' ? "%u" : "%x", va_arg(*ap, unsigned int));
        break;
    default:
        return -1;
    }
    return i + 1;
}

/* Format the next space-separated key of *fmt into a malloc'd string. */
static char *fmt_next_key(const char **fmt, va_list *ap)
{
    const char *f = *fmt;
    while (*f == ' ')
        f++;
    if (!*f)
        return NULL;
    size_t cap = 64, n = 0;
    char *key = malloc(cap);
    while (key && *f && *f != ' ') {
        char piece[4096];
        if (*f == '%') {
            int used = fmt_one(f, ap, piece, sizeof(piece));
            if (used < 0) {
                free(key);
                return NULL;
            }
            f += used;
        } else {
            piece[0] = *f++;
            piece[1] = '\0';
        }
        size_t plen = strlen(piece);
        if (n + plen + 1 > cap) {
            while (n + plen + 1 > cap)
                cap *= 2;
            char *bigger = realloc(key, cap);
            if (!bigger) {
                free(key);
                return NULL;
            }
            key = bigger;
        }
        memcpy(key + n, piece, plen);
        n += plen;
    }
    if (key)
        key[n] = '\0';
    *fmt = f;
    return key;
}

static int fmt_has_more(const char *fmt)
{
    while (*fmt == ' ')
        fmt++;
    return *fmt != '\0';
}

/* Walk the key path of fmt: create (mode 1) or look up (mode 0) each level.
 * Returns the parent tree and the final key in *last. */
static kvtree_t *kvtree_walkf(kvtree_t *t, int create, char **last, const char *fmt,
                              va_list *ap)
{
    char *key;
    *last = NULL;
    while (t && (key = fmt_next_key(&fmt, ap))) {
        if (!fmt_has_more(fmt)) {
            *last = key;
            return t;
        }
        kvtree_t *sub = kvtree_get(t, key);
        if (!sub && create)
            sub = kvtree_set(t, key, NULL);
        free(key);
        t = sub;
    }
    return NULL;
}

kvtree_t *kvtree_setf(kvtree_t *t, kvtree_t *sub, const char *fmt, ...)
{
    char *last;
    va_list ap;
    va_start(ap, fmt);
    kvtree_t *parent = kvtree_walkf(t, 1, &last, fmt, &ap);
    va_end(ap);
    kvtree_t *rc = NULL;
    if (parent && last)
        rc = kvtree_set(parent, last, sub);
    else
        kvtree_delete(&sub);
    free(last);
    return rc;
}

kvtree_t *kvtree_getf(const kvtree_t *t, const char *fmt, ...)
{
    char *last;
    va_list ap;
    va_start(ap, fmt);
    kvtree_t *parent = kvtree_walkf((kvtree_t *)t, 0, &last, fmt, &ap);
    va_end(ap);
    kvtree_t *rc = parent && last ? kvtree_get(parent, last) : NULL;
    free(last);
    return rc;
}

int kvtree_unsetf(kvtree_t *t, const char *fmt, ...)
{
    char *last;
    va_list ap;
    va_start(ap, fmt);
    kvtree_t *parent = kvtree_walkf(t, 0, &last, fmt, &ap);
    va_end(ap);
    if (parent && last)
        kvtree_unset(parent, last);
    free(last);
    return 0;
}

/* ---- single-valued fields ---- */

int kvtree_util_set_str(kvtree_t *t, const char *key, const char *val)
{
    if (!t || !key || !val)
        return -1;
    kvtree_unset(t, key);
    return kvtree_set_kv(t, key, val) ? 0 : -1;
}

int kvtree_util_set_int(kvtree_t *t, const char *key, int val)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%d", val);
    return kvtree_util_set_str(t, key, buf);
}

int kvtree_util_set_ul(kvtree_t *t, const char *key, unsigned long val)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%lu", val);
    return kvtree_util_set_str(t, key, buf);
}

int kvtree_util_set_u64(kvtree_t *t, const char *key, uint64_t val)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%" PRIu64, val);
    return kvtree_util_set_str(t, key, buf);
}

int kvtree_util_set_double(kvtree_t *t, const char *key, double val)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%.17g", val);
    return kvtree_util_set_str(t, key, buf);
}

/* SCR writes CRC32 values as 0x-prefixed hex */
int kvtree_util_set_crc32(kvtree_t *t, const char *key, uint32_t val)
{
    char buf[16];
    snprintf(buf, sizeof(buf), "0x%08x", (unsigned)val);
    return kvtree_util_set_str(t, key, buf);
}

int kvtree_util_get_str(const kvtree_t *t, const char *key, const char **val)
{
    const char *v = kvtree_get_val(t, key);
    if (!v)
        return -1;
    *val = v;
    return 0;
}

int kvtree_util_get_int(const kvtree_t *t, const char *key, int *val)
{
    long v;
    const char *s = kvtree_get_val(t, key);
    if (!s || units_parse_long(s, &v) < 0 || v < INT32_MIN || v > INT32_MAX)
        return -1;
    *val = (int)v;
    return 0;
}

int kvtree_util_get_ul(const kvtree_t *t, const char *key, unsigned long *val)
{
    const char *s = kvtree_get_val(t, key);
    return s ? units_parse_ulong(s, val) : -1;
}

int kvtree_util_get_u64(const kvtree_t *t, const char *key, uint64_t *val)
{
    unsigned long v;
    const char *s = kvtree_get_val(t, key);
    if (!s || units_parse_ulong(s, &v) < 0)
        return -1;
    *val = v;
    return 0;
}

int kvtree_util_get_double(const kvtree_t *t, const char *key, double *val)
{
    const char *s = kvtree_get_val(t, key);
    return s ? units_parse_double(s, val) : -1;
}

int kvtree_util_get_crc32(const kvtree_t *t, const char *key, uint32_t *val)
{
    char *end;
    const char *s = kvtree_get_val(t, key);
    if (!s || !*s)
        return -1;
    errno = 0;
    unsigned long v = strtoul(s, &end, 0);
    if (errno || *end || v > UINT32_MAX)
        return -1;
    *val = (uint32_t)v;
    return 0;
}

int kvtree_util_get_bytecount(const kvtree_t *t, const char *key, uint64_t *val)
{
    const char *s = kvtree_get_val(t, key);
    return s ? units_parse_bytes(s, val) : -1;
}
