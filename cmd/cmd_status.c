/* cmd_status.c - agenttask status [NAME]: one task's state (options: the table) */
#include "app/json.h"
#include "app/task.h"
#include "cmd/commands.h"
#include "cmd/print.h"
#include "core/esc.h"
#include "core/util.h"

#include <string.h>

static int print_json(const struct at_app_status *st)
{
	at_json *o = at_app_task_json(&st->task, &st->info);

	if (at_app_preview_json(o, &st->preview) < 0 ||
	    (st->setup ? at_json_add(o, "setup", at_json_dup(st->setup))
		       : at_json_add_null(o, "setup")) < 0) {
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
	char created[AT_TIME_MAX];

	at_time_iso(created, sizeof(created), t->created);
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

/* The run configuration's setup, when the task had one: done, or which command failed. */
static void print_setup(const at_json *s, bool c)
{
	const char *state = s ? at_json_get_string(s, "state") : NULL;
	const char *cmd = s ? at_json_get_string(s, "command") : NULL;
	double code = 0, steps = 0;
	bool timed_out = false;

	if (!state)
		return;
	at_json_get_number(s, "steps", &steps);
	if (strcmp(state, "done") == 0) {
		printf("setup:        done (%.0f command%s)\n", steps, steps == 1 ? "" : "s");
		return;
	}
	at_json_get_number(s, "exit_code", &code);
	at_json_get_bool(s, "timed_out", &timed_out);
	printf("setup:        %s", at_cli_c(c, AT_COLOR_RED));
	at_esc_printf(stdout, "failed: '%s' %s", cmd ? cmd : "?",
		      timed_out ? "timed out" : "exited");
	if (!timed_out)
		printf(" %.0f", code);
	printf("%s\n", at_cli_c(c, AT_COLOR_RESET));
}

struct status_args {
	bool json;
	const char *color;
};

const struct at_cli_opt cmd_status_opts[] = {
	AT_CLI_OPT_FLAG(0, "json", struct status_args, json, "print a JSON object"),
	AT_CLI_OPT_COLOR(struct status_args, color,
			 "colour the output: auto (on a terminal; default), always, never"),
	AT_CLI_OPT_END,
};

int cmd_status(const struct at_app *app, int argc, char **argv)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_app_status st;
	struct status_args a = { false, NULL };
	const char *name;
	bool color;
	int rc;

	if ((rc = at_cli_parse("status", cmd_status_opts, argc, argv, &a)) >= 0 ||
	    (rc = at_cli_name_operand("status", argc, argv, false, &name)) >= 0 ||
	    (rc = at_cli_color_for("status", a.color, &color)) >= 0)
		return rc;
	if (at_app_status(app, name, &st, &err) < 0)
		return at_cli_fail(&err);
	at_cli_warnings(&st.warnings);
	if (a.json) {
		rc = print_json(&st);
	} else {
		print_status(&st.task, &st.info, color);
		print_setup(st.setup, color);
		fputs("merge:        ", stdout);
		at_cli_print_preview(stdout, &st.task, &st.preview, color);
		rc = AT_EXIT_OK;
	}
	at_app_status_release(&st);
	return rc;
}
