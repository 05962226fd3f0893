/*
 * drop.h - throwing away part of a task's change (`drop NAME -- PATHSPEC`).
 *
 * The selection is accept's (git/partial.h: the files `diff NAME --
 * PATHSPEC` shows, --exclude left out). Nothing is changed unless the
 * task's full state is safe in the trash first (git/trash.h: an entry that
 * also records the tree the drop leaves); then the files of the selected
 * changes are written back to what the merge base has there, in the task's
 * worktree, through git/apply_paths.h's writes (each file whole, no link
 * followed). The rest of the change stays as it was. `restore NAME` puts
 * the dropped files back while the task is there (app/discard.h). As
 * discard, drop refuses (AT_EBUSY) while a command of the task runs, unless
 * force, which kills it first.
 */
#ifndef AT_APP_DROP_H
#define AT_APP_DROP_H

#include <stdbool.h>

#include "app/app.h"

struct at_app_drop_opts {
	const char *name;                /* NULL: the task holding app->dir */
	char *const *paths;              /* the changes to drop (a pathspec as typed in app->dir) */
	size_t npaths;
	char *const *exclude;            /* ... but not these */
	size_t nexclude;
	bool force;                      /* kill the task's running commands first */
	const struct at_oid *pick_rest;  /* drop -p: keep this tree (app/pick.h), */
	const struct at_oid *pick_state; /* ... picked from this full state (else AT_ESTALE) */
};

struct at_app_drop_result {
	struct at_task task;
	char trash[AT_REF_MAX];          /* the entry holding the full state before */
	struct at_strlist dropped;       /* the paths of the changes thrown away */
	struct at_strlist left;          /* the paths of the changes kept */
	struct at_strlist warnings;
};

/* AT_EUSAGE without a pathspec, or for one that matches no change (nothing changed). */
int at_app_drop(const struct at_app *app, const struct at_app_drop_opts *o,
		struct at_app_drop_result *out, struct at_error *err);
void at_app_drop_result_release(struct at_app_drop_result *res);

#endif
