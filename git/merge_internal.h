/*
 * merge_internal.h - the parts of an accept and a preview (git/merge.h),
 * one idea a file: merge_plan.c decides how the task goes into its base, in
 * memory (the merged tree, its conflicts, the pending changes as a commit,
 * the paths the base's tree changes); merge_checkouts.c finds the worktrees
 * where the base branch is checked out, refuses to overwrite their user's
 * work and brings their files along; merge_message.c writes the commit
 * message. merge.c runs an accept step by step, merge_preview.c a preview.
 * Never included outside these files.
 */
#ifndef AT_GIT_MERGE_INTERNAL_H
#define AT_GIT_MERGE_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/merge.h"
#include "core/strlist.h"
#include "core/task.h"
#include "git/internal.h"
#include "git/merge.h"

/* ---- merge_plan.c ---- */

/* Add path to l; AT_ESYS when out of memory. */
int at_merge_path_add(struct at_strlist *l, const char *path, struct at_error *err);

/* The commit a branch points at; `what` names the branch in messages ("base branch"). */
int at_merge_ref_commit(git_repository *repo, const char *ref, const char *what,
			git_commit **out, struct at_error *err);

/* The conflicting paths of a merged index into out, sorted, each once. */
int at_merge_collect_conflicts(git_index *idx, struct at_strlist *out, struct at_error *err);

struct at_merge_plan {
	enum at_merge_kind kind;
	git_oid tree;            /* the tree the base branch will have */
};

/*
 * Decide how theirs goes into base, and the resulting tree; nothing is
 * written to refs. AT_ECONFLICT with the conflicting paths in conflicts.
 */
int at_merge_plan_merge(git_repository *repo, const struct at_task *t, enum at_merge_mode mode,
			git_commit *base, git_commit *theirs, struct at_merge_plan *out,
			struct at_strlist *conflicts, struct at_error *err);

/*
 * The pending changes as a commit object on top of the task tip, referenced
 * by nothing: the merge is planned with it before anything is committed.
 */
int at_merge_pending_commit(git_repository *repo, git_commit *tip, const git_oid *tree_id,
			    git_commit **out, struct at_error *err);

/*
 * Paths that differ between two trees (both sides of each change), each
 * new side checked as the review checks it (no blob over max).
 */
int at_merge_changed_paths(git_repository *repo, git_tree *from, git_tree *to, uint64_t max,
			   struct at_strlist *out, struct at_error *err);

/* ---- merge_checkouts.c ---- */

struct at_merge_checkout {
	git_repository *repo;    /* freed with the list unless it is the main repository */
	bool owned;
	char path[PATH_MAX];
};

struct at_merge_checkouts {
	struct at_merge_checkout *v;
	size_t n, cap;
};

void at_merge_checkouts_release(struct at_merge_checkouts *c);

/* The worktrees (the main one, linked ones) where branch is checked out. */
int at_merge_find_checkouts(git_repository *main_repo, const char *branch,
			    struct at_merge_checkouts *out, struct at_error *err);

/*
 * AT_EDIRTY when the user's uncommitted work in one of cos touches paths
 * (listed in dirty) or another git command holds its index lock.
 */
int at_merge_check_checkouts(struct at_merge_checkouts *cos, const struct at_strlist *paths,
			     git_tree *new_tree, struct at_strlist *dirty, struct at_error *err);

/*
 * Bring the changed paths of a worktree to tree `to`, each path whole at
 * every moment (git/apply_paths.h).
 */
int at_merge_checkout_paths(struct at_merge_checkout *co, git_tree *to,
			    const struct at_strlist *paths, struct at_error *err);

/* ---- merge_message.c ---- */

/* The message of a new commit on the base branch (malloc'd), or NULL out of memory. */
char *at_merge_build_message(git_repository *repo, const struct at_task *t,
			     const struct at_merge_opts *o, enum at_merge_kind kind,
			     git_commit *base, git_commit *tip);

#endif
