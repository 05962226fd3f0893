#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/esc.h"
#include "core/json.h"
#include "core/state.h"
#include "git/worktree.h"

/* The width of each padded column: its header's, or its longest value's. */
struct list_widths {
	int name, branch, base;
	bool color;
};

static const char *state_of(const struct at_task *t, const struct at_task_info *info)
{
	return t->phase != AT_TASK_READY ? "half-made" :
	       info->worktree_missing   ? "missing" :
	       info->dirty              ? "modified" : "clean";
}

/* Clean green, modified yellow, missing or half-made red. */
static const char *state_color(const char *state)
{
	return strcmp(state, "clean") == 0 ? AT_COLOR_GREEN :
	       strcmp(state, "modified") == 0 ? AT_COLOR_YELLOW : AT_COLOR_RED;
}

static const char *base_of(const struct at_task *t)
{
	return t->base_branch[0] ? at_branch_short(t->base_branch) : "(detached)";
}

static void widen(int *w, const char *s)
{
	int n = (int)strlen(s);

	if (n > *w)
		*w = n;
}

static void print_row(const struct list_widths *w, const struct at_task *t,
		      const struct at_task_info *info)
{
	char created[32];

	const char *state = state_of(t, info), *reset = at_cli_c(w->color, AT_COLOR_RESET);

	at_cli_time(created, sizeof(created), t->created);
	/* The padding outside the escapes, so that the columns stay aligned. */
	printf("%-*s  %s%s%s%*s  %s%-*s%s  %-*s  %s%-12.12s%s  %-20s  %s\n", w->name, t->name,
	       at_cli_c(w->color, state_color(state)), state, reset, 9 - (int)strlen(state), "",
	       at_cli_c(w->color, AT_COLOR_GREEN), w->branch, at_branch_short(t->branch), reset,
	       w->base, base_of(t), at_cli_c(w->color, AT_COLOR_YELLOW),
	       info->head_commit[0] ? info->head_commit : t->base_commit, reset, created, t->path);
}

/* A header and one row a task, its columns as wide as they need. */
static void print_table(const struct at_task_list *l, const struct at_task_info *infos,
			bool color)
{
	struct list_widths w = { 4, 6, 4, color };
	size_t i;

	for (i = 0; i < l->count; i++) {
		widen(&w.name, l->tasks[i].name);
		widen(&w.branch, at_branch_short(l->tasks[i].branch));
		widen(&w.base, base_of(&l->tasks[i]));
	}
	printf("%-*s  %-9s  %-*s  %-*s  %-12s  %-20s  %s\n", w.name, "NAME", "STATE", w.branch,
	       "BRANCH", w.base, "BASE", "HEAD", "CREATED", "PATH");
	for (i = 0; i < l->count; i++)
		print_row(&w, &l->tasks[i], &infos[i]);
}

int cmd_list(struct at_cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "name-only", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		AT_CLI_COLOR_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct at_task_list l = { 0 };
	struct at_error err = AT_ERROR_INIT;
	struct at_repo *repo = NULL;
	struct at_task_info *infos = NULL;
	at_json *arr = NULL;
	bool json = false, names = false, color;
	const char *when = NULL;
	int c, rc, status = AT_EXIT_OK;
	size_t i;

	while ((c = at_cli_getopt(argc, argv, "h", longopts)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'n')
			names = true;
		else if (c == AT_OPT_COLOR || c == AT_OPT_NO_COLOR)
			when = at_cli_color_when(c, optarg);
		else
			return c == 'h' ? at_cli_help("list") : at_cli_bad_option("list");
	}
	if (optind < argc)
		return at_cli_usage("list", "too many arguments");
	if (json && names)
		return at_cli_usage("list", "options '--json' and '--name-only' cannot be used together");
	if ((rc = at_cli_color_for("list", when, &color)) >= 0)
		return rc;
	rc = at_cli_open(cli, &repo, &err);
	if (rc == 0)
		rc = at_state_list(at_repo_paths(repo), &l, &err);
	if (rc < 0) {
		at_repo_free(repo);
		return at_cli_fail(&err);
	}
	/* The names alone (for completion and scripts): no worktree is looked at. */
	for (i = 0; names && i < l.count; i++)
		puts(l.tasks[i].name);
	infos = names ? NULL : calloc(l.count + 1, sizeof(*infos));
	if (!names && !infos) {
		at_task_list_release(&l);
		at_repo_free(repo);
		fputs("agenttask: out of memory\n", stderr);
		return AT_EXIT_FAIL;
	}
	arr = json ? at_json_array() : NULL;
	for (i = 0; infos && i < l.count; i++) {
		struct at_error e = AT_ERROR_INIT;

		if (at_task_inspect(repo, &l.tasks[i], &infos[i], &e) < 0) {
			at_cli_fail(&e);
			status = AT_EXIT_FAIL;
		}
		if (json)
			at_json_append(arr, at_cli_task_json(&l.tasks[i], &infos[i]));
	}
	/* No tasks, no table: an empty list stays empty for scripts that test it. */
	if (infos && !json && l.count > 0)
		print_table(&l, infos, color);
	free(infos);
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
