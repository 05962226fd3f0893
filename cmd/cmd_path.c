/* cmd_path.c - agenttask path NAME */
#include "app/task.h"
#include "cmd/commands.h"

/* No option but --help. */
const struct at_cli_opt cmd_path_opts[] = {
	AT_CLI_OPT_END,
};

int cmd_path(const struct at_app *app, int argc, char **argv)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_task task;
	const char *name;
	int rc;

	if ((rc = at_cli_parse("path", cmd_path_opts, argc, argv, NULL)) >= 0 ||
	    (rc = at_cli_name_operand("path", argc, argv, true, &name)) >= 0)
		return rc;
	if (at_app_path(app, name, &task, &err) < 0)
		return at_cli_fail(&err);
	printf("%s\n", task.path);
	return AT_EXIT_OK;
}
