/* cmd_discard.c - agenttask discard: throw a task away, saved in the trash (options: the table) */
#include "app/discard.h"
#include "app/json.h"
#include "cmd/commands.h"
#include "cmd/progress.h"

struct discard_args {
	struct at_app app;               /* the front end's, with --max-file-size */
	struct at_app_discard_opts o;
	bool quiet, json;
};

const struct at_cli_opt cmd_discard_opts[] = {
	AT_CLI_OPT_FLAG('f', "force", struct discard_args, o.force,
			"kill the task's running commands ('agenttask run') first, and\n"
			"when the worktree holds something agenttask will not record\n"
			"(a name git refuses, an unreadable file, an embedded\n"
			"repository, a file over the size limit), save the commits only"),
	AT_CLI_OPT_FLAG('q', "quiet", struct discard_args, quiet, "no progress on the terminal"),
	AT_CLI_OPT_FLAG(0, "json", struct discard_args, json,
			"print {task, ref, commits_only, warnings}"),
	AT_CLI_OPT_MAX_FILE_SIZE(struct discard_args, app),
	AT_CLI_OPT_END,
};

int cmd_discard(const struct at_app *app, int argc, char **argv)
{
	struct discard_args a = { *app, { NULL, false, { NULL, NULL } }, false, false };
	struct at_app_discard_result res;
	struct at_error err = AT_ERROR_INIT;
	struct at_cli_progress progress;
	int rc;

	if ((rc = at_cli_parse("discard", cmd_discard_opts, argc, argv, &a)) >= 0)
		return rc;
	if (optind + 1 < argc)
		return at_cli_usage("discard", "too many arguments");
	a.o.name = optind < argc ? argv[optind] : NULL;
	at_cli_progress_init(&progress, a.quiet);
	a.o.progress = at_cli_progress_hook(&progress);
	rc = at_app_discard(&a.app, &a.o, &res, &err);
	at_cli_progress_end(&progress, rc == 0);
	at_cli_warnings(&res.warnings);
	if (rc == 0 && a.json)
		rc = at_cli_print_json(at_app_discard_json(&res)) ? AT_EXIT_FAIL : 0;
	else if (rc == 0)
		printf("discarded task '%s' (saved as '%s'%s; 'agenttask restore %s' brings it "
		       "back)\n", res.task.name, res.trash, res.commits_only ? ": commits only" : "",
		       res.task.name);
	at_app_discard_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
