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

struct at_new_opts {
	const char *base_rev;   /* NULL: HEAD */
	struct at_progress_hook progress;   /* the files checked out: "Updating files", n of N */
};
#define AT_NEW_OPTS_INIT { NULL, { NULL, NULL } }

/*
 * Create task `name`: branch agenttask/NAME at the base revision and a linked
 * worktree for it. All or nothing: on failure everything made is removed
 * again. A leftover half-made task of the same name (its creator died) is
 * rolled back first. *out is written only on success.
 */
int at_task_new(struct at_repo *r, const char *name, const struct at_new_opts *opts,
		struct at_task *out, struct at_error *err);

/*
 * Create task `name` with its branch at commit tip_hex and its worktree
 * checked out there, but leave it in phase AT_TASK_CREATING, so that the
 * caller can finish filling it before it counts (restore writes uncommitted
 * files back). The caller then saves it as AT_TASK_READY with its real base
 * (at_state_save), or undoes it with at_task_rollback(). Until then the
 * record's base_commit is tip_hex, so that a rollback - here, by the caller
 * with *out, or by gc after a crash - deletes the branch as well.
 */
int at_task_new_at(struct at_repo *r, const char *name, const char *tip_hex,
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

struct at_task_info {
	char head_commit[AT_OID_HEXSZ + 1];  /* tip of the task branch, "" if missing */
	bool worktree_missing;
	bool dirty;             /* uncommitted or untracked (not ignored) changes */
	size_t commits_ahead;   /* commits on the task branch not in its base commit */
};

int at_task_inspect(struct at_repo *r, const struct at_task *t, struct at_task_info *out,
		    struct at_error *err);

/* Look a task up by name, or by the directory it is run from when name is NULL. */
int at_task_resolve(struct at_repo *r, const char *name, const char *cwd, struct at_task *out,
		    struct at_error *err);

struct at_gc_item {
	char what[PATH_MAX + 64];   /* one line for the user: what was removed or kept */
	bool failed;                /* what could not be done, and why: gc went on */
};

struct at_gc_report {
	struct at_gc_item *items;
	size_t count;
};

struct at_gc_opts {
	int trash_days;          /* prune trash older than this many days */
	bool force;              /* kill the running commands of a task to remove */
};
#define AT_GC_OPTS_INIT { 14, false }

/*
 * Remove what crashes left; report each thing done or left alone. A task
 * with a running command (core/runs.h) is left alone, unless opts->force
 * (its commands are killed). A failure with one thing is reported (an item
 * with failed set) and gc goes on with the rest; the return is negative only
 * when gc could not go on at all (the records unreadable, out of memory).
 */
int at_task_gc(struct at_repo *r, const struct at_gc_opts *opts, struct at_gc_report *report,
	       struct at_error *err);
void at_gc_report_release(struct at_gc_report *report);
int at_gc_report_add(struct at_gc_report *report, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Report err as a failure and clear it, for gc to go on; -1 when out of memory. */
int at_gc_report_fail(struct at_gc_report *report, struct at_error *err);

#endif
