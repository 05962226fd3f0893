/*
 * commands.h - one entry point per subcommand, each in cmd/cmd_<name>.c.
 */
#ifndef AT_CMD_COMMANDS_H
#define AT_CMD_COMMANDS_H

#include "cmd/cli.h"

int cmd_new(struct at_cli *cli, int argc, char **argv);
int cmd_list(struct at_cli *cli, int argc, char **argv);
int cmd_status(struct at_cli *cli, int argc, char **argv);
int cmd_path(struct at_cli *cli, int argc, char **argv);
int cmd_diff(struct at_cli *cli, int argc, char **argv);
int cmd_commit(struct at_cli *cli, int argc, char **argv);
int cmd_accept(struct at_cli *cli, int argc, char **argv);
int cmd_discard(struct at_cli *cli, int argc, char **argv);
int cmd_restore(struct at_cli *cli, int argc, char **argv);
int cmd_gc(struct at_cli *cli, int argc, char **argv);
int cmd_run(struct at_cli *cli, int argc, char **argv);
int cmd_log(struct at_cli *cli, int argc, char **argv);
int cmd_gate(struct at_cli *cli, int argc, char **argv);
int cmd_doctor(struct at_cli *cli, int argc, char **argv);
int cmd_help(struct at_cli *cli, int argc, char **argv);
int cmd_trash(struct at_cli *cli, int argc, char **argv);

#endif
