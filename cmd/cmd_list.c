/* cmd_list.c - agenttask list [--json] */
#include "app/json.h"
#include "app/task.h"
#include "cmd/commands.h"
#include "core/esc.h"
#include "core/util.h"

static void print_row(const struct at_task *t, const struct at_task_info *info)
{
	char created[AT_TIME_MAX];

	at_time_iso(created, sizeof(created), t->created);
	printf("%-20s %-9s %-20s %.12s  %s  %s\n", t->name,
	       t->phase != AT_TASK_READY ? "half-made" :
	       info->worktree_missing   ? "missing" :
	       info->dirty              ? "modified" : "clean",
	       t->base_branch[0] ? at_branch_short(t->base_branch) : "(detached)",
	       info->head_commit[0] ? info->head_commit : t->base_commit, created, t->path);
}

/* A record or task that cannot be read spoils only itself: say so, list the rest. */
static int print_list(const struct at_app_list *l, bool json)
{
	at_json *arr = json ? at_json_array() : NULL;
	int status = AT_EXIT_OK;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (at_error_isset(&l->v[i].err)) {
			at_cli_fail(&l->v[i].err);   /* escaped: it may quote the task's paths */
			status = AT_EXIT_FAIL;
		}
		if (json)
			at_json_append(arr, at_app_task_json(&l->v[i].task, &l->v[i].info));
		else
			print_row(&l->v[i].task, &l->v[i].info);
	}
	for (i = 0; i < l->records.nproblems; i++) {
		at_esc_printf(stderr, "agenttask: %s\n", l->records.problems[i].err.msg);
		status = AT_EXIT_FAIL;
	}
	if (json && at_cli_print_json(arr) != AT_EXIT_OK)
		return AT_EXIT_FAIL;
	return status;
}

int cmd_list(const struct at_app *app, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_error err = AT_ERROR_INIT;
	struct at_app_list l;
	bool json = false;
	int c;

	while ((c = at_cli_getopt(argc, argv, "h", longopts)) != -1) {
		if (c == 'j')
			json = true;
		else
			return c == 'h' ? AT_EXIT_HELP : at_cli_bad_option("list");
	}
	if (optind < argc)
		return at_cli_usage("list", "too many arguments");
	if (at_app_list(app, &l, &err) < 0)
		return at_cli_fail(&err);
	c = print_list(&l, json);
	at_app_list_release(&l);
	return c;
}
