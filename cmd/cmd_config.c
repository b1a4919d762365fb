/* cmd_config.c - scr config: the parameter table and resolved values */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "params.h"
#include "scr_build.h"

static void config_list(void)
{
    printf("%-26s %-10s %s\n", "PARAMETER", "DEFAULT", "MEANING");
    for (const param_info_t *p = param_table(); p->name; p++) {
        printf("%-26s %-10s %s%s\n", p->name, p->dflt ? p->dflt : "-", p->help,
               (p->flags & PARAM_SYSTEM) ? " [system only]" : "");
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

int cmd_config(int argc, char **argv)
{
    const char *system_file = SCR_SYSTEM_CONFIG_FILE;
    int i = 1, list = 0, rc = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--list") == 0)
            list = 1;
        else if (strcmp(argv[i], "--system-file") == 0 && i + 1 < argc)
            system_file = argv[++i];
        else
            return cmd_usage("config");
    }
    if (list) {
        config_list();
        return 0;
    }
    if (i == argc)
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
