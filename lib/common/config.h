/* SPDX-License-Identifier: BSD-3-Clause */
/* config.h - SCR parameters from the environment, config files and the
 * application, resolved in a fixed order.
 *
 * Order (first wins): environment, user config file ($SCR_CONF_FILE, else
 * $SCR_PREFIX/.scrconf), values set with SCR_Config, system config file,
 * built-in defaults.  Parameters marked PARAM_SYSTEM are taken only from the
 * system file.  Config files hold KEY=VALUE lines, '#' comments, $VAR and
 * ${VAR} expansion, and descriptor lines with several pairs
 * ("CKPT=1 INTERVAL=4 TYPE=XOR").  Problems in a file are warnings naming the
 * file and line; nothing in a file is fatal.
 */
#ifndef SCR_CONFIG_H
#define SCR_CONFIG_H

#include <stddef.h>

#include "error.h"
#include "kvtree.h"

typedef enum {
    CONFIG_SRC_ENV = 0,
    CONFIG_SRC_USER,
    CONFIG_SRC_APP,
    CONFIG_SRC_SYSTEM,
    CONFIG_SRC_DEFAULT,
    CONFIG_SRC_COUNT,
} config_src_t;

typedef struct scr_config scr_config_t;
/* receives each warning as one line of text */
typedef void (*config_warn_fn)(const char *msg, void *arg);

scr_config_t *config_new(void);
void config_delete(scr_config_t **cfg);
/* replace the default warning sink (log_warn) */
void config_set_warn(scr_config_t *cfg, config_warn_fn fn, void *arg);

/* Parse config text as source src; name is the file name for messages. */
int config_parse_buf(scr_config_t *cfg, config_src_t src, const char *name,
                     const char *buf, size_t len);
/* Load a config file as source src.  A missing file fails with ENOENT. */
int config_load_file(scr_config_t *cfg, config_src_t src, const char *path,
                     scr_error_t *err);
/* Take the known SCR_* variables from the environment. */
int config_load_env(scr_config_t *cfg);
/* Environment, user file and system file: what a process sees before any
 * SCR_Config call.  Missing files are fine; unreadable ones are warnings. */
int config_load_standard(scr_config_t *cfg, const char *system_file);

/* SCR_Config strings: "KEY=VALUE [SUB=VAL ...]" sets, "KEY=" unsets the
 * application's value, "KEY" (or "CKPT=0 TYPE") is a query handled by
 * config_app_query.  Returns -1 with a message for malformed input. */
int config_app_set(scr_config_t *cfg, const char *str, scr_error_t *err);
/* Resolve a query string; returns the value (owned by cfg) or NULL. */
const char *config_app_query(scr_config_t *cfg, const char *str, scr_error_t *err);

/* The resolved value of a plain parameter and where it came from. */
const char *config_get(const scr_config_t *cfg, const char *key, config_src_t *src);
/* A descriptor parameter's tree (VALUE -> SUBKEY -> SUBVALUE) from the first
 * source that defines it, or NULL. */
const kvtree_t *config_get_tree(const scr_config_t *cfg, const char *key,
                                config_src_t *src);
/* "environment", "user config file /x", ..., for messages */
const char *config_src_name(const scr_config_t *cfg, config_src_t src);

/* Typed lookups; a value that does not parse is a warning and the default. */
int config_get_int(const scr_config_t *cfg, const char *key, int dflt);
unsigned long long config_get_bytes(const scr_config_t *cfg, const char *key,
                                    unsigned long long dflt);

/* Everything as one tree (for broadcast from rank 0), and back; import
 * replaces only the sources present in the tree. */
kvtree_t *config_export(const scr_config_t *cfg);
int config_import(scr_config_t *cfg, const kvtree_t *t);

#endif
