/*
 * worktree.h - creating, inspecting and removing tasks.
 *
 * Every function here that changes something expects the caller to hold the
 * repository lock (core/lock.h).
 */
#ifndef AT_GIT_WORKTREE_H
#define AT_GIT_WORKTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/progress.h"
#include "core/task.h"
#include "git/repo.h"

/* What .worktreeinclude copied into a new task (git/wtinclude.c). */
struct at_include_stats {
	size_t files;
	uint64_t bytes;
};

struct at_new_opts {
	const char *base_rev;   /* NULL: HEAD */
	struct at_progress_hook progress;   /* the files checked out: "Updating files", n of N */
	struct at_include_stats *included;  /* out, or NULL */
	bool base_on_branches;  /* the base must be reachable from a local branch other than
				   the tasks' (agenttask/...): AT_EUSAGE naming it otherwise */
};
#define AT_NEW_OPTS_INIT { NULL, { NULL, NULL }, NULL, false }

/*
 * Copy into the new worktree at task_path the files of the main worktree
 * that git ignores and its .worktreeinclude lists (none without that file).
 * progress (or NULL) is told "Copying included files", the files and bytes
 * copied so far, at most every AT_INCLUDE_PROGRESS_MS and once at the end.
 */
#define AT_INCLUDE_PROGRESS_MS 100
int at_worktree_include(struct at_repo *r, const char *task_path,
			const struct at_progress_hook *progress, struct at_include_stats *stats,
			struct at_error *err);

/*
 * Create task `name`: branch agenttask/NAME at the base revision and a linked
 * worktree for it. All or nothing: on failure everything made is removed
 * again. A leftover half-made task of the same name (its creator died) is
 * rolled back first. *out is written only on success.
 */
int at_task_new(struct at_repo *r, const char *name, const struct at_new_opts *opts,
		struct at_task *out, struct at_error *err);

/*
 * Create task `name` with its branch at commit tip and its worktree
 * checked out there, but leave it in phase AT_TASK_CREATING, so that the
 * caller can finish filling it before it counts (restore writes uncommitted
 * files back). The caller then saves it as AT_TASK_READY with its real base
 * (at_state_save), or undoes it with at_task_rollback(). Until then the
 * record's base_commit is tip, so that a rollback - here, by the caller
 * with *out, or by gc after a crash - deletes the branch as well.
 */
int at_task_new_at(struct at_repo *r, const char *name, const struct at_oid *tip,
		   struct at_task *out, struct at_error *err);

/*
 * Remove the task's worktree, its admin directory, its branch and its
 * record. Safe to repeat after an interruption: missing parts are skipped,
 * and the branch's lock file a killed remover left is removed. Call it under
 * the repository lock.
 * Refuses (AT_EDIRTY, nothing removed) a task whose worktree was moved.
 */
int at_task_remove(struct at_repo *r, const struct at_task *t, struct at_error *err);

/*
 * Whether the task's worktree is gone from its path because it was moved
 * (`git worktree move`): git's admin directory names another directory that
 * exists. Then *where (of size) holds that directory. Removing such a task
 * would cut the moved worktree, uncommitted changes and all, off from git.
 */
bool at_task_moved(const struct at_task *t, char *where, size_t size);

/* Undo a half-made task: like at_task_remove, but the branch only if unmoved. */
int at_task_rollback(struct at_repo *r, const struct at_task *t, struct at_error *err);

/* The task's branch tip, commits ahead of its base, and whether its worktree is dirty. */
int at_task_inspect(struct at_repo *r, const struct at_task *t, struct at_task_info *out,
		    struct at_error *err);

/* Look a task up by name, or by the directory it is run from when name is NULL. */
int at_task_resolve(struct at_repo *r, const char *name, const char *cwd, struct at_task *out,
		    struct at_error *err);

#endif
