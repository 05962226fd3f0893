/*
 * gc.h - removing what interrupted commands left behind.
 *
 * The report is a plain list of lines (core/report.h), one per thing
 * removed, left alone or failed, so that trash.c and scratch.c, which gc
 * calls, add to it without knowing gc: no file here includes this one but
 * gc.c's users. The caller holds the repository lock (core/lock.h).
 */
#ifndef AT_GIT_GC_H
#define AT_GIT_GC_H

#include "core/report.h"
#include "git/repo.h"

struct at_gc_opts {
	int trash_days;          /* prune trash older than this many days */
	bool force;              /* kill the running commands of a task to remove */
};
#define AT_GC_OPTS_INIT { AT_TRASH_DAYS_DEFAULT, false }

/*
 * Remove what crashes left; report each thing done or left alone. A task
 * with a running command (core/runs.h) is left alone, unless opts->force
 * (its commands are killed). A failure with one thing is reported (a line
 * marked failed) and gc goes on with the rest; the return is negative only
 * when gc could not go on at all (the records unreadable, out of memory).
 */
int at_task_gc(struct at_repo *r, const struct at_gc_opts *opts, struct at_report *report,
	       struct at_error *err);

#endif
