/* cmd_discard.c - agenttask discard [NAME] [--force] [--quiet] [--max-file-size SIZE] [--json] */
#include "app/discard.h"
#include "app/json.h"
#include "cmd/commands.h"
#include "cmd/progress.h"

int cmd_discard(const struct at_app *app_in, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		AT_CLI_MAX_FILE_SIZE_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_app_discard_opts o = { NULL, false, { NULL, NULL } };
	struct at_app_discard_result res;
	struct at_error err = AT_ERROR_INIT;
	struct at_app app = *app_in;
	struct at_cli_progress progress;
	bool quiet = false;
	bool json = false;
	int c, rc;

	while ((c = at_cli_getopt(argc, argv, "fqh", longopts)) != -1) {
		if (c == 'f')
			o.force = true;
		else if (c == 'j')
			json = true;
		else if (c == 'q')
			quiet = true;
		else if (c == AT_CLI_OPT_MAX_FILE_SIZE) {
			if (at_cli_max_file_size("discard", optarg, &app) != 0)
				return AT_EXIT_USAGE;
		} else
			return c == 'h' ? AT_EXIT_HELP : at_cli_bad_option("discard");
	}
	if (optind + 1 < argc)
		return at_cli_usage("discard", "too many arguments");
	o.name = optind < argc ? argv[optind] : NULL;
	at_cli_progress_init(&progress, quiet);
	o.progress = at_cli_progress_hook(&progress);
	rc = at_app_discard(&app, &o, &res, &err);
	at_cli_progress_end(&progress, rc == 0);
	at_cli_warnings(&res.warnings);
	if (rc == 0 && json)
		rc = at_cli_print_json(at_app_discard_json(&res)) ? AT_EXIT_FAIL : 0;
	else if (rc == 0)
		printf("discarded task '%s' (saved as '%s'%s; 'agenttask restore %s' brings it "
		       "back)\n", res.task.name, res.trash, res.commits_only ? ": commits only" : "",
		       res.task.name);
	at_app_discard_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
