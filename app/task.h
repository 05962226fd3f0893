/*
 * task.h - looking at tasks: path, list, status, log. Nothing is changed.
 */
#ifndef AT_APP_TASK_H
#define AT_APP_TASK_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "app/checkpoint.h"
#include "core/json.h"
#include "core/merge.h"
#include "core/state.h"

/*
 * The value of a config key as git reads it for the repository (system,
 * global, the repository's own; never a task's) into buf: false when it is
 * unset, too long, or there is no repository. For a front end's settings
 * (core.pager).
 */
bool at_app_config(const struct at_app *app, const char *key, char *buf, size_t size);

/* The task named (NULL: the one whose worktree holds app->dir): `path`. */
int at_app_task(const struct at_app *app, const char *name, struct at_task *out,
		struct at_error *err);

/*
 * The task, whose path is a real directory with every file (`agenttask
 * path`): a layered task is made full first (app/fullform.c; refused,
 * AT_EBUSY, while a command of it runs), and stays full.
 */
int at_app_path(const struct at_app *app, const char *name, struct at_task *out,
		struct at_error *err);

struct at_app_list_entry {
	struct at_task task;
	struct at_task_info info;
	struct at_error err;            /* set when its state could not be read */
};

struct at_app_list {
	struct at_app_list_entry *v;    /* sorted by name */
	size_t n, cap;
	struct at_task_list records;    /* problems: records that could not be read */
};

/* Every task, with its state; a record or a task that cannot be read spoils only itself. */
int at_app_list(const struct at_app *app, struct at_app_list *out, struct at_error *err);
/* The same without looking at any worktree (info zeroed): for `list --name-only`. */
int at_app_list_names(const struct at_app *app, struct at_app_list *out, struct at_error *err);
void at_app_list_release(struct at_app_list *l);

/* Would the task still merge: the conflict preview (git/merge.h). */
struct at_app_preview {
	bool ok;                        /* false: it could not be made; err says why */
	struct at_merge_preview pv;
	struct at_error err;
};

/*
 * The task's setup record (app/setup.h) as `new --json` and `status --json`
 * show it: {state: "done" | "failed", steps, done, command?, exit_code?,
 * timed_out?}; NULL when it had no setup (or its record cannot be read).
 */
at_json *at_app_setup_json(const struct at_app *app, const char *name);

void at_app_preview_release(struct at_app_preview *p);

struct at_app_status {
	struct at_task task;
	struct at_task_info info;
	struct at_app_preview preview;  /* a preview that fails does not fail the status */
	struct at_strlist warnings;     /* the import's (app/gitview.h) */
	at_json *setup;                 /* its setup's record (app/setup.h), or NULL */
};

int at_app_status(const struct at_app *app, const char *name, struct at_app_status *out,
		  struct at_error *err);
void at_app_status_release(struct at_app_status *s);

struct at_app_log {
	char task[AT_NAME_MAX + 1];
	at_json *entries;               /* an array, oldest first (core/audit.h) */
	struct at_strlist warnings;
	bool has_runs;                  /* the task exists: runs holds its checkpoints */
	struct at_app_checkpoints runs; /* app/checkpoint.h, with what each run changed */
	size_t since;                   /* the entry that made the task as it is now */
};

/*
 * A named task's log is read even after the task is gone. While it exists,
 * runs has what each of its runs changed: at_app_log_add_changes
 * (app/json.h) adds it to their entries (files, additions, deletions).
 */
int at_app_log(const struct at_app *app, const char *name, struct at_app_log *out,
	       struct at_error *err);
void at_app_log_release(struct at_app_log *l);

#endif
