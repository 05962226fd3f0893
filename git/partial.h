/*
 * partial.h - part of a task's change: what `accept -- PATHSPEC` merges and
 * `drop -- PATHSPEC` throws away.
 *
 * The change is the diff of git/diff.h (the task's full state against its
 * merge base, renames found as `diff` finds them), so a part is made of
 * exactly the files `agenttask diff NAME -- PATHSPEC` shows. A change is
 * selected when its new or its old path matches a pathspec of `paths` (all
 * of them when there is none) and neither matches one of `exclude`: a
 * rename is selected whole when either of its paths matches, as the diff
 * shows it whole; a type change (file <-> symlink <-> submodule) is one
 * change. From the selection come two trees:
 *   part  the merge base's tree with exactly the selected changes applied
 *         (what a partial accept merges);
 *   rest  the full state with exactly the selected changes undone (what a
 *         drop leaves, and what stays in the task after a partial accept).
 * A selection that would split one change of the tree (a file that became a
 * directory, selected on one side only) is refused, naming the path.
 */
#ifndef AT_GIT_PARTIAL_H
#define AT_GIT_PARTIAL_H

#include <stddef.h>

#include "core/strlist.h"
#include "git/repo.h"
#include "git/snapshot.h"

struct at_partial_spec {
	char *const *paths;       /* pathspecs from the top of the tree; n == 0: every change */
	size_t n;
	char *const *exclude;     /* pathspecs left out (--exclude) */
	size_t nexclude;
};

struct at_partial {
	struct at_oid merge_base;   /* the commit the change is against */
	struct at_oid base_tree;    /* its tree */
	struct at_oid part;         /* base_tree + the selected changes */
	struct at_oid rest;         /* the full state - the selected changes */
	struct at_strlist taken;    /* paths of the selected changes (both sides of a rename) */
	struct at_strlist left;     /* paths of the other changes */
};

/*
 * Split the change of the task whose worktree w holds full state st
 * (at_worktree_stage or at_task_state). AT_EUSAGE, naming it, for a pathspec
 * of spec->paths that matches no change, for a selection of nothing, and
 * for a split change. *out is written only on success; release it with
 * at_partial_release.
 */
int at_partial_split(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		     const struct at_partial_spec *spec, struct at_partial *out,
		     struct at_error *err);

/*
 * The part that is tree `part` (the picks of `accept -p`, git/pick.h): its
 * paths those where part differs from the merge base, the rest those where
 * the full state st differs from part. AT_EUSAGE when part takes nothing.
 */
int at_partial_of_tree(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		       const struct at_oid *part, struct at_partial *out, struct at_error *err);

/*
 * The same for `drop -p`: rest is what the task keeps; the paths taken
 * (dropped) those where the full state st differs from it, the paths left
 * those where rest differs from the merge base.
 */
int at_partial_of_rest(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		       const struct at_oid *rest, struct at_partial *out, struct at_error *err);

void at_partial_release(struct at_partial *p);

/*
 * The first half of a partial accept, under the lock: the part p as one
 * commit on the merge base (message: NULL for a default) into *commit; the
 * task's index made the part (w's staged index, at_worktree_stage, with the
 * paths left as the part has them); then the task's branch moved from
 * st->tip to that commit (compare-and-swap: AT_ESTALE when it moved). The
 * files of the worktree are not touched: what was left is the task's
 * uncommitted change on top of the commit, which the merge (git/merge.h)
 * then lands in the base. A kill at any step loses nothing: the full state
 * is the worktree's files throughout (kill steps accept:part-index and
 * accept:part-branch, core/trace.h).
 */
int at_partial_commit(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		      const struct at_partial *p, const char *message, struct at_oid *commit,
		      struct at_error *err);

/*
 * After a refused merge (nothing of the base changed): the branch back from
 * commit to st->tip and the paths left back in the index as st has them.
 * Best effort: the worktree's files, the full state, were never touched.
 */
void at_partial_undo(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		     const struct at_partial *p, const struct at_oid *commit);

/*
 * `drop -- PATHSPEC`, after the full state st is safe in the trash: the
 * files of the selected changes (p->taken) written into the worktree as
 * p->rest has them (git/apply_paths.h's writes into a task's worktree: no
 * link followed, the base's attributes), and the task's index with them.
 */
int at_partial_drop(struct at_worktree *w, const struct at_partial *p, struct at_error *err);

/*
 * restore of a drop's trash entry while the task is there: the files the
 * drop changed (those that differ between trees left and saved) put back
 * as saved has them. AT_EDIRTY, naming the first, when one of them is no
 * longer what the drop left (changed since): nothing is written then.
 */
int at_partial_put_back(struct at_repo *r, const struct at_task *t, const struct at_oid *saved,
			const struct at_oid *left, struct at_error *err);

#endif
