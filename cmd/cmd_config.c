/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_config.c - scr config: the parameter table and resolved values.
 *
 * `scr config --list` prints the table of lib/common/params.c as text;
 * `--format=scdoc` prints the same table as the PARAMETERS part of the
 * scr.conf(5) man page, which the build generates this way (man/), so the
 * page and the command can never disagree.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "params.h"
#include "scr_build.h"

static void config_list_text(void)
{
    printf("%-26s %-10s %s\n", "PARAMETER", "DEFAULT", "MEANING");
    for (const param_info_t *p = param_table(); p->name; p++) {
        printf("%-26s %-10s %s%s\n", p->name, p->dflt ? p->dflt : "-", p->help,
               (p->flags & PARAM_SYSTEM) ? " [system only]" : "");
    }
}

/* Headings of the man page, each before the parameter that opens its part
 * of the table (params.c keeps related parameters together).  A name
 * missing here only costs a heading, never a parameter. */
static const struct {
    const char *first, *title;
} config_sections[] = {
    {"SCR_ENABLE", "General"},
    {"SCR_CNTL_BASE", "Storage"},
    {"SCR_COPY_TYPE", "Redundancy"},
    {"SCR_CHECKPOINT_INTERVAL", "When to checkpoint"},
    {"SCR_DCP", "Memory checkpoints"},
    {"SCR_FLUSH", "Flush and fetch"},
    {"SCR_HALT_SECONDS", "Halting, and scr run"},
    {"SCR_LOG_ENABLE", "Logging"},
    {"STORE", "Descriptors"},
};

static const char *config_section(const char *name)
{
    for (size_t i = 0; i < sizeof(config_sections) / sizeof(config_sections[0]); i++)
        if (strcmp(config_sections[i].first, name) == 0)
            return config_sections[i].title;
    return NULL;
}

/* s with scdoc's markup characters escaped, so a description is text */
static void scdoc_put(const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '*' || *s == '_' || *s == '`')
            putchar('\\');
        putchar(*s);
    }
}

static void config_list_scdoc_one(const param_info_t *p)
{
    printf("*");
    scdoc_put(p->name);
    printf("*");
    if (p->dflt) {
        printf(" (default: ");
        scdoc_put(p->dflt);
        printf(")");
    }
    /* a sentence in the page: capitalized, ended with a period */
    char first[2] = {(char)toupper((unsigned char)p->help[0]), '\0'};
    printf("\n\t");
    scdoc_put(first);
    scdoc_put(p->help[0] ? p->help + 1 : "");
    printf(".");
    if (p->subkeys) {
        printf(" Attributes:");
        for (int i = 0; p->subkeys[i]; i++) {
            printf("%s *", i ? "," : "");
            scdoc_put(p->subkeys[i]);
            printf("*");
        }
        printf(".");
    }
    if (p->flags & PARAM_SYSTEM)
        printf(" Only the system configuration file can set it.");
    printf("\n\n");
}

/* the table as scdoc: "## <section>" headings, and per parameter its name
 * and default, then its meaning as an indented paragraph */
static void config_list_scdoc(void)
{
    for (const param_info_t *p = param_table(); p->name; p++) {
        const char *title = config_section(p->name);
        if (title)
            printf("## %s\n\n", title);
        config_list_scdoc_one(p);
    }
}

static void config_show_tree(const char *key, const kvtree_t *t, const char *from)
{
    for (kvtree_elem_t *e = kvtree_first(t); e; e = kvtree_elem_next(e)) {
        printf("%s=%s", key, kvtree_elem_key(e));
        kvtree_t *attrs = kvtree_elem_tree(e);
        for (kvtree_elem_t *a = kvtree_first(attrs); a; a = kvtree_elem_next(a))
            printf(" %s=%s", kvtree_elem_key(a),
                   kvtree_get_val(attrs, kvtree_elem_key(a)));
        printf("\t(%s)\n", from);
    }
}

static int config_show(scr_config_t *cfg, const char *key)
{
    const param_info_t *p = param_lookup(key);
    config_src_t src;
    if (p && (p->flags & PARAM_DESCRIPTOR)) {
        const kvtree_t *t = config_get_tree(cfg, key, &src);
        if (!t)
            printf("%s is not set\n", key);
        config_show_tree(key, t, config_src_name(cfg, src));
        return 0;
    }
    const char *v = config_get(cfg, key, &src);
    if (!p && src == CONFIG_SRC_DEFAULT) {
        fprintf(stderr, "scr config: unknown parameter '%s' (see scr config --list)\n",
                key);
        return 1;
    }
    if (v)
        printf("%s=%s\t(%s)\n", key, v, config_src_name(cfg, src));
    else
        printf("%s is not set\n", key);
    return 0;
}

/* --format=F or --format F; returns 0, or -1 for an unknown format */
static int config_format(const char *f, int *scdoc)
{
    if (strcmp(f, "text") == 0)
        *scdoc = 0;
    else if (strcmp(f, "scdoc") == 0)
        *scdoc = 1;
    else {
        fprintf(stderr, "scr config: unknown format '%s' (text or scdoc)\n", f);
        return -1;
    }
    return 0;
}

int cmd_config(int argc, char **argv)
{
    const char *system_file = SCR_SYSTEM_CONFIG_FILE;
    int i = 1, list = 0, scdoc = 0, rc = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--list") == 0)
            list = 1;
        else if (strcmp(argv[i], "--system-file") == 0 && i + 1 < argc)
            system_file = argv[++i];
        else if (strncmp(argv[i], "--format=", 9) == 0) {
            if (config_format(argv[i] + 9, &scdoc) < 0)
                return 2;
        } else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            if (config_format(argv[++i], &scdoc) < 0)
                return 2;
        } else
            return cmd_usage("config");
    }
    if (list) {
        if (scdoc)
            config_list_scdoc();
        else
            config_list_text();
        return 0;
    }
    if (i == argc || scdoc)
        return cmd_usage("config");
    scr_config_t *cfg = config_new();
    if (!cfg || config_load_standard(cfg, system_file) < 0) {
        fprintf(stderr, "scr config: cannot load configuration\n");
        config_delete(&cfg);
        return 1;
    }
    for (; i < argc; i++)
        rc |= config_show(cfg, argv[i]);
    config_delete(&cfg);
    return rc;
}
