/* cmd_du.c - agenttask du [NAME] [--json]: the disk each task takes (options: the table) */
#include <stdio.h>
#include <string.h>

#include "app/du.h"
#include "app/json.h"
#include "cmd/commands.h"
#include "cmd/progress.h"
#include "core/esc.h"

static void print_sizes(const char *name, const uint64_t *bytes, uint64_t total, int wname)
{
	char buf[32];
	size_t i;

	at_esc_fputs(stdout, name, 0);
	printf("%*s", wname - (int)strlen(name), "");
	for (i = 0; bytes && i < AT_DU_NPARTS; i++) {
		at_cli_human_bytes(buf, sizeof(buf), bytes[i]);
		printf("  %12s", buf);
	}
	if (!bytes)
		printf("%*s", (int)(AT_DU_NPARTS * 14), "");
	at_cli_human_bytes(buf, sizeof(buf), total);
	printf("  %12s", buf);
}

/* A header, one row a task (its trash entries last), and the total. */
static int print_table(const struct at_app_du *d)
{
	int wname = 5, status = AT_EXIT_OK;
	size_t i;

	for (i = 0; i < d->n; i++)
		if ((int)strlen(d->v[i].name) > wname)
			wname = (int)strlen(d->v[i].name);
	printf("%-*s", wname, "NAME");
	for (i = 0; i < AT_DU_NPARTS; i++)
		printf("  %12s", at_du_part_names[i]);
	printf("  %12s  TRASH\n", "total");
	for (i = 0; i < d->n; i++) {
		if (at_error_isset(&d->v[i].err)) {
			fflush(stdout);
			at_cli_fail(&d->v[i].err);
			status = AT_EXIT_FAIL;
			continue;
		}
		print_sizes(d->v[i].name, d->v[i].bytes, d->v[i].total, wname);
		printf("  %zu\n", d->v[i].trash_entries);
	}
	print_sizes("total", NULL, d->total, wname);
	putchar('\n');
	return status;
}

struct du_args {
	bool json;
};

const struct at_cli_opt cmd_du_opts[] = {
	AT_CLI_OPT_FLAG(0, "json", struct du_args, json,
			"print {tasks: [{task, worktree, home, caches, git, total,\n"
			"trash_entries}], total}, sizes in bytes"),
	AT_CLI_OPT_END,
};

int cmd_du(const struct at_app *app, int argc, char **argv)
{
	struct at_error err = AT_ERROR_INIT;
	struct du_args a = { false };
	struct at_app_du d;
	const char *name;
	size_t i;
	int rc;

	if ((rc = at_cli_parse("du", cmd_du_opts, argc, argv, &a)) >= 0 ||
	    (rc = at_cli_name_operand("du", argc, argv, false, &name)) >= 0)
		return rc;
	if (at_app_du(app, name, &d, &err) < 0)
		return at_cli_fail(&err);
	if (a.json) {
		rc = at_cli_print_json(at_app_du_json(&d));
		for (i = 0; i < d.n; i++)
			if (at_error_isset(&d.v[i].err))
				rc = AT_EXIT_FAIL;
	} else {
		rc = print_table(&d);
	}
	at_app_du_release(&d);
	return rc;
}
