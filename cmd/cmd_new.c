/* cmd_new.c - agenttask new NAME: create a task (options: the table) */
#include "app/json.h"
#include "app/new.h"
#include "cmd/commands.h"
#include "cmd/progress.h"

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
	if (rc == 0 && a.json)
		rc = at_cli_print_json(at_app_new_json(&res)) ? AT_EXIT_FAIL : 0;
	else if (rc == 0)
		printf("%s\n", res.task.path);
	at_app_new_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
