/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config.c - sources, precedence, parser warnings, SCR_Config */
#include "config.h"
#include "tap.h"
#include "testutil.h"

static char warnings[8192];

static void capture(const char *msg, void *arg)
{
    (void)arg;
    strncat(warnings, msg, sizeof(warnings) - strlen(warnings) - 2);
    strcat(warnings, "\n");
}

static int warned(const char *s)
{
    int r = strstr(warnings, s) != NULL;
    if (!r)
        diag("no warning '%s' in:\n%s", s, warnings);
    return r;
}

static int is(const char *got, const char *want)
{
    int r = got && strcmp(got, want) == 0;
    if (!r)
        diag("got '%s', want '%s'", got ? got : "(null)", want);
    return r;
}

static const char *system_text = "# site config\n"
                                 "SCR_CNTL_BASE=/dev/shm/cntl\n"
                                 "SCR_CACHE_SIZE=3\n"
                                 "SCR_FLUSH = 20   # spaces around = are fine\n"
                                 "SCR_SET_SIZE=4\n"
                                 "STORE=/dev/shm GROUP=NODE COUNT=2\n"
                                 "STORE=/ssd GROUP=NODE COUNT=1 MKDIR=0\n"
                                 "CKPT=0 TYPE=XOR SET_SIZE=8\n"
                                 "GROUPS=host1 POWER=psu1 SWITCH=sw2\n";

static const char *user_text = "SCR_CACHE_SIZE=5\n"
                               "SCR_CNTL_BASE=/home/evil\n"
                               "SCR_BOGUS=1\n"
                               "this line is broken\n"
                               "SCR_PREFIX=$SCRTEST_HOME/ckpt\n"
                               "SCR_JOB_NAME=${SCRTEST_UNSET_VAR}x\n"
                               "CKPT=1 INTERVAL=4 TYPE=RS SET_FAILURES=2 WIBBLE=3\n"
                               "SCR_DEBUG=1 EXTRA=2\n"
                               "SCR_FLUSH=\n";

