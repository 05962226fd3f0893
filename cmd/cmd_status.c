#include <stdio.h>

#include "cmd/commands.h"
#include "core/json.h"
#include "cmd/preview.h"
#include "git/worktree.h"

static int print_json(const struct at_task *t, const struct at_task_info *info,
		      const struct at_cli_preview *p)
{
	at_json *o = at_cli_task_json(t, info);

	if (at_cli_preview_json(o, p) < 0) {
		at_json_free(o);
		fputs("agenttask: out of memory\n", stderr);
		return AT_EXIT_FAIL;
	}
	return at_cli_print_json(o);
}

/* Colours as git status's: the branch green, commits yellow, what needs a look red or yellow. */
static void print_status(const struct at_task *t, const struct at_task_info *info, bool c)
{
	const char *reset = at_cli_c(c, AT_COLOR_RESET), *yellow = at_cli_c(c, AT_COLOR_YELLOW);
	char created[32];

	at_cli_time(created, sizeof(created), t->created);
	printf("task:         %s%s%s\n", at_cli_c(c, AT_COLOR_BOLD), t->name, reset);
	printf("branch:       %s%s%s\n", at_cli_c(c, AT_COLOR_GREEN), at_branch_short(t->branch),
	       reset);
	printf("base:         %s at %s%.12s%s\n",
	       t->base_branch[0] ? at_branch_short(t->base_branch) : "(detached HEAD)", yellow,
	       t->base_commit, reset);
	printf("head:         %s%.12s%s (%zu commit%s ahead of base)\n", yellow, info->head_commit,
	       reset, info->commits_ahead, info->commits_ahead == 1 ? "" : "s");
	printf("worktree:     %s%s%s%s\n", t->path, at_cli_c(c, AT_COLOR_RED),
	       info->worktree_missing ? " (missing)" : "", reset);
	printf("changes:      %s%s%s\n", info->dirty ? yellow : "",
	       info->dirty ? "uncommitted changes" : "none uncommitted", reset);
	printf("created:      %s\n", created);
}

int cmd_status(struct at_cli *cli, int argc, char **argv)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_repo *repo = NULL;
	struct at_cli_preview preview = { .ok = false };
	struct at_task_info info;
	struct at_task task;
	const char *name, *when;
	bool json, color;
	int rc;

	if ((rc = at_cli_name_json_args("status", argc, argv, &name, &json, &when)) >= 0 ||
	    (rc = at_cli_color_for("status", when, &color)) >= 0)
		return rc;
	rc = at_cli_open(cli, &repo, &err);
	if (rc == 0)
		rc = at_cli_task(cli, repo, name, &task, &err);
	if (rc == 0)
		rc = at_task_inspect(repo, &task, &info, &err);
	if (rc == 0)
		at_cli_preview_load(&preview, repo, &task, NULL);
	at_repo_free(repo);
	if (rc < 0)
		return at_cli_fail(&err);
	if (json) {
		rc = print_json(&task, &info, &preview);
	} else {
		print_status(&task, &info, color);
		fputs("merge:        ", stdout);
		at_cli_preview_print(stdout, &task, &preview, color);
		rc = AT_EXIT_OK;
	}
	at_cli_preview_release(&preview);
	return rc;
}
