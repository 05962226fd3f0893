/*
 * merge.h - integrating a task into its base branch, and previewing it.
 *
 * at_merge_accept() is the machinery of `agenttask accept`: it records the
 * task's pending changes as a commit on the task branch and moves the base
 * branch (a fast-forward, a merge commit or a squash commit). When the base
 * branch is checked out in a worktree (the main one or a linked one), that
 * worktree's files and index follow, and the user's own uncommitted work in
 * it is never touched: an overlap with a file the task changes is refused.
 *
 * Every refusal is decided before anything is written: the task's full state
 * (git/snapshot.h) is merged in memory first, then the checked-out worktrees
 * are checked, and only then is the pending work committed and the base
 * moved. The caller holds the repository lock (core/lock.h).
 *
 * at_merge_preview() answers "would accepting this work?" without writing to
 * any ref, index or file (blobs of uncommitted files may be written to the
 * object database, as at_task_state does).
 */
#ifndef AT_GIT_MERGE_H
#define AT_GIT_MERGE_H

#include <stdbool.h>

#include "core/merge.h"
#include "core/task.h"
#include "git/repo.h"
#include "git/snapshot.h"

struct at_merge_opts {
	enum at_merge_mode mode;
	const char *message;              /* message of a new commit; NULL: a default */
	const char *trailer;              /* "Key: value" appended to a new commit's message, or NULL */
	const struct at_oid *expect_tree; /* refuse (AT_ESTALE) unless the full state's tree is this */
	const struct at_oid *gated_tree;  /* likewise, for the tree the review gate judged */
};
#define AT_MERGE_OPTS_INIT { AT_MERGE_AUTO, NULL, NULL, NULL, NULL }

/*
 * Integrate task t into its base branch (t->base_branch; "" is refused), in
 * the state st (at_worktree_stage() of the worktree `staged`, taken under
 * the lock; or, the worktree missing, at_task_state() with no worktree and
 * staged NULL). The pending changes are committed from `staged` as they
 * were staged: no second scan, and no other state than the one checked.
 * The branch must still be at st->tip (else AT_ESTALE).
 * Refusals, each with nothing changed: AT_ESTALE (the full state is not
 * expect_tree / gated_tree), AT_ECONFLICT (conflicting paths in out->paths,
 * or no fast-forward under AT_MERGE_FF_ONLY, or no base branch), AT_EDIRTY
 * (uncommitted user changes in a worktree where the base is checked out, in
 * files the task changes: listed in out->paths). The base ref moves by
 * compare-and-swap; if it moved under us, the worktree files are put back
 * and AT_ESTALE is returned; AT_EBUSY when another git command holds its lock.
 */
int at_merge_accept(struct at_repo *r, const struct at_task *t, const struct at_task_state *st,
		    struct at_worktree *staged, const struct at_merge_opts *opts,
		    struct at_merge_result *out, struct at_error *err);

/*
 * Merge the task's full state with its base in memory: ancestor the merge
 * base, ours the base tip, theirs the full-state tree state_tree (NULL: it
 * is worked out here, one scan; the branch tip's when the worktree is
 * missing). *out is written only on success.
 */
int at_merge_preview(struct at_repo *r, const struct at_task *t, const struct at_oid *state_tree,
		     struct at_merge_preview *out, struct at_error *err);

/*
 * Is the tip of the task's branch already in its base branch (the tip
 * itself or an ancestor of it): what an accept killed after its merge
 * leaves. False when either branch cannot be read.
 */
bool at_merge_landed(struct at_repo *r, const struct at_task *t);

#endif
