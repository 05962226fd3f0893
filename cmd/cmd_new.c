/* cmd_new.c - agenttask new NAME [--base REV] */
#include "app/new.h"
#include "cmd/commands.h"

int cmd_new(const struct at_app *app, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_app_new_opts o = { NULL, NULL, { NULL, NULL } };
	struct at_app_new_result res;
	struct at_error err = AT_ERROR_INIT;
	int c, rc;

	while ((c = at_cli_getopt(argc, argv, "b:h", longopts)) != -1) {
		switch (c) {
		case 'b':
			o.base_rev = optarg;
			break;
		case 'h':
			return AT_EXIT_HELP;
		default:
			return at_cli_bad_option("new");
		}
	}
	if (optind + 1 != argc)
		return at_cli_usage("new", optind >= argc ? "missing task NAME" : "too many arguments");
	o.name = argv[optind];
	rc = at_app_new(app, &o, &res, &err);
	at_cli_warnings(&res.warnings);
	if (rc == 0)
		printf("%s\n", res.task.path);
	at_app_new_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
