/* cmd_gc.c - agenttask gc [--trash-days N] [--force] [--quiet] [--json] */
#include <stdio.h>
#include <stdlib.h>

#include "app/gc.h"
#include "app/json.h"
#include "cmd/commands.h"
#include "cmd/progress.h"
#include "core/esc.h"

int cmd_gc(const struct at_app *app, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "trash-days", required_argument, NULL, 't' },
		{ "force", no_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_app_gc_opts o = AT_APP_GC_OPTS_INIT;
	struct at_app_gc_result res;
	struct at_error err = AT_ERROR_INIT;
	struct at_cli_progress progress;
	bool quiet = false;
	int c, rc, status = AT_EXIT_OK;
	bool json = false;
	char *end;
	long days;
	size_t i;

	while ((c = at_cli_getopt(argc, argv, "fqh", longopts)) != -1) {
		switch (c) {
		case 'f':
			o.force = true;
			break;
		case 'j':
			json = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 't':
			days = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end || days < 0 || days > 100000)
				return at_cli_usage("gc", "invalid --trash-days '%s'", optarg);
			o.trash_days = (int)days;
			break;
		case 'h':
			return AT_EXIT_HELP;
		default:
			return at_cli_bad_option("gc");
		}
	}
	if (optind < argc)
		return at_cli_usage("gc", "too many arguments");
	at_cli_progress_init(&progress, quiet);
	o.progress = at_cli_progress_hook(&progress);
	rc = at_app_gc(app, &o, &res, &err);
	at_cli_progress_end(&progress, rc == 0);
	/* What failed is said on stderr, each on its line; gc went on past it. */
	if (rc == 0 && json) {
		status = res.done.nfailed ? AT_EXIT_FAIL : AT_EXIT_OK;
		if (at_cli_print_json(at_app_gc_json(&res)))
			status = AT_EXIT_FAIL;
	}
	for (i = 0; rc == 0 && !json && i < res.done.lines.n; i++) {
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
