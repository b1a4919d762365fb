/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_config.c - libFuzzer target for the config file parser and the
 * SCR_Config string parser.  The input is a config file, loaded from disk
 * as the system and user files are (config_load_file) and also given to
 * SCR_Config as a setting and a query.  Every parameter is then resolved as
 * the library resolves it: plain ones as strings, integers and byte counts,
 * descriptors (STORE, CKPT, CNTLDIR, GROUPS) as the trees desc.c walks, with
 * every attribute of every entry.  The configuration must survive the
 * export and import that carry it from rank 0 to every process. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzzlib.h"
#include "params.h"

static void quiet(const char *msg, void *arg)
{
    (void)msg;
    (void)arg;
}

/* what desc.c and env.c take from the configuration */
static void config_resolve(const scr_config_t *cfg)
{
    for (const param_info_t *p = param_table(); p->name; p++) {
        if (!(p->flags & PARAM_DESCRIPTOR)) {
            config_get(cfg, p->name, NULL);
            config_get_int(cfg, p->name, 0);
            config_get_bytes(cfg, p->name, 0);
            continue;
        }
        const kvtree_t *t = config_get_tree(cfg, p->name, NULL);
        for (kvtree_elem_t *e = kvtree_first(t); e; e = kvtree_elem_next(e))
            for (kvtree_elem_t *a = kvtree_first(kvtree_elem_tree(e)); a;
                 a = kvtree_elem_next(a))
                if (!kvtree_get_val(kvtree_elem_tree(e), kvtree_elem_key(a)))
                    fuzz_fail("an attribute always has a value");
    }
}

/* rank 0 exports, every other process imports: the same configuration */
static void config_round_trip(const scr_config_t *cfg)
{
    scr_config_t *other = config_new();
    config_set_warn(other, quiet, NULL);
    kvtree_t *t = config_export(cfg), *u = NULL;
    if (!t || config_import(other, t) < 0 || !(u = config_export(other)) ||
        !kvtree_equal(t, u))
        fuzz_fail("the configuration changed in an export and import");
    kvtree_delete(&t);
    kvtree_delete(&u);
    config_delete(&other);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char path[4200];
    scr_error_t err;
    fuzz_scratch();
    fuzz_path("scr.conf", path, sizeof(path));
    if (fuzz_write("scr.conf", data, size) < 0)
        fuzz_fail("cannot write the input");
    scr_config_t *cfg = config_new();
    config_set_warn(cfg, quiet, NULL);
    config_load_file(cfg, CONFIG_SRC_SYSTEM, path, &err);
    config_parse_buf(cfg, CONFIG_SRC_USER, "fuzz", (const char *)data, size);
    char *s = strndup((const char *)data, size);
    config_app_set(cfg, s, &err);
    config_app_query(cfg, s, &err);
    free(s);
    config_resolve(cfg);
    config_round_trip(cfg);
    config_delete(&cfg);
    return 0;
}
