/*
 * opt.h - a command's options, declared once (as libgit2's cli_opt specs and
 * git's parse-options are): one table entry an option, with its long and
 * short names, its argument's name, its help text and what the parser does
 * with it. From the table are made the parser (at_cli_parse), the options of
 * `COMMAND --help` and of the man page (at_cli_opts_help), the option
 * arguments of the synopsis (at_cli_synopsis) and what the shell completions
 * read (`agenttask help --complete COMMAND`, help.c).
 *
 * An entry stores into the command's own arguments struct (no globals): at
 * the offset .field, through .set. Adding an option is one line, e.g.
 *
 *	AT_CLI_OPT_LIST(0, "secret", "NAME:HOST[,HOST]", struct run_args, secrets,
 *			"pass the secret NAME to HOST only"),
 */
#ifndef AT_CMD_OPT_H
#define AT_CMD_OPT_H

#include <stddef.h>
#include <stdio.h>

#include "core/error.h"

struct at_cli_opt;

/*
 * What the parser does with an option: field points at the entry's field of
 * the arguments struct, value is the option's argument (NULL when it has
 * none). 0, or a negative code with err set, whose message is shown as a
 * usage error of the command (exit 2), whatever the code.
 */
typedef int (*at_cli_opt_set)(void *field, const struct at_cli_opt *opt, const char *value,
			      struct at_error *err);

struct at_cli_opt {
	const char *name;     /* the long name without "--"; NULL: a short alias only */
	char key;             /* the short letter, or 0 */
	/*
	 * The argument's name ("REV"), NULL for none; one starting with '['
	 * ("[=WHEN]") is optional, given as --name=VALUE only.
	 */
	const char *arg;
	at_cli_opt_set set;
	size_t field;         /* offsetof the field in the command's arguments struct */
	long val;             /* a constant for set: at_cli_set_int's value, a bound */
	const char *dflt;     /* at_cli_set_string's value when none is given */
	/*
	 * The help text, lines after the first continue it; one starting with
	 * '\n' starts below the option. NULL: hidden (parsed, never shown).
	 */
	const char *help;
};

/* The most entries a table holds (run has 29): getopt's tables are built on the stack. */
#define AT_CLI_OPTS_MAX 48

/* The end of a table. */
#define AT_CLI_OPT_END { NULL, 0, NULL, NULL, 0, 0, NULL, NULL }

/* The setters, for the macros below and for a command's own options. */
int at_cli_set_true(void *field, const struct at_cli_opt *opt, const char *value,
		    struct at_error *err);      /* bool = true */
int at_cli_set_string(void *field, const struct at_cli_opt *opt, const char *value,
		      struct at_error *err);    /* const char * = value, else dflt */
int at_cli_set_list(void *field, const struct at_cli_opt *opt, const char *value,
		    struct at_error *err);      /* at_strlist: value appended */

/* A flag: the bool field F of T set. */
#define AT_CLI_OPT_FLAG(K, NAME, T, F, HELP) \
	{ NAME, K, NULL, at_cli_set_true, offsetof(T, F), 0, NULL, HELP }
/* An option with a value ARG: the const char * field F of T set to it. */
#define AT_CLI_OPT_STRING(K, NAME, ARG, T, F, HELP) \
	{ NAME, K, ARG, at_cli_set_string, offsetof(T, F), 0, NULL, HELP }
/* A repeatable option: its values appended to the struct at_strlist F of T. */
#define AT_CLI_OPT_LIST(K, NAME, ARG, T, F, HELP) \
	{ NAME, K, ARG, at_cli_set_list, offsetof(T, F), 0, NULL, HELP }
/* Anything else: SET(&T.F, opt, value, err), VAL a constant it reads. */
#define AT_CLI_OPT_CALL(K, NAME, ARG, SET, T, F, VAL, HELP) \
	{ NAME, K, ARG, SET, offsetof(T, F), VAL, NULL, HELP }

/*
 * --color[=WHEN] and --no-color: the const char * field F of T set to WHEN
 * ("always" for --color alone, "never" for --no-color), for at_cli_color_for().
 */
#define AT_CLI_OPT_COLOR(T, F, HELP) \
	{ "color", 0, "[=WHEN]", at_cli_set_string, offsetof(T, F), 0, "always", HELP }, \
	{ "no-color", 0, NULL, at_cli_set_string, offsetof(T, F), 0, "never", \
	  "the same as --color=never" }

/*
 * Parse the options of argv[1..argc-1] into args by the table opts (ended
 * by AT_CLI_OPT_END); every command also takes -h/--help. -1 to go on, the
 * operands at argv[optind..argc-1]; else what the command returns:
 * AT_EXIT_HELP, or the exit status of a usage error (printed, naming cmd).
 */
int at_cli_parse(const char *cmd, const struct at_cli_opt *opts, int argc, char **argv,
		 void *args);

/*
 * The options of opts as `COMMAND --help` lists them: "  TERM  text", the
 * text at column 2 + width (two spaces after a longer TERM), its further
 * lines indented as far.
 */
void at_cli_opts_help(FILE *f, const struct at_cli_opt *opts, int width);

/*
 * The synopsis from its template: every option it names (--name or -k,
 * without the argument) followed by its argument's name from opts; anything
 * else as it is. Into buf (NUL-terminated, cut at size); 0, or -1 when the
 * template names an option opts does not have ("-C", main.c's, excepted).
 */
int at_cli_synopsis(char *buf, size_t size, const char *tmpl, const struct at_cli_opt *opts);

/*
 * One line an option not hidden, for the completions: "KEY|--NAME|ARG|TEXT"
 * (KEY, ARG empty when none; TEXT the first line of the help), then "|--help||...";
 */
void at_cli_opts_complete(FILE *f, const struct at_cli_opt *opts);

#endif
