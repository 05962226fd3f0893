/* cmd_restore.c - agenttask restore NAME [ENTRY] [--json] */
#include "app/discard.h"
#include "app/json.h"
#include "cmd/commands.h"

int cmd_restore(const struct at_app *app, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_app_restore_opts o = { NULL, NULL };
	struct at_app_restore_result res;
	struct at_error err = AT_ERROR_INIT;
	bool json = false;
	int c, rc;

	while ((c = at_cli_getopt(argc, argv, "h", longopts)) != -1) {
		if (c != 'j')
			return c == 'h' ? AT_EXIT_HELP : at_cli_bad_option("restore");
		json = true;
	}
	if (optind >= argc || optind + 2 < argc)
		return at_cli_usage("restore",
				    optind >= argc ? "missing task NAME" : "too many arguments");
	o.name = argv[optind];
	o.entry = optind + 1 < argc ? argv[optind + 1] : NULL;
	rc = at_app_restore(app, &o, &res, &err);
	at_cli_warnings(&res.warnings);
	if (rc == 0 && json)
		rc = at_cli_print_json(at_app_restore_json(&res)) ? AT_EXIT_FAIL : 0;
	else if (rc == 0)
		printf("%s\n", res.task.path);
	at_app_restore_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
