/* cmd_commit.c - agenttask commit: the worktree's changes as one commit (options: the table) */
#include "app/commit.h"
#include "app/json.h"
#include "cmd/commands.h"

struct commit_args {
	struct at_app app;               /* the front end's, with --max-file-size */
	struct at_app_commit_opts o;
	bool json;
};

const struct at_cli_opt cmd_commit_opts[] = {
	AT_CLI_OPT_STRING('m', "message", "MSG", struct commit_args, o.message, "commit message"),
	AT_CLI_OPT_FLAG(0, "json", struct commit_args, json,
			"print {task, made, commit, branch, warnings}"),
	AT_CLI_OPT_MAX_FILE_SIZE(struct commit_args, app),
	AT_CLI_OPT_END,
};

int cmd_commit(const struct at_app *app, int argc, char **argv)
{
	struct commit_args a = { *app, { NULL, NULL }, false };
	struct at_app_commit_result res;
	struct at_error err = AT_ERROR_INIT;
	char hex[AT_OID_HEXSZ + 1];
	int rc;

	if ((rc = at_cli_parse("commit", cmd_commit_opts, argc, argv, &a)) >= 0)
		return rc;
	if (optind + 1 < argc)
		return at_cli_usage("commit", "too many arguments");
	a.o.name = optind < argc ? argv[optind] : NULL;
	rc = at_app_commit(&a.app, &a.o, &res, &err);
	at_cli_warnings(&res.warnings);
	at_oid_fmt(hex, &res.commit);
	if (rc == 0 && a.json)
		rc = at_cli_print_json(at_app_commit_json(&res)) ? AT_EXIT_FAIL : 0;
	else if (rc == 0 && res.made)
		printf("committed %.12s on '%s'\n", hex, at_branch_short(res.task.branch));
	else if (rc == 0)
		printf("nothing to commit in task '%s'\n", res.task.name);
	at_app_commit_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
