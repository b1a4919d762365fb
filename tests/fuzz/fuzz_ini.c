/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_ini.c - libFuzzer target for the INI parser and its typed getters. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    scr_error_t err;
    ini_t *ini = ini_parse_buf("fuzz", (const char *)data, size, &err);
    for (int i = 0; i < ini_count(ini); i++) {
        const ini_entry_t *e = ini_entry(ini, i);
        long v;
        int b;
        const char *s;
        ini_get_long(ini, e->section, e->key, LONG_MIN, LONG_MAX, &v, &err);
        ini_get_long(ini, e->section, e->key, 0, 10, &v, &err);
        ini_get_bool(ini, e->section, e->key, &b, &err);
        ini_get_str(ini, e->section, e->key, &s);
        ini_section_line(ini, e->section);
    }
    ini_free(&ini);
    return 0;
}
