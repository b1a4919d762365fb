/* SPDX-License-Identifier: BSD-3-Clause */
/* params.h - the table of every SCR configuration parameter.
 *
 * One place names each parameter, its default and what it means; `scr config
 * --list` prints it, the config parser warns about names not in it, and
 * PARAM_SYSTEM marks the ones only the system configuration file may set.
 */
#ifndef SCR_PARAMS_H
#define SCR_PARAMS_H

enum {
    PARAM_SYSTEM = 0x1,     /* ignored from environment, user file, SCR_Config */
    PARAM_DESCRIPTOR = 0x2, /* a descriptor line: KEY=VALUE SUBKEY=VALUE ... */
};

typedef struct {
    const char *name;
    const char *dflt; /* NULL: no default (unset) */
    unsigned flags;
    const char *const *subkeys; /* known subkeys of a descriptor, NULL: any */
    const char *help;
} param_info_t;

/* the entry for name, or NULL for an unknown parameter */
const param_info_t *param_lookup(const char *name);
/* the whole table, terminated by an entry with name NULL */
const param_info_t *param_table(void);
/* 1 if sub is a known subkey of descriptor p */
int param_subkey_known(const param_info_t *p, const char *sub);

#endif
