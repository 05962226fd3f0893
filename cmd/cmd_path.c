/* cmd_path.c - agenttask path NAME */
#include "app/task.h"
#include "cmd/commands.h"

int cmd_path(const struct at_app *app, int argc, char **argv)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_task task;
	const char *name;
	int rc;

	if ((rc = at_cli_name_args("path", argc, argv, true, &name)) >= 0)
		return rc;
	if (at_app_task(app, name, &task, &err) < 0)
		return at_cli_fail(&err);
	printf("%s\n", task.path);
	return AT_EXIT_OK;
}
