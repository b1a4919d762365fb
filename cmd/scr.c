/* scr.c - the scr command: dispatch to subcommands */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "scr_build.h"

static int cmd_help(int argc, char **argv);

static const cmd_t commands[] = {
    {"help", cmd_help, "scr help [COMMAND]", "show commands or one command's usage"},
    {"print", cmd_print, "scr print FILE...",
     "print SCR metadata (kvtree) files as trees"},
    {"config", cmd_config, "scr config [--system-file PATH] --list | KEY...",
     "list parameters, or show a parameter's value and where it came from"},
    {"halt", cmd_halt,
     "scr halt [--prefix DIR] [--checkpoints N] [--before TIME] [--after TIME] "
     "[--seconds N] [--immediate] [--list] [--remove] [--unset-checkpoints] "
     "[--unset-before] [--unset-after] [--unset-seconds] [--unset-reason]",
     "set, list or remove the halt conditions of a job (TIME: '2026-11-21 18:30', "
     "'18:30', '+2h', '@unix-seconds')"},
    {"flush-file", cmd_flush_file,
     "scr flush-file [--prefix DIR] --latest | --needflush ID | --location ID | --subdir "
     "ID",
     "ask the flush file where datasets are (cache, prefix)"},
    {NULL, NULL, NULL, NULL},
};

static const cmd_t *cmd_lookup(const char *name)
{
    for (const cmd_t *c = commands; name && c->name; c++) {
        if (strcmp(c->name, name) == 0)
            return c;
    }
    return NULL;
}

int cmd_usage(const char *name)
{
    const cmd_t *c = cmd_lookup(name);
    fprintf(stderr, "usage: %s\n", c ? c->usage : "scr COMMAND [ARGS]");
    return 2;
}

static void cmd_list(FILE *fp)
{
    fprintf(fp, "usage: scr COMMAND [ARGS]\n\nCommands:\n");
    for (const cmd_t *c = commands; c->name; c++)
        fprintf(fp, "  %-10s %s\n", c->name, c->summary);
    fprintf(fp, "\nscr --version prints the version; scr help COMMAND shows usage.\n");
}

static int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        cmd_list(stdout);
        return 0;
    }
    const cmd_t *c = cmd_lookup(argv[1]);
    if (!c) {
        fprintf(stderr, "scr: unknown command '%s'\n", argv[1]);
        return 2;
    }
    printf("usage: %s\n%s\n", c->usage, c->summary);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cmd_list(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("scr %s\n", SCR_VERSION_STRING);
        return 0;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return cmd_help(1, argv);
    const cmd_t *c = cmd_lookup(argv[1]);
    if (!c) {
        fprintf(stderr, "scr: unknown command '%s' (try 'scr help')\n", argv[1]);
        return 2;
    }
    return c->fn(argc - 1, argv + 1);
}
