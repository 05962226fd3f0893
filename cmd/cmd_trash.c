/*
 * cmd_trash.c - agenttask trash [NAME] [--json]: what restore can bring back.
 */
#include <stdio.h>
#include <string.h>

#include "app/discard.h"
#include "app/json.h"
#include "cmd/commands.h"
#include "core/util.h"

/* A header and one row an entry, the name and base columns as wide as they need. */
static void print_table(const struct at_trash_list *l)
{
	int wname = 4, wbase = 4, n;
	char when[AT_TIME_MAX];
	size_t i;

	for (i = 0; i < l->n; i++) {
		if ((n = (int)strlen(l->v[i].name)) > wname)
			wname = n;
		if ((n = (int)strlen(at_branch_short(l->v[i].base_branch))) > wbase)
			wbase = n;
	}
	printf("%-*s  ENTRY  %-20s  %-12s  %-*s  CHECKPOINTS  REF\n", wname, "NAME", "DISCARDED",
	       "TIP", wbase, "BASE");
	for (i = 0; i < l->n; i++) {
		at_time_iso(when, sizeof(when), (int64_t)l->v[i].sec);
		printf("%-*s  %-5u  %-20s  %-12.12s  %-*s  %-11u  %s\n", wname, l->v[i].name,
		       l->v[i].index, when, l->v[i].tip[0] ? l->v[i].tip : "unreadable", wbase,
		       l->v[i].base_branch[0] ? at_branch_short(l->v[i].base_branch) : "(detached)",
		       l->v[i].checkpoints, l->v[i].ref);
	}
}

struct trash_args {
	bool json;
};

const struct at_cli_opt cmd_trash_opts[] = {
	AT_CLI_OPT_FLAG(0, "json", struct trash_args, json,
			"print a JSON array: task, entry, ref, discarded, tip, base_branch, checkpoints"),
	AT_CLI_OPT_END,
};

int cmd_trash(const struct at_app *app, int argc, char **argv)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_trash_list l = { NULL, 0 };
	struct trash_args a = { false };
	const char *name;
	at_json *arr;
	int rc;
	size_t i;

	if ((rc = at_cli_parse("trash", cmd_trash_opts, argc, argv, &a)) >= 0 ||
	    (rc = at_cli_name_operand("trash", argc, argv, false, &name)) >= 0)
		return rc;
	if (at_app_trash(app, name, &l, &err) < 0) {
		at_trash_list_release(&l);
		return at_cli_fail(&err);
	}
	if (!a.json) {
		/* An empty trash prints nothing, as an empty list does. */
		if (l.n)
			print_table(&l);
		at_trash_list_release(&l);
		return AT_EXIT_OK;
	}
	arr = at_json_array();
	for (i = 0; arr && i < l.n; i++)
		at_json_append(arr, at_app_trash_json(&l.v[i]));
	at_trash_list_release(&l);
	return at_cli_print_json(arr);
}
