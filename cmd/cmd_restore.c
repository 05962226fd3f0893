/* cmd_restore.c - agenttask restore NAME [--json] */
#include "app/discard.h"
#include "app/json.h"
#include "cmd/commands.h"

int cmd_restore(const struct at_app *app, int argc, char **argv)
{
	struct at_app_restore_opts o = { NULL };
	struct at_app_restore_result res;
	struct at_error err = AT_ERROR_INIT;
	bool json = false;
	int rc;

	if ((rc = at_cli_name_json_args("restore", argc, argv, &o.name, &json)) >= 0)
		return rc;
	if (!o.name)
		return at_cli_usage("restore", "missing task NAME");
	rc = at_app_restore(app, &o, &res, &err);
	at_cli_warnings(&res.warnings);
	if (rc == 0 && json)
		rc = at_cli_print_json(at_app_restore_json(&res)) ? AT_EXIT_FAIL : 0;
	else if (rc == 0)
		printf("%s\n", res.task.path);
	at_app_restore_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
