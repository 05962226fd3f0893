/* cmd_list.c - agenttask list: every task, a table or JSON (options: the table) */
#include <stdio.h>
#include <string.h>

#include "app/json.h"
#include "app/live.h"
#include "app/task.h"
#include "cmd/commands.h"
#include "cmd/list_watch.h"
#include "core/esc.h"
#include "core/util.h"

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
	const char *state = state_of(t, info), *reset = at_cli_c(w->color, AT_COLOR_RESET);
	char created[AT_TIME_MAX];

	at_time_iso(created, sizeof(created), t->created);
	/* The padding outside the escapes, so that the columns stay aligned. */
	printf("%-*s  %s%s%s%*s  %s%-*s%s  %-*s  %s%-12.12s%s  %-20s  %s\n", w->name, t->name,
	       at_cli_c(w->color, state_color(state)), state, reset, 9 - (int)strlen(state), "",
	       at_cli_c(w->color, AT_COLOR_GREEN), w->branch, at_branch_short(t->branch), reset,
	       w->base, base_of(t), at_cli_c(w->color, AT_COLOR_YELLOW),
	       info->head_commit[0] ? info->head_commit : t->base_commit, reset, created, t->path);
}

/* A header and one row a task, its columns as wide as they need. */
static void print_table(const struct at_app_list *l, bool color)
{
	struct list_widths w = { 4, 6, 4, color };
	size_t i;

	for (i = 0; i < l->n; i++) {
		widen(&w.name, l->v[i].task.name);
		widen(&w.branch, at_branch_short(l->v[i].task.branch));
		widen(&w.base, base_of(&l->v[i].task));
	}
	printf("%-*s  %-9s  %-*s  %-*s  %-12s  %-20s  %s\n", w.name, "NAME", "STATE", w.branch,
	       "BRANCH", w.base, "BASE", "HEAD", "CREATED", "PATH");
	for (i = 0; i < l->n; i++)
		print_row(&w, &l->v[i].task, &l->v[i].info);
}

enum list_form { LIST_TABLE, LIST_JSON, LIST_NAMES };

/* list --json: each task's "live" (app/live.h), when its activity could be read. */
static void add_live(at_json *task, const char *name, const struct at_app_watch_entry *v,
		     size_t n)
{
	size_t i;

	for (i = 0; task && i < n; i++)
		if (strcmp(v[i].task.name, name) == 0) {
			at_json_add(task, "live", at_app_live_json(&v[i].live));
			return;
		}
	at_json_add_null(task, "live");
}

/* A record or task that cannot be read spoils only itself: say so, list the rest. */
static int print_list(const struct at_app *app, const struct at_app_list *l, enum list_form form,
		      bool color, const struct at_app_watch_entry *live, size_t nlive)
{
	at_json *arr = form == LIST_JSON ? at_json_array() : NULL;
	int status = AT_EXIT_OK;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (at_error_isset(&l->v[i].err)) {
			at_cli_fail(&l->v[i].err);   /* escaped: it may quote the task's paths */
			status = AT_EXIT_FAIL;
		}
		if (form == LIST_JSON) {
			at_json *t = at_app_task_json(&l->v[i].task, &l->v[i].info);

			at_json *setup = at_app_setup_json(app, l->v[i].task.name);

			add_live(t, l->v[i].task.name, live, nlive);
			/* as status has it: null when the task had no setup */
			if (setup)
				at_json_add(t, "setup", setup);
			else
				at_json_add_null(t, "setup");
			at_json_append(arr, t);
		}
		else if (form == LIST_NAMES)
			puts(l->v[i].task.name);
	}
	/* No tasks, no table: an empty list stays empty for scripts that test it. */
	if (form == LIST_TABLE && l->n > 0)
		print_table(l, color);
	for (i = 0; i < l->records.nproblems; i++) {
		at_esc_printf(stderr, "agenttask: %s\n", l->records.problems[i].err.msg);
		status = AT_EXIT_FAIL;
	}
	if (arr && at_cli_print_json(arr) != AT_EXIT_OK)
		return AT_EXIT_FAIL;
	return status;
}

struct list_args {
	bool json, names, watch;
	const char *color;
};

const struct at_cli_opt cmd_list_opts[] = {
	AT_CLI_OPT_FLAG(0, "json", struct list_args, json, "print a JSON array of tasks"),
	AT_CLI_OPT_FLAG(0, "name-only", struct list_args, names, "only the names, one a line"),
	AT_CLI_OPT_FLAG('w', "watch", struct list_args, watch,
			"a full-screen view of every task's activity, refreshed every\n"
			"second, until q or ^C"),
	AT_CLI_OPT_COLOR(struct list_args, color,
			 "colour the states: auto (on a terminal; default), always, never"),
	AT_CLI_OPT_END,
};

int cmd_list(const struct at_app *app, int argc, char **argv)
{
	struct list_args a = { false, false, false, NULL };
	const struct at_app_watch_entry *live = NULL;
	struct at_error err = AT_ERROR_INIT;
	struct at_app_watch *w = NULL;
	struct at_app_list l;
	size_t nlive = 0;
	bool color;
	int rc;

	if ((rc = at_cli_parse("list", cmd_list_opts, argc, argv, &a)) >= 0)
		return rc;
	if (optind < argc)
		return at_cli_usage("list", "too many arguments");
	if (a.json && a.names)
		return at_cli_usage("list", "options '--json' and '--name-only' cannot be used together");
	if (a.watch && (a.json || a.names))
		return at_cli_usage("list", "option '--watch' goes with neither '--json' nor '--name-only'");
	if ((rc = at_cli_color_for("list", a.color, &color)) >= 0)
		return rc;
	if (a.watch)
		return at_cli_list_watch(app, color);
	/* The names alone (for completion and scripts): no worktree is looked at. */
	if ((a.names ? at_app_list_names(app, &l, &err) : at_app_list(app, &l, &err)) < 0)
		return at_cli_fail(&err);
	/* Each task's activity: a watch polled once (its change one more scan and a diff). */
	if (a.json && (at_app_watch_open(app, true, &w, &err) < 0 ||
		       at_app_watch_poll(w, &live, &nlive, &err) < 0)) {
		at_app_watch_free(w);
		at_app_list_release(&l);
		return at_cli_fail(&err);
	}
	rc = print_list(app, &l, a.json ? LIST_JSON : a.names ? LIST_NAMES : LIST_TABLE, color, live,
			nlive);
	at_app_watch_free(w);
	at_app_list_release(&l);
	return rc;
}
