/* SPDX-License-Identifier: BSD-3-Clause */
/* config.c - parameter sources, config file parser, resolution */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "io.h"
#include "log.h"
#include "params.h"
#include "units.h"

#define CONFIG_MAX_FILE (4 * 1024 * 1024)

struct scr_config {
    kvtree_t *src[CONFIG_SRC_COUNT]; /* KEY -> VALUE [-> SUBKEY -> SUBVALUE] */
    char *src_path[CONFIG_SRC_COUNT];
    char name[CONFIG_SRC_COUNT][4200];
    char cwd[4096];
    char query[4096];
    config_warn_fn warn;
    void *warn_arg;
};

static void default_warn(const char *msg, void *arg)
{
    (void)arg;
    log_warn("%s", msg);
}

scr_config_t *config_new(void)
{
    scr_config_t *cfg = calloc(1, sizeof(*cfg));
    if (!cfg)
        return NULL;
    for (int i = 0; i < CONFIG_SRC_COUNT; i++) {
        if (!(cfg->src[i] = kvtree_new())) {
            config_delete(&cfg);
            return NULL;
        }
    }
    if (!getcwd(cfg->cwd, sizeof(cfg->cwd)))
        cfg->cwd[0] = '\0';
    cfg->warn = default_warn;
    return cfg;
}

void config_delete(scr_config_t **cfg)
{
    if (cfg && *cfg) {
        for (int i = 0; i < CONFIG_SRC_COUNT; i++) {
            kvtree_delete(&(*cfg)->src[i]);
            free((*cfg)->src_path[i]);
        }
        free(*cfg);
        *cfg = NULL;
    }
}

void config_set_warn(scr_config_t *cfg, config_warn_fn fn, void *arg)
{
    cfg->warn = fn ? fn : default_warn;
    cfg->warn_arg = arg;
}

static void config_warn(const scr_config_t *cfg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void config_warn(const scr_config_t *cfg, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    cfg->warn(buf, cfg->warn_arg);
}

const char *config_src_name(const scr_config_t *cfg, config_src_t src)
{
    static const char *const names[] = {"environment", "user config file",
                                        "application (SCR_Config)", "system config file",
                                        "default"};
    if (src < 0 || src >= CONFIG_SRC_COUNT)
        return "unknown";
    if (!cfg->src_path[src])
        return names[src];
    snprintf(((scr_config_t *)cfg)->name[src], sizeof(cfg->name[src]), "%s %s",
             names[src], cfg->src_path[src]);
    return cfg->name[src];
}

/* ---- the parser ---- */

typedef struct {
    char key[256];
    char *val; /* malloc'd */
} config_pair_t;

/* Expand $VAR and ${VAR} in s from the environment (malloc'd result). */
static char *config_expand(const scr_config_t *cfg, const char *where, const char *s)
{
    size_t cap = strlen(s) + 64, n = 0;
    char *out = malloc(cap);
    while (out && *s) {
        const char *add = s;
        size_t alen = 1;
        char name[256];
        if (*s == '$' && (s[1] == '{' || isalpha((unsigned char)s[1]) || s[1] == '_')) {
            int brace = s[1] == '{';
            const char *p = s + 1 + brace;
            size_t k = 0;
            while ((isalnum((unsigned char)*p) || *p == '_') && k < sizeof(name) - 1)
                name[k++] = *p++;
            name[k] = '\0';
            if (brace && *p != '}') {
                config_warn(cfg, "%s: unterminated ${ in '%s'", where, s);
                free(out);
                return NULL;
            }
            s = p + brace;
            add = getenv(name);
            if (!add) {
                config_warn(cfg, "%s: $%s is not set, using an empty string", where,
                            name);
                add = "";
            }
            alen = strlen(add);
        } else
            s++;
        if (n + alen + 1 > cap) {
            while (n + alen + 1 > cap)
                cap *= 2;
            char *bigger = realloc(out, cap);
            if (!bigger) {
                free(out);
                return NULL;
            }
            out = bigger;
        }
        memcpy(out + n, add, alen);
        n += alen;
    }
    if (out)
        out[n] = '\0';
    return out;
}

/* Split one line into KEY=VALUE pairs.  Returns the number of pairs, or -1
 * with a message in err for a malformed line.  allow_empty permits "KEY=" and
 * a bare "KEY" (SCR_Config queries and unsets). */
static int config_split_pairs(const char *line, config_pair_t *pairs, int max,
                              int allow_empty, int *count, scr_error_t *err)
{
    int n = 0;
    const char *p = line;
    *count = 0;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            return n;
        if (n == max)
            return errprintf(err, "too many KEY=VALUE pairs on one line");
        size_t k = 0;
        while (*p && *p != '=' && !isspace((unsigned char)*p) && k < 255)
            pairs[n].key[k++] = *p++;
        pairs[n].key[k] = '\0';
        if (k == 0)
            return errprintf(err, "expected KEY=VALUE, found '%s'", p);
        while (isspace((unsigned char)*p))
            p++;
        if (*p != '=') {
            if (allow_empty && (!*p || *p == '#' || n > 0)) {
                pairs[n].val = NULL;
                *count = ++n;
                continue;
            }
            return errprintf(err, "expected '=' after '%s'", pairs[n].key);
        }
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        const char *start = p;
        size_t len;
        if (*p == '"') {
            const char *end = strchr(p + 1, '"');
            if (!end)
                return errprintf(err, "unterminated quote after '%s='", pairs[n].key);
            start = p + 1;
            len = (size_t)(end - start);
            p = end + 1;
        } else {
            while (*p && !isspace((unsigned char)*p) && *p != '#')
                p++;
            len = (size_t)(p - start);
        }
        if (len == 0 && !allow_empty)
            return errprintf(err, "no value for '%s'", pairs[n].key);
        pairs[n].val = strndup(start, len);
        if (!pairs[n].val)
            return errprintf(err, "out of memory");
        *count = ++n;
    }
}

