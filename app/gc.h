/*
 * gc.h - removing what interrupted commands left behind (half-made tasks,
 * tasks whose worktree is gone, stray directories, abandoned gate worktrees)
 * and pruning old trash. A task whose worktree was moved is left alone.
 */
#ifndef AT_APP_GC_H
#define AT_APP_GC_H

#include "app/app.h"

struct at_app_gc_opts {
	int trash_days;                  /* prune trash older than this; AT_TRASH_DAYS_DEFAULT */
	struct at_progress_hook progress;
};

#define AT_APP_GC_OPTS_INIT { AT_TRASH_DAYS_DEFAULT, { NULL, NULL } }

struct at_app_gc_result {
	struct at_strlist done;          /* one line for each thing removed or left alone */
};

int at_app_gc(const struct at_app *app, const struct at_app_gc_opts *o,
	      struct at_app_gc_result *out, struct at_error *err);
void at_app_gc_result_release(struct at_app_gc_result *res);

#endif
