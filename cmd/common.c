#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/pager.h"
#include "core/audit.h"
#include "core/esc.h"
#include "core/json.h"
#include "core/util.h"
#include "git/config.h"
#include "git/worktree.h"
#include "sandbox/sandbox.h"

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

int at_cli_fail(const struct at_error *err)
{
	/* Whatever a message quotes of the task, its control characters shown, not obeyed. */
	char safe[4 * sizeof(err->msg) + 4];

	if (err->msg[0])
		fprintf(stderr, "agenttask: %s\n", at_esc(safe, sizeof(safe), err->msg));
	else
		fprintf(stderr, "agenttask: failed (error %d)\n", err->code);
	return at_exit_code(err->code ? err->code : AT_ESYS);
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
	return AT_EXIT_USAGE;
}

/* What getopt found wrong, kept for at_cli_bad_option(): getopt itself is silenced. */
static char bad_option[128];

int at_cli_bad_option(const char *cmd)
{
	return at_cli_usage(cmd, "%s", bad_option[0] ? bad_option : "invalid option");
}

int at_cli_help(const char *cmd)
{
	const struct at_command *c = at_command_find(cmd);

	if (!c)
		return AT_EXIT_USAGE;
	printf("usage: %s\n\n%s\n", c->usage, c->summary);
	if (c->help && c->help[0])
		printf("\n%s", c->help);
	return AT_EXIT_OK;
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

const char *at_cli_color_when(int c, const char *arg)
{
	return c == AT_OPT_NO_COLOR ? "never" : arg ? arg : "always";
}

int at_cli_color_for(const char *cmd, const char *when, bool *out)
{
	if (at_cli_color(when, out) < 0)
		return at_cli_usage(cmd, "invalid --color '%s': use auto, always or never", when);
	return -1;
}

int at_cli_name_json_args(const char *cmd, int argc, char **argv, const char **name, bool *json,
			  const char **color)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		AT_CLI_COLOR_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*json = false;
	if (color)
		*color = NULL;
	while ((c = at_cli_getopt(argc, argv, "h", longopts)) != -1) {
		if (c == 'j')
			*json = true;
		else if ((c == AT_OPT_COLOR || c == AT_OPT_NO_COLOR) && color)
			*color = at_cli_color_when(c, optarg);
		else if (c == AT_OPT_COLOR || c == AT_OPT_NO_COLOR)
			return at_cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
		else
			return c == 'h' ? at_cli_help(cmd) : at_cli_bad_option(cmd);
	}
	if (optind + 1 < argc)
		return at_cli_usage(cmd, "too many arguments");
	*name = optind < argc ? argv[optind] : NULL;
	return -1;
}

int at_cli_open(struct at_cli *cli, struct at_repo **out, struct at_error *err)
{
	int rc = at_repo_open(out, cli->dir ? cli->dir : ".", err);

	if (rc == 0 && cli->max_file_size)
		at_repo_set_max_file_size(*out, cli->max_file_size);
	return rc;
}

int at_cli_max_file_size(const char *cmd, const char *arg, uint64_t *out)
{
	struct at_error err = AT_ERROR_INIT;

	if (at_sandbox_parse_size(arg, out, &err) < 0 || *out == 0)
		return at_cli_usage(cmd, "invalid --max-file-size '%s' (a positive size, "
				    "optionally with K, M, G or T)", arg);
	return 0;
}

int at_cli_task(struct at_cli *cli, struct at_repo *r, const char *name, struct at_task *out,
		struct at_error *err)
{
	return at_task_resolve(r, name, cli->dir ? cli->dir : ".", out, err);
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

void at_cli_time(char *buf, size_t size, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, size, "%lld", (long long)t);
}

at_json *at_cli_task_json(const struct at_task *t, const struct at_task_info *info)
{
	at_json *o = at_json_object();
	char created[32];

	at_cli_time(created, sizeof(created), t->created);
	if (at_json_add_string(o, "name", t->name) < 0 ||
	    at_json_add_string(o, "phase", t->phase == AT_TASK_READY ? "ready" : "half-made") < 0 ||
	    at_json_add_string(o, "branch", at_branch_short(t->branch)) < 0 ||
	    at_json_add_string(o, "base_branch", at_branch_short(t->base_branch)) < 0 ||
	    at_json_add_string(o, "base_commit", t->base_commit) < 0 ||
	    at_json_add_string(o, "head_commit", info->head_commit) < 0 ||
	    at_json_add_string(o, "path", t->path) < 0 ||
	    at_json_add_string(o, "created", created) < 0 ||
	    at_json_add_bool(o, "dirty", info->dirty) < 0 ||
	    at_json_add_bool(o, "worktree_missing", info->worktree_missing) < 0 ||
	    at_json_add_number(o, "commits_ahead", (double)info->commits_ahead) < 0) {
		at_json_free(o);
		return NULL;
	}
	return o;
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

void at_cli_audit(struct at_repo *r, const char *task, const char *event, ...)
{
	struct at_error err = AT_ERROR_INIT;
	at_json *e = at_json_object();
	const char *key, *val;
	va_list ap;
	int rc = e ? at_json_add_string(e, "event", event) : -1;

	va_start(ap, event);
	while (rc == 0 && (key = va_arg(ap, const char *)) != NULL) {
		val = va_arg(ap, const char *);
		rc = at_json_add_string(e, key, val);
	}
	va_end(ap);
	if (rc < 0)
		at_error_set(&err, AT_ESYS, "out of memory");
	else
		at_audit_append(at_repo_paths(r), task, e, &err);
	if (at_error_isset(&err))
		at_esc_printf(stderr, "agenttask: warning: audit log of task '%s' not written: "
			      "%s\n", task, err.msg);
	at_json_free(e);
}

void at_cli_page(struct at_repo *r)
{
	char core_pager[1024];

	/* The config is read only when there is a terminal to page to. */
	if (!isatty(STDOUT_FILENO))
		return;
	at_cli_pager_start(r && at_git_user_config(r, "core.pager", core_pager,
						    sizeof(core_pager)) ? core_pager : NULL);
}
