/*
 * lifecycle.h - a task made, undone and removed: the order of its parts (the
 * record, the branch and worktree of git/worktree.h, the HOME, caches, git
 * view and records of core/paths.h), and what a kill at any step leaves (a
 * record that says what to finish). Internal to app/: the use cases call it
 * (new, restore, discard, accept, gc), under the repository lock.
 */
#ifndef AT_APP_LIFECYCLE_H
#define AT_APP_LIFECYCLE_H

#include <stdbool.h>

#include "core/error.h"
#include "core/oid.h"
#include "core/progress.h"
#include "core/task.h"

struct at_repo;
struct at_include_stats;

struct at_app_create_opts {
	const char *base_rev;               /* NULL: HEAD */
	struct at_progress_hook progress;   /* the files checked out: "Updating files", n of N */
	struct at_include_stats *included;  /* out (.worktreeinclude's copies), or NULL */
	bool base_on_branches;  /* the base must be reachable from a local branch other than
				   the tasks' (agenttask/...): AT_EUSAGE naming it otherwise */
	enum at_task_form form; /* layered: made full where the base cannot be (git/layer.h) */
};
#define AT_APP_CREATE_OPTS_INIT { NULL, { NULL, NULL }, NULL, false, AT_FORM_FULL }

/*
 * Create task `name`: branch agenttask/NAME at the base revision and a linked
 * worktree for it. All or nothing: on failure everything made is removed
 * again. A leftover half-made task of the same name (its creator died) is
 * rolled back first. The record is written in phase AT_TASK_CREATING before
 * git is touched, and flipped to AT_TASK_READY last. *out is written only on
 * success. opts may be NULL.
 */
int at_app_task_create(struct at_repo *r, const char *name, const struct at_app_create_opts *opts,
		       struct at_task *out, struct at_error *err);

/*
 * Create task `name` with its branch at commit tip and its worktree
 * checked out there, but leave it in phase AT_TASK_CREATING, so that the
 * caller can finish filling it before it counts (restore writes uncommitted
 * files back). The caller then saves it as AT_TASK_READY with its real base
 * (at_state_save), or undoes it with at_app_task_rollback(). Until then the
 * record's base_commit is tip, so that a rollback - by the caller with *out,
 * or by gc after a crash - deletes the branch as well.
 */
int at_app_task_create_at(struct at_repo *r, const char *name, const struct at_oid *tip,
			  struct at_task *out, struct at_error *err);

/*
 * Remove the task's worktree, its admin directory, its HOME, caches, scan
 * cache, HOME size record and git view, its branch and, last, its record.
 * The audit log stays. Safe to repeat after an interruption: missing parts
 * are skipped, and the branch's lock file a killed remover left is removed.
 * Refuses (AT_EDIRTY, nothing removed) a task whose worktree was moved.
 */
int at_app_task_remove(struct at_repo *r, const struct at_task *t, struct at_error *err);

/*
 * Remove the bases (core/paths.h) no task record names, and their
 * temporary directories a killed maker left; under the repository lock.
 * Each removal is told to report (or NULL).
 */
struct at_report;
int at_app_bases_prune(struct at_repo *r, struct at_report *report, struct at_error *err);

/* Undo a half-made task: like at_app_task_remove, but the branch only if unmoved. */
int at_app_task_rollback(struct at_repo *r, const struct at_task *t, struct at_error *err);

#endif
