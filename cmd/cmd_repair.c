/* cmd_repair.c - agenttask repair [NAME]: the task's git layer set back (options: the table) */
#include "app/repair.h"
#include "cmd/commands.h"
#include "core/esc.h"

static void print_result(const struct at_app_repair_result *res)
{
	char tip[AT_OID_HEXSZ + 1], head[AT_OID_HEXSZ + 1];

	if (!res->repaired) {
		printf("task '%s' has no git of its own inside yet: nothing to repair\n",
		       res->task.name);
		return;
	}
	at_oid_fmt(tip, &res->tip);
	if (res->imported)
		printf("imported first: %s moved to %.12s\n", at_branch_short(res->task.branch),
		       tip);
	printf("repaired task '%s': inside, git is the host's again: %s at %.12s, HEAD on it, "
	       "the worktree's index\n", res->task.name, at_branch_short(res->task.branch), tip);
	if (res->dropped) {
		at_oid_fmt(head, &res->dropped_head);
		printf("dropped: HEAD inside at %s%s", head, res->reason[0] ? " (" : "\n");
		if (res->reason[0])
			at_esc_printf(stdout, "not imported: %s)\n", res->reason);
	} else if (res->reason[0]) {
		at_esc_printf(stdout, "dropped: what was not imported (%s)\n", res->reason);
	}
	printf("kept: %s (the old layer as it was: commits, branches, tags, stash made inside; "
	       "removed with the task)\n", res->kept);
}

const struct at_cli_opt cmd_repair_opts[] = {
	AT_CLI_OPT_FLAG('f', "force", struct at_app_repair_opts, force,
			"kill the task's running commands ('agenttask run') first"),
	AT_CLI_OPT_END,
};

int cmd_repair(const struct at_app *app, int argc, char **argv)
{
	struct at_app_repair_opts o = { NULL, false };
	struct at_app_repair_result res;
	struct at_error err = AT_ERROR_INIT;
	int rc;

	if ((rc = at_cli_parse("repair", cmd_repair_opts, argc, argv, &o)) >= 0)
		return rc;
	if (optind + 1 < argc)
		return at_cli_usage("repair", "too many arguments");
	o.name = optind < argc ? argv[optind] : NULL;
	rc = at_app_repair(app, &o, &res, &err);
	at_cli_warnings(&res.warnings);
	if (rc == 0)
		print_result(&res);
	at_app_repair_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
