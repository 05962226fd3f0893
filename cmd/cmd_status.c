/* cmd_status.c - agenttask status [NAME] [--json] */
#include "app/json.h"
#include "app/task.h"
#include "cmd/commands.h"
#include "cmd/print.h"
#include "core/util.h"

static int print_json(const struct at_app_status *st)
{
	at_json *o = at_app_task_json(&st->task, &st->info);

	if (at_app_preview_json(o, &st->preview) < 0) {
		at_json_free(o);
		fputs("agenttask: out of memory\n", stderr);
		return AT_EXIT_FAIL;
	}
	return at_cli_print_json(o);
}

static void print_status(const struct at_task *t, const struct at_task_info *info)
{
	char created[AT_TIME_MAX];

	at_time_iso(created, sizeof(created), t->created);
	printf("task:         %s\n", t->name);
	printf("branch:       %s\n", at_branch_short(t->branch));
	printf("base:         %s at %.12s\n",
	       t->base_branch[0] ? at_branch_short(t->base_branch) : "(detached HEAD)",
	       t->base_commit);
	printf("head:         %.12s (%zu commit%s ahead of base)\n", info->head_commit,
	       info->commits_ahead, info->commits_ahead == 1 ? "" : "s");
	printf("worktree:     %s%s\n", t->path, info->worktree_missing ? " (missing)" : "");
	printf("changes:      %s\n", info->dirty ? "uncommitted changes" : "none uncommitted");
	printf("created:      %s\n", created);
}

int cmd_status(const struct at_app *app, int argc, char **argv)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_app_status st;
	const char *name;
	bool json;
	int rc;

	if ((rc = at_cli_name_json_args("status", argc, argv, &name, &json)) >= 0)
		return rc;
	if (at_app_status(app, name, &st, &err) < 0)
		return at_cli_fail(&err);
	at_cli_warnings(&st.warnings);
	if (json) {
		rc = print_json(&st);
	} else {
		print_status(&st.task, &st.info);
		fputs("merge:        ", stdout);
		at_cli_print_preview(stdout, &st.task, &st.preview);
		rc = AT_EXIT_OK;
	}
	at_app_status_release(&st);
	return rc;
}
