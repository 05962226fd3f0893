#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/json.h"
#include "cmd/cli.h"
#include "app/task.h"
#include "cmd/pager.h"
#include "core/esc.h"
#include "core/json.h"
#include "core/parse.h"
#include "core/util.h"

int at_exit_code(int code)
{
	switch (code) {
	case AT_OK:
		return AT_EXIT_OK;
	case AT_EUSAGE:
	case AT_ENOTFOUND:
	case AT_ENOREPO:
	case AT_EPOLICY:
	case AT_ENOTASK:
		return AT_EXIT_USAGE;
	case AT_ESANDBOX:
		return AT_EXIT_SANDBOX;
	default:
		return AT_EXIT_FAIL;
	}
}

static bool json_errors;

void at_cli_json_errors(bool on)
{
	json_errors = on;
}

static void json_error(int code, const char *msg)
{
	struct at_error e = AT_ERROR_INIT;

	if (!json_errors)
		return;
	at_error_set(&e, code, "%s", msg);
	at_cli_print_json(at_app_error_json(&e));
}

int at_cli_fail(const struct at_error *err)
{
	/* Whatever a message quotes of the task, its control characters shown, not obeyed. */
	char safe[4 * sizeof(err->msg) + 4];

	if (err->msg[0])
		fprintf(stderr, "agenttask: %s\n", at_esc(safe, sizeof(safe), err->msg));
	else
		fprintf(stderr, "agenttask: failed (error %d)\n", err->code);
	json_error(err->code ? err->code : AT_ESYS, err->msg);
	return at_exit_code(err->code ? err->code : AT_ESYS);
}

int at_cli_fail_usage(const char *cmd, const struct at_error *err)
{
	if (err->code == AT_EUSAGE)
		return at_cli_usage(cmd, "%s", err->msg);
	return at_cli_fail(err);
}

int at_cli_usage(const char *cmd, const char *fmt, ...)
{
	char msg[512], safe[4 * sizeof(msg) + 4];
	va_list ap;

	/* It quotes the arguments, which an agent may have written: controls shown. */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "agenttask: %s", at_esc(safe, sizeof(safe), msg));
	if (cmd)
		fprintf(stderr, " (see 'agenttask %s --help')", cmd);
	fputc('\n', stderr);
	json_error(AT_EUSAGE, msg);
	return AT_EXIT_USAGE;
}

/* What getopt found wrong, kept for at_cli_bad_option(): getopt itself is silenced. */
static char bad_option[128];

int at_cli_bad_option(const char *cmd)
{
	return at_cli_usage(cmd, "%s", bad_option[0] ? bad_option : "invalid option");
}

int at_cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	const char *arg;
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	if (optopt && strncmp(arg, "--", 2) != 0)
		snprintf(bad_option, sizeof(bad_option),
			 strchr(shortopts, optopt) ? "option '-%c' needs a value" : "unknown option '-%c'",
			 optopt);
	else if (!optopt)
		snprintf(bad_option, sizeof(bad_option), "unknown option '%.80s'", arg);
	else if (strchr(arg, '='))
		snprintf(bad_option, sizeof(bad_option), "option '%.80s' takes no value", arg);
	else
		snprintf(bad_option, sizeof(bad_option), "option '%.80s' needs a value", arg);
	return '?';
}

int at_cli_color_for(const char *cmd, const char *when, bool *out)
{
	if (at_cli_color(when, out) < 0)
		return at_cli_usage(cmd, "invalid --color '%s': use auto, always or never", when);
	return -1;
}

int at_cli_name_operand(const char *cmd, int argc, char **argv, bool required, const char **name)
{
	if (required && optind >= argc)
		return at_cli_usage(cmd, "missing task NAME");
	if (optind + 1 < argc)
		return at_cli_usage(cmd, "too many arguments");
	*name = optind < argc ? argv[optind] : NULL;
	return -1;
}

int at_cli_set_max_file_size(void *field, const struct at_cli_opt *opt, const char *value,
			     struct at_error *err)
{
	struct at_error parse_err = AT_ERROR_INIT;   /* replaced by the message below */
	struct at_app *app = field;
	uint64_t v;

	(void)opt;
	if (at_parse_size(value, &v, &parse_err) < 0 || v == 0)
		return at_error_set(err, AT_EUSAGE, "invalid --max-file-size '%s' (a positive size, "
				    "optionally with K, M, G or T)", value);
	app->max_file_size = v;
	return 0;
}

/*
 * Colour by default where git would use it: on a terminal (or the pager)
 * whose TERM is set and not "dumb"; and, as no-color.org asks, not when
 * NO_COLOR is set to anything but "". --color=always overrides both.
 */
static bool color_by_default(void)
{
	const char *term = getenv("TERM"), *no_color = getenv("NO_COLOR");

	return at_cli_stdout_tty() && term && strcmp(term, "dumb") != 0 &&
	       !(no_color && no_color[0]);
}

int at_cli_color(const char *when, bool *out)
{
	if (!when || strcmp(when, "auto") == 0)
		*out = color_by_default();
	else if (strcmp(when, "always") == 0)
		*out = true;
	else if (strcmp(when, "never") == 0)
		*out = false;
	else
		return -1;
	return 0;
}

void at_cli_warnings(const struct at_strlist *warnings)
{
	/* A warning may quote the task's paths too: escaped as at_cli_fail escapes them. */
	char safe[4096];
	size_t i;

	for (i = 0; warnings && i < warnings->n; i++)
		fprintf(stderr, "agenttask: warning: %s\n",
			at_esc(safe, sizeof(safe), warnings->v[i]));
}

void at_cli_host_files(const struct at_strlist *paths, const char *verb, const char *tail)
{
	size_t i;

	for (i = 0; paths && i < paths->n; i++) {
		fprintf(stderr, "agenttask: warning: %s '", verb);
		at_esc_fputs(stderr, paths->v[i], 0);   /* the task's name: every control shown */
		fprintf(stderr, "', which tools on the host run or obey%s\n", tail);
	}
}

int at_cli_print_json(at_json *j)
{
	char *text = at_json_print(j, true);

	at_json_free(j);
	if (!text) {
		fputs("agenttask: out of memory\n", stderr);
		return AT_EXIT_FAIL;
	}
	puts(text);
	free(text);
	return AT_EXIT_OK;
}

void at_cli_page(const struct at_app *app)
{
	char core_pager[1024];

	/* The config is read only when there is a terminal to page to. */
	if (!isatty(STDOUT_FILENO))
		return;
	at_cli_pager_start(at_app_config(app, "core.pager", core_pager, sizeof(core_pager)) ?
				   core_pager : NULL);
}
