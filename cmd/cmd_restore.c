/* cmd_restore.c - agenttask restore NAME */
#include "app/discard.h"
#include "cmd/commands.h"

int cmd_restore(const struct at_app *app, int argc, char **argv)
{
	struct at_app_restore_opts o = { NULL };
	struct at_app_restore_result res;
	struct at_error err = AT_ERROR_INIT;
	int rc;

	if ((rc = at_cli_name_args("restore", argc, argv, true, &o.name)) >= 0)
		return rc;
	rc = at_app_restore(app, &o, &res, &err);
	at_cli_warnings(&res.warnings);
	if (rc == 0)
		printf("%s\n", res.task.path);
	at_app_restore_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
