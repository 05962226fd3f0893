/*
 * commands.h - one entry point per subcommand, each in cmd/cmd_<name>.c, and
 * its option table.
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
int cmd_drop(const struct at_app *app, int argc, char **argv);
int cmd_restore(const struct at_app *app, int argc, char **argv);
int cmd_repair(const struct at_app *app, int argc, char **argv);
int cmd_rewind(const struct at_app *app, int argc, char **argv);
int cmd_gc(const struct at_app *app, int argc, char **argv);
int cmd_run(const struct at_app *app, int argc, char **argv);
int cmd_log(const struct at_app *app, int argc, char **argv);
int cmd_gate(const struct at_app *app, int argc, char **argv);
int cmd_doctor(const struct at_app *app, int argc, char **argv);
int cmd_mcp(const struct at_app *app, int argc, char **argv);
int cmd_help(const struct at_app *app, int argc, char **argv);
int cmd_trash(const struct at_app *app, int argc, char **argv);
int cmd_comment(const struct at_app *app, int argc, char **argv);
int cmd_comments(const struct at_app *app, int argc, char **argv);
int cmd_review(const struct at_app *app, int argc, char **argv);
int cmd_ports(const struct at_app *app, int argc, char **argv);
int cmd_du(const struct at_app *app, int argc, char **argv);
int cmd_fork(const struct at_app *app, int argc, char **argv);

/* Their option tables (cmd/opt.h), each beside its command; for the command table. */
extern const struct at_cli_opt cmd_new_opts[];
extern const struct at_cli_opt cmd_list_opts[];
extern const struct at_cli_opt cmd_status_opts[];
extern const struct at_cli_opt cmd_path_opts[];
extern const struct at_cli_opt cmd_diff_opts[];
extern const struct at_cli_opt cmd_commit_opts[];
extern const struct at_cli_opt cmd_accept_opts[];
extern const struct at_cli_opt cmd_discard_opts[];
extern const struct at_cli_opt cmd_drop_opts[];
extern const struct at_cli_opt cmd_restore_opts[];
extern const struct at_cli_opt cmd_repair_opts[];
extern const struct at_cli_opt cmd_rewind_opts[];
extern const struct at_cli_opt cmd_gc_opts[];
extern const struct at_cli_opt cmd_run_opts[];
extern const struct at_cli_opt cmd_log_opts[];
extern const struct at_cli_opt cmd_gate_opts[];
extern const struct at_cli_opt cmd_doctor_opts[];
extern const struct at_cli_opt cmd_mcp_opts[];
extern const struct at_cli_opt cmd_trash_opts[];
extern const struct at_cli_opt cmd_comment_opts[];
extern const struct at_cli_opt cmd_comments_opts[];
extern const struct at_cli_opt cmd_review_opts[];
extern const struct at_cli_opt cmd_ports_opts[];
extern const struct at_cli_opt cmd_du_opts[];
extern const struct at_cli_opt cmd_fork_opts[];

#endif
