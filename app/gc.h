/*
 * gc.h - removing what interrupted commands left behind (half-made tasks,
 * tasks whose worktree is gone, stray directories, abandoned gate worktrees)
 * and pruning old trash. A task whose worktree was moved is left alone.
 */
#ifndef AT_APP_GC_H
#define AT_APP_GC_H

#include "app/app.h"
#include "core/report.h"

struct at_app_gc_opts {
	int trash_days;                  /* prune trash older than this; AT_TRASH_DAYS_DEFAULT */
	bool force;                      /* kill the running commands of a task to remove */
	struct at_progress_hook progress;
	/*
	 * >= 0: also move to the trash (as discard, restorable) the ready tasks
	 * whose audit log's newest entry (or creation) is that many days old or
	 * older; a task whose command runs never (force or not). -1: none.
	 */
	int max_age_days;
	bool dry_run;                    /* with max_age_days: report those tasks, do nothing */
};

#define AT_APP_GC_OPTS_INIT { AT_TRASH_DAYS_DEFAULT, false, { NULL, NULL }, -1, false }

/*
 * A task with a running command is left alone unless force. A failure with
 * one thing is a line of the report marked failed (done.nfailed > 0), and gc
 * went on with the rest; an error means gc could not go on at all.
 */
struct at_app_gc_result {
	struct at_report done;           /* one line for each thing removed, left alone, failed */
};

int at_app_gc(const struct at_app *app, const struct at_app_gc_opts *o,
	      struct at_app_gc_result *out, struct at_error *err);
void at_app_gc_result_release(struct at_app_gc_result *res);

#endif
