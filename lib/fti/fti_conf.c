/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_conf.c - FTI's configuration keys: parse, check, translate */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fti_conf.h"
#include "ini.h"

typedef enum { KEY_INT, KEY_BOOL, KEY_PATH, KEY_STR } key_kind_t;

/* where a key's value goes; NO_FIELD: read and checked, then ignored */
#define NO_FIELD ((size_t)-1)
#define FIELD(f) offsetof(fti_conf_t, f)

/* FTI checks a key's range only where the feature that uses it is on; its
 * own configuration template carries values such as dcp_block_size = -1
 * with enable_dcp = 0 */
typedef enum {
    WHEN_ALWAYS,
    WHEN_DCP,   /* enable_dcp = 1 */
    WHEN_L2_L3, /* ckpt_l2 or ckpt_l3 > 0: the groups exist */
} key_when_t;

typedef struct {
    const char *section, *key;
    key_kind_t kind;
    long min, max;
    size_t field;
    key_when_t when;
} key_info_t;

/* every key FTI documents or reads, with the values FTI accepts */
static const key_info_t keys[] = {
    {"basic", "head", KEY_INT, 0, 1, FIELD(head), WHEN_ALWAYS},
    {"basic", "node_size", KEY_INT, 1, INT_MAX, NO_FIELD, WHEN_ALWAYS},
    {"basic", "ckpt_dir", KEY_PATH, 0, 0, FIELD(ckpt_dir), WHEN_ALWAYS},
    {"basic", "glbl_dir", KEY_PATH, 0, 0, FIELD(glbl_dir), WHEN_ALWAYS},
    {"basic", "meta_dir", KEY_STR, 0, 0, NO_FIELD, WHEN_ALWAYS},
    {"basic", "glbl_stash_dir", KEY_STR, 0, 0, NO_FIELD, WHEN_ALWAYS},
    {"basic", "ckpt_l1", KEY_INT, -1, INT_MAX, FIELD(ckpt_l[1]), WHEN_ALWAYS},
    {"basic", "ckpt_l2", KEY_INT, -1, INT_MAX, FIELD(ckpt_l[2]), WHEN_ALWAYS},
    {"basic", "ckpt_l3", KEY_INT, -1, INT_MAX, FIELD(ckpt_l[3]), WHEN_ALWAYS},
    {"basic", "ckpt_l4", KEY_INT, -1, INT_MAX, FIELD(ckpt_l[4]), WHEN_ALWAYS},
    {"basic", "dcp_l4", KEY_INT, 0, INT_MAX, FIELD(dcp_l4), WHEN_ALWAYS},
    {"basic", "inline_l2", KEY_INT, 0, 1, NO_FIELD, WHEN_ALWAYS},
    {"basic", "inline_l3", KEY_INT, 0, 1, NO_FIELD, WHEN_ALWAYS},
    {"basic", "inline_l4", KEY_INT, 0, 1, NO_FIELD, WHEN_ALWAYS},
    {"basic", "keep_last_ckpt", KEY_BOOL, 0, 1, FIELD(keep_last_ckpt), WHEN_ALWAYS},
    {"basic", "keep_l4_ckpt", KEY_BOOL, 0, 1, FIELD(keep_l4_ckpt), WHEN_ALWAYS},
    {"basic", "keep_heads_alive", KEY_BOOL, 0, 1, NO_FIELD, WHEN_ALWAYS},
    {"basic", "group_size", KEY_INT, 2, 32, FIELD(group_size), WHEN_L2_L3},
    {"basic", "max_sync_intv", KEY_INT, -1, INT_MAX, FIELD(max_sync_intv), WHEN_ALWAYS},
    {"basic", "ckpt_io", KEY_INT, 1, 6, NO_FIELD, WHEN_ALWAYS},
    {"basic", "enable_staging", KEY_BOOL, 0, 1, NO_FIELD, WHEN_ALWAYS},
    {"basic", "enable_dcp", KEY_BOOL, 0, 1, FIELD(enable_dcp), WHEN_ALWAYS},
    {"basic", "dcp_mode", KEY_INT, 0, 2, NO_FIELD, WHEN_DCP},
    {"basic", "dcp_block_size", KEY_INT, 512, 65535, FIELD(dcp_block_size), WHEN_DCP},
    {"basic", "dcp_stack_size", KEY_INT, 1, INT_MAX, NO_FIELD, WHEN_ALWAYS},
    {"basic", "cacheddcp", KEY_INT, 0, 1, NO_FIELD, WHEN_ALWAYS},
    {"basic", "verbosity", KEY_INT, 1, 3, FIELD(verbosity), WHEN_ALWAYS},
    {"basic", "max_var_id", KEY_INT, 1, INT_MAX, FIELD(max_var_id), WHEN_ALWAYS},
    {"basic", "h5_single_file_enable", KEY_BOOL, 0, 1, NO_FIELD, WHEN_ALWAYS},
    {"basic", "h5_single_file_keep", KEY_BOOL, 0, 1, NO_FIELD, WHEN_ALWAYS},
    {"basic", "h5_single_file_inline", KEY_BOOL, 0, 1, NO_FIELD, WHEN_ALWAYS},
    {"basic", "h5_single_file_dir", KEY_STR, 0, 0, NO_FIELD, WHEN_ALWAYS},
    {"basic", "h5_single_file_prefix", KEY_STR, 0, 0, NO_FIELD, WHEN_ALWAYS},
    {"restart", "failure", KEY_INT, 0, 3, NO_FIELD, WHEN_ALWAYS},
    {"restart", "exec_id", KEY_STR, 0, 0, NO_FIELD, WHEN_ALWAYS},
    {"advanced", "block_size", KEY_INT, 1, 2048, FIELD(block_size), WHEN_ALWAYS},
    {"advanced", "transfer_size", KEY_INT, 1, 1024, FIELD(transfer_size), WHEN_ALWAYS},
    {"advanced", "mpi_tag", KEY_INT, 0, INT_MAX, NO_FIELD, WHEN_ALWAYS},
    {"advanced", "general_tag", KEY_INT, 0, INT_MAX, NO_FIELD, WHEN_ALWAYS},
    {"advanced", "ckpt_tag", KEY_INT, 0, INT_MAX, NO_FIELD, WHEN_ALWAYS},
    {"advanced", "stage_tag", KEY_INT, 0, INT_MAX, NO_FIELD, WHEN_ALWAYS},
    {"advanced", "final_tag", KEY_INT, 0, INT_MAX, NO_FIELD, WHEN_ALWAYS},
    {"advanced", "local_test", KEY_INT, 0, 1, NO_FIELD, WHEN_ALWAYS},
    {"advanced", "fast_forward", KEY_INT, 1, 10, FIELD(fast_forward), WHEN_ALWAYS},
    {"advanced", "gpu_host_bufsize", KEY_INT, 1, LONG_MAX, NO_FIELD, WHEN_ALWAYS},
    {"advanced", "lustre_striping_unit", KEY_INT, -1, LONG_MAX, NO_FIELD, WHEN_ALWAYS},
    {"advanced", "lustre_striping_factor", KEY_INT, -1, LONG_MAX, NO_FIELD, WHEN_ALWAYS},
    {"advanced", "lustre_striping_offset", KEY_INT, -1, LONG_MAX, NO_FIELD, WHEN_ALWAYS},
    {"advanced", "lustre_stiping_unit", KEY_INT, -1, LONG_MAX, NO_FIELD, WHEN_ALWAYS},
    {"advanced", "lustre_stiping_factor", KEY_INT, -1, LONG_MAX, NO_FIELD, WHEN_ALWAYS},
    {"advanced", "lustre_stiping_offset", KEY_INT, -1, LONG_MAX, NO_FIELD, WHEN_ALWAYS},
    {"injection", "rank", KEY_INT, LONG_MIN, LONG_MAX, NO_FIELD, WHEN_ALWAYS},
    {"injection", "index", KEY_INT, LONG_MIN, LONG_MAX, NO_FIELD, WHEN_ALWAYS},
    {"injection", "position", KEY_INT, LONG_MIN, LONG_MAX, NO_FIELD, WHEN_ALWAYS},
    {"injection", "number", KEY_INT, LONG_MIN, LONG_MAX, NO_FIELD, WHEN_ALWAYS},
    {"injection", "frequency", KEY_INT, LONG_MIN, LONG_MAX, NO_FIELD, WHEN_ALWAYS},
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static const key_info_t *key_lookup(const char *section, const char *key)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcasecmp(keys[i].section, section) == 0 &&
            strcasecmp(keys[i].key, key) == 0)
            return &keys[i];
    return NULL;
}

