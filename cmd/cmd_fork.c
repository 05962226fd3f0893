/* cmd_fork.c - agenttask fork NAME NEW: a task from another's whole state (options: the table) */
#include <stdio.h>

#include "app/fork.h"
#include "app/json.h"
#include "cmd/commands.h"

struct fork_args {
	bool json;
};

const struct at_cli_opt cmd_fork_opts[] = {
	AT_CLI_OPT_FLAG(0, "json", struct fork_args, json,
			"print the new task as a JSON object, as new --json does"),
	AT_CLI_OPT_END,
};

int cmd_fork(const struct at_app *app, int argc, char **argv)
{
	struct at_app_fork_opts o = { NULL, NULL };
	struct at_error err = AT_ERROR_INIT;
	struct fork_args a = { false };
	struct at_app_fork_result res;
	int rc;

	if ((rc = at_cli_parse("fork", cmd_fork_opts, argc, argv, &a)) >= 0)
		return rc;
	if (optind + 2 != argc)
		return at_cli_usage("fork", optind + 2 > argc ? "missing task NAME or NEW"
							      : "too many arguments");
	o.name = argv[optind];
	o.new_name = argv[optind + 1];
	rc = at_app_fork(app, &o, &res, &err);
	at_cli_warnings(&res.warnings);
	if (rc == 0 && a.json)
		rc = at_cli_print_json(at_app_fork_json(&res)) ? AT_EXIT_FAIL : 0;
	else if (rc == 0)
		printf("%s\n", res.task.path);
	at_app_fork_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : rc;
}
