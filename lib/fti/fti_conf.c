/* SPDX-License-Identifier: BSD-3-Clause */
/* fti_conf.c - FTI's configuration keys: read as FTI 1.6 reads them,
 * checked as its FTI_TestConfig checks them, translated into SCR settings */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fti_conf.h"
#include "ini.h"

/* FTI reads a key with iniparser_getint (an int), _getlint (a long),
 * _getboolean or _getstring */
typedef enum { KEY_INT, KEY_LONG, KEY_BOOL, KEY_PATH, KEY_STR } key_kind_t;

/* where a key's value goes; NO_FIELD: read, then ignored */
#define NO_FIELD ((size_t)-1)
#define FIELD(f) offsetof(fti_conf_t, f)

typedef struct {
    const char *section, *key;
    key_kind_t kind;
    long def; /* FTI 1.6's value when the key is not given */
    size_t field;
} key_info_t;

/* every key FTI 1.6 reads or documents, with its default */
static const key_info_t keys[] = {
    {"basic", "head", KEY_INT, 0, FIELD(head)},
    {"basic", "node_size", KEY_INT, -1, FIELD(node_size)},
    {"basic", "ckpt_dir", KEY_PATH, 0, FIELD(ckpt_dir)},
    {"basic", "glbl_dir", KEY_PATH, 0, FIELD(glbl_dir)},
    {"basic", "meta_dir", KEY_STR, 0, FIELD(meta_dir)},
    {"basic", "glbl_stash_dir", KEY_STR, 0, NO_FIELD},
    {"basic", "ckpt_l1", KEY_INT, -1, FIELD(ckpt_l[1])},
    {"basic", "ckpt_l2", KEY_INT, -1, FIELD(ckpt_l[2])},
    {"basic", "ckpt_l3", KEY_INT, -1, FIELD(ckpt_l[3])},
    {"basic", "ckpt_l4", KEY_INT, -1, FIELD(ckpt_l[4])},
    {"basic", "dcp_l4", KEY_INT, 0, FIELD(dcp_l4)},
    {"basic", "inline_l2", KEY_INT, 1, FIELD(inline_l[2])},
    {"basic", "inline_l3", KEY_INT, 1, FIELD(inline_l[3])},
    {"basic", "inline_l4", KEY_INT, 1, FIELD(inline_l[4])},
    {"basic", "keep_last_ckpt", KEY_INT, 0, FIELD(keep_last_ckpt)},
    {"basic", "keep_l4_ckpt", KEY_BOOL, 0, FIELD(keep_l4_ckpt)},
    {"basic", "keep_heads_alive", KEY_BOOL, 0, FIELD(keep_heads_alive)},
    {"basic", "group_size", KEY_INT, -1, FIELD(group_size)},
    {"basic", "max_sync_intv", KEY_INT, -1, FIELD(max_sync_intv)},
    {"basic", "ckpt_io", KEY_INT, 0, FIELD(ckpt_io)},
    {"basic", "enable_staging", KEY_BOOL, 0, FIELD(enable_staging)},
    {"basic", "enable_dcp", KEY_BOOL, 0, FIELD(enable_dcp)},
    {"basic", "dcp_mode", KEY_INT, -1, FIELD(dcp_mode)},
    {"basic", "dcp_block_size", KEY_INT, -1, FIELD(dcp_block_size)},
    {"basic", "dcp_stack_size", KEY_INT, 5, FIELD(dcp_stack_size)},
    {"basic", "cacheddcp", KEY_INT, 0, NO_FIELD},
    {"basic", "verbosity", KEY_INT, -1, FIELD(verbosity)},
    {"basic", "max_var_id", KEY_LONG, 100 * 1024, FIELD(max_var_id)},
    {"basic", "h5_single_file_enable", KEY_BOOL, 0, FIELD(h5_enable)},
    {"basic", "h5_single_file_keep", KEY_BOOL, 0, FIELD(h5_keep)},
    {"basic", "h5_single_file_inline", KEY_BOOL, 1, FIELD(h5_inline)},
    {"basic", "h5_single_file_dir", KEY_STR, 0, FIELD(h5_dir)},
    {"basic", "h5_single_file_prefix", KEY_STR, 0, FIELD(h5_prefix)},
    {"restart", "failure", KEY_INT, 0, FIELD(failure)},
    {"restart", "exec_id", KEY_STR, 0, FIELD(exec_id)},
    {"advanced", "block_size", KEY_INT, -1, FIELD(block_size)},
    {"advanced", "transfer_size", KEY_INT, -1, FIELD(transfer_size)},
    {"advanced", "mpi_tag", KEY_INT, 0, NO_FIELD},
    {"advanced", "general_tag", KEY_INT, 2612, FIELD(general_tag)},
    {"advanced", "ckpt_tag", KEY_INT, 711, FIELD(ckpt_tag)},
    {"advanced", "stage_tag", KEY_INT, 406, FIELD(stage_tag)},
    {"advanced", "final_tag", KEY_INT, 3107, FIELD(final_tag)},
    {"advanced", "local_test", KEY_INT, -1, FIELD(local_test)},
    {"advanced", "fast_forward", KEY_INT, 1, FIELD(fast_forward)},
    {"advanced", "gpu_host_bufsize", KEY_LONG, 0, FIELD(gpu_host_bufsize)},
    {"advanced", "lustre_striping_unit", KEY_INT, 0, NO_FIELD},
    {"advanced", "lustre_striping_factor", KEY_INT, 0, NO_FIELD},
    {"advanced", "lustre_striping_offset", KEY_INT, 0, NO_FIELD},
    {"advanced", "lustre_stiping_unit", KEY_INT, 0, NO_FIELD},
    {"advanced", "lustre_stiping_factor", KEY_INT, 0, NO_FIELD},
    {"advanced", "lustre_stiping_offset", KEY_INT, 0, NO_FIELD},
    {"injection", "rank", KEY_INT, 0, FIELD(inj_rank)},
    {"injection", "index", KEY_INT, 0, FIELD(inj_index)},
    {"injection", "position", KEY_INT, 0, FIELD(inj_position)},
    {"injection", "number", KEY_INT, 0, FIELD(inj_number)},
    {"injection", "frequency", KEY_INT, -1, FIELD(inj_frequency)},
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

/* the reading a refusal or warning shows for a key: "FILE:LINE: [s] k =
 * 'v'" when given, "FILE: [s] k is not set" when not */
static void conf_where(const ini_t *ini, const char *section, const char *key, char *out,
                       size_t len)
{
    const ini_entry_t *e = ini_find(ini, section, key);
    if (e)
        snprintf(out, len, "%s:%d: [%s] %s = '%.60s'", ini_name(ini), e->line, section,
                 key, e->value);
    else
        snprintf(out, len, "%s: [%s] %s is not set", ini_name(ini), section, key);
}

/* "WHERE: WHY" about a key, WHY from fmt */
static void conf_vline(const ini_t *ini, const char *section, const char *key, char *out,
                       size_t len, const char *fmt, va_list ap)
{
    char where[256], why[512];
    vsnprintf(why, sizeof(why), fmt, ap);
    conf_where(ini, section, key, where, sizeof(where));
    snprintf(out, len, "%s: %s", where, why);
}

static int refuse(const ini_t *ini, scr_error_t *err, const char *section,
                  const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* FTI 1.6 would refuse the configuration (FTI_TestConfig's FTI_NSCS) */
static int refuse(const ini_t *ini, scr_error_t *err, const char *section,
                  const char *key, const char *fmt, ...)
{
    char line[800];
    va_list ap;
    va_start(ap, fmt);
    conf_vline(ini, section, key, line, sizeof(line), fmt, ap);
    va_end(ap);
    return errprintf(err, "%s", line);
}

static void fix(const ini_t *ini, fti_conf_warn_fn warn, void *arg, const char *section,
                const char *key, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* FTI 1.6 would correct the value and go on, saying so */
static void fix(const ini_t *ini, fti_conf_warn_fn warn, void *arg, const char *section,
                const char *key, const char *fmt, ...)
{
    char line[800];
    va_list ap;
    va_start(ap, fmt);
    conf_vline(ini, section, key, line, sizeof(line), fmt, ap);
    va_end(ap);
    warnf(warn, arg, "%s", line);
}

/* FTI reads a number with strtol(v, NULL, 0): "0x10" is 16, "12abc" 12 and
 * "abc" 0.  So does this, saying so when the text is not just a number. */
static long conf_number(const ini_t *ini, const key_info_t *k, const ini_entry_t *e,
                        fti_conf_warn_fn warn, void *arg, scr_error_t *err, int *bad)
{
    char *end;
    errno = 0;
    long v = strtol(e->value, &end, 0);
    int range = errno == ERANGE || (k->kind == KEY_INT && (v > INT_MAX || v < INT_MIN));
    if (range) {
        /* FTI would go on with a wrapped value; no one means that */
        *bad = refuse(ini, err, k->section, k->key, "out of the range of %s",
                      k->kind == KEY_INT ? "an int" : "a long");
        return 0;
    }
    if (end == e->value || *end)
        fix(ini, warn, arg, k->section, k->key, "not an integer; FTI 1.6 reads it as %ld",
            v);
    return v;
}

/* FTI's booleans go by the first letter: y, t, 1 or n, f, 0; anything
 * else is the default */
static long conf_boolean(const ini_t *ini, const key_info_t *k, const ini_entry_t *e,
                         fti_conf_warn_fn warn, void *arg)
{
    char c = e->value[0];
    if (c && strchr("yYtT1", c))
        return 1;
    if (c && strchr("nNfF0", c))
        return 0;
    fix(ini, warn, arg, k->section, k->key,
        "neither true nor false (y, t, 1 / n, f, 0); FTI 1.6 takes its default, %ld",
        k->def);
    return k->def;
}

/* one key, FTI's default when not given; -1 on a refusal */
static int conf_key(const ini_t *ini, const key_info_t *k, const char *cwd, fti_conf_t *c,
                    fti_conf_warn_fn warn, void *arg, scr_error_t *err)
{
    char *field = k->field == NO_FIELD ? NULL : (char *)c + k->field;
    if (k->kind == KEY_PATH)
        return conf_path(ini, k, cwd, field, err) < 0 ? -1 : 0;
    const ini_entry_t *e = ini_find(ini, k->section, k->key);
    long v = k->def;
    int bad = 0;
    if (e && k->kind == KEY_BOOL)
        v = conf_boolean(ini, k, e, warn, arg);
    else if (e && k->kind != KEY_STR)
        v = conf_number(ini, k, e, warn, arg, err, &bad);
    if (field && k->kind == KEY_STR)
        snprintf(field, FTI_CONF_STR, "%s", e ? e->value : "");
    else if (field)
        *(long *)field = v;
    return bad < 0 ? -1 : 0;
}

/* FTI_TestConfig's checks that end FTI_Init, in its order; -1 on the first */
static int conf_refusals(const ini_t *ini, const fti_conf_t *c, int nprocs,
                         scr_error_t *err)
{
    if (c->head != 0 && c->head != 1)
        return refuse(ini, err, "basic", "head", "must be 0 or 1");
    if (nprocs > 0 && c->node_size == 0)
        return refuse(ini, err, "basic", "node_size", "must not be 0");
    if (nprocs > 0 && nprocs % c->node_size != 0)
        return refuse(ini, err, "basic", "node_size",
                      "the %d processes are not a multiple of it", nprocs);
    long nodes = c->node_size ? nprocs / c->node_size : 0;
    if (nprocs > 0 && c->group_size == 0)
        return refuse(ini, err, "basic", "group_size", "must not be 0");
    if (nprocs > 0 && nodes % c->group_size != 0 && c->node_size < 0)
        return refuse(ini, err, "basic", "group_size",
                      "without node_size FTI 1.6 counts %ld nodes (%d processes / -1), "
                      "not a multiple of it",
                      nodes, nprocs);
    if (nprocs > 0 && nodes % c->group_size != 0)
        return refuse(
            ini, err, "basic", "group_size",
            "the %ld nodes (%d processes, node_size %ld) are not a multiple of it", nodes,
            nprocs, c->node_size);
    if (c->group_size < 2 && (c->ckpt_l[2] > 0 || c->ckpt_l[3] > 0))
        return refuse(ini, err, "basic", "group_size",
                      "must be at least 2 while ckpt_l2 or ckpt_l3 is on");
    if (c->group_size >= 32 && c->ckpt_l[3] > 0)
        return refuse(ini, err, "basic", "group_size",
                      "must be below 32 while ckpt_l3 is on");
    if (c->verbosity < 1 || c->verbosity > 3)
        return refuse(ini, err, "basic", "verbosity", "must be 1, 2 or 3");
    if (c->block_size < 1 || c->block_size > 2048)
        return refuse(ini, err, "advanced", "block_size", "must be from 1 to 2048 (KiB)");
    if (c->keep_heads_alive && c->head == 0)
        return refuse(ini, err, "basic", "keep_heads_alive", "needs head = 1");
    if (c->fast_forward < 1 || c->fast_forward > 10)
        return refuse(ini, err, "advanced", "fast_forward", "must be from 1 to 10");
    if (c->local_test != 0 && c->local_test != 1)
        return refuse(ini, err, "advanced", "local_test", "must be 0 or 1");
    if (c->keep_last_ckpt != 0 && c->keep_last_ckpt != 1)
        return refuse(ini, err, "basic", "keep_last_ckpt", "must be 0 or 1");
    static const char *inl[] = {NULL, NULL, "inline_l2", "inline_l3", "inline_l4"};
    for (int i = 2; i <= 4; i++)
        if (c->inline_l[i] == 0 && c->head != 1)
            return refuse(ini, err, "basic", inl[i], "0 needs head = 1");
    if (c->h5_inline == 0 && c->head != 1)
        return refuse(ini, err, "basic", "h5_single_file_inline", "0 needs head = 1");
    return 0;
}

/* the differential checkpoint settings: FTI 1.6 does them with ckpt_io 1
 * (POSIX) and 3 (FTI-FF) only, and checks mode and block size with FTI-FF;
 * a bad value turns them off.  SCR's block size has the same bounds. */
static void conf_dcp(const ini_t *ini, fti_conf_t *c, fti_conf_warn_fn warn, void *arg)
{
    if (!c->enable_dcp)
        return;
    if (c->ckpt_io != 1 && c->ckpt_io != 3) {
        fix(ini, warn, arg, "basic", "enable_dcp",
            "no differential checkpoints with ckpt_io = %ld, as in FTI 1.6 (they need 1 "
            "or 3)",
            c->ckpt_io);
        c->enable_dcp = 0;
    } else if (c->ckpt_io == 3 && c->dcp_mode != 1 && c->dcp_mode != 2) {
        fix(ini, warn, arg, "basic", "dcp_mode",
            "must be 1 (MD5) or 2 (CRC32); differential checkpoints off, as in FTI 1.6");
        c->enable_dcp = 0;
    } else if (c->dcp_block_size < 512 || c->dcp_block_size > 65535) {
        if (c->ckpt_io == 3) {
            fix(ini, warn, arg, "basic", "dcp_block_size",
                "must be from 512 to 65535; differential checkpoints off, as in FTI 1.6");
            c->enable_dcp = 0;
        } else if (ini_find(ini, "basic", "dcp_block_size")) {
            fix(ini, warn, arg, "basic", "dcp_block_size",
                "not from 512 to 65535; SCR's default block size instead");
        }
    }
    if (c->enable_dcp && c->ckpt_io == 1 && c->dcp_stack_size > 10) {
        fix(ini, warn, arg, "basic", "dcp_stack_size",
            "must be below 10; 5, as in FTI 1.6");
        c->dcp_stack_size = 5;
    }
    if (!c->enable_dcp || c->dcp_block_size < 512 || c->dcp_block_size > 65535)
        c->dcp_block_size = 0;
}

/* the values FTI_TestConfig corrects, with the warnings it gives */
static void conf_fixes(const ini_t *ini, fti_conf_t *c, fti_conf_warn_fn warn, void *arg)
{
    if (c->max_var_id > INT_MAX) {
        fix(ini, warn, arg, "basic", "max_var_id", "above %d; %d, as in FTI 1.6", INT_MAX,
            100 * 1024);
        c->max_var_id = 100 * 1024;
    }
    conf_dcp(ini, c, warn, arg);
    if (ini_find(ini, "advanced", "transfer_size") &&
        (c->transfer_size < 8 || c->transfer_size > 64))
        fix(ini, warn, arg, "advanced", "transfer_size",
            "not from 8 to 64 (MiB); 16, as in FTI 1.6");
    if (c->transfer_size < 8 || c->transfer_size > 64)
        c->transfer_size = 16;
    for (int i = 2; i <= 4; i++) /* inline_l[1] is not a key */
        if (c->inline_l[i] != 0 && c->inline_l[i] != 1)
            c->inline_l[i] = 1;
    if (c->max_sync_intv <= 0) {
        c->max_sync_intv = 512;
    } else if (c->max_sync_intv & (c->max_sync_intv - 1)) {
        long p = 1;
        while (p * 2 < c->max_sync_intv)
            p *= 2;
        fix(ini, warn, arg, "basic", "max_sync_intv",
            "not a power of 2; %ld, the one below, as in FTI 1.6", p);
        c->max_sync_intv = p;
    }
    if (c->group_size < 1)
        c->group_size = 1;
}

int fti_conf_load(const char *path, const char *cwd, int nprocs, fti_conf_t *c,
                  fti_conf_warn_fn warn, void *arg, scr_error_t *err)
{
    memset(c, 0, sizeof(*c));
    if (!path)
        return errprintf(err, "no FTI configuration file given (NULL)");
    ini_t *ini = ini_load(path, err);
    if (!ini)
        return -1;
    conf_warn_unknown(ini, warn, arg);
    int rc = 0;
    for (size_t i = 0; i < NKEYS && rc == 0; i++)
        rc = conf_key(ini, &keys[i], cwd ? cwd : ".", c, warn, arg, err);
    if (rc == 0)
        rc = conf_refusals(ini, c, nprocs, err);
    if (rc == 0) {
        conf_fixes(ini, c, warn, arg);
        if (c->head == 1)
            fix(ini, warn, arg, "basic", "head",
                "SCR runs no FTI head processes; every process computes and "
                "FTI_COMM_WORLD has them all");
    }
    ini_free(&ini);
    return rc < 0 ? -1 : 0;
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
    if (c->group_size > 1) {
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
