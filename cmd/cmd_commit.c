#include <stdio.h>

#include "cmd/commands.h"
#include "core/lock.h"
#include "git/snapshot.h"

int cmd_commit(struct at_cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "message", required_argument, NULL, 'm' },
		AT_CLI_MAX_FILE_SIZE_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_commit_opts opts = AT_COMMIT_OPTS_INIT;
	struct at_error err = AT_ERROR_INIT;
	struct at_repo *repo = NULL;
	char commit[AT_OID_HEXSZ + 1];
	struct at_task task;
	bool made = false;
	int c, lock = -1, rc;

	while ((c = at_cli_getopt(argc, argv, "m:h", longopts)) != -1) {
		switch (c) {
		case 'm':
			opts.message = optarg;
			break;
		case AT_CLI_OPT_MAX_FILE_SIZE:
			if (at_cli_max_file_size("commit", optarg, &cli->max_file_size) != 0)
				return AT_EXIT_USAGE;
			break;
		case 'h':
			return at_cli_help("commit");
		default:
			return at_cli_bad_option("commit");
		}
	}
	if (optind + 1 < argc)
		return at_cli_usage("commit", "too many arguments");
	rc = at_cli_open(cli, &repo, &err);
	if (rc == 0)
		rc = at_lock_acquire(at_repo_paths(repo), &lock, &err);
	if (rc == 0)
		rc = at_cli_task(cli, repo, optind < argc ? argv[optind] : NULL, &task, &err);
	if (rc == 0)
		rc = at_task_commit(repo, &task, &opts, commit, &made, &err);
	at_lock_release(lock);
	at_repo_free(repo);
	if (rc < 0)
		return at_cli_fail(&err);
	if (made)
		printf("committed %.12s on '%s'\n", commit, at_branch_short(task.branch));
	else
		printf("nothing to commit in task '%s'\n", task.name);
	return AT_EXIT_OK;
}
