/* cmd_drop.c - agenttask drop NAME -- PATHSPEC...: throw part of a task's change away (options: the table) */
#include <string.h>

#include "app/drop.h"
#include "app/json.h"
#include "cmd/accept_pick.h"
#include "cmd/commands.h"
#include "core/esc.h"

struct drop_args {
	struct at_app_drop_opts o;
	struct at_strlist exclude;       /* --exclude PATHSPEC, repeatable */
	bool json, interactive;
	struct at_oid rest, state;
};

const struct at_cli_opt cmd_drop_opts[] = {
	AT_CLI_OPT_LIST(0, "exclude", "PATHSPEC", struct drop_args, exclude,
			"keep the changes PATHSPEC matches (repeatable)"),
	AT_CLI_OPT_FLAG('p', "interactive", struct drop_args, interactive,
			"walk the hunks on the terminal with git's keys (y n q a d s ?)\n"
			"and drop exactly the picked ones"),
	AT_CLI_OPT_FLAG('f', "force", struct drop_args, o.force,
			"kill the task's running commands ('agenttask run') first"),
	AT_CLI_OPT_FLAG(0, "json", struct drop_args, json,
			"print {task, ref, dropped_paths, left_paths, warnings}"),
	AT_CLI_OPT_END,
};

static void print_result(const struct at_app_drop_result *r)
{
	size_t i;

	for (i = 0; i < r->dropped.n; i++)
		at_esc_printf(stdout, "dropped '%s'\n", r->dropped.v[i]);   /* the task's names */
	at_esc_printf(stdout, "dropped %zu path%s of task '%s' (saved as '%s'; 'agenttask restore "
		      "%s' puts them back)\n", r->dropped.n, r->dropped.n == 1 ? "" : "s",
		      r->task.name, r->trash, r->task.name);
}

int cmd_drop(const struct at_app *app, int argc, char **argv)
{
	struct drop_args a;
	struct at_app_drop_result res;
	struct at_error err = AT_ERROR_INIT;
	int rc, dd;

	memset(&a, 0, sizeof(a));
	/* The pathspec comes after "--"; options and NAME before it. */
	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		;
	if (dd < argc) {
		a.o.paths = argv + dd + 1;
		a.o.npaths = (size_t)(argc - dd - 1);
	}
	argc = dd;
	if ((rc = at_cli_parse("drop", cmd_drop_opts, argc, argv, &a)) >= 0)
		goto out;
	rc = AT_EXIT_OK;
	if (optind + 1 < argc) {
		rc = at_cli_usage("drop", "too many arguments");
		goto out;
	}
	if (a.interactive && (a.o.npaths || a.exclude.n || a.json)) {
		rc = at_cli_usage("drop", "-p picks the changes itself: not with a PATHSPEC, "
				  "--exclude or --json");
		goto out;
	}
	if (!a.o.npaths && !a.interactive) {
		rc = at_cli_usage("drop", "missing -- PATHSPEC... (the changes to drop; 'discard' "
				  "throws the whole task away)");
		goto out;
	}
	a.o.name = optind < argc ? argv[optind] : NULL;
	a.o.exclude = a.exclude.v;
	a.o.nexclude = a.exclude.n;
	if (a.interactive) {
		if ((rc = at_cli_pick(app, a.o.name, true, &a.rest, &a.state)) != 0) {
			rc = rc < 0 ? AT_EXIT_OK : rc;
			goto out;
		}
		a.o.pick_rest = &a.rest;
		a.o.pick_state = &a.state;
	}
	rc = at_app_drop(app, &a.o, &res, &err);
	at_cli_warnings(&res.warnings);
	if (rc == 0 && a.json)
		rc = at_cli_print_json(at_app_drop_json(&res)) ? AT_EXIT_FAIL : 0;
	else if (rc == 0)
		print_result(&res);
	at_app_drop_result_release(&res);
	rc = rc < 0 ? at_cli_fail(&err) : rc;
out:
	at_strlist_release(&a.exclude);
	return rc;
}