static void config_pairs_free(config_pair_t *pairs, int n)
{
    for (int i = 0; i < n; i++)
        free(pairs[i].val);
}

/* config_split_pairs, freeing what it parsed when a later pair is bad */
static int config_split(const char *line, config_pair_t *pairs, int max, int allow_empty,
                        scr_error_t *err)
{
    int count;
    int n = config_split_pairs(line, pairs, max, allow_empty, &count, err);
    if (n < 0)
        config_pairs_free(pairs, count);
    return n;
}

/* Record parsed pairs in source src.  where names "file:line" for warnings. */
static int config_store(scr_config_t *cfg, config_src_t src, const char *where,
                        config_pair_t *pairs, int n)
{
    const param_info_t *p = param_lookup(pairs[0].key);
    if (!p) {
        config_warn(cfg, "%s: unknown parameter '%s'", where, pairs[0].key);
        /* keep it: sites and newer versions may know it */
    } else if ((p->flags & PARAM_SYSTEM) && src != CONFIG_SRC_SYSTEM) {
        config_warn(cfg, "%s: %s can only be set in the system config file; ignored",
                    where, pairs[0].key);
        return 0;
    }
    kvtree_t *t = cfg->src[src];
    kvtree_t *sub;
    if (p && (p->flags & PARAM_DESCRIPTOR)) {
        kvtree_t *k = kvtree_get(t, pairs[0].key);
        if (!k && !(k = kvtree_set(t, pairs[0].key, NULL)))
            return -1;
        sub = kvtree_set(k, pairs[0].val, NULL); /* replaces an earlier line */
    } else {
        if (n > 1)
            config_warn(cfg, "%s: %s takes one value; ignoring '%s=%s' and after", where,
                        pairs[0].key, pairs[1].key, pairs[1].val ? pairs[1].val : "");
        kvtree_unset(t, pairs[0].key);
        return kvtree_set_kv(t, pairs[0].key, pairs[0].val) ? 0 : -1;
    }
    for (int i = 1; sub && i < n; i++) {
        if (!param_subkey_known(p, pairs[i].key))
            config_warn(cfg, "%s: unknown %s attribute '%s'", where, pairs[0].key,
                        pairs[i].key);
        if (kvtree_util_set_str(sub, pairs[i].key, pairs[i].val ? pairs[i].val : "") < 0)
            return -1;
    }
    return sub ? 0 : -1;
}

static void config_parse_line(scr_config_t *cfg, config_src_t src, const char *where,
                              const char *line)
{
    config_pair_t pairs[32];
    scr_error_t err;
    char *expanded = config_expand(cfg, where, line);
    if (!expanded)
        return;
    int n = config_split(expanded, pairs, 32, 0, &err);
    if (n < 0)
        config_warn(cfg, "%s: malformed line: %s", where, err.text);
    else if (n > 0 && config_store(cfg, src, where, pairs, n) < 0)
        config_warn(cfg, "%s: out of memory", where);
    if (n > 0)
        config_pairs_free(pairs, n);
    free(expanded);
}

