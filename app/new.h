/*
 * new.h - a task: a branch agenttask/NAME at a base revision and a linked
 * worktree for it (git/worktree.h has how, and what a kill midway leaves).
 */
#ifndef AT_APP_NEW_H
#define AT_APP_NEW_H

#include "app/app.h"

struct at_app_new_opts {
	const char *name;
	const char *base_rev;            /* NULL: HEAD */
	struct at_progress_hook progress;
	bool base_on_branches;           /* an agent asks: the base must be on one of the person's
					    branches, not only on a task's (git/worktree.h) */
	bool layered, full;              /* the form (core/task.h); neither: the person's
					    agenttask.layered (full when unset) */
};

struct at_app_new_result {
	struct at_task task;
	struct at_strlist warnings;      /* the command happened; these went wrong after */
};

int at_app_new(const struct at_app *app, const struct at_app_new_opts *o,
	       struct at_app_new_result *out, struct at_error *err);
void at_app_new_result_release(struct at_app_new_result *res);

#endif
