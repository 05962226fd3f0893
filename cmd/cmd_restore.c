#include <stdio.h>

#include "cmd/commands.h"
#include "core/lock.h"
#include "git/trash.h"

int cmd_restore(struct at_cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_error err = AT_ERROR_INIT;
	struct at_restore_info info;
	struct at_repo *repo = NULL;
	struct at_task task;
	int c, lock = -1, rc;

	while ((c = at_cli_getopt(argc, argv, "h", longopts)) != -1)
		return c == 'h' ? at_cli_help("restore") : at_cli_bad_option("restore");
	if (optind >= argc || optind + 2 < argc)
		return at_cli_usage("restore",
				    optind >= argc ? "missing task NAME" : "too many arguments");
	rc = at_cli_open(cli, &repo, &err);
	if (rc == 0)
		rc = at_lock_acquire(at_repo_paths(repo), &lock, &err);
	if (rc == 0)
		rc = at_trash_restore(repo, argv[optind], optind + 1 < argc ? argv[optind + 1] : NULL,
				      &task, &info, &err);
	at_lock_release(lock);
	at_repo_free(repo);
	if (rc < 0)
		return at_cli_fail(&err);
	if (info.ref_kept)
		fprintf(stderr, "agenttask: warning: could not delete trash entry '%s'\n", info.ref);
	printf("%s\n", task.path);
	return AT_EXIT_OK;
}
