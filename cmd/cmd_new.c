/* cmd_new.c - agenttask new NAME [--base REV] [--quiet] [--json] */
#include "app/json.h"
#include "app/new.h"
#include "cmd/commands.h"
#include "cmd/progress.h"

int cmd_new(const struct at_app *app, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_app_new_opts o = { NULL, NULL, { NULL, NULL } };
	struct at_app_new_result res;
	struct at_error err = AT_ERROR_INIT;
	struct at_cli_progress progress;
	bool quiet = false;
	bool json = false;
	int c, rc;

	while ((c = at_cli_getopt(argc, argv, "b:qh", longopts)) != -1) {
		switch (c) {
		case 'b':
			o.base_rev = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'q':
			quiet = true;
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
	/* --json: the result alone, nothing else on any stream. */
	at_cli_progress_init(&progress, quiet || json);
	o.progress = at_cli_progress_hook(&progress);
	rc = at_app_new(app, &o, &res, &err);
	at_cli_progress_end(&progress, rc == 0);
	at_cli_warnings(&res.warnings);
	if (rc == 0 && json)
		rc = at_cli_print_json(at_app_new_json(&res)) ? AT_EXIT_FAIL : 0;
	else if (rc == 0)
		printf("%s\n", res.task.path);
	at_app_new_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
