/* cmd_restore.c - agenttask restore NAME [ENTRY]: bring a discarded task back */
#include "app/discard.h"
#include "app/json.h"
#include "cmd/commands.h"

struct restore_args {
	bool json;
};

const struct at_cli_opt cmd_restore_opts[] = {
	/* --json: not in the help, whose text says what it prints. */
	AT_CLI_OPT_FLAG(0, "json", struct restore_args, json, NULL),
	AT_CLI_OPT_END,
};

int cmd_restore(const struct at_app *app, int argc, char **argv)
{
	struct at_app_restore_opts o = { NULL, NULL };
	struct at_app_restore_result res;
	struct at_error err = AT_ERROR_INIT;
	struct restore_args a = { false };
	int rc;

	if ((rc = at_cli_parse("restore", cmd_restore_opts, argc, argv, &a)) >= 0)
		return rc;
	if (optind >= argc || optind + 2 < argc)
		return at_cli_usage("restore",
				    optind >= argc ? "missing task NAME" : "too many arguments");
	o.name = argv[optind];
	o.entry = optind + 1 < argc ? argv[optind + 1] : NULL;
	rc = at_app_restore(app, &o, &res, &err);
	at_cli_warnings(&res.warnings);
	if (rc == 0 && a.json)
		rc = at_cli_print_json(at_app_restore_json(&res)) ? AT_EXIT_FAIL : 0;
	else if (rc == 0)
		printf("%s\n", res.task.path);
	at_app_restore_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
