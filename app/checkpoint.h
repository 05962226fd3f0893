/*
 * checkpoint.h - a task's checkpoints and what each run changed (issue 26).
 *
 * Before every run of a task (CLI, MCP, a gate's check in the task: app/run.c)
 * its full state is kept as checkpoint N (git/checkpoint.h), and N is the
 * run's number. The state a run left is the next checkpoint's (taken
 * before the next run, or before a rewind), or for the task's last run the
 * task's state now: what the person or a tool did between two runs counts
 * as the earlier run's.
 *
 * rewind (app/rewind.h) brings the task back to a checkpoint.
 *
 * A checkpoint gets the task's state in one place only: at_app_view_state
 * (app/internal.h), that is at_task_state (git/snapshot.h), once per
 * command, shared with whatever else the command looks at. Its cost is that
 * state's: for a full worktree one scan (the stat of every file; a file
 * hashed, a directory listed, only when its stat data moved); for a
 * layered task (issue 29) its upper, O(changes), with nothing here changed.
 */
#ifndef AT_APP_CHECKPOINT_H
#define AT_APP_CHECKPOINT_H

#include <stdbool.h>

#include "app/app.h"
#include "core/change.h"
#include "core/checkpoint.h"

struct at_app_run_change {
	struct at_checkpoint before;    /* the checkpoint the run started from (its number) */
	bool last;                      /* compared with the task's state now */
	bool known;                     /* cs was worked out */
	struct at_change_set cs;        /* what it changed (base: the checkpoint's commit) */
};

struct at_app_checkpoints {
	struct at_task task;
	struct at_checkpoint_list list; /* every checkpoint, by number */
	struct at_app_run_change *runs; /* the runs', with what each changed, by number */
	size_t nruns;
	struct at_strlist warnings;
};

/*
 * The checkpoints of task name (NULL: the one holding app->dir), and with
 * changes, what each run changed: its checkpoint against the next one, the
 * last against the state now (one scan). A worktree that cannot be read
 * (gone, or holding what agenttask does not record) leaves the last run
 * without changes and says why in warnings. Release out on success or not.
 */
int at_app_checkpoints(const struct at_app *app, const char *name, bool changes,
		       struct at_app_checkpoints *out, struct at_error *err);
void at_app_checkpoints_release(struct at_app_checkpoints *c);

/*
 * N as typed (a run's or a checkpoint's number: 1, 2, ...) into *out;
 * AT_EUSAGE naming it when it is not a number from 1.
 */
int at_app_checkpoint_number(const char *text, unsigned *out, struct at_error *err);

#endif
