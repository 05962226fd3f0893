/*
 * trash.h - discard that can be undone.
 *
 * Before a task is thrown away its full state (commits, uncommitted and
 * untracked files, modes) is saved as a commit under
 * refs/agenttask/trash/NAME/<seconds>.<nanoseconds>. `agenttask trash` lists
 * them, `agenttask restore` brings one back (the most recent by default);
 * `agenttask gc` prunes entries older than --trash-days.
 */
#ifndef AT_GIT_TRASH_H
#define AT_GIT_TRASH_H

#include <stdbool.h>
#include <stddef.h>

#include "core/report.h"
#include "core/task.h"
#include "core/trash.h"
#include "git/repo.h"

/* Save the task's full state; writes the ref's name into ref_out. */
int at_trash_save(struct at_repo *r, const struct at_task *t, char *ref_out, size_t ref_size,
		  struct at_error *err);

/*
 * As at_trash_save; with commits_only, save the branch's commits alone (for
 * `discard --force`, when the worktree holds something git cannot record).
 */
int at_trash_save_ext(struct at_repo *r, const struct at_task *t, bool commits_only,
		      char *ref_out, size_t ref_size, struct at_error *err);

struct at_restore_info {
	char ref[AT_REF_MAX];  /* the trash entry brought back */
	bool ref_kept;      /* it could not be deleted afterwards (the task is back all the same) */
};

/*
 * The trash, by task name and newest first; of task `name` only, unless
 * NULL. An entry whose commit cannot be read has tip "". Release with
 * at_trash_list_release (core/trash.h; also after a failure).
 */
int at_trash_list(struct at_repo *r, const char *name, struct at_trash_list *out,
		  struct at_error *err);

/*
 * Bring back a trash entry of task `name`: `entry` is its index (1, the
 * newest, as at_trash_list numbers them), its time SECONDS.NANOS or its
 * ref; NULL for the newest. Branch
 * agenttask/NAME at the tip it had, its worktree with the committed state
 * checked out, then the uncommitted state written over it without touching
 * the index (modified and deleted files unstaged, new files untracked, modes
 * and symlinks as they were), and the task's base from the entry's trailers.
 * The entry is deleted afterwards. All or nothing.
 *
 *   AT_ENOTFOUND  no trash entry for name (or no such entry)
 *   AT_EEXISTS    a task (or branch, or worktree path) of that name exists
 */
int at_trash_restore(struct at_repo *r, const char *name, const char *entry, struct at_task *out,
		     struct at_restore_info *info, struct at_error *err);

/* Drop trash entries older than days days, reporting each one. */
int at_trash_prune(struct at_repo *r, int days, struct at_report *rep, struct at_error *err);

#endif
