/*
 * cli.h - what the subcommands share. cmd/ is the CLI front end: each
 * cmd_<name>.c parses its arguments, calls one use case (app/), and prints
 * the result. It is the only place that prints and picks exit codes, and it
 * holds no use-case logic: a second front end calls the same app/ functions.
 *
 * Exit status: 0 done; 1 refused or failed for a stated reason; 2 usage
 * error, unknown task, not a repository; 125 the sandbox could not be set up.
 */
#ifndef AT_CMD_CLI_H
#define AT_CMD_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "app/app.h"
#include "cmd/opt.h"
#include "core/json.h"

enum {
	AT_EXIT_OK = 0,
	AT_EXIT_FAIL = 1,
	AT_EXIT_USAGE = 2,
	AT_EXIT_SANDBOX = 125,
	/*
	 * Not an exit status: what a command returns for --help. main.c then
	 * prints the command's help from the table, which only main.c and
	 * commands.c see: the table refers to the commands, never the other way.
	 */
	AT_EXIT_HELP = 256,
};

/*
 * --max-file-size SIZE, taken by every command that reads a worktree (diff,
 * gate, accept, commit, discard): the largest file hashed or diffed, set in
 * the struct at_app field F of T (the command's copy of the front end's).
 */
int at_cli_set_max_file_size(void *field, const struct at_cli_opt *opt, const char *value,
			     struct at_error *err);
#define AT_CLI_OPT_MAX_FILE_SIZE(T, F) \
	AT_CLI_OPT_CALL(0, "max-file-size", "SIZE", at_cli_set_max_file_size, T, F, 0, \
			"\n                 refuse, unread, a file larger than SIZE (K, M, G; default\n" \
			"                 the repository's agenttask.maxFileSize, else 100M)\n")

struct at_command {
	const char *name;
	/*
	 * NULL for help (cmd_help, help.c), which main.c runs: it reads this
	 * table, so the table cannot point at it (no cycle between the files).
	 */
	int (*fn)(const struct at_app *app, int argc, char **argv);
	/*
	 * The synopsis lines, without "usage: ", naming each option without
	 * its argument, which at_cli_synopsis() adds from opts.
	 */
	const char *usage;
	const char *summary;    /* one line for `agenttask --help` */
	const char *help;       /* the prose after the options, for `COMMAND --help` */
	/* The options (cmd_<name>.c), parsed and shown; NULL for help's, help.c's own, as fn. */
	const struct at_cli_opt *opts;
	int width;              /* the column of the options' texts in the help */
	/* What its operand is, for the completions: "task", "trash", "command" or NULL (none). */
	const char *operand;
};

/* The command table (commands.c), ended by a zeroed entry; for main.c and help.c. */
extern const struct at_command at_commands[];
const struct at_command *at_command_find(const char *name);

/*
 * The rest of the manual (commands.c), laid out as a command's help is:
 * prose lines, and items "  TERM   text" with continuation lines indented.
 * `--help`, `help` and the man pages (help.c) all print from these.
 */
extern const char at_overview[];
extern const char at_global_options[];
extern const char at_exit_status[];

/* The overview of `agenttask --help`: usage, description, options, commands. */
void at_cli_overview(FILE *f);

/* A command's full help on stdout, from the table; AT_EXIT_OK. */
int at_cli_command_help(const struct at_command *c);

/* Map an error code to the exit status above. */
int at_exit_code(int code);

/*
 * With on (the command was given --json), every failure that at_cli_fail
 * and at_cli_usage report is also printed on stdout as JSON,
 * {"error": {"code": ..., "message": ...}} (app/json.h), with the same exit
 * status: a program reading the JSON gets one either way.
 */
void at_cli_json_errors(bool on);

/* Print "agenttask: MSG" for err on stderr; return its exit status. */
int at_cli_fail(const struct at_error *err);

/* As at_cli_fail, but a usage error (AT_EUSAGE) is shown as at_cli_usage shows it. */
int at_cli_fail_usage(const char *cmd, const struct at_error *err);

/* Print "agenttask: MSG (see 'agenttask CMD --help')", one line on stderr; return 2. */
int at_cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print what at_cli_getopt() found wrong with the options, as at_cli_usage(); return 2. */
int at_cli_bad_option(const char *cmd);

/*
 * Parse options with getopt_long; every command also takes -h/--help.
 * Returns the option character, -1 at the end of the options, or 'h' / '?'
 * for the caller to turn into AT_EXIT_HELP / at_cli_bad_option. Resets
 * getopt on the first call of each command.
 */
int at_cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);

/*
 * The operands after at_cli_parse(): none, or one task NAME (required or
 * not): -1 to go on with *name (NULL when absent), else a usage error's status.
 */
int at_cli_name_operand(const char *cmd, int argc, char **argv, bool required, const char **name);

/*
 * Whether to colour by --color=WHEN ("auto" by default): auto colours on a
 * terminal (or the pager) unless TERM is unset or "dumb" or NO_COLOR is set;
 * -1 for an unknown WHEN.
 */
int at_cli_color(const char *when, bool *out);

/* git's colours (color.diff.*, color.status.*), and the reset. */
#define AT_COLOR_BOLD "\033[1m"
#define AT_COLOR_RED "\033[31m"
#define AT_COLOR_GREEN "\033[32m"
#define AT_COLOR_YELLOW "\033[33m"
#define AT_COLOR_CYAN "\033[36m"
#define AT_COLOR_RESET "\033[m"

/* code when colour is on, else "": printf("%s...%s", at_cli_c(on, RED), at_cli_c(on, RESET)). */
static inline const char *at_cli_c(bool on, const char *code)
{
	return on ? code : "";
}

/* at_cli_color() for a command: -1 to go on with *out set, else the usage error's status. */
int at_cli_color_for(const char *cmd, const char *when, bool *out);

/*
 * The pager for a command's long output (diff, log), when stdout is a
 * terminal: cmd/pager.h, with the repository's core.pager.
 */
void at_cli_page(const struct at_app *app);

/* "agenttask: warning: ..." for each line, on stderr. */
void at_cli_warnings(const struct at_strlist *warnings);

/*
 * One warning line per changed file that tools on the host run, on stderr,
 * the path escaped: "agenttask: warning: <verb> 'PATH', which tools on the
 * host run or obey<tail>" (diff: "changes", ": review it"; accept: ...).
 */
void at_cli_host_files(const struct at_strlist *paths, const char *verb, const char *tail);

/* Print a JSON value on stdout (pretty) and free it; 0, or exit 1 on failure. */
int at_cli_print_json(at_json *j);

#endif
