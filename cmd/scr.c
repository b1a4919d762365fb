/* SPDX-License-Identifier: BSD-3-Clause */
/* scr.c - the scr command: dispatch to subcommands */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "progress.h"
#include "scr_build.h"

static int cmd_help(int argc, char **argv);

static const cmd_t commands[] = {
    {"help", cmd_help, "scr help [COMMAND]", "show commands or one command's usage"},
    {"print", cmd_print, "scr print FILE...",
     "print SCR metadata (kvtree) files as trees, FTI-FF checkpoint files as blocks"},
    {"config", cmd_config,
     "scr config [--system-file PATH] --list [--format=text|scdoc] | KEY...",
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
    {"report", cmd_report,
     "scr report [--prefix DIR] [--job ID] [--mtbf DURATION] [--html FILE | --svg "
     "FILE]",
     "summarize the event log: runs, checkpoints, flushes, restarts, failures; "
     "--html writes a page with a timeline, --svg the timeline alone"},
#ifdef SCR_HAVE_NODE_TOOLS
    {"run", cmd_run, "scr run [LAUNCHER-OPTIONS...] [--] APP [ARGS...]",
     "launch the application (srun, mpirun), relaunch it after a failure without the "
     "nodes that failed (SCR_RUNS, SCR_MIN_NODES), then scavenge and index the newest "
     "checkpoint"},
    {"prerun", cmd_prerun, "scr prerun",
     "check the prefix and the halt conditions before a run (exit 3: halted)"},
    {"postrun", cmd_postrun, "scr postrun",
     "scavenge the newest checkpoint from the job's nodes if it is not on the prefix, "
     "and index it"},
    {"scavenge", cmd_scavenge, "scr scavenge [--id ID] [--prefix DIR] [--live NODES]",
     "copy this node's files of the newest (or the given) checkpoint to the prefix"},
    {"index", cmd_index,
     "scr index [--prefix DIR] --list | --current ID | --add ID | --rebuild ID",
     "list the datasets on the prefix, choose the one to restart from, or check, "
     "rebuild and add a scavenged dataset"},
    {"down-nodes", cmd_down_nodes, "scr down-nodes [--reason]",
     "nodes of the job that are down (scheduler view, SCR health check, earlier runs)"},
    {"status", cmd_status, "scr status",
     "datasets in this node's cache and on the prefix"},
    {"node-check", cmd_node_check, "scr node-check",
     "check this node's cache and control storage (used by scr run)"},
#endif
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

/* progress lines of long copies (scavenge, rebuild; progress.h) for
 * someone watching: on a terminal, or with SCR_DEBUG>=1 */
static void cmd_progress_init(void)
{
    const char *debug = getenv("SCR_DEBUG"), *v = getenv("SCR_PROGRESS_SECONDS");
    double secs = 0;
    if (!isatty(STDERR_FILENO) && !(debug && atoi(debug) >= 1))
        return;
    if (progress_parse_interval(v, &secs) < 0) {
        fprintf(stderr,
                "scr: SCR_PROGRESS_SECONDS=%s is not a number of seconds; using 1\n", v);
        secs = 1;
    }
    progress_enable(secs, NULL, NULL);
}

int main(int argc, char **argv)
{
    cmd_progress_init();
#ifdef SCR_HAVE_NODE_TOOLS
    const char *base = strrchr(argv[0], '/');
    if (strcmp(base ? base + 1 : argv[0], "scr_srun") == 0)
        return cmd_run(argc, argv);
#endif
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
