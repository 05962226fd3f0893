/*
 * worktree.h - the git side of a task: its base, branch and linked worktree
 * made and removed (the lifecycle's order is app/lifecycle.c's), its state
 * inspected, a task looked up.
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

/*
 * Copy into the new worktree at task_path the files of the main worktree
 * that git ignores and its .worktreeinclude lists (none without that file).
 * A layered task's: task_path its upper, lower its base's files (NULL for a
 * full task), and a path the base has is not copied, as a full task's
 * checkout has it (a tracked file stays as committed). progress (or NULL) is told "Copying included files", the files and bytes
 * copied so far, at most every AT_INCLUDE_PROGRESS_MS and once at the end.
 */
#define AT_INCLUDE_PROGRESS_MS 100
int at_worktree_include(struct at_repo *r, const char *task_path, const char *lower,
			const struct at_progress_hook *progress, struct at_include_stats *stats,
			struct at_error *err);

/*
 * The git primitives of a task's lifecycle; app/lifecycle.c puts them
 * together (what is made and removed in which order, the record, the rollback).
 */

/*
 * The base of a new task t: the commit rev names (NULL: HEAD) into
 * t->base_commit, and the branch it belongs to into t->base_branch (the one
 * named, else the one checked out where the command runs; "" for a detached
 * HEAD). With on_branches, the base must be reachable from a local branch
 * other than the tasks' (agenttask/...): AT_EUSAGE naming it otherwise.
 */
int at_task_base(struct at_repo *r, const char *rev, bool on_branches, struct at_task *t,
		 struct at_error *err);

/* The base of a task made at commit tip (restore): AT_ENOTFOUND when there is no such commit. */
int at_task_base_at(struct at_repo *r, const struct at_oid *tip, struct at_task *t,
		    struct at_error *err);

/* AT_EEXISTS when the task's branch, worktree path or admin directory is taken. */
int at_task_check_free(struct at_repo *r, const struct at_task *t, struct at_error *err);

/*
 * Branch agenttask/NAME at t->base_commit and a linked worktree at t->path
 * with its files checked out (git/checkout.c; progress told "Updating
 * files"). Undoing what a failure left is the caller's (app/lifecycle.c).
 */
int at_task_add_worktree(struct at_repo *r, const struct at_task *t,
			 const struct at_progress_hook *progress, struct at_error *err);

/*
 * The same for a layered task (core/task.h): the branch, and git's worktree
 * registered at t->path and locked (reason AT_LAYERED_LOCK_REASON, so that
 * `git worktree prune` keeps it), nothing checked out: the .git pointer
 * goes into upper (the task's layer, made by the caller) and t->path is
 * removed; the task's index the base_index (the base's: its stat data
 * are the base's files', which the overlay shows unchanged), hard-linked
 * (no index is ever written in place) or else copied.
 */
#define AT_LAYERED_LOCK_REASON "agenttask layered task"
int at_task_add_layered(struct at_repo *r, const struct at_task *t, const char *upper,
			const char *base_index, struct at_error *err);

/* The lock of a layered task's worktree removed: its full checkout is in place. */
int at_task_unlock_layered(const struct at_task *t, struct at_error *err);

/*
 * Remove the task's worktree directory (moved aside in one rename first, so
 * that a kill leaves all of it or none) and its admin directory. Missing
 * ones are skipped.
 */
int at_task_remove_worktree(const struct at_task *t, struct at_error *err);

/*
 * Delete the task's branch, and the branch's lock file a killed remover
 * left; with only_unmoved, only while it still points at t->base_commit (a
 * half-made task's). A missing branch is not an error.
 */
int at_task_delete_branch(struct at_repo *r, const struct at_task *t, bool only_unmoved,
			  struct at_error *err);

/* A killed creator's leftovers: the branch's lock file, a reflog without its branch. */
void at_task_clear_branch_leftovers(struct at_repo *r, const struct at_task *t);

/*
 * Whether the task's worktree is gone from its path because it was moved
 * (`git worktree move`): git's admin directory names another directory that
 * exists. Then *where (of size) holds that directory. Removing such a task
 * would cut the moved worktree, uncommitted changes and all, off from git.
 */
bool at_task_moved(const struct at_task *t, char *where, size_t size);

/* The task's branch tip, commits ahead of its base, and whether its worktree is dirty. */
int at_task_inspect(struct at_repo *r, const struct at_task *t, struct at_task_info *out,
		    struct at_error *err);

/* Look a task up by name, or by the directory it is run from when name is NULL. */
int at_task_resolve(struct at_repo *r, const char *name, const char *cwd, struct at_task *out,
		    struct at_error *err);

#endif
