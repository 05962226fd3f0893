/*
 * fork.h - a task that starts from another's whole state: `agenttask fork
 * NAME NEW`.
 *
 * NEW gets a branch at NAME's tip, a worktree with NAME's uncommitted and
 * untracked files written over it (its full state, as diff sees it; files
 * git ignores are not part of it), NAME's git as a run sees it (the view's
 * upper: HEAD, index, refs, objects, config, with NAME's worktree's own
 * files renamed to NEW's) and NAME's lasting HOME, each copied without
 * following a link or opening a FIFO (core/copytree.h), data shared by
 * reflink where the file system can; and NAME's base. All or nothing:
 * NEW stays half-made (its record CREATING) until every part is there, and
 * is rolled back on failure; a kill leaves what gc (or the next `fork` or
 * `new` of NEW) rolls back. Refused, nothing made: NEW exists (AT_EEXISTS),
 * NAME is unknown (AT_ENOTFOUND), a command of NAME runs (AT_EBUSY: the
 * copy would be of a state that changes under it). Logged (`fork`, in
 * NEW's log).
 */
#ifndef AT_APP_FORK_H
#define AT_APP_FORK_H

#include "app/app.h"
#include "core/oid.h"

struct at_app_fork_opts {
	const char *name;                /* the task forked */
	const char *new_name;
};

struct at_app_fork_result {
	struct at_task task;             /* NEW, ready */
	struct at_oid tip;               /* the commit both start from */
	struct at_strlist warnings;      /* NAME's import's; an audit entry not written */
};

int at_app_fork(const struct at_app *app, const struct at_app_fork_opts *o,
		struct at_app_fork_result *out, struct at_error *err);
void at_app_fork_result_release(struct at_app_fork_result *res);

#endif
