/*
 * cmd_trash.c - agenttask trash [NAME] [--json]: what restore can bring back.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/json.h"
#include "git/trash.h"

static void when_of(char *buf, size_t size, const struct at_trash_entry *e)
{
	at_cli_time(buf, size, (int64_t)e->sec);
}

static at_json *entry_json(const struct at_trash_entry *e)
{
	at_json *o = at_json_object();
	char when[32];

	when_of(when, sizeof(when), e);
	if (at_json_add_string(o, "name", e->name) < 0 ||
	    at_json_add_number(o, "entry", (double)e->index) < 0 ||
	    at_json_add_string(o, "ref", e->ref) < 0 ||
	    at_json_add_string(o, "discarded", when) < 0 ||
	    at_json_add_string(o, "tip", e->tip) < 0 ||
	    at_json_add_string(o, "base_branch", at_branch_short(e->base_branch)) < 0) {
		at_json_free(o);
		return NULL;
	}
	return o;
}

/* A header and one row an entry, the name and base columns as wide as they need. */
static void print_table(const struct at_trash_list *l)
{
	int wname = 4, wbase = 4, n;
	char when[32];
	size_t i;

	for (i = 0; i < l->n; i++) {
		if ((n = (int)strlen(l->v[i].name)) > wname)
			wname = n;
		if ((n = (int)strlen(at_branch_short(l->v[i].base_branch))) > wbase)
			wbase = n;
	}
	printf("%-*s  ENTRY  %-20s  %-12s  %-*s  REF\n", wname, "NAME", "DISCARDED", "TIP", wbase,
	       "BASE");
	for (i = 0; i < l->n; i++) {
		when_of(when, sizeof(when), &l->v[i]);
		printf("%-*s  %-5u  %-20s  %-12.12s  %-*s  %s\n", wname, l->v[i].name, l->v[i].index,
		       when, l->v[i].tip[0] ? l->v[i].tip : "unreadable", wbase,
		       l->v[i].base_branch[0] ? at_branch_short(l->v[i].base_branch) : "(detached)",
		       l->v[i].ref);
	}
}

int cmd_trash(struct at_cli *cli, int argc, char **argv)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_trash_list l = { NULL, 0 };
	struct at_repo *repo = NULL;
	const char *name;
	at_json *arr;
	bool json;
	int rc;
	size_t i;

	if ((rc = at_cli_name_json_args("trash", argc, argv, &name, &json, NULL)) >= 0)
		return rc;
	rc = at_cli_open(cli, &repo, &err);
	if (rc == 0)
		rc = at_trash_list(repo, name, &l, &err);
	at_repo_free(repo);
	if (rc < 0) {
		at_trash_list_release(&l);
		return at_cli_fail(&err);
	}
	if (!json) {
		/* An empty trash prints nothing, as an empty list does. */
		if (l.n)
			print_table(&l);
		at_trash_list_release(&l);
		return AT_EXIT_OK;
	}
	arr = at_json_array();
	for (i = 0; arr && i < l.n; i++)
		at_json_append(arr, entry_json(&l.v[i]));
	at_trash_list_release(&l);
	return at_cli_print_json(arr);
}
