/*
 * rewind.h - a task brought back to how it was just before run N (issue 26).
 *
 * The worktree (tracked and untracked files that are not ignored, modes,
 * links) becomes checkpoint N's full state (app/checkpoint.h), the task's
 * branch its HEAD then, the worktree's index that HEAD's tree (what was
 * uncommitted then is uncommitted again, unstaged), and the task's git
 * inside the sandbox follows (its branch, HEAD and index: app/gitview.h;
 * its other refs and objects are kept). The state it replaces is kept
 * first as a checkpoint of its own, whose number the result gives: rewind
 * to it undoes the rewind. Ignored files, the task's lasting HOME and its
 * caches are not rewound.
 *
 * Under the repository lock, with no run of the task (refused, AT_EBUSY,
 * or with force killed first, as discard does: core/runs.h). A worktree
 * whose state cannot be kept (a fifo, a file over the size limit) is
 * refused, nothing changed. Crash-safe: before the worktree is touched a
 * record names the checkpoint (core/paths.h, at_paths_rewind); each file
 * is written whole (git/apply_paths.h), the index and the branch after,
 * the record removed last. A kill leaves the old state, the new one, or a
 * record that `gc` (at_app_rewind_finish), or this rewind again, completes;
 * a run refuses to start while a record is there.
 */
#ifndef AT_APP_REWIND_H
#define AT_APP_REWIND_H

#include <stdbool.h>

#include "app/app.h"
#include "core/oid.h"

struct at_app_rewind_opts {
	const char *name;                /* NULL: the task holding app->dir */
	const char *to;                  /* N as typed: checkpoint N (run N's, before it) */
	bool force;                      /* kill the task's running commands first */
	struct at_progress_hook progress;
};

struct at_app_rewind_result {
	struct at_task task;
	unsigned to;                     /* the checkpoint brought back */
	unsigned saved;                  /* the checkpoint that keeps the state replaced */
	struct at_oid head;              /* the task's branch now */
	size_t paths;                    /* the paths written or removed */
	struct at_strlist warnings;
};

/* AT_EUSAGE: N is no checkpoint of the task; AT_EBUSY: a run is live (without force). */
int at_app_rewind(const struct at_app *app, const struct at_app_rewind_opts *o,
		  struct at_app_rewind_result *out, struct at_error *err);
void at_app_rewind_result_release(struct at_app_rewind_result *res);

#endif
