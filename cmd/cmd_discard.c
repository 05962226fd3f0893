#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/progress.h"
#include "core/esc.h"
#include "core/lock.h"
#include "core/runs.h"
#include "git/trash.h"
#include "git/worktree.h"

/*
 * Nothing is removed unless the whole state is safe in the trash first. When
 * the worktree holds something git cannot record (a name git refuses, an
 * unreadable file), only --force goes on, saving the commits alone: losing
 * the uncommitted rest is then the user's choice, said in so many words.
 */
static int save(struct at_repo *repo, const struct at_task *t, bool force, char *trash,
		size_t size, bool *partial, struct at_error *err)
{
	struct at_error full = AT_ERROR_INIT;
	char where[PATH_MAX];

	/* A moved worktree is not saved here: refuse before the trash is written. */
	if (at_task_moved(t, where, sizeof(where)))
		return at_task_remove(repo, t, err);
	if (at_trash_save(repo, t, trash, size, &full) == 0)
		return 0;
	if (!force) {
		*err = full;
		snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg),
			 " (nothing removed; 'discard --force' saves the commits only)");
		return err->code;
	}
	*partial = true;
	at_esc_printf(stderr, "agenttask: warning: %s: saving the commits only (--force)\n",
		      full.msg);
	return at_trash_save_ext(repo, t, true, trash, size, err);
}

int cmd_discard(struct at_cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		AT_CLI_MAX_FILE_SIZE_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_runs_guard guard = AT_RUNS_GUARD_INIT;
	struct at_error err = AT_ERROR_INIT;
	struct at_repo *repo = NULL;
	struct at_task task;
	char trash[256] = "";
	bool force = false, partial = false, quiet = false;
	struct at_cli_progress progress;
	struct at_progress_hook hook;
	int c, lock = -1, rc;

	while ((c = at_cli_getopt(argc, argv, "fqh", longopts)) != -1) {
		if (c == 'f')
			force = true;
		else if (c == 'q')
			quiet = true;
		else if (c == AT_CLI_OPT_MAX_FILE_SIZE) {
			if (at_cli_max_file_size("discard", optarg, &cli->max_file_size) != 0)
				return AT_EXIT_USAGE;
		} else
			return c == 'h' ? at_cli_help("discard") : at_cli_bad_option("discard");
	}
	if (optind + 1 < argc)
		return at_cli_usage("discard", "too many arguments");
	at_cli_progress_init(&progress, quiet);
	hook = at_cli_progress_hook(&progress);
	rc = at_cli_open(cli, &repo, &err);
	if (rc == 0)
		rc = at_lock_acquire(at_repo_paths(repo), &lock, &err);
	if (rc == 0)
		rc = at_cli_task(cli, repo, optind < argc ? argv[optind] : NULL, &task, &err);
	if (rc == 0)
		rc = at_runs_stop(at_repo_paths(repo), task.name, force, &guard, &err);
	if (rc == 0) {
		at_progress_say(&hook, "saving the task in the trash", 0, 0);
		rc = save(repo, &task, force, trash, sizeof(trash), &partial, &err);
	}
	if (rc == 0) {
		at_progress_say(&hook, "removing the task", 0, 0);
		rc = at_task_remove(repo, &task, &err);
	}
	at_cli_progress_end(&progress, rc == 0);
	if (rc == 0)
		at_cli_audit(repo, task.name, "discard", "trash", trash, "saved",
			     partial ? "commits only (--force)" : "full state", NULL);
	at_runs_release(&guard, rc == 0);
	at_lock_release(lock);
	at_repo_free(repo);
	if (rc < 0)
		return at_cli_fail(&err);
	printf("discarded task '%s' (saved as '%s'%s; 'agenttask restore %s' brings it back)\n",
	       task.name, trash, partial ? ": commits only" : "", task.name);
	return AT_EXIT_OK;
}
