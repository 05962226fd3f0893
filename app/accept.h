/*
 * accept.h - merging a task into its base branch.
 *
 * The order matters. Before the lock: the --tree check and the gate, which
 * share one look at the task's full state (its checks may take minutes, so
 * they run unlocked, and the tree the gate judged is then bound into the
 * merge: a task that changes after the gate is refused as stale). Under the
 * lock: the task again, its state once more, checked against what was
 * reviewed and judged and then committed as it is (git/merge.h: every
 * refusal is decided before anything is written). So the worktree is
 * scanned at most twice. Unless the task is kept, accept refuses (AT_EBUSY)
 * while a command of it runs (core/runs.h), or with force kills it first.
 *
 * The gate runs with or without a policy: its rule host_files fails on a
 * change to a file the host runs (core/hostfiles.h) unless the policy
 * allows them, and with no_host_files (an agent's accept) such a change is
 * refused whatever the policy and the override say.
 *
 * --override REASON only matters when the gate fails. It is recorded twice:
 * in the task's audit log (before anything merges) and as an
 * "Agenttask-Override: REASON" trailer of the new commit, the record that
 * lasts. A fast-forward makes no commit, so an override turns it into a
 * merge commit (git merge --no-ff), and is refused with --ff-only.
 */
#ifndef AT_APP_ACCEPT_H
#define AT_APP_ACCEPT_H

#include <stdbool.h>

#include "app/app.h"
#include "app/gate.h"
#include "core/merge.h"

#define AT_OVERRIDE_MAX 500

struct at_app_accept_opts {
	const char *name;                /* NULL: the task holding app->dir */
	enum at_merge_mode mode;         /* AUTO, FF_ONLY or SQUASH */
	const char *message;             /* of a merge or squash commit, made even where a
					    fast-forward would do (not with FF_ONLY); NULL: a default */
	bool keep;                       /* keep the task after accepting it */
	bool force;                      /* kill the task's running commands (unless keep) */
	const char *expect_tree;         /* refuse unless the full state is still this tree */
	const char *override;            /* accept although the gate fails, for this reason */
	const char *policy_file;         /* judge by this file instead of the base's policy */
	bool no_host_files;              /* an agent's accept (MCP): refused (AT_EUSAGE) when the
					    change touches a file the host runs, whatever the
					    policy or override say */
	struct at_progress_hook progress;
};

/* The checks that need no repository (AT_EUSAGE): a front end calls it to report them as usage. */
int at_app_accept_check(const struct at_app_accept_opts *o, struct at_error *err);

struct at_app_accept_result {
	struct at_task task;
	struct at_merge_result merge;    /* on AT_ECONFLICT/AT_EDIRTY: the paths concerned */
	bool overriding;                 /* the gate failed and was overridden */
	struct at_gate_report *failed_gate; /* on AT_EGATE: the gate that refused */
	bool remove_failed;              /* merged, but the task could not be removed */
	struct at_error remove_err;
	struct at_strlist notes;         /* "nothing to override (...); --override ignored" */
	struct at_strlist host_files;    /* the changed files the host runs (the gate's list),
					    also when the accept was refused */
	struct at_strlist warnings;
};

int at_app_accept(const struct at_app *app, const struct at_app_accept_opts *o,
		  struct at_app_accept_result *out, struct at_error *err);
void at_app_accept_result_release(struct at_app_accept_result *res);

#endif