static int section_known(const char *section)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcasecmp(keys[i].section, section) == 0)
            return 1;
    return 0;
}

static void warnf(fti_conf_warn_fn warn, void *arg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void warnf(fti_conf_warn_fn warn, void *arg, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (warn)
        warn(buf, arg);
}

/* unknown sections and keys, keys outside a section, keys given twice */
static void conf_warn_unknown(const ini_t *ini, fti_conf_warn_fn warn, void *arg)
{
    const char *warned_section = NULL;
    for (int i = 0; i < ini_count(ini); i++) {
        const ini_entry_t *e = ini_entry(ini, i);
        if (!e->section[0]) {
            warnf(warn, arg, "%s:%d: '%s' is outside any section; ignored", ini_name(ini),
                  e->line, e->key);
        } else if (!section_known(e->section)) {
            if (e->section != warned_section)
                warnf(warn, arg,
                      "%s:%d: unknown section [%s] (FTI has [basic], [restart], "
                      "[advanced], [injection]); its keys are ignored",
                      ini_name(ini), ini_section_line(ini, e->section), e->section);
            warned_section = e->section;
        } else if (!key_lookup(e->section, e->key)) {
            warnf(warn, arg, "%s:%d: unknown key '%s' in [%s]; ignored", ini_name(ini),
                  e->line, e->key, e->section);
        } else {
            const ini_entry_t *last = ini_find(ini, e->section, e->key);
            if (last != e)
                warnf(warn, arg, "%s:%d: [%s] %s is given again on line %d, which wins",
                      ini_name(ini), e->line, e->section, e->key, last->line);
        }
    }
}

/* a directory: absolute, or taken from cwd; no '"' (SCR_Config quoting) */
static int conf_path(const ini_t *ini, const key_info_t *k, const char *cwd, char *out,
                     scr_error_t *err)
{
    const ini_entry_t *e = ini_find(ini, k->section, k->key);
    if (!e)
        return 0;
    const char *why = NULL;
    if (!e->value[0])
        why = "an empty path";
    else if (strpbrk(e->value, "\"\r\n\t"))
        why = "a path with a quote or control character";
    int n = 0;
    if (!why) {
        if (e->value[0] == '/')
            n = snprintf(out, FTI_CONF_PATH, "%s", e->value);
        else
            n = snprintf(out, FTI_CONF_PATH, "%s/%s", cwd, e->value);
        if (n < 0 || n >= FTI_CONF_PATH)
            why = "a path too long";
    }
    if (why) {
        out[0] = '\0';
        return errprintf(err, "%s:%d: [%s] %s = '%.60s': %s", ini_name(ini), e->line,
                         k->section, k->key, e->value, why);
    }
    return 1;
}

static int conf_when(const key_info_t *k, const fti_conf_t *c)
{
    switch (k->when) {
    case WHEN_DCP:
        return c->enable_dcp != 0;
    case WHEN_L2_L3:
        return c->ckpt_l[2] > 0 || c->ckpt_l[3] > 0;
    default:
        return 1;
    }
}

/* a key whose feature is off: any integer, kept only if in range, else
 * ignored with a warning */
static int conf_key_off(const ini_t *ini, const key_info_t *k, fti_conf_t *c,
                        fti_conf_warn_fn warn, void *arg, scr_error_t *err)
{
    long v = 0;
    int rc = ini_get_long(ini, k->section, k->key, LONG_MIN, LONG_MAX, &v, err);
    if (rc <= 0)
        return rc;
    if (v >= k->min && v <= k->max) {
        if (k->field != NO_FIELD)
            *(long *)((char *)c + k->field) = v;
        return rc;
    }
    const ini_entry_t *e = ini_find(ini, k->section, k->key);
    warnf(warn, arg,
          "%s:%d: [%s] %s = %ld is outside %ld..%ld; ignored, as FTI does, since %s",
          ini_name(ini), e->line, k->section, k->key, v, k->min, k->max,
          k->when == WHEN_DCP ? "enable_dcp is 0" : "ckpt_l2 and ckpt_l3 are off");
    return rc;
}

static int conf_key(const ini_t *ini, const key_info_t *k, const char *cwd, fti_conf_t *c,
                    scr_error_t *err)
{
    char *field = k->field == NO_FIELD ? NULL : (char *)c + k->field;
    long v = 0;
    int b = 0, rc = 0;
    const char *s;
    switch (k->kind) {
    case KEY_INT:
        rc = ini_get_long(ini, k->section, k->key, k->min, k->max, &v, err);
        if (rc > 0 && field)
            *(long *)field = v;
        break;
    case KEY_BOOL:
        rc = ini_get_bool(ini, k->section, k->key, &b, err);
        if (rc > 0 && field)
            *(long *)field = b;
        break;
    case KEY_PATH:
        rc = conf_path(ini, k, cwd, field, err);
        break;
    case KEY_STR:
        rc = ini_get_str(ini, k->section, k->key, &s);
        break;
    }
    return rc < 0 ? -1 : 0;
}

int fti_conf_load(const char *path, const char *cwd, fti_conf_t *c, fti_conf_warn_fn warn,
                  void *arg, scr_error_t *err)
{
    memset(c, 0, sizeof(*c));
    c->max_var_id = 100 * 1024; /* FTI's default */
    c->fast_forward = 1;
    if (!path)
        return errprintf(err, "no FTI configuration file given (NULL)");
    ini_t *ini = ini_load(path, err);
    if (!ini)
        return -1;
    conf_warn_unknown(ini, warn, arg);
    int rc = 0;
    /* the keys every check depends on first, then the conditional ones */
    for (size_t i = 0; i < NKEYS && rc >= 0; i++)
        if (keys[i].when == WHEN_ALWAYS)
            rc = conf_key(ini, &keys[i], cwd ? cwd : ".", c, err);
    for (size_t i = 0; i < NKEYS && rc >= 0; i++) {
        if (keys[i].when == WHEN_ALWAYS)
            continue;
        if (conf_when(&keys[i], c))
            rc = conf_key(ini, &keys[i], cwd ? cwd : ".", c, err);
        else
            rc = conf_key_off(ini, &keys[i], c, warn, arg, err) < 0 ? -1 : 0;
    }
    rc = rc < 0 ? -1 : 0;
    const ini_entry_t *head = ini_find(ini, "basic", "head");
    if (rc == 0 && c->head == 1)
        warnf(warn, arg,
              "%s:%d: [basic] head = 1: SCR runs no FTI head processes; every process "
              "computes and FTI_COMM_WORLD has them all",
              ini_name(ini), head->line);
    ini_free(&ini);
    return rc;
}

static int emit(int (*fn)(const char *, void *), void *arg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int emit(int (*fn)(const char *, void *), void *arg, const char *fmt, ...)
{
    char buf[FTI_CONF_PATH + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return fn(buf, arg);
}

int fti_conf_settings(const fti_conf_t *c, int (*fn)(const char *setting, void *arg),
                      void *arg)
{
    int rc = 0;
    /* levels 1-3; level 4 is level 1 flushed to the prefix */
    rc = rc ?: emit(fn, arg, "CKPT=%d TYPE=SINGLE", FTI_CONF_RD_SINGLE);
    rc = rc ?: emit(fn, arg, "CKPT=%d TYPE=PARTNER", FTI_CONF_RD_PARTNER);
    rc = rc ?: emit(fn, arg, "CKPT=%d TYPE=RS", FTI_CONF_RD_RS);
    if (c->ckpt_dir[0])
        rc = rc ?: emit(fn, arg, "SCR_CACHE_BASE=\"%s\"", c->ckpt_dir);
    if (c->glbl_dir[0])
        rc = rc ?: emit(fn, arg, "SCR_PREFIX=\"%s\"", c->glbl_dir);
    /* an FTI group is group_size nodes; its RS code survives half of them */
    if (c->group_size > 0) {
        rc = rc ?: emit(fn, arg, "SCR_SET_SIZE=%ld", c->group_size);
        rc = rc
                 ?: emit(fn, arg, "SCR_SET_FAILURES=%ld",
                         c->group_size / 2 > 0 ? c->group_size / 2 : 1);
    }
    if (c->verbosity > 0)
        rc = rc ?: emit(fn, arg, "SCR_DEBUG=%ld", 3 - c->verbosity);
    /* levels 1-3 stay in cache as in FTI; keep_last_ckpt: SCR_Finalize
     * flushes the newest checkpoint (SCR_FLUSH non-zero), and no count of
     * checkpoints reaches this one */
    rc = rc ?: emit(fn, arg, "SCR_FLUSH=%d", c->keep_last_ckpt ? 1000000000 : 0);
    /* FTI keeps one level-4 checkpoint unless keep_l4_ckpt */
    rc = rc ?: emit(fn, arg, "SCR_PREFIX_SIZE=%d", c->keep_l4_ckpt ? 0 : 1);
    if (c->enable_dcp) {
        rc = rc ?: emit(fn, arg, "SCR_DCP=1");
        if (c->dcp_block_size > 0)
            rc = rc ?: emit(fn, arg, "SCR_DCP_BLOCK=%ld", c->dcp_block_size);
    }
    if (c->block_size > 0)
        rc = rc ?: emit(fn, arg, "SCR_MPI_BUF_SIZE=%ld", c->block_size * 1024);
    if (c->transfer_size > 0)
        rc = rc ?: emit(fn, arg, "SCR_FILE_BUF_SIZE=%ld", c->transfer_size * 1024 * 1024);
    return rc;
}
