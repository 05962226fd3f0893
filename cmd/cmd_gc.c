/* cmd_gc.c - agenttask gc: remove what interrupted commands left (options: the table) */
#include <stdio.h>
#include <stdlib.h>

#include "app/gc.h"
#include "app/json.h"
#include "cmd/commands.h"
#include "cmd/progress.h"
#include "core/esc.h"

struct gc_args {
	struct at_app_gc_opts o;
	bool quiet, json;
};

/* --trash-days N: 0 to 100000. */
static int set_days(void *field, const struct at_cli_opt *opt, const char *value,
		    struct at_error *err)
{
	char *end;
	long days;

	(void)opt;
	days = strtol(value, &end, 10);
	if (*value == '\0' || *end || days < 0 || days > 100000)
		return at_error_set(err, AT_EUSAGE, "invalid --trash-days '%s'", value);
	*(int *)field = (int)days;
	return 0;
}

/* --max-age DAYS: 0 to 100000. */
static int set_max_age(void *field, const struct at_cli_opt *opt, const char *value,
		       struct at_error *err)
{
	struct at_error e = AT_ERROR_INIT;

	if (set_days(field, opt, value, &e) < 0)
		return at_error_set(err, AT_EUSAGE, "invalid --max-age '%s'", value);
	return 0;
}

const struct at_cli_opt cmd_gc_opts[] = {
	AT_CLI_OPT_CALL(0, "trash-days", "N", set_days, struct gc_args, o.trash_days, 0,
			"prune discarded tasks older than N days (default "
			AT_STR(AT_TRASH_DAYS_DEFAULT) ")"),
	AT_CLI_OPT_CALL(0, "max-age", "DAYS", set_max_age, struct gc_args, o.max_age_days, 0,
			"also move to the trash (restorable) each task with no run,\n"
			"commit, gate or other logged action for DAYS days; never one\n"
			"whose command runs"),
	AT_CLI_OPT_FLAG('n', "dry-run", struct gc_args, o.dry_run,
			"with --max-age: list the tasks it would move, do nothing"),
	AT_CLI_OPT_FLAG('q', "quiet", struct gc_args, quiet, "no progress on the terminal"),
	AT_CLI_OPT_FLAG(0, "json", struct gc_args, json,
			"print {actions: [{message, failed}], failures}"),
	AT_CLI_OPT_FLAG('f', "force", struct gc_args, o.force,
			"kill the running commands of a task gc removes; without it\n"
			"such a task is left alone, and gc says so"),
	AT_CLI_OPT_END,
};

int cmd_gc(const struct at_app *app, int argc, char **argv)
{
	struct gc_args a = { AT_APP_GC_OPTS_INIT, false, false };
	struct at_app_gc_result res;
	struct at_error err = AT_ERROR_INIT;
	struct at_cli_progress progress;
	int rc, status = AT_EXIT_OK;
	size_t i;

	if ((rc = at_cli_parse("gc", cmd_gc_opts, argc, argv, &a)) >= 0)
		return rc;
	if (optind < argc)
		return at_cli_usage("gc", "too many arguments");
	if (a.o.dry_run && a.o.max_age_days < 0)
		return at_cli_usage("gc", "option '--dry-run' needs '--max-age'");
	at_cli_progress_init(&progress, a.quiet);
	a.o.progress = at_cli_progress_hook(&progress);
	rc = at_app_gc(app, &a.o, &res, &err);
	at_cli_progress_end(&progress, rc == 0);
	/* What failed is said on stderr, each on its line; gc went on past it. */
	if (rc == 0 && a.json) {
		status = res.done.nfailed ? AT_EXIT_FAIL : AT_EXIT_OK;
		if (at_cli_print_json(at_app_gc_json(&res)))
			status = AT_EXIT_FAIL;
	}
	for (i = 0; rc == 0 && !a.json && i < res.done.lines.n; i++) {
		/* Each names what it found on disk: its controls shown. */
		if (res.done.failed[i]) {
			fflush(stdout);
			at_esc_printf(stderr, "agenttask: %s\n", res.done.lines.v[i]);
			status = AT_EXIT_FAIL;
		} else {
			at_esc_fputs(stdout, res.done.lines.v[i], 0);
			putchar('\n');
		}
	}
	at_app_gc_result_release(&res);
	return rc < 0 ? at_cli_fail(&err) : status;
}
