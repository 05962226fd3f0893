/*
 * diff.h - a task's whole change against its merge base (or, in CI, a
 * head revision's against merge-base(base, head)), worked out once and shown
 * in any form: the change set, the patch, --stat, --name-only (git/diff.h
 * has what each is, exactly as git shows it), and whether the task still
 * merges (a preview against the very state the diff shows).
 *
 * The worktree is read, never changed: one scan for the task's full state.
 */
#ifndef AT_APP_DIFF_H
#define AT_APP_DIFF_H

#include "app/app.h"
#include "app/task.h"
#include "core/change.h"

struct at_app_diff_opts {
	const char *name;                /* the task (NULL: by app->dir) ... */
	const char *base_rev;            /* ... or CI: head_rev's change against base_rev */
	const char *head_rev;            /* NULL: HEAD */
	char *const *paths;              /* a pathspec (git's, as typed in app->dir): only the
					    files it matches, a rename whole when either path does */
	size_t npaths;
	bool since_review;               /* a task's: against the state last reviewed (a
					    comment made, a part accepted), not its merge base;
					    AT_EUSAGE when there is none yet */
	const char *against;             /* a task of this repository: from the task's full
					    state to this one's (--against), not from the base */
	const char *run;                 /* a task's run N as typed (app/checkpoint.h): only the
					    change it made, its checkpoint against the next one
					    (or the state now, for the last run) ... */
	const char *since;               /* ... or everything since just before run N: its
					    checkpoint against the state now. AT_EUSAGE for an N
					    that is no checkpoint of the task. The change set's
					    base is then the checkpoint's commit */
};

struct at_app_diff;

int at_app_diff_open(const struct at_app *app, const struct at_app_diff_opts *o,
		     struct at_app_diff **out, struct at_error *err);
void at_app_diff_free(struct at_app_diff *d);

/* What went wrong on the way that did not stop the diff (the import of the task's commits). */
const struct at_strlist *at_app_diff_warnings(const struct at_app_diff *d);

/* The task compared (NULL in CI mode). */
const struct at_task *at_app_diff_task(const struct at_app_diff *d);

/* The change set (owned by d). */
int at_app_diff_changes(struct at_app_diff *d, const struct at_change_set **out,
			struct at_error *err);

/*
 * The changed files that tools on the host run or obey (core/hostfiles.h:
 * what the gate's host_files rule flags), sorted; owned by d, worked out on
 * first use. Within the pathspec, like the change set.
 */
int at_app_diff_host_files(struct at_app_diff *d, const struct at_strlist **out,
			   struct at_error *err);

/* The patch, line by line; a stop by cb gives AT_ESYS. */
int at_app_diff_patch(struct at_app_diff *d, at_diff_line_cb cb, void *payload,
		      struct at_error *err);

/* The texts of --stat and --name-only (malloc'd into *out). */
int at_app_diff_stat(struct at_app_diff *d, const struct at_diff_stat_opts *o, char **out,
		     struct at_error *err);
int at_app_diff_names(struct at_app_diff *d, char **out, struct at_error *err);

/*
 * Has the base moved, does the task still merge (a task's diff only): the
 * preview of the state this diff shows, made on first use. Release it with
 * at_app_preview_release.
 */
void at_app_diff_preview(struct at_app_diff *d, struct at_app_preview *out);

#endif