int main(void)
{
    char *dir = tu_tmpdir();
    char sys[4200], user[4200];
    snprintf(sys, sizeof(sys), "%s/scr.conf", dir);
    snprintf(user, sizeof(user), "%s/user.conf", dir);
    tu_write(sys, system_text, strlen(system_text));
    tu_write(user, user_text, strlen(user_text));
    setenv("SCRTEST_HOME", "/home/u", 1);
    setenv("SCR_CONF_FILE", user, 1);
    setenv("SCR_SET_SIZE", "16", 1);
    setenv("SCR_CNTL_BASE", "/tmp/nope", 1);
    unsetenv("SCR_CACHE_SIZE");
    unsetenv("SCR_PREFIX");

    scr_config_t *cfg = config_new();
    config_set_warn(cfg, capture, NULL);
    ok(config_load_standard(cfg, sys) == 0, "load environment, user and system files");
    config_src_t src;
    ok(is(config_get(cfg, "SCR_SET_SIZE", &src), "16") && src == CONFIG_SRC_ENV,
       "environment beats the system file");
    ok(is(config_get(cfg, "SCR_CACHE_SIZE", &src), "5") && src == CONFIG_SRC_USER,
       "user file beats the system file");
    ok(is(config_get(cfg, "SCR_FLUSH", &src), "20") && src == CONFIG_SRC_SYSTEM,
       "system file beats the default; 'KEY = VALUE' parsed");
    ok(is(config_get(cfg, "SCR_FETCH", &src), "1") && src == CONFIG_SRC_DEFAULT,
       "default");
    ok(is(config_get(cfg, "SCR_CNTL_BASE", &src), "/dev/shm/cntl") &&
           src == CONFIG_SRC_SYSTEM,
       "system-only parameter ignored from user file and environment");
    ok(warned("environment: SCR_CNTL_BASE can only be set in the system config file"),
       "warning for system-only in the environment");
    char where[4300];
    snprintf(where, sizeof(where), "%s:2: SCR_CNTL_BASE can only be set", user);
    ok(warned(where), "warning names user file and line 2");
    snprintf(where, sizeof(where), "%s:3: unknown parameter 'SCR_BOGUS'", user);
    ok(warned(where), "unknown key warned with file:line");
    snprintf(where, sizeof(where), "%s:4: malformed line", user);
    ok(warned(where), "malformed line warned with file:line");
    ok(is(config_get(cfg, "SCR_PREFIX", NULL), "/home/u/ckpt"), "$VAR expanded");
    ok(is(config_get(cfg, "SCR_JOB_NAME", NULL), "x") &&
           warned("$SCRTEST_UNSET_VAR is not set"),
       "${VAR} of an unset variable warns and expands empty");
    snprintf(where, sizeof(where), "%s:7: unknown CKPT attribute 'WIBBLE'", user);
    ok(warned(where), "unknown descriptor attribute warned");
    ok(warned("SCR_DEBUG takes one value"), "extra pairs on a plain key warned");
    snprintf(where, sizeof(where), "%s:9: malformed line: no value for 'SCR_FLUSH'",
             user);
    ok(warned(where), "empty value warned");

    const kvtree_t *ckpt = config_get_tree(cfg, "CKPT", &src);
    ok(ckpt && src == CONFIG_SRC_USER && kvtree_size(ckpt) == 1 &&
           is(kvtree_get_val(kvtree_get(ckpt, "1"), "TYPE"), "RS"),
       "descriptor from the first source that defines it");
    const kvtree_t *store = config_get_tree(cfg, "STORE", &src);
    ok(store && src == CONFIG_SRC_SYSTEM && kvtree_size(store) == 2 &&
           is(kvtree_get_val(kvtree_get(store, "/ssd"), "MKDIR"), "0"),
       "two STORE lines");
    ok(is(kvtree_get_val(kvtree_get(config_get_tree(cfg, "GROUPS", NULL), "host1"),
                         "SWITCH"),
          "sw2"),
       "GROUPS with arbitrary attributes");

    /* SCR_Config */
    scr_error_t err;
    unsetenv("SCR_SET_SIZE");
    config_delete(&cfg);
    cfg = config_new();
    config_set_warn(cfg, capture, NULL);
    config_load_standard(cfg, sys);
    ok(config_app_set(cfg, "SCR_FLUSH=3", &err) == 0 &&
           is(config_get(cfg, "SCR_FLUSH", &src), "3") && src == CONFIG_SRC_APP,
       "SCR_Config beats the system file");
    ok(config_app_set(cfg, "SCR_CACHE_SIZE=9", &err) == 0 &&
           is(config_get(cfg, "SCR_CACHE_SIZE", NULL), "5"),
       "the user file beats SCR_Config");
    ok(is(config_app_query(cfg, "SCR_FLUSH", &err), "3"), "query");
    ok(config_app_set(cfg, "SCR_FLUSH=", &err) == 0 &&
           is(config_get(cfg, "SCR_FLUSH", NULL), "20"),
       "KEY= unsets the application value");
    ok(config_app_set(cfg, "CKPT=0 TYPE=PARTNER", &err) == 0,
       "descriptor via SCR_Config");
    ok(is(config_app_query(cfg, "CKPT=1 TYPE", &err), "RS"),
       "descriptor query (user file wins over SCR_Config for CKPT)");
    ok(config_app_set(cfg, "SCR_CNTL_BASE=/x", &err) < 0 &&
           strstr(err.text, "SCR_CNTL_BASE"),
       "SCR_Config cannot set a system parameter: %s", err.text);
    ok(config_app_set(cfg, "=3", &err) < 0, "malformed SCR_Config string");
    ok(config_app_set(cfg, "SCR_FLUSH", &err) < 0 && strstr(err.text, "query"),
       "a query passed to set is an error");

    ok(config_get_int(cfg, "SCR_FLUSH", -1) == 20, "get_int");
    config_app_set(cfg, "SCR_FLUSH_ASYNC_BW=1.5GB", &err);
    ok(config_get_bytes(cfg, "SCR_FLUSH_ASYNC_BW", 0) == 3ULL << 29, "get_bytes");
    config_app_set(cfg, "SCR_FETCH_WIDTH=lots", &err);
    ok(config_get_int(cfg, "SCR_FETCH_WIDTH", 256) == 256 &&
           warned("SCR_FETCH_WIDTH=lots is not an integer"),
       "bad integer warns and uses the default");

    kvtree_t *exp = config_export(cfg);
    scr_config_t *copy = config_new();
    ok(exp && config_import(copy, exp) == 0 &&
           is(config_get(copy, "SCR_CACHE_SIZE", &src), "5") && src == CONFIG_SRC_USER &&
           strstr(config_src_name(copy, src), user),
       "export/import keeps values, sources and file names");
    kvtree_delete(&exp);
    config_delete(&copy);

    scr_error_t lerr;
    ok(config_load_file(cfg, CONFIG_SRC_USER, dir, &lerr) < 0 &&
           strstr(lerr.text, "not a regular file"),
       "a directory as config file: %s", lerr.text);
    config_delete(&cfg);
    tu_rmrf(dir);
    free(dir);
    return done_testing();
}
