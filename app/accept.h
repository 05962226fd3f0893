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
 *
 * Part of a change (paths, exclude: git/partial.h says what is selected):
 * the part, the merge base's tree with exactly the selected changes, is
 * committed on the merge base as one commit, the task's branch moves to it
 * and the merge lands it in the base; what was not selected stays in the
 * task as its uncommitted change on top of that commit (its files are not
 * touched), so the task is kept and its diff then shows exactly the rest.
 * The gate still judges the full state (a superset of the part); --tree
 * names the part's tree, which `accept --json` and a refusal print. A
 * selection of every change is the whole accept. With drop_rest, the full
 * state is saved in the trash first and the task is removed after (its
 * rest with it; `restore` brings the full state back), unless keep.
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
	char *const *paths;              /* accept only the changes these match (a pathspec as
					    typed in app->dir, as `diff -- PATH...`); none: all */
	size_t npaths;
	char *const *exclude;            /* ... and none of these match (--exclude) */
	size_t nexclude;
	bool drop_rest;                  /* a part: the rest to the trash, the task removed
					    unless keep */
	const struct at_oid *pick_tree;  /* accept -p: the part is this tree (app/pick.h), */
	const struct at_oid *pick_state; /* ... picked from this full state (else AT_ESTALE) */
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
	bool partial;                    /* a part was accepted: the task is kept with the rest
					    (or, drop_rest, the rest is in the trash) */
	struct at_oid part_tree;         /* the part's tree (partial) */
	struct at_strlist taken;         /* the paths accepted (partial) */
	struct at_strlist left;          /* the paths whose changes stayed in the task */
	char trash[AT_REF_MAX];          /* drop_rest: the trash entry of the full state */
};

int at_app_accept(const struct at_app *app, const struct at_app_accept_opts *o,
		  struct at_app_accept_result *out, struct at_error *err);
void at_app_accept_result_release(struct at_app_accept_result *res);

#endif
