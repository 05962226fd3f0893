/*
 * commit.h - every change in a task's worktree as one commit on its branch
 * (what `git add -A && git commit` would record), the index updated to
 * match. One scan: the state committed is the state staged.
 */
#ifndef AT_APP_COMMIT_H
#define AT_APP_COMMIT_H

#include <stdbool.h>

#include "app/app.h"

struct at_app_commit_opts {
	const char *name;                /* NULL: the task holding app->dir */
	const char *message;             /* NULL: "agenttask: changes of task 'NAME'" */
};

struct at_app_commit_result {
	struct at_task task;
	bool made;                       /* false: nothing to commit */
	struct at_oid commit;            /* the branch tip either way */
	struct at_strlist warnings;
};

int at_app_commit(const struct at_app *app, const struct at_app_commit_opts *o,
		  struct at_app_commit_result *out, struct at_error *err);
void at_app_commit_result_release(struct at_app_commit_result *res);

#endif
