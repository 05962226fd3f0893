/*
 * commands.h - one entry point per subcommand, each in cmd/cmd_<name>.c.
 */
#ifndef AT_CMD_COMMANDS_H
#define AT_CMD_COMMANDS_H

#include "cmd/cli.h"

int cmd_new(const struct at_app *app, int argc, char **argv);
int cmd_list(const struct at_app *app, int argc, char **argv);
int cmd_status(const struct at_app *app, int argc, char **argv);
int cmd_path(const struct at_app *app, int argc, char **argv);
int cmd_diff(const struct at_app *app, int argc, char **argv);
int cmd_commit(const struct at_app *app, int argc, char **argv);
int cmd_accept(const struct at_app *app, int argc, char **argv);
int cmd_discard(const struct at_app *app, int argc, char **argv);
int cmd_restore(const struct at_app *app, int argc, char **argv);
int cmd_repair(const struct at_app *app, int argc, char **argv);
int cmd_gc(const struct at_app *app, int argc, char **argv);
int cmd_run(const struct at_app *app, int argc, char **argv);
int cmd_log(const struct at_app *app, int argc, char **argv);
int cmd_gate(const struct at_app *app, int argc, char **argv);
int cmd_doctor(const struct at_app *app, int argc, char **argv);
int cmd_mcp(const struct at_app *app, int argc, char **argv);
int cmd_help(const struct at_app *app, int argc, char **argv);
int cmd_trash(const struct at_app *app, int argc, char **argv);

#endif
