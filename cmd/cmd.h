/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd.h - subcommands of the scr command.
 *
 * Each subcommand is a main-like function in its own file; scr.c only
 * dispatches.  Exit codes: 0 success, 1 failure (one-line message on stderr),
 * 2 usage error.
 */
#ifndef SCR_CMD_H
#define SCR_CMD_H

typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *usage;
    const char *summary;
} cmd_t;

int cmd_print(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_halt(int argc, char **argv);
int cmd_flush_file(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_prerun(int argc, char **argv);
int cmd_postrun(int argc, char **argv);
int cmd_scavenge(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_down_nodes(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_node_check(int argc, char **argv);

/* print "scr NAME: usage: ..." for the named command and return 2 */
int cmd_usage(const char *name);

#endif