int config_parse_buf(scr_config_t *cfg, config_src_t src, const char *name,
                     const char *buf, size_t len)
{
    if (!cfg || src < 0 || src >= CONFIG_SRC_DEFAULT)
        return -1;
    size_t start = 0;
    int lineno = 0;
    while (start < len) {
        size_t end = start;
        while (end < len && buf[end] != '\n')
            end++;
        lineno++;
        char where[4200];
        snprintf(where, sizeof(where), "%s:%d", name, lineno);
        if (memchr(buf + start, '\0', end - start))
            config_warn(cfg, "%s: NUL byte in line; line ignored", where);
        else {
            char *line = strndup(buf + start, end - start);
            if (!line)
                return -1;
            config_parse_line(cfg, src, where, line);
            free(line);
        }
        start = end + 1;
    }
    return 0;
}

int config_load_file(scr_config_t *cfg, config_src_t src, const char *path,
                     scr_error_t *err)
{
    FILE *fp = fopen(path, "re");
    if (!fp)
        return errprintf(err, "open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(fp), &st) < 0 || !S_ISREG(st.st_mode) ||
        st.st_size > CONFIG_MAX_FILE) {
        fclose(fp);
        errno = EINVAL;
        return errprintf(err, "%s: not a regular file of at most %d bytes", path,
                         CONFIG_MAX_FILE);
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t n = buf ? fread(buf, 1, (size_t)st.st_size, fp) : 0;
    int rc = 0;
    if (!buf || ferror(fp))
        rc = errprintf(err, "read %s: %s", path, buf ? strerror(errno) : "out of memory");
    fclose(fp);
    if (rc == 0) {
        free(cfg->src_path[src]);
        cfg->src_path[src] = strdup(path);
        rc = config_parse_buf(cfg, src, path, buf, n);
    }
    free(buf);
    return rc;
}

int config_load_env(scr_config_t *cfg)
{
    for (const param_info_t *p = param_table(); p->name; p++) {
        const char *v = getenv(p->name);
        if (!v || (p->flags & PARAM_DESCRIPTOR))
            continue;
        if (p->flags & PARAM_SYSTEM) {
            config_warn(cfg,
                        "environment: %s can only be set in the system config file; "
                        "ignored",
                        p->name);
            continue;
        }
        kvtree_unset(cfg->src[CONFIG_SRC_ENV], p->name);
        if (!kvtree_set_kv(cfg->src[CONFIG_SRC_ENV], p->name, v))
            return -1;
    }
    return 0;
}

static void config_try_file(scr_config_t *cfg, config_src_t src, const char *path)
{
    scr_error_t err;
    if (config_load_file(cfg, src, path, &err) < 0 && errno != ENOENT)
        config_warn(cfg, "%s", err.text);
}

int config_load_standard(scr_config_t *cfg, const char *system_file)
{
    if (config_load_env(cfg) < 0)
        return -1;
    if (system_file)
        config_try_file(cfg, CONFIG_SRC_SYSTEM, system_file);
    const char *user = getenv("SCR_CONF_FILE");
    if (user) {
        config_try_file(cfg, CONFIG_SRC_USER, user);
    } else {
        const char *prefix = config_get(cfg, "SCR_PREFIX", NULL);
        char path[4200];
        snprintf(path, sizeof(path), "%s/.scrconf", prefix ? prefix : ".");
        config_try_file(cfg, CONFIG_SRC_USER, path);
    }
    return 0;
}

/* ---- SCR_Config ---- */

int config_app_set(scr_config_t *cfg, const char *str, scr_error_t *err)
{
    config_pair_t pairs[32];
    if (!str)
        return errprintf(err, "SCR_Config: NULL string");
    int n = config_split(str, pairs, 32, 1, err);
    if (n < 0)
        return -1;
    int rc = 0;
    if (n == 0)
        rc = errprintf(err, "SCR_Config: empty string");
    else if (!pairs[0].val || (n > 1 && !pairs[n - 1].val))
        rc = errprintf(err, "SCR_Config: '%s' is a query, not a setting", str);
    else if (pairs[0].val[0] == '\0') {
        const param_info_t *p = param_lookup(pairs[0].key);
        if (p && (p->flags & PARAM_SYSTEM))
            rc = errprintf(err, "SCR_Config: %s can only be set by the system",
                           pairs[0].key);
        else
            kvtree_unset(cfg->src[CONFIG_SRC_APP], pairs[0].key);
    } else {
        const param_info_t *p = param_lookup(pairs[0].key);
        if (p && (p->flags & PARAM_SYSTEM))
            rc = errprintf(err, "SCR_Config: %s can only be set by the system",
                           pairs[0].key);
        else if (config_store(cfg, CONFIG_SRC_APP, "SCR_Config", pairs, n) < 0)
            rc = errprintf(err, "SCR_Config: out of memory");
    }
    config_pairs_free(pairs, n > 0 ? n : 0);
    return rc;
}

const char *config_app_query(scr_config_t *cfg, const char *str, scr_error_t *err)
{
    config_pair_t pairs[32];
    if (!str)
        return errprintf(err, "SCR_Config: NULL string"), NULL;
    int n = config_split(str, pairs, 32, 1, err);
    if (n < 0)
        return NULL;
    const char *val = NULL;
    if (n == 1 && !pairs[0].val) {
        val = config_get(cfg, pairs[0].key, NULL);
    } else if (n == 2 && pairs[0].val && !pairs[1].val) {
        /* "CKPT=0 TYPE": an attribute of one descriptor entry */
        const kvtree_t *t = config_get_tree(cfg, pairs[0].key, NULL);
        val = kvtree_get_val(kvtree_get(t, pairs[0].val), pairs[1].key);
    } else
        errprintf(err, "SCR_Config: '%s' is not a query", str);
    if (val) {
        snprintf(cfg->query, sizeof(cfg->query), "%s", val);
        val = cfg->query;
    }
    config_pairs_free(pairs, n > 0 ? n : 0);
    return val;
}

/* ---- resolution ---- */

const char *config_get(const scr_config_t *cfg, const char *key, config_src_t *src)
{
    for (int i = 0; i < CONFIG_SRC_DEFAULT; i++) {
        const char *v = kvtree_get_val(cfg->src[i], key);
        if (v) {
            if (src)
                *src = (config_src_t)i;
            return v;
        }
    }
    if (src)
        *src = CONFIG_SRC_DEFAULT;
    if (strcmp(key, "SCR_PREFIX") == 0)
        return cfg->cwd[0] ? cfg->cwd : NULL;
    const param_info_t *p = param_lookup(key);
    return p ? p->dflt : NULL;
}

const kvtree_t *config_get_tree(const scr_config_t *cfg, const char *key,
                                config_src_t *src)
{
    for (int i = 0; i < CONFIG_SRC_DEFAULT; i++) {
        const kvtree_t *t = kvtree_get(cfg->src[i], key);
        if (t && kvtree_size(t) > 0) {
            if (src)
                *src = (config_src_t)i;
            return t;
        }
    }
    if (src)
        *src = CONFIG_SRC_DEFAULT;
    return NULL;
}

int config_get_int(const scr_config_t *cfg, const char *key, int dflt)
{
    config_src_t src;
    long v;
    const char *s = config_get(cfg, key, &src);
    if (!s)
        return dflt;
    if (units_parse_long(s, &v) < 0 || v < -2147483647L || v > 2147483647L) {
        config_warn(cfg, "%s: %s=%s is not an integer; using %d",
                    config_src_name(cfg, src), key, s, dflt);
        return dflt;
    }
    return (int)v;
}

unsigned long long config_get_bytes(const scr_config_t *cfg, const char *key,
                                    unsigned long long dflt)
{
    config_src_t src;
    uint64_t v;
    const char *s = config_get(cfg, key, &src);
    if (!s)
        return dflt;
    if (units_parse_bytes(s, &v) < 0) {
        config_warn(cfg, "%s: %s=%s is not a byte count; using %llu",
                    config_src_name(cfg, src), key, s, dflt);
        return dflt;
    }
    return v;
}

kvtree_t *config_export(const scr_config_t *cfg)
{
    kvtree_t *t = kvtree_new();
    for (int i = 0; t && i < CONFIG_SRC_DEFAULT; i++) {
        if (!kvtree_setf(t, kvtree_dup(cfg->src[i]), "SRC %d", i) ||
            (cfg->src_path[i] &&
             !kvtree_setf(t, NULL, "PATH %d %s", i, cfg->src_path[i])))
            kvtree_delete(&t);
    }
    return t;
}

int config_import(scr_config_t *cfg, const kvtree_t *t)
{
    /* only the sources the tree carries are replaced */
    for (int i = 0; i < CONFIG_SRC_DEFAULT; i++) {
        kvtree_t *s = kvtree_getf(t, "SRC %d", i);
        if (!s)
            continue;
        kvtree_clear(cfg->src[i]);
        if (kvtree_merge(cfg->src[i], s) < 0)
            return -1;
        kvtree_t *p = kvtree_getf(t, "PATH %d", i);
        const char *path = kvtree_elem_key(kvtree_first(p));
        free(cfg->src_path[i]);
        cfg->src_path[i] = path ? strdup(path) : NULL;
    }
    return 0;
}
