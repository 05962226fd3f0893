/* cmd_commit.c - agenttask commit [NAME] [-m MSG] [--max-file-size SIZE] [--json] */
#include "app/commit.h"
#include "app/json.h"
#include "cmd/commands.h"

int cmd_commit(const struct at_app *app_in, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "message", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		AT_CLI_MAX_FILE_SIZE_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_app_commit_opts o = { NULL, NULL };
	struct at_app_commit_result res;
	struct at_error err = AT_ERROR_INIT;
	struct at_app app = *app_in;
	char hex[AT_OID_HEXSZ + 1];
	bool json = false;
	int c, rc;

	while ((c = at_cli_getopt(argc, argv, "m:h", longopts)) != -1) {
		switch (c) {
		case 'm':
			o.message = optarg;
			break;
		case AT_CLI_OPT_MAX_FILE_SIZE:
			if (at_cli_max_file_size("commit", optarg, &app) != 0)
				return AT_EXIT_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			return AT_EXIT_HELP;
		default:
			return at_cli_bad_option("commit");
		}
	}
	if (optind + 1 < argc)
		return at_cli_usage("commit", "too many arguments");
	o.name = optind < argc ? argv[optind] : NULL;
	rc = at_app_commit(&app, &o, &res, &err);
	at_cli_warnings(&res.warnings);
	at_oid_fmt(hex, &res.commit);
	if (rc == 0 && json)
		rc = at_cli_print_json(at_app_commit_json(&res)) ? AT_EXIT_FAIL : 0;
	else if (rc == 0 && res.made)
		printf("committed %.12s on '%s'\n", hex, at_branch_short(res.task.branch));
	else if (rc == 0)
		printf("nothing to commit in task '%s'\n", res.task.name);
	at_app_commit_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
