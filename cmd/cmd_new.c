/* cmd_new.c - agenttask new NAME: create a task (options: the table) */
#include "app/json.h"
#include "app/new.h"
#include "app/setup.h"
#include "app/task.h"
#include "cmd/commands.h"
#include "cmd/progress.h"
#include "core/esc.h"

#include <stdio.h>
#include <unistd.h>

struct new_args {
	struct at_app_new_opts o;
	bool quiet, json;
};

const struct at_cli_opt cmd_new_opts[] = {
	AT_CLI_OPT_STRING(0, "base", "REV", struct new_args, o.base_rev,
			  "start from REV (a branch, tag or commit; default HEAD)"),
	AT_CLI_OPT_FLAG(0, "layered", struct new_args, o.layered,
			"the task's files a layer over its base's checkout, shared by the tasks of "
			"that base (default: git config agenttask.layered)"),
	AT_CLI_OPT_FLAG(0, "full", struct new_args, o.full,
			"the task's files a checkout of their own (the default)"),
	AT_CLI_OPT_FLAG('q', "quiet", struct new_args, quiet, "no progress on the terminal"),
	AT_CLI_OPT_FLAG(0, "json", struct new_args, json,
			"print the task as a JSON object (docs/json.md); no progress"),
	/* -b REV, which --base has always taken: kept, not shown. */
	AT_CLI_OPT_STRING('b', NULL, "REV", struct new_args, o.base_rev, NULL),
	AT_CLI_OPT_END,
};

static void say_step(size_t i, size_t n, char *const *argv, void *arg)
{
	char cmd[256];
	size_t len = 0;

	(void)arg;
	cmd[0] = '\0';
	for (size_t k = 0; argv[k] && len + 1 < sizeof(cmd); k++) {
		int w = snprintf(cmd + len, sizeof(cmd) - len, "%s%s", k ? " " : "", argv[k]);
		len = w < 0 ? len : len + (size_t)w;
	}
	at_esc_printf(stderr, "agenttask: setup %zu/%zu: %s\n", i + 1, n, cmd);
	fflush(stderr);
}

/*
 * The run configuration's setup, in the task just made. A failed setup
 * leaves the task: one line says which command and why, and `new` exits 1.
 */
static int setup(const struct at_app *app, const struct new_args *a)
{
	struct at_app_setup_opts so = AT_APP_SETUP_OPTS_INIT;
	struct at_app_setup_result res;
	struct at_error err = AT_ERROR_INIT;

	so.name = a->o.name;
	so.capture = a->json;
	so.step = a->quiet || a->json ? NULL : say_step;
	/* A configuration it cannot take (exit 2): the task, made already, stays. */
	if (at_app_setup(app, &so, &res, &err) < 0)
		return at_cli_fail(&err);
	if (!res.failed)
		return AT_EXIT_OK;
	if (res.reason[0])
		at_esc_printf(stderr, "agenttask: setup of '%s' failed: '%s' could not run: %s; "
			      "the task is kept\n", a->o.name, res.command, res.reason);
	else if (res.timed_out)
		at_esc_printf(stderr, "agenttask: setup of '%s' failed: '%s' timed out and was "
			      "killed; the task is kept\n", a->o.name, res.command);
	else
		at_esc_printf(stderr, "agenttask: setup of '%s' failed: '%s' exited %d; the task "
			      "is kept\n", a->o.name, res.command, res.exit_code);
	return AT_EXIT_FAIL;
}

int cmd_new(const struct at_app *app, int argc, char **argv)
{
	struct new_args a = { { NULL, NULL, { NULL, NULL }, false, false, false }, false, false };
	struct at_app_new_result res;
	struct at_error err = AT_ERROR_INIT;
	struct at_cli_progress progress;
	int rc;

	if ((rc = at_cli_parse("new", cmd_new_opts, argc, argv, &a)) >= 0)
		return rc;
	if (optind + 1 != argc)
		return at_cli_usage("new", optind >= argc ? "missing task NAME" : "too many arguments");
	a.o.name = argv[optind];
	/* --json: the result alone, nothing else on any stream. */
	at_cli_progress_init(&progress, a.quiet || a.json);
	a.o.progress = at_cli_progress_hook(&progress);
	rc = at_app_new(app, &a.o, &res, &err);
	at_cli_progress_end(&progress, rc == 0);
	at_cli_warnings(&res.warnings);
	if (rc < 0) {
		at_app_new_result_release(&res);
		return at_cli_fail(&err);
	}
	rc = setup(app, &a);
	if (a.json) {
		at_json *j = at_app_new_json(&res), *s = at_app_setup_json(app, res.task.name);
		/* at_json_add frees s when it fails. */
		if (!j)
			at_json_free(s);
		else if (s)
			(void)at_json_add(j, "setup", s);
		if (at_cli_print_json(j) && rc == AT_EXIT_OK)
			rc = AT_EXIT_FAIL;
	} else {
		printf("%s\n", res.task.path);
		/* A person at a terminal would cd there: a layered task's path holds nothing yet. */
		if (!a.quiet && at_task_is_layered(&res.task) && isatty(STDERR_FILENO))
			at_esc_printf(stderr, "agenttask: task '%s' is layered: its files appear at "
				      "that path once 'agenttask path %s' makes it a full checkout\n",
				      res.task.name, res.task.name);
	}
	at_app_new_result_release(&res);
	return rc;
}
