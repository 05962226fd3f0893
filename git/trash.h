/*
 * trash.h - discard that can be undone.
 *
 * Before a task is thrown away its full state (commits, uncommitted and
 * untracked files, modes) is saved as a commit under
 * refs/agenttask/trash/NAME/<seconds>.<nanoseconds>. `agenttask trash` lists
 * them, `agenttask restore` brings one back (the most recent by default);
 * `agenttask gc` prunes entries older than --trash-days. A save of a whole
 * task keeps its checkpoints and review with it (git/trash_keep.h, written
 * before the entry); at_trash_drop and at_trash_prune delete them after it.
 */
#ifndef AT_GIT_TRASH_H
#define AT_GIT_TRASH_H

#include <stdbool.h>
#include <stddef.h>

#include "core/report.h"
#include "core/task.h"
#include "core/trash.h"
#include "git/repo.h"
#include "git/snapshot.h"

/* Save the task's full state; writes the ref's name into ref_out. */
int at_trash_save(struct at_repo *r, const struct at_task *t, char *ref_out, size_t ref_size,
		  struct at_error *err);

/*
 * As at_trash_save; with commits_only, save the branch's commits alone (for
 * `discard --force`, when the worktree holds something git cannot record).
 */
int at_trash_save_ext(struct at_repo *r, const struct at_task *t, bool commits_only,
		      char *ref_out, size_t ref_size, struct at_error *err);

/*
 * A drop's entry (`drop NAME -- PATHSPEC`): the task's full state st, taken
 * under the lock, saved as the entry's tree on st's tip, and the tree the
 * drop leaves the task with (left) recorded in it, so that restore can put
 * the dropped files back into the task (at_trash_pick's part_left).
 */
int at_trash_save_part(struct at_repo *r, const struct at_task *t, const struct at_task_state *st,
		       const struct at_oid *left, char *ref_out, size_t ref_size,
		       struct at_error *err);

/*
 * The trash, by task name and newest first; of task `name` only, unless
 * NULL. An entry whose commit cannot be read has tip "". Release with
 * at_trash_list_release (core/trash.h; also after a failure).
 */
int at_trash_list(struct at_repo *r, const char *name, struct at_trash_list *out,
		  struct at_error *err);

/*
 * Restore (app/discard.c) is made of the four below: pick the entry, make
 * the task at its tip (app/lifecycle.c), write the uncommitted state back,
 * take the base from the entry, and drop the entry.
 */
struct at_trash_pick {
	char ref[AT_REF_MAX];                /* the entry */
	struct at_oid tip;                   /* the branch's tip when saved (the entry's parent) */
	struct at_oid tree;                  /* the full state saved */
	char base_branch[AT_REF_MAX];        /* the task's base, from the entry's trailers */
	char base_commit[AT_OID_HEXSZ + 1];  /* (tip when none is recorded) */
	int64_t created;                     /* -1: not recorded */
	bool part;                           /* a drop's entry: the task stayed */
	struct at_oid part_left;             /* ... with this tree */
};

/*
 * The trash entry of task `name` that `entry` names: its index (1, the
 * newest, as at_trash_list numbers them), its time SECONDS.NANOS or its ref;
 * NULL for the newest. Its tree is checked first: an entry holding a
 * symlinked .gitattributes, .gitignore or .gitmodules (saved before they
 * were refused) is not restored.
 *
 *   AT_ENOTFOUND  no trash entry for name (or no such entry)
 */
int at_trash_pick(struct at_repo *r, const char *name, const char *entry,
		  struct at_trash_pick *out, struct at_error *err);

/* The task's base (and creation time) as the entry recorded them, into t. */
void at_trash_pick_base(const struct at_trash_pick *p, struct at_task *t);

/*
 * The entry's uncommitted state written over task t's fresh checkout
 * without touching the index (modified and deleted files unstaged, new
 * files untracked, modes and symlinks as they were).
 */
int at_trash_write_back(const struct at_task *t, const struct at_trash_pick *p,
			struct at_error *err);

/*
 * The same for any full state (a tree of this repository): a fork's
 * (app/fork.c) uncommitted files written over its fresh checkout.
 */
int at_trash_write_tree(const struct at_task *t, const struct at_oid *tree, struct at_error *err);

/* Delete the entry's ref; false when it could not be. */
bool at_trash_drop(struct at_repo *r, const char *ref);

/* Drop trash entries older than days days, reporting each one. */
int at_trash_prune(struct at_repo *r, int days, struct at_report *rep, struct at_error *err);

#endif
