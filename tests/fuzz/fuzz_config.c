/* fuzz_config.c - libFuzzer target for the config file parser and the
 * SCR_Config string parser. */
#include <stdlib.h>
#include <string.h>

#include "config.h"

static void quiet(const char *msg, void *arg)
{
    (void)msg;
    (void)arg;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    scr_config_t *cfg = config_new();
    config_set_warn(cfg, quiet, NULL);
    config_parse_buf(cfg, CONFIG_SRC_SYSTEM, "fuzz", (const char *)data, size);
    char *s = strndup((const char *)data, size);
    scr_error_t err;
    config_app_set(cfg, s, &err);
    config_app_query(cfg, s, &err);
    free(s);
    kvtree_t *t = config_export(cfg);
    kvtree_delete(&t);
    config_delete(&cfg);
    return 0;
}
