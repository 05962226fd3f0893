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
 * object database, as at_snapshot_tree does).
 */
#ifndef AT_GIT_MERGE_H
#define AT_GIT_MERGE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/task.h"
#include "git/repo.h"

enum at_merge_mode {
	AT_MERGE_AUTO = 0,  /* fast-forward when possible, else a merge commit */
	AT_MERGE_FF_ONLY,   /* fast-forward or refuse (AT_ECONFLICT) */
	AT_MERGE_NO_FF,     /* always a merge commit, even when a fast-forward would do */
	AT_MERGE_SQUASH,    /* one new commit on the base, parent the base tip */
};

struct at_merge_opts {
	enum at_merge_mode mode;
	const char *message;     /* message of a new commit; NULL: a default */
	const char *trailer;     /* "Key: value" appended to a new commit's message, or NULL */
	const char *expect_tree; /* refuse (AT_ESTALE) unless the full state's tree is this id */
	const char *gated_tree;  /* likewise, for the tree the review gate judged */
};
#define AT_MERGE_OPTS_INIT { AT_MERGE_AUTO, NULL, NULL, NULL, NULL }

enum at_merge_kind {
	AT_MERGED_UP_TO_DATE = 0, /* the base already held all of the task: nothing moved */
	AT_MERGED_FAST_FORWARD,
	AT_MERGED_COMMIT,         /* a merge commit with two parents */
	AT_MERGED_SQUASH,
};

struct at_path_list {
	char **paths;       /* sorted, each malloc'd */
	size_t count;
};

struct at_merge_result {
	enum at_merge_kind kind;
	char base_branch[256];              /* full ref that moved */
	char old_tip[AT_OID_HEXSZ + 1];
	char new_tip[AT_OID_HEXSZ + 1];
	bool committed_pending;             /* pending changes became a commit on the task branch */
	char updated_worktree[PATH_MAX];    /* a worktree whose files followed, "" when none */
	/*
	 * On AT_ECONFLICT the conflicting paths, on AT_EDIRTY the user's files
	 * in the way. Filled on those failures too; release it in every case.
	 */
	struct at_path_list paths;
};

/*
 * Integrate task t into its base branch (t->base_branch; "" is refused).
 * Refusals, each with nothing changed: AT_ESTALE (the full state is not
 * expect_tree / gated_tree), AT_ECONFLICT (conflicting paths in out->paths,
 * or no fast-forward under AT_MERGE_FF_ONLY, or no base branch), AT_EDIRTY
 * (uncommitted user changes in a worktree where the base is checked out, in
 * files the task changes: listed in out->paths). The base ref moves by
 * compare-and-swap; if it moved under us, the worktree files are put back
 * and AT_ESTALE is returned.
 */
int at_merge_accept(struct at_repo *r, const struct at_task *t, const struct at_merge_opts *opts,
		    struct at_merge_result *out, struct at_error *err);

void at_merge_result_release(struct at_merge_result *res);

/*
 * Refuse (AT_ESTALE, "task 'x' changed since review: tree is A, reviewed B")
 * unless the task's full state is the tree `want`. Writes nothing but blobs.
 */
int at_merge_check_tree(struct at_repo *r, const struct at_task *t, const char *want,
			struct at_error *err);

struct at_merge_preview {
	bool has_base_branch;   /* false: the task began on a detached HEAD */
	bool base_moved;        /* the base tip is no longer the commit the task began from */
	size_t base_ahead;      /* commits on the base since the task began */
	bool clean;             /* the full state merges without conflicts */
	struct at_path_list conflicts;
};

/*
 * Merge the task's full state with its base in memory: ancestor the merge
 * base, ours the base tip, theirs the full-state tree (the task branch tip
 * when the worktree is missing). *out is written only on success.
 */
int at_merge_preview(struct at_repo *r, const struct at_task *t, struct at_merge_preview *out,
		     struct at_error *err);

/* The same, for a full-state tree the caller has already computed (hex id). */
int at_merge_preview_tree(struct at_repo *r, const struct at_task *t, const char *state_tree,
			  struct at_merge_preview *out, struct at_error *err);

void at_merge_preview_release(struct at_merge_preview *p);
void at_path_list_release(struct at_path_list *l);

#endif
