/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_fti_conf.c - libFuzzer target for FTI's configuration file as the
 * FTI interface reads it (lib/fti/fti_conf.c over ini.c): the input is the
 * file FTI_Init is given, loaded from disk, and every SCR_Config string it
 * turns into is set as FTI_Init sets it.  A file must load or fail with a
 * one-line reason; each setting must be one SCR_Config accepts. */
#include <stdlib.h>

#include "config.h"
#include "fti_conf.h"
#include "fuzzlib.h"

static void quiet(const char *msg, void *arg)
{
    (void)msg;
    (void)arg;
}

static int apply(const char *setting, void *arg)
{
    scr_error_t err = {""};
    if (config_app_set(arg, setting, &err) < 0)
        fuzz_fail("FTI setting '%s' is refused: %s", setting, err.text);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[4200];
    fti_conf_t c;
    scr_error_t err = {""};
    fuzz_scratch();
    fuzz_path("config.fti", path, sizeof(path));
    if (fuzz_write("config.fti", data, size) < 0)
        fuzz_fail("cannot write the input");
    if (fti_conf_load(path, "/run/dir", 8, &c, quiet, NULL, &err) < 0) {
        if (!err.text[0])
            fuzz_fail("a rejection must say why");
        return 0;
    }
    scr_config_t *cfg = config_new();
    config_set_warn(cfg, quiet, NULL);
    fti_conf_settings(&c, apply, cfg);
    config_delete(&cfg);
    return 0;
}
