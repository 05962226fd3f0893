#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "cmd/progress.h"
#include "core/esc.h"
#include "core/lock.h"
#include "git/worktree.h"

int cmd_gc(struct at_cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "trash-days", required_argument, NULL, 't' },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_gc_opts opts = AT_GC_OPTS_INIT;
	struct at_gc_report report = { 0 };
	struct at_error err = AT_ERROR_INIT;
	struct at_repo *repo = NULL;
	struct at_cli_progress progress;
	struct at_progress_hook hook;
	bool quiet = false;
	int c, lock = -1, rc, status = AT_EXIT_OK;
	char *end;
	long days;
	size_t i;

	while ((c = at_cli_getopt(argc, argv, "fqh", longopts)) != -1) {
		switch (c) {
		case 'f':
			opts.force = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 't':
			days = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end || days < 0 || days > 100000)
				return at_cli_usage("gc", "invalid --trash-days '%s'", optarg);
			opts.trash_days = (int)days;
			break;
		case 'h':
			return at_cli_help("gc");
		default:
			return at_cli_bad_option("gc");
		}
	}
	if (optind < argc)
		return at_cli_usage("gc", "too many arguments");
	at_cli_progress_init(&progress, quiet);
	hook = at_cli_progress_hook(&progress);
	rc = at_cli_open(cli, &repo, &err);
	if (rc == 0)
		rc = at_lock_acquire(at_repo_paths(repo), &lock, &err);
	if (rc == 0) {
		at_progress_say(&hook, "collecting what interrupted commands left", 0, 0);
		rc = at_task_gc(repo, &opts, &report, &err);
	}
	at_cli_progress_end(&progress, rc == 0);
	at_lock_release(lock);
	at_repo_free(repo);
	if (rc < 0)
		return at_cli_fail(&err);
	/* What failed is said on stderr, each on its line; gc went on past it. */
	for (i = 0; i < report.count; i++) {
		/* Each names what it found on disk: its controls shown. */
		if (report.items[i].failed) {
			fflush(stdout);
			at_esc_printf(stderr, "agenttask: %s\n", report.items[i].what);
			status = AT_EXIT_FAIL;
		} else {
			at_esc_fputs(stdout, report.items[i].what, 0);
			putchar('\n');
		}
	}
	at_gc_report_release(&report);
	return status;
}
