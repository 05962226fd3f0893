/*
 * trash.h - discard that can be undone.
 *
 * Before a task is thrown away its full state (commits, uncommitted and
 * untracked files, modes) is saved as a commit under
 * refs/agenttask/trash/NAME/<time>. `agenttask restore` brings it back;
 * `agenttask gc` prunes entries older than --trash-days.
 */
#ifndef AT_GIT_TRASH_H
#define AT_GIT_TRASH_H

#include <stddef.h>

#include "core/task.h"
#include "git/repo.h"
#include "git/worktree.h"

/* Save the task's full state; writes the ref's name into ref_out. */
int at_trash_save(struct at_repo *r, const struct at_task *t, char *ref_out, size_t ref_size,
		  struct at_error *err);

/* Drop trash entries older than days days, reporting each one. */
int at_trash_prune(struct at_repo *r, int days, struct at_gc_report *rep, struct at_error *err);

#endif
