/*
 * checkpoint.h - a task's state kept before each of its runs (issue 26).
 *
 * A checkpoint is a commit: its tree the task's full state (git/snapshot.h:
 * tracked and untracked files that are not ignored, modes, links, as the
 * hostile-worktree scan records them), its one parent the commit HEAD named
 * (the task's branch tip, after the import of what its git inside did), its
 * message the branch and why it was taken (before a run, before a rewind).
 * Its ref is refs/agenttask/checkpoints/NAME/N (core/paths.h), N from 1 in
 * the order they were taken: checkpoint N of a run is the state just before
 * run N, and that run's number is N. A state equal to the last
 * checkpoint's (same tree, tip and kind) makes no new object: the new ref
 * names the same commit.
 *
 * The refs go with the task (app/lifecycle.c); a trash entry of the task
 * keeps refs of its own to them, which restore makes the task's again
 * (git/trash_keep.h).
 */
#ifndef AT_GIT_CHECKPOINT_H
#define AT_GIT_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/checkpoint.h"
#include "core/oid.h"
#include "core/task.h"
#include "git/repo.h"
#include "git/snapshot.h"

/*
 * Record st (t's full state) as t's next checkpoint, into *out. Two takers
 * at once get two numbers (each ref is created only if absent).
 */
int at_checkpoint_take(struct at_repo *r, const struct at_task *t, const struct at_task_state *st,
		       enum at_checkpoint_kind kind, struct at_checkpoint *out,
		       struct at_error *err);

/* Task name's checkpoints, by number (none: empty). Release with at_checkpoint_list_release. */
int at_checkpoint_list(struct at_repo *r, const char *name, struct at_checkpoint_list *out,
		       struct at_error *err);

/* Delete every checkpoint ref of task name (a failure is the first one's). */
int at_checkpoint_remove_all(struct at_repo *r, const char *name, struct at_error *err);

/*
 * Keep tree (a state of task name the person reviewed: a comment made on
 * it, or the reviewed state) from git's gc while the task is there: a
 * commit of it on AT_REVIEW_REFS/NAME, whose parent is the ref's last (so
 * every tree kept stays reachable); nothing new when it is that one's tree.
 * at_review_forget deletes the ref (the task removed).
 */
int at_review_keep(struct at_repo *r, const char *name, const struct at_oid *tree,
		   struct at_error *err);
int at_review_forget(struct at_repo *r, const char *name, struct at_error *err);

/*
 * Bring t's worktree, its index and its branch to checkpoint `to`, from
 * `now` (the full state just taken, with the worktree unchanged since):
 * the files that differ written through git/apply_paths.h (each whole,
 * under a temporary name, never through a link, smudged with the base
 * commit's attributes alone), the index to `to`'s tip (what was
 * uncommitted then is uncommitted again), last the branch, moved by
 * compare-and-swap from now's tip. What differs comes from the scan that
 * took `now`, tree to tree: the files, now's tree against to's; the index
 * entries, now's index (its tree) against to's tip; only those entries
 * are written (git/index_update.h; the index not written at all when none
 * differ). When now does not know its index (the scan's general path),
 * the index is read to compare. Again with the same `to` after a kill, it
 * completes what the killed one began. *npaths: how many paths it wrote,
 * removed or staged.
 */
int at_checkpoint_restore(struct at_repo *r, const struct at_task *t,
			  const struct at_task_state *now, const struct at_checkpoint *to,
			  size_t *npaths, struct at_error *err);

#endif
