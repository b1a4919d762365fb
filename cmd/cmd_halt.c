/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_halt.c - scr halt: set, list and remove halt conditions of a job
 * (guide 2.20) in <prefix>/.scr/halt.scr.  The library reads them at every
 * completed dataset and at start. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "halt.h"
#include "kvtree.h"

static const char *halt_prefix(const char *opt)
{
    static char cwd[4096];
    if (opt)
        return opt;
    if (getenv("SCR_PREFIX"))
        return getenv("SCR_PREFIX");
    return getcwd(cwd, sizeof(cwd)) ? cwd : ".";
}

static int halt_list(const char *prefix)
{
    kvtree_t *t = kvtree_new();
    scr_error_t err;
    if (halt_read(prefix, t, &err) < 0) {
        fprintf(stderr, "scr halt: %s\n", err.text);
        return 1;
    }
    if (kvtree_size(t) == 0)
        printf("no halt conditions for %s\n", prefix);
    for (kvtree_elem_t *e = kvtree_first(t); e; e = kvtree_elem_next(e)) {
        const char *k = kvtree_elem_key(e), *v = kvtree_get_val(t, k);
        long secs;
        if (v && (strcmp(k, "ExitAfter") == 0 || strcmp(k, "ExitBefore") == 0) &&
            sscanf(v, "%ld", &secs) == 1) {
            char buf[64] = "out of range";
            time_t tt = secs;
            struct tm tm;
            if (localtime_r(&tt, &tm)) /* NULL past year 2^31 */
                strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
            printf("%s: %s (%s)\n", k, buf, v);
        } else
            printf("%s: %s\n", k, v ? v : "");
    }
    kvtree_delete(&t);
    return 0;
}

/* one option: returns 0, or 1 with a message */
static int halt_apply(const char *prefix, const char *opt, const char *arg)
{
    scr_error_t err = {""};
    char num[32];
    time_t t;
    int rc = 0;
    static const struct {
        const char *opt, *key;
    } unsets[] = {{"--unset-checkpoints", "CheckpointsLeft"},
                  {"--unset-before", "ExitBefore"},
                  {"--unset-after", "ExitAfter"},
                  {"--unset-seconds", "HaltSeconds"},
                  {"--unset-reason", "ExitReason"}};
    for (size_t i = 0; i < sizeof(unsets) / sizeof(unsets[0]); i++)
        if (strcmp(opt, unsets[i].opt) == 0)
            rc = halt_unset(prefix, unsets[i].key, &err);
    if (strcmp(opt, "--checkpoints") == 0 || strcmp(opt, "--seconds") == 0) {
        char *end;
        long v = strtol(arg, &end, 10);
        if (*arg == '\0' || *end || v < 0) {
            fprintf(stderr, "scr halt: %s needs a number >= 0, not '%s'\n", opt, arg);
            return 1;
        }
        snprintf(num, sizeof(num), "%ld", v);
        rc = halt_set(prefix, opt[2] == 'c' ? "CheckpointsLeft" : "HaltSeconds", num,
                      &err);
    } else if (strcmp(opt, "--before") == 0 || strcmp(opt, "--after") == 0) {
        if (halt_parse_time(arg, time(NULL), &t) < 0) {
            fprintf(
                stderr,
                "scr halt: %s '%s': not a time (try '2026-11-21 18:30', '18:30', '+2h', "
                "'@1795000000')\n",
                opt, arg);
            return 1;
        }
        snprintf(num, sizeof(num), "%lld", (long long)t);
        rc = halt_set(prefix, opt[2] == 'b' ? "ExitBefore" : "ExitAfter", num, &err);
    } else if (strcmp(opt, "--immediate") == 0)
        rc = halt_set(prefix, "ExitReason", "SCR_HALT_IMMEDIATE", &err);
    else if (strcmp(opt, "--remove") == 0)
        rc = halt_remove(prefix, &err);
    if (rc < 0) {
        fprintf(stderr, "scr halt: %s\n", err.text);
        return 1;
    }
    return 0;
}

static int halt_takes_arg(const char *opt)
{
    return !strcmp(opt, "--checkpoints") || !strcmp(opt, "--seconds") ||
           !strcmp(opt, "--before") || !strcmp(opt, "--after") ||
           !strcmp(opt, "--prefix");
}

static int halt_known(const char *opt)
{
    static const char *const known[] = {"--checkpoints",  "--seconds",
                                        "--before",       "--after",
                                        "--prefix",       "--immediate",
                                        "--remove",       "--list",
                                        "--unset-before", "--unset-checkpoints",
                                        "--unset-after",  "--unset-seconds",
                                        "--unset-reason", NULL};
    for (int i = 0; known[i]; i++)
        if (strcmp(opt, known[i]) == 0)
            return 1;
    return 0;
}

int cmd_halt(int argc, char **argv)
{
    const char *prefix = NULL;
    int list = argc == 1, rc = 0;
    for (int i = 1; i < argc; i++) {
        if (!halt_known(argv[i]) || (halt_takes_arg(argv[i]) && i + 1 >= argc))
            return cmd_usage("halt");
        if (strcmp(argv[i], "--prefix") == 0)
            prefix = argv[i + 1];
        if (strcmp(argv[i], "--list") == 0)
            list = 1;
        i += halt_takes_arg(argv[i]);
    }
    prefix = halt_prefix(prefix);
    for (int i = 1; i < argc && rc == 0; i++) {
        if (strcmp(argv[i], "--prefix") != 0 && strcmp(argv[i], "--list") != 0)
            rc = halt_apply(prefix, argv[i], halt_takes_arg(argv[i]) ? argv[i + 1] : "");
        i += halt_takes_arg(argv[i]);
    }
    if (rc == 0 && list)
        rc = halt_list(prefix);
    return rc;
}
