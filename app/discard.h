/*
 * discard.h - throwing a task away, and bringing it back.
 *
 * Nothing is removed unless the whole state is safe in the trash first
 * (git/trash.h: a commit under refs/agenttask/trash/NAME/). When the
 * worktree holds something git cannot record (a name git refuses, an
 * unreadable file), only `force` goes on, saving the commits alone: losing
 * the uncommitted rest is then the user's choice, said in so many words. A
 * task whose worktree was moved (`git worktree move`) is refused before the
 * trash is written. While a command of the task runs (`run`, core/runs.h)
 * discard refuses (AT_EBUSY), unless `force`, which kills it first.
 */
#ifndef AT_APP_DISCARD_H
#define AT_APP_DISCARD_H

#include <stdbool.h>

#include "app/app.h"
#include "core/trash.h"

struct at_app_discard_opts {
	const char *name;                /* NULL: the task holding app->dir */
	bool force;                      /* kill its running commands; save the commits only
					    when the full state cannot be saved */
	struct at_progress_hook progress;
};

struct at_app_discard_result {
	struct at_task task;
	char trash[AT_REF_MAX];          /* the trash entry that holds it */
	bool commits_only;               /* force: the uncommitted state was not saved */
	struct at_strlist warnings;
};

int at_app_discard(const struct at_app *app, const struct at_app_discard_opts *o,
		   struct at_app_discard_result *out, struct at_error *err);

/*
 * An entry of `drop NAME -- PATHSPEC` (app/drop.h) while task NAME is
 * there: the dropped files are put back into its worktree, unless one of
 * them changed since the drop (AT_EDIRTY naming it, nothing written). With
 * the task gone, any entry makes the task again, in its full state.
 */
struct at_app_restore_opts {
	const char *name;
	const char *entry;               /* of `trash NAME`: its number (1 the newest), its time
					    SECONDS.NANOS or its ref; NULL: the newest */
	bool force;                      /* a drop's entry: kill the task's running commands */
};

struct at_app_restore_result {
	struct at_task task;
	char trash[AT_REF_MAX];          /* the entry brought back */
	bool put_back;                   /* a drop's entry, into the task that was there */
	struct at_strlist warnings;      /* the entry could not be deleted afterwards */
};

/* AT_ENOTFOUND: no trash for the name (or no such entry); AT_EEXISTS: a task of that name is there. */
int at_app_restore(const struct at_app *app, const struct at_app_restore_opts *o,
		   struct at_app_restore_result *out, struct at_error *err);

/*
 * The trash (git/trash.h's entries), by task name and newest first; of task
 * name only, unless NULL. Nothing is changed. Release with
 * at_trash_list_release (core/trash.h).
 */
int at_app_trash(const struct at_app *app, const char *name, struct at_trash_list *out,
		 struct at_error *err);

/* Release either result. */
void at_app_discard_result_release(struct at_app_discard_result *res);
void at_app_restore_result_release(struct at_app_restore_result *res);

#endif
