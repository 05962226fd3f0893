#include <stdio.h>

#include "cmd/commands.h"
#include "core/esc.h"
#include "core/json.h"
#include "core/state.h"
#include "git/worktree.h"

static void print_row(const struct at_task *t, const struct at_task_info *info)
{
	char created[32];

	at_cli_time(created, sizeof(created), t->created);
	printf("%-20s %-9s %-20s %.12s  %s  %s\n", t->name,
	       t->phase != AT_TASK_READY ? "half-made" :
	       info->worktree_missing   ? "missing" :
	       info->dirty              ? "modified" : "clean",
	       t->base_branch[0] ? at_branch_short(t->base_branch) : "(detached)",
	       info->head_commit[0] ? info->head_commit : t->base_commit, created, t->path);
}

int cmd_list(struct at_cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_task_list l = { 0 };
	struct at_error err = AT_ERROR_INIT;
	struct at_repo *repo = NULL;
	at_json *arr = NULL;
	bool json = false;
	int c, rc, status = AT_EXIT_OK;
	size_t i;

	while ((c = at_cli_getopt(argc, argv, "h", longopts)) != -1) {
		if (c == 'j')
			json = true;
		else
			return c == 'h' ? at_cli_help("list") : at_cli_bad_option("list");
	}
	if (optind < argc)
		return at_cli_usage("list", "too many arguments");
	rc = at_cli_open(cli, &repo, &err);
	if (rc == 0)
		rc = at_state_list(at_repo_paths(repo), &l, &err);
	if (rc < 0) {
		at_repo_free(repo);
		return at_cli_fail(&err);
	}
	arr = json ? at_json_array() : NULL;
	for (i = 0; i < l.count; i++) {
		struct at_error e = AT_ERROR_INIT;
		struct at_task_info info = { { 0 }, false, false, 0 };

		if (at_task_inspect(repo, &l.tasks[i], &info, &e) < 0) {
			at_cli_fail(&e);
			status = AT_EXIT_FAIL;
		}
		if (json)
			at_json_append(arr, at_cli_task_json(&l.tasks[i], &info));
		else
			print_row(&l.tasks[i], &info);
	}
	/* A record that cannot be read spoils only itself: say so, list the rest. */
	for (i = 0; i < l.nproblems; i++) {
		at_esc_printf(stderr, "agenttask: %s\n", l.problems[i].err.msg);
		status = AT_EXIT_FAIL;
	}
	at_task_list_release(&l);
	at_repo_free(repo);
	if (json && at_cli_print_json(arr) != AT_EXIT_OK)
		return AT_EXIT_FAIL;
	return status;
}
