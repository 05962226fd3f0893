/* cmd_rewind.c - agenttask rewind [NAME] N: the task back to just before run N (options: the table) */
#include "app/json.h"
#include "app/rewind.h"
#include "cmd/commands.h"
#include "cmd/progress.h"

struct rewind_args {
	struct at_app app;               /* the front end's, with --max-file-size */
	struct at_app_rewind_opts o;
	bool quiet, json;
};

const struct at_cli_opt cmd_rewind_opts[] = {
	AT_CLI_OPT_FLAG('f', "force", struct rewind_args, o.force,
			"kill the task's running commands ('agenttask run') first"),
	AT_CLI_OPT_FLAG('q', "quiet", struct rewind_args, quiet, "no progress on the terminal"),
	AT_CLI_OPT_FLAG(0, "json", struct rewind_args, json,
			"print {task, to, saved, head, paths, warnings}"),
	AT_CLI_OPT_MAX_FILE_SIZE(struct rewind_args, app),
	AT_CLI_OPT_END,
};

int cmd_rewind(const struct at_app *app, int argc, char **argv)
{
	struct rewind_args a = { .app = *app };
	struct at_app_rewind_result res;
	struct at_error err = AT_ERROR_INIT;
	struct at_cli_progress progress;
	char head[AT_OID_HEXSZ + 1];
	int rc;

	if ((rc = at_cli_parse("rewind", cmd_rewind_opts, argc, argv, &a)) >= 0)
		return rc;
	if (optind == argc)
		return at_cli_usage("rewind", "which run? (N, as 'agenttask log' numbers them)");
	if (optind + 2 < argc)
		return at_cli_usage("rewind", "too many arguments");
	a.o.name = optind + 2 == argc ? argv[optind] : NULL;
	a.o.to = argv[argc - 1];
	at_cli_progress_init(&progress, a.quiet);
	a.o.progress = at_cli_progress_hook(&progress);
	rc = at_app_rewind(&a.app, &a.o, &res, &err);
	at_cli_progress_end(&progress, rc == 0);
	at_cli_warnings(&res.warnings);
	if (rc == 0 && a.json) {
		rc = at_cli_print_json(at_app_rewind_json(&res)) ? AT_EXIT_FAIL : 0;
	} else if (rc == 0) {
		at_oid_fmt(head, &res.head);
		printf("rewound task '%s' to just before run %u (%s at %.12s, %zu path%s); the "
		       "state it replaced is checkpoint %u: 'agenttask rewind %s %u' undoes it\n",
		       res.task.name, res.to, at_branch_short(res.task.branch), head, res.paths,
		       res.paths == 1 ? "" : "s", res.saved, res.task.name, res.saved);
	}
	at_app_rewind_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : rc;
}
