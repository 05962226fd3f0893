#include <stdio.h>

#include "cmd/commands.h"
#include "cmd/progress.h"
#include "core/lock.h"
#include "git/worktree.h"

int cmd_new(struct at_cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_new_opts opts = AT_NEW_OPTS_INIT;
	struct at_error err = AT_ERROR_INIT;
	struct at_cli_progress progress;
	bool quiet = false;
	struct at_repo *repo = NULL;
	struct at_task task;
	int c, lock = -1, rc;

	while ((c = at_cli_getopt(argc, argv, "b:qh", longopts)) != -1) {
		switch (c) {
		case 'b':
			opts.base_rev = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			return at_cli_help("new");
		default:
			return at_cli_bad_option("new");
		}
	}
	if (optind + 1 != argc)
		return at_cli_usage("new", optind >= argc ? "missing task NAME" : "too many arguments");

	at_cli_progress_init(&progress, quiet);
	opts.progress = at_cli_progress_hook(&progress);
	rc = at_cli_open(cli, &repo, &err);
	if (rc == 0)
		rc = at_lock_acquire(at_repo_paths(repo), &lock, &err);
	if (rc == 0)
		rc = at_task_new(repo, argv[optind], &opts, &task, &err);
	at_cli_progress_end(&progress, rc == 0);
	if (rc == 0)
		at_cli_audit(repo, task.name, "new", "base_branch", at_branch_short(task.base_branch),
			     "base_commit", task.base_commit, NULL);
	at_lock_release(lock);
	at_repo_free(repo);
	if (rc < 0)
		return at_cli_fail(&err);
	printf("%s\n", task.path);
	return AT_EXIT_OK;
}
