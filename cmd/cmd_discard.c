#include <stdio.h>

#include "cmd/commands.h"
#include "core/lock.h"
#include "git/trash.h"
#include "git/worktree.h"

int cmd_discard(struct at_cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_error err = AT_ERROR_INIT;
	struct at_repo *repo = NULL;
	struct at_task task;
	char trash[256] = "";
	int c, lock = -1, rc;

	while ((c = at_cli_getopt(argc, argv, "h", longopts)) != -1)
		return c == 'h' ? at_cli_help("discard") : at_cli_bad_option("discard");
	if (optind + 1 < argc)
		return at_cli_usage("discard", "too many arguments");
	rc = at_cli_open(cli, &repo, &err);
	if (rc == 0)
		rc = at_lock_acquire(at_repo_paths(repo), &lock, &err);
	if (rc == 0)
		rc = at_cli_task(cli, repo, optind < argc ? argv[optind] : NULL, &task, &err);
	/* Nothing is removed unless the whole state is safe in the trash first. */
	if (rc == 0)
		rc = at_trash_save(repo, &task, trash, sizeof(trash), &err);
	if (rc == 0)
		rc = at_task_remove(repo, &task, &err);
	if (rc == 0)
		at_cli_audit(repo, task.name, "discard", "trash", trash, NULL);
	at_lock_release(lock);
	at_repo_free(repo);
	if (rc < 0)
		return at_cli_fail(&err);
	printf("discarded task '%s' (saved as '%s'; 'agenttask restore %s' brings it back)\n",
	       task.name, trash, task.name);
	return AT_EXIT_OK;
}
